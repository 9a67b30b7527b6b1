// Fuzz target: DRAM files and presets (docs/dram-model.md). A DRAM that loads is also readied for
// `reusesim memtest` as far as plain C++ goes: the address mapper, one channel's timing state and
// a few requests of every traffic pattern.

#include "config/accelerator_loader.h"
#include "fuzz_support.h"
#include "timing/dram_timing.h"
#include "timing/traffic_patterns.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::accept_bad_input([&] {
    // Relative preset paths are found among the shipped presets.
    const spec::DramSpec spec =
        config::load_dram_text(fuzz::input_text(data, size), fuzz::source_path("configs/dram/fuzz.yaml"));
    const timing::DramAddressMapper mapper(spec);
    const timing::DramTimingState timing(spec);
    for (const std::string& pattern : timing::traffic_pattern_names()) {
      for (const spec::MemoryRequest& request : timing::make_traffic_pattern(pattern, 16, mapper.burst_bytes(), spec, mapper)) {
        mapper.decode(request.address);
        mapper.bytes_to_run_end(request.address);
      }
    }
  });
  return 0;
}
