#pragma once
// What the fuzz targets share (docs/fuzzing.md). A target takes any bytes and must end in a result
// or in an error that `reusesim` reports as bad input (exit 2); any other exception, a crash, a
// sanitizer report, a hang or a memory blow-up is a finding.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "import/import_error.h"
#include "mapping/mapper.h"
#include "program/program_text.h"
#include "spec/accelerator_spec.h"
#include "util/checked_math.h"
#include "util/diagnostics.h"
#include "workload/shape.h"

namespace reusesim::fuzz {

inline std::string input_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A shipped file of the source tree (configs, models), for targets that need a valid document.
inline std::string source_path(const std::string& relative) { return std::string(REUSESIM_SOURCE_DIR) + "/" + relative; }

// A property the target checks failed (e.g. a round trip): escapes accept_bad_input as a finding.
class PropertyFailure : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Runs `body` and takes the errors the CLI turns into exit 2 (cli::run_guarded, and replay for
// ProgramFormatError; import for ImportError) as a clean end; every other exception escapes to libFuzzer as a finding.
template <typename Body>
void accept_bad_input(Body&& body) {
  try {
    body();
  } catch (const util::InputError&) {
  } catch (const mapping::MappingError&) {
  } catch (const program::ProgramFormatError&) {
  } catch (const util::CountOverflow&) {
  } catch (const import::ImportError&) {
  }
}

// Maps every layer at `batch`, as `reusesim run` does before it replays.
inline void map_network(const workload::Network& network, std::int64_t batch, const spec::AcceleratorSpec& accelerator) {
  mapping::map_network(network, batch, accelerator);
}

}  // namespace reusesim::fuzz
