// The mapper: programs that conserve MACs, respect the buffers and their own order, and the
// reuse choices an architect would expect. Plain C++ (no simulation).
#include <catch2/catch.hpp>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "mapping/mapper.h"

using namespace reusesim;

namespace {

hw::AcceleratorSpec accelerator(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/" + name + ".yaml", overrides);
}

config::LoadedModel zoo(const std::string& name) {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/" + name + ".yaml");
}

std::vector<mapping::LayerProgram> map_all(const workload::Network& network, std::int64_t batch,
                                           const hw::AcceleratorSpec& spec) {
  const auto layouts = mapping::layout_network(network, batch, mapping::element_bytes(spec));
  std::vector<mapping::LayerProgram> programs;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    programs.push_back(mapping::map_layer(network.layers[i], batch, spec, layouts[i]));
  }
  return programs;
}

// Bytes the program loads of weights.
std::int64_t weight_load_bytes(const mapping::LayerProgram& program) {
  std::int64_t bytes = 0;
  for (const mapping::Step& step : program.steps) {
    if (step.kind == mapping::StepKind::load && step.tensor == mapping::TensorRole::weights) bytes += static_cast<std::int64_t>(step.bytes);
  }
  return bytes;
}

// The one layer of an int8 model `features` -> `features` (no bias) with `tiling` pinned, mapped at
// `batch` on the small accelerator.
mapping::LayerProgram map_pinned_linear(int features, const std::string& tiling, std::int64_t batch) {
  const std::string width = std::to_string(features);
  const config::LoadedModel model = config::load_model_text(
      "name: linear" + width + "\nprecision: int8\ninput: {features: " + width + "}\nlayers:\n" +
          "  - {name: fc, type: linear, out_features: " + width + ", bias: false, tiling: " + tiling + "}\n",
      "m.yaml");
  return map_all(model.network, batch, accelerator("small")).front();
}

}  // namespace

TEST_CASE("mapper: every program replays exactly the layer's MACs and vector work", "[mapper]") {
  for (const std::string arch : {"small", "snowflake", "tpu_v1"}) {
    const hw::AcceleratorSpec spec = accelerator(arch);
    for (const std::string model_name : {"alexnet", "googlenet", "mobilenet_v1", "deepspeech2", "lstm_lm"}) {
      const config::LoadedModel model = zoo(model_name);
      for (std::int64_t batch : {1, 4}) {
        const auto programs = map_all(model.network, batch, spec);
        for (std::size_t i = 0; i < programs.size(); ++i) {
          const workload::NetworkLayer& layer = model.network.layers[i];
          INFO(arch << " " << model_name << " " << layer.spec.name << " batch " << batch);
          CHECK(programs[i].macs == layer.counts.macs * batch);
          // Views (flatten, to_sequence, concat) move nothing; everything else does its work.
          if (!programs[i].steps.empty()) CHECK(programs[i].vector_ops == layer.counts.vector_ops * batch);
        }
      }
    }
  }
}

TEST_CASE("mapper: steps only wait for earlier steps, and loads fit their buffer", "[mapper]") {
  const hw::AcceleratorSpec spec = accelerator("small");
  // small: weights 32 KiB, inputs 32 KiB, outputs 16 KiB; double buffering halves each.
  for (const mapping::LayerProgram& program : map_all(zoo("resnet50").network, 2, spec)) {
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const mapping::Step& step = program.steps[i];
      for (std::int32_t before : step.after) CHECK(static_cast<std::size_t>(before) < i);
      if (step.kind == mapping::StepKind::load && step.tensor == mapping::TensorRole::inputs) {
        CHECK(step.bytes <= 16 * 1024);
      }
      if (step.kind == mapping::StepKind::store) CHECK(step.bytes <= 8 * 1024);
    }
  }
}

TEST_CASE("mapper: the fewest estimated cycles win, and weights move once when M is one tile", "[mapper]") {
  // small (int8, 16 x 16 ws): weights 32 KiB, inputs 32 KiB, outputs 16 KiB, halved for double
  // buffering. A 128 -> 128 linear layer at batch 256 (GEMM M 256, N 128, K 128):
  //   m64 n128 k128 (all weights in one tile, 4 M tiles): each tile 8*8 = 64 folds of
  //     2*16 + 16 + 64 - 2 = 110 cycles = 7,040; 4 tiles = 28,160 cycles.
  //   m256 n32 k64 (M streamed whole): 4*2 = 8 folds of 2*16 + 16 + 256 - 2 = 302 = 2,416 a tile;
  //     8 tiles = 19,328 cycles: fewer, because weight-stationary fill and drain are paid per
  //     fold and a longer stream amortises them. Its weights still move once (one M tile).
  const config::LoadedModel model = config::load_model_text(R"(
name: linear128
precision: int8
input: {features: 128}
layers:
  - {name: fc, type: linear, out_features: 128, bias: false}
)", "m.yaml");
  const auto programs = map_all(model.network, 256, accelerator("small"));
  CHECK(weight_load_bytes(programs.front()) == 16'384);
  CHECK(programs.front().mapping == "gemm 256x128x128, tiles m256 n32 k64, order n-m");
  CHECK(programs.front().estimated_cycles == 19'328);
}

TEST_CASE("mapper: at batch 1 a linear layer moves each weight once", "[mapper]") {
  // 4096 x 4096 fp16 on snowflake: M = 1, a single M tile: 4096 * 4096 * 2 = 33,554,432 bytes.
  const auto programs = map_all(zoo("linear4096").network, 1, accelerator("snowflake"));
  CHECK(weight_load_bytes(programs.front()) == 4096LL * 4096 * 2);
}

TEST_CASE("mapper: recurrent steps run in order and keep fitting weights resident", "[mapper]") {
  // mlp-sized GRU: input 8, hidden 16, 5 steps. Weights 3 * 16 * (8 + 16) * 1 B = 1,152 bytes
  // fit small's 32 KiB weight buffer: one weight load, then per step a load of x(t), the gate
  // GEMM (M = batch, N = 48, K = 24), and a store of h(t).
  const config::LoadedModel model = config::load_model_text(R"(
name: gru
precision: int8
input: {sequence: 5, features: 8}
layers:
  - {name: gru, type: gru, hidden_size: 16}
)", "m.yaml");
  const auto programs = map_all(model.network, 2, accelerator("small"));
  const mapping::LayerProgram& program = programs.front();
  std::int64_t weight_loads = 0, computes = 0, stores = 0;
  std::int32_t previous_compute = -1;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const mapping::Step& step = program.steps[i];
    if (step.kind == mapping::StepKind::load && step.tensor == mapping::TensorRole::weights) ++weight_loads;
    if (step.kind == mapping::StepKind::store) ++stores;
    if (step.kind != mapping::StepKind::compute) continue;
    ++computes;
    CHECK(step.gemm.m == 2);
    CHECK(step.gemm.n == 48);
    CHECK(step.gemm.k == 24);
    // Step t waits for step t-1's h.
    if (previous_compute >= 0) {
      CHECK(std::find(step.after.begin(), step.after.end(), previous_compute) != step.after.end());
    }
    previous_compute = static_cast<std::int32_t>(i);
  }
  CHECK(weight_loads == 1);
  CHECK(computes == 5);
  CHECK(stores == 5);
  CHECK(program.mapping.find("resident") != std::string::npos);
}

TEST_CASE("mapper: weights that do not fit stream every step", "[mapper]") {
  // lstm_lm's LSTM: 4 * 1024 * (1024 + 1024) * 2 B = 16 MiB of weights against snowflake's
  // weight buffer: they stream from DRAM at every one of the 35 steps.
  const auto programs = map_all(zoo("lstm_lm").network, 1, accelerator("snowflake"));
  const mapping::LayerProgram& lstm = programs[1];
  REQUIRE(lstm.layer == "lstm1");
  CHECK(weight_load_bytes(lstm) == 35LL * 4 * 1024 * 2048 * 2);
  CHECK(lstm.mapping.find("streamed from DRAM every step") != std::string::npos);
}

TEST_CASE("mapper: says why when nothing fits", "[mapper]") {
  // A GRU step needs x(t) and h(t-1) of one sample in half the input buffer: (1024 + 16) bytes
  // against 1 KiB / 2 = 512.
  const config::LoadedModel model = config::load_model_text(R"(
name: wide
precision: int8
input: {sequence: 4, features: 1024}
layers:
  - {name: gru, type: gru, hidden_size: 16}
)", "m.yaml");
  const hw::AcceleratorSpec tiny = accelerator("small", {"sram.buffers.inputs.capacity_kib=1"});
  const auto layouts = mapping::layout_network(model.network, 1, 1);
  CHECK_THROWS_WITH(mapping::map_layer(model.network.layers.front(), 1, tiny, layouts.front()),
                    "layer gru: one sample's step (1040 bytes of x and h, a weight column of as many) does not fit "
                    "half the input, weight and output buffers (1024, 32768, 16384)");
}

TEST_CASE("mapper: flatten, to_sequence and concat are views that move nothing", "[mapper]") {
  const auto programs = map_all(zoo("googlenet").network, 1, accelerator("small"));
  const auto network = zoo("googlenet").network;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const auto type = network.layers[i].spec.type;
    if (type == workload::LayerType::concat || type == workload::LayerType::flatten) {
      CHECK(programs[i].steps.empty());
      CHECK(programs[i].dram_read_bytes == 0);
    }
  }
}

TEST_CASE("mapper: DRAM accesses widen to whole bursts", "[mapper]") {
  // 100 bytes from address 30 with 64-byte bursts touch bursts 0..127 and 128..191: 192 bytes.
  CHECK(mapping::burst_extent(30, 100, 64) == 192);
  CHECK(mapping::burst_extent(64, 64, 64) == 64);
  CHECK(mapping::burst_extent(0, 0, 64) == 0);
}

TEST_CASE("mapper: a layer can pin its tiling and loop order", "[mapper]") {
  // The same 128 -> 128 layer as above, pinned to the tiling the search did not pick: all
  // weights in one tile, 4 M tiles of 64, order n-m. Weights move once (16,384 bytes); the
  // estimate is the 28,160 compute cycles derived above.
  const mapping::LayerProgram program = map_pinned_linear(128, "{m: 64, n: 128, k: 128, order: n-m}", 256);
  CHECK(program.mapping == "gemm 256x128x128, tiles m64 n128 k128, order n-m, weights stay for all m (pinned)");
  CHECK(program.estimated_cycles == 28'160);
  CHECK(weight_load_bytes(program) == 16'384);
  // Pinned tiles of M 256 need 256 * 128 = 32 KiB of outputs, twice the 8 KiB half-buffer.
  CHECK_THROWS_WITH(map_pinned_linear(128, "{m: 256, n: 128, k: 128, order: m-n}", 256),
                    "layer fc: the pinned tiling m256 n128 k128 does not fit half the weight, input and output buffers "
                    "(32768, 32768, 16384 bytes)");
}

// 1x1x1 tiles of a 4096 x 4096 layer would be 4096^2 = 16,777,216 tiles, more than the 4,000,000
// steps a layer may have: refused for that, not as a tiling that does not fit the buffers.
TEST_CASE("mapper: a pinned tiling with too many tiles is refused", "[mapper]") {
  CHECK_THROWS_WITH(map_pinned_linear(4096, "{m: 1, n: 1, k: 1, order: n-m}", 1),
                    "layer fc: the pinned tiling m1 n1 k1 makes 16777216 tiles, more than the 4000000 steps one "
                    "layer may have; pin larger tiles");
}

TEST_CASE("mapper: stacked and bidirectional recurrent layers wait for what they read and replace", "[mapper]") {
  // 2 stacked bidirectional LSTM layers (input 8, hidden 16, 4 steps) on small: every pass's
  // weights (4 * 16 * 24 = 1,536 and 4 * 16 * 48 = 3,072 bytes) fit the weight buffer, but one
  // pass's resident weights may only replace the previous pass's after its last compute; and the
  // upper layer's x(t) holds both directions of the lower layer, so it waits for their last stores.
  const config::LoadedModel model = config::load_model_text(R"(
name: stacked
precision: int8
input: {sequence: 4, features: 8}
layers:
  - {name: lstm, type: lstm, hidden_size: 16, num_layers: 2, bidirectional: true}
)", "m.yaml");
  const std::vector<mapping::LayerProgram> programs = map_all(model.network, 1, accelerator("small"));
  const mapping::LayerProgram& program = programs.front();
  std::vector<std::int32_t> weight_loads, stores;
  std::int32_t first_upper_x = -1;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const mapping::Step& step = program.steps[i];
    if (step.kind == mapping::StepKind::load && step.tensor == mapping::TensorRole::weights) {
      weight_loads.push_back(static_cast<std::int32_t>(i));
    }
    if (step.kind == mapping::StepKind::store) stores.push_back(static_cast<std::int32_t>(i));
    // The first input load after the third weight load belongs to the upper layer.
    if (weight_loads.size() == 3 && first_upper_x < 0 && step.kind == mapping::StepKind::load &&
        step.tensor == mapping::TensorRole::inputs) {
      first_upper_x = static_cast<std::int32_t>(i);
    }
  }
  REQUIRE(weight_loads.size() == 4);  // 2 layers x 2 directions, each resident
  REQUIRE(stores.size() >= 8);        // 4 steps x 2 directions in the lower layer alone
  for (std::size_t pass = 1; pass < weight_loads.size(); ++pass) {
    CHECK_FALSE(program.steps[static_cast<std::size_t>(weight_loads[pass])].after.empty());
  }
  REQUIRE(first_upper_x >= 0);
  const auto& after = program.steps[static_cast<std::size_t>(first_upper_x)].after;
  // The lower layer's two directions end with stores 3 (forward, t = 3) and 7 (backward, t = 0).
  CHECK(std::find(after.begin(), after.end(), stores[3]) != after.end());
  CHECK(std::find(after.begin(), after.end(), stores[7]) != after.end());
}
