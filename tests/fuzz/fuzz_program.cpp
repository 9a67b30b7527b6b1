// Fuzz target: data-movement program files (docs/program-format.md). A program that reads must
// survive the documented round trip write(read(write(x))) == write(x) and have names the JSON
// report can hold, and is checked against the shipped small accelerator as `reusesim replay` does
// before it simulates.

#include <nlohmann/json.hpp>

#include "config/accelerator_loader.h"
#include "fuzz_support.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const spec::AcceleratorSpec spec = config::load_accelerator_file(fuzz::source_path("configs/small.yaml"));
  const auto burst_bytes = static_cast<std::uint64_t>(spec.dram.burst_bytes());
  fuzz::accept_bad_input([&] {
    const std::vector<program::ProgramRecord> programs =
        program::read_programs(fuzz::input_text(data, size), "program.txt", burst_bytes);
    const std::string written = program::write_programs(programs);
    if (program::write_programs(program::read_programs(written, "written.txt", burst_bytes)) != written) {
      throw fuzz::PropertyFailure("the written program does not read back to the same text");
    }
    // The replay report writes these as JSON, which throws on anything but UTF-8.
    for (const program::ProgramRecord& record : programs) {
      nlohmann::json{record.program.layer, record.program.type, record.program.mapping}.dump();
    }
    program::check_programs_on(programs, spec, "program.txt");
  });
  return 0;
}
