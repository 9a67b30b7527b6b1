// Fuzz target: SCALE-Sim topology files (.csv, docs/import.md). A topology that imports must give
// a model file that `reusesim` loads back to the same layers, MACs and parameters, as `reusesim
// import scalesim` checks before it writes (a refusal there is an internal error).

#include "config/model_loader.h"
#include "fuzz_support.h"
#include "import/scalesim_import.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::accept_bad_input([&] {
    const import::ImportedModel model = import::import_scalesim_topology(fuzz::input_text(data, size), "topology.csv");
    const workload::Network network = import::build_imported(model, "topology.csv");
    const std::string text = import::model_yaml(model);
    workload::Network loaded;
    try {
      loaded = config::load_model_text(text, "imported.yaml").network;
    } catch (const util::InputError& error) {
      throw fuzz::PropertyFailure("the imported model does not load back: " + std::string(error.what()) + text);
    }
    if (loaded.layers.size() != network.layers.size() || loaded.total_macs() != network.total_macs() ||
        loaded.total_params() != network.total_params()) {
      throw fuzz::PropertyFailure("the imported model loads back with other layers, MACs or parameters:\n" + text);
    }
  });
  return 0;
}
