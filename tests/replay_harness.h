#pragma once
// Shared by the SystemC replay tests: maps a model at some batch sizes and replays every layer in
// one simulation (so once per process) through the driver, as `reusesim run` does.
#include <catch2/catch.hpp>

#include <systemc>

#include <string>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "simulate/plan.h"
#include "simulate/replay.h"

struct Replayed {
  std::vector<reusesim::results::LayerResult> results;
  std::vector<reusesim::program::LayerProgram> programs;
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

// Maps every layer of `model_text` at each batch size on configs/`arch`.yaml and replays them
// through the driver (every invariant checked), recording to `timeline` if given.
inline Replayed replay(const std::string& arch, const std::vector<std::string>& overrides,
                       const std::string& model_text, const std::vector<std::int64_t>& batches,
                       reusesim::results::TimelineRecorder* timeline = nullptr) {
  namespace config = reusesim::config;
  namespace simulate = reusesim::simulate;
  const reusesim::spec::AcceleratorSpec spec = fixtures::shipped_accelerator(arch, overrides);
  const config::LoadedModel model = config::load_model_text(model_text, "model.yaml");
  std::vector<std::size_t> layers(model.network.layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) layers[i] = i;
  simulate::RunPlan plan = simulate::plan_inference(spec, model.network, batches, layers, arch);
  Replayed replayed;
  for (const reusesim::program::LayerRun& run : plan.runs) replayed.programs.push_back(run.program);
  const simulate::Replay replay = simulate::replay(spec, std::move(plan.runs), timeline);
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  replayed.results = replay.results;
  return replayed;
}
