// Fuzz target: accelerator files (docs/accelerator-format.md). An accelerator that loads is also
// readied for simulation as far as plain C++ goes: the DRAM address mapper and one channel's timing
// state are built, and a tiny model with a layer of every MAC kind is mapped onto it, as
// `reusesim run` does before it replays; and its config.json (config/accelerator_writer.h) loads
// back as the same spec.

#include "config/accelerator_loader.h"
#include "config/accelerator_writer.h"
#include "config/model_loader.h"
#include "fuzz_support.h"
#include "timing/dram_address.h"
#include "timing/dram_timing.h"

using namespace reusesim;

namespace {

const workload::Network& tiny_network() {
  static const config::LoadedModel model = config::load_model_text(R"(
name: tiny
precision: int8
input: {channels: 3, height: 8, width: 8}
layers:
  - {name: conv, type: conv2d, out_channels: 8, kernel: 3, padding: 1, activation: relu}
  - {name: dw, type: conv2d, depthwise: true, kernel: 3, padding: 1}
  - {name: bn, type: batchnorm}
  - {name: sum, type: add, inputs: [conv, bn]}
  - {name: pool, type: maxpool, kernel: 2}
  - {name: seq, type: to_sequence}
  - {name: gru, type: gru, hidden_size: 8}
  - {name: lstm, type: lstm, hidden_size: 8, return_sequences: false}
  - {name: fc, type: linear, out_features: 10}
  - {name: prob, type: softmax}
)", "tiny.yaml");
  return model.network;
}

// A config.json that does not load is a finding too, not bad input.
void check_config_json(const spec::AcceleratorSpec& accelerator) {
  const std::string written = config::accelerator_json(accelerator);
  try {
    if (!(config::load_accelerator_text(written, "config.json") == accelerator)) {
      throw fuzz::PropertyFailure("config.json loads back as another accelerator:\n" + written);
    }
  } catch (const util::InputError& error) {
    throw fuzz::PropertyFailure(std::string("config.json does not load: ") + error.what() + "\n" + written);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::accept_bad_input([&] {
    // Relative preset paths are found next to the shipped accelerators.
    const spec::AcceleratorSpec spec =
        config::load_accelerator_text(fuzz::input_text(data, size), fuzz::source_path("configs/fuzz.yaml"));
    check_config_json(spec);
    const timing::DramAddressMapper mapper(spec.dram);
    mapper.decode(~std::uint64_t{0});
    const timing::DramTimingState timing(spec.dram);
    for (const std::int64_t batch : {1, 3}) fuzz::map_network(tiny_network(), batch, spec);
  });
  return 0;
}
