// Fuzz target: SCALE-Sim configuration files (.cfg, docs/import.md). A configuration that reads
// must give an accelerator file that `reusesim` loads (the importer checks the .cfg against the
// format's limits, so the loader refusing it is a finding, as it is an internal error in `reusesim
// import scalesim`), onto which a small convolution and a GEMM map as `reusesim run` maps them.

#include "config/accelerator_loader.h"
#include "fuzz_support.h"
#include "import/scalesim_import.h"

using namespace reusesim;

namespace {

workload::Network imported(const std::string& topology) {
  return import::build_imported(import::import_scalesim_topology(topology, "topology.csv"), "topology.csv");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const workload::Network conv = imported(
      "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
      "Conv1, 12, 12, 3, 3, 4, 8, 1,\nDP1, 8, 8, 3, 3, 4, 1, 2,\n");
  static const workload::Network gemm = imported("Layer, M, N, K,\nGemm1, 16, 24, 40,\n");
  fuzz::accept_bad_input([&] {
    const import::ScaleSimConfig config = import::read_scalesim_config(fuzz::input_text(data, size), "scale.cfg");
    const std::string text = import::accelerator_yaml(config, "scale.cfg");
    spec::AcceleratorSpec accelerator;
    try {
      accelerator = config::load_accelerator_text(text, "imported.yaml");
    } catch (const util::InputError& error) {
      throw fuzz::PropertyFailure("the imported accelerator does not load back: " + std::string(error.what()) + text);
    }
    for (const workload::Network* network : {&conv, &gemm}) {
      fuzz::accept_bad_input([&] { fuzz::map_network(*network, 1, accelerator); });
    }
  });
  return 0;
}
