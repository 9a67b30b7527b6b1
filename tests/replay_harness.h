#pragma once
// Shared by the SystemC replay tests: maps a model at some batch sizes and replays every layer in
// one simulation (so once per process).
#include <catch2/catch.hpp>

#include <systemc>

#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "hw/accelerator.h"
#include "mapping/mapper.h"

struct Replayed {
  std::vector<reusesim::hw::LayerResult> results;
  std::vector<reusesim::mapping::LayerProgram> programs;
};

// Convolution, pooling, a view and a linear layer: every kind of step, stalls of several causes.
constexpr const char* kChainModel = R"(
name: chain
precision: int8
input: {channels: 16, height: 32, width: 32}
layers:
  - {name: conv, type: conv2d, out_channels: 32, kernel: 3, padding: 1, activation: relu}
  - {name: pool, type: maxpool, kernel: 2}
  - {name: flat, type: flatten}
  - {name: fc, type: linear, out_features: 10}
)";

// Maps every layer of `model_text` at each batch size on configs/`arch`.yaml and replays them,
// recording to `timeline` if given.
inline Replayed replay(const std::string& arch, const std::vector<std::string>& overrides,
                       const std::string& model_text, const std::vector<std::int64_t>& batches,
                       reusesim::hw::TimelineRecorder* timeline = nullptr) {
  namespace config = reusesim::config;
  namespace hw = reusesim::hw;
  namespace mapping = reusesim::mapping;
  const hw::AcceleratorSpec spec =
      config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/" + arch + ".yaml", overrides);
  const config::LoadedModel model = config::load_model_text(model_text, "model.yaml");
  Replayed replayed;
  std::vector<hw::LayerRun> runs;
  for (std::int64_t batch : batches) {
    const mapping::NetworkMapping mapped = mapping::map_network(model.network, batch, spec);
    for (std::size_t i = 0; i < model.network.layers.size(); ++i) {
      runs.push_back(hw::LayerRun{batch, mapped.programs[i], i == 0});
      replayed.programs.push_back(runs.back().program);
    }
  }
  hw::Accelerator accelerator("accelerator", spec, runs, timeline);
  sc_core::sc_start();
  REQUIRE(accelerator.finished());
  replayed.results = accelerator.results();
  return replayed;
}
