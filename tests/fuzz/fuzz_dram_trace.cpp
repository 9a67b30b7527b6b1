// Fuzz target: DRAM request traces of `reusesim memtest --trace` (<hex address> <R|W> [cycle] per
// line). The requests that load are decoded to DRAM coordinates, as the DRAM system routes them.

#include "config/accelerator_loader.h"
#include "config/dram_trace_loader.h"
#include "fuzz_support.h"
#include "timing/dram_address.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const timing::DramAddressMapper mapper(config::load_dram("ddr4-2400"));
  fuzz::accept_bad_input([&] {
    // memtest's default --request-bytes.
    for (const spec::MemoryRequest& request : config::load_dram_trace_text(fuzz::input_text(data, size), "requests.trace", 64)) {
      mapper.decode(request.address);
      mapper.bytes_to_run_end(request.address);
    }
  });
  return 0;
}
