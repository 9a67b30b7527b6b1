// The mapper: programs that conserve MACs, respect the buffers and their own order, and the
// reuse choices an architect would expect. Plain C++ (no simulation).
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "mapping/gemm_mapper.h"
#include "mapping/mapper.h"
#include "mapping/program_builder.h"
#include "timing/array_timing.h"

using namespace reusesim;

namespace {

config::LoadedModel zoo(const std::string& name) {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/" + name + ".yaml");
}

std::vector<program::LayerProgram> map_all(const workload::Network& network, std::int64_t batch,
                                           const spec::AcceleratorSpec& spec) {
  const auto layouts = mapping::layout_network(network, batch, spec.element_bytes());
  std::vector<program::LayerProgram> programs;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    programs.push_back(mapping::map_layer(network.layers[i], batch, spec, layouts[i]));
  }
  return programs;
}

// Bytes the program loads of weights.
std::int64_t weight_load_bytes(const program::LayerProgram& program) {
  std::int64_t bytes = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) bytes += static_cast<std::int64_t>(step.bytes);
  }
  return bytes;
}

// The one layer of an int8 model `features` -> `features` (no bias) with `tiling` pinned, mapped at
// `batch` on the small accelerator.
program::LayerProgram map_pinned_linear(int features, const std::string& tiling, std::int64_t batch) {
  const std::string width = std::to_string(features);
  const config::LoadedModel model = config::load_model_text(
      "name: linear" + width + "\nprecision: int8\ninput: {features: " + width + "}\nlayers:\n" +
          "  - {name: fc, type: linear, out_features: " + width + ", bias: false, tiling: " + tiling + "}\n",
      "m.yaml");
  return map_all(model.network, batch, fixtures::shipped_accelerator("small")).front();
}

}  // namespace

TEST_CASE("mapper: every program replays exactly the layer's MACs and vector work", "[mapper]") {
  for (const std::string arch : {"small", "snowflake", "tpu_v1"}) {
    const spec::AcceleratorSpec spec = fixtures::shipped_accelerator(arch);
    for (const std::string model_name : {"alexnet", "googlenet", "mobilenet_v1", "deepspeech2", "lstm_lm"}) {
      const config::LoadedModel model = zoo(model_name);
      for (std::int64_t batch : {1, 4}) {
        const auto programs = map_all(model.network, batch, spec);
        for (std::size_t i = 0; i < programs.size(); ++i) {
          const workload::NetworkLayer& layer = model.network.layers[i];
          INFO(arch << " " << model_name << " " << layer.spec.name << " batch " << batch);
          CHECK(programs[i].macs == layer.counts.macs * batch);
          // Never below what the hardware must move: all parameters (biases too) and the output.
          CHECK(mapping::compulsory_traffic_problem(layer, batch, spec.element_bytes(), programs[i]) == "");
          // Views (flatten, to_sequence, concat) move nothing; everything else does its work.
          if (!programs[i].steps.empty()) CHECK(programs[i].vector_ops == layer.counts.vector_ops * batch);
        }
      }
    }
  }
}

TEST_CASE("mapper: steps only wait for earlier steps, and loads fit their buffer", "[mapper]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small");
  // small: weights 32 KiB, inputs 32 KiB, outputs 16 KiB; double buffering halves each.
  for (const program::LayerProgram& program : map_all(zoo("resnet50").network, 2, spec)) {
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const program::Step& step = program.steps[i];
      for (std::int32_t before : step.after) CHECK(static_cast<std::size_t>(before) < i);
      if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::inputs) {
        CHECK(step.bytes <= 16 * 1024);
      }
      if (step.kind == program::StepKind::store) CHECK(step.bytes <= 8 * 1024);
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
  const auto programs = map_all(model.network, 256, fixtures::shipped_accelerator("small"));
  CHECK(weight_load_bytes(programs.front()) == 16'384);
  CHECK(programs.front().mapping == "gemm 256x128x128, tiles m256 n32 k64, order n-m");
  CHECK(programs.front().estimated_cycles == 19'328);
}

TEST_CASE("mapper: at batch 1 a linear layer moves each weight once", "[mapper]") {
  // 4096 x 4096 fp16 on snowflake: M = 1, a single M tile: 4096 * 4096 * 2 = 33,554,432 bytes.
  const auto programs = map_all(zoo("linear4096").network, 1, fixtures::shipped_accelerator("snowflake"));
  CHECK(weight_load_bytes(programs.front()) == 4096LL * 4096 * 2);
}

TEST_CASE("mapper: recurrent steps run in order and keep fitting weights resident", "[mapper]") {
  // mlp-sized GRU: input 8, hidden 16, 5 steps. Weights 3 * 16 * (8 + 16) * 1 B = 1,152 bytes
  // and biases 3 * 16 * 2 (b_ih, b_hh) = 96 bytes fit small's 32 KiB weight buffer: one weight
  // load of 1,248 bytes, then per step a load of x(t), the gate GEMM (M = batch, N = 48, K = 24),
  // and a store of h(t).
  const config::LoadedModel model = config::load_model_text(R"(
name: gru
precision: int8
input: {sequence: 5, features: 8}
layers:
  - {name: gru, type: gru, hidden_size: 16}
)", "m.yaml");
  const auto programs = map_all(model.network, 2, fixtures::shipped_accelerator("small"));
  const program::LayerProgram& program = programs.front();
  std::int64_t weight_loads = 0, computes = 0, stores = 0;
  std::int32_t previous_compute = -1;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const program::Step& step = program.steps[i];
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) ++weight_loads;
    if (step.kind == program::StepKind::store) ++stores;
    if (step.kind != program::StepKind::compute) continue;
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
  CHECK(weight_load_bytes(program) == 1'248);
  CHECK(computes == 5);
  CHECK(stores == 5);
  CHECK(program.mapping.find("resident") != std::string::npos);
}

TEST_CASE("mapper: weights that do not fit stream every step", "[mapper]") {
  // lstm_lm's LSTM: 4 * 1024 gate columns of 1024 + 1024 weights and 2 biases (b_ih, b_hh),
  // 4 * 1024 * 2050 * 2 B = 16.0 MiB against snowflake's weight buffer: they stream from DRAM,
  // biases with their columns, at every one of the 35 steps.
  const auto programs = map_all(zoo("lstm_lm").network, 1, fixtures::shipped_accelerator("snowflake"));
  const program::LayerProgram& lstm = programs[1];
  REQUIRE(lstm.layer == "lstm1");
  CHECK(weight_load_bytes(lstm) == 35LL * 4 * 1024 * 2050 * 2);
  CHECK(lstm.mapping.find("streamed from DRAM every step") != std::string::npos);
}

// A GRU step needs x(t) and h(t-1), 1024 + 16 = 1,040 values, against half of a 1 KiB input buffer
// (512 bytes): its K is tiled like a linear layer's. Weights 48 x (1040 + 2) = 50,016 bytes do not
// fit small's 32 KiB weight buffer, so they stream. The search picks tiles m1 n48 k272 (272 =
// 17 x 16, the even split of 1,040 into 4 tiles along the 16 rows): K tiles 272, 272, 272, 224.
// M = 1 streams: 2*16 + 16 + 1 - 2 = 47 cycles a fold; a k272 tile has 17 x 3 = 51 folds, the
// k224 one 14 x 3 = 42; a step 3 x 51 + 42 = 195 folds = 9,165 cycles, 4 steps 36,660.
// A pinned tiling with all of K needs 1,040 input bytes in the 512-byte half: refused, saying so.
TEST_CASE("mapper: a recurrent step too wide for its buffers tiles K", "[mapper]") {
  const std::string text = R"(
name: wide
precision: int8
input: {sequence: 4, features: 1024}
layers:
  - {name: gru, type: gru, hidden_size: 16}
)";
  const spec::AcceleratorSpec tiny = fixtures::shipped_accelerator("small", {"sram.buffers.inputs.capacity_kib=1"});
  const config::LoadedModel model = config::load_model_text(text, "m.yaml");
  const program::LayerProgram program = map_all(model.network, 1, tiny).front();
  CHECK(program.mapping ==
        "recurrent: 4 steps in order, tiles m1 n48 k272, 4 tile(s) a step, weights streamed from DRAM every step");
  std::int64_t compute = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) compute += timing::gemm_cycles(tiny.compute, step.gemm).cycles;
  }
  CHECK(compute == 36'660);
  const config::LoadedModel pinned =
      config::load_model_text(text.substr(0, text.size() - 2) + ", tiling: {m: 1, n: 48, k: 1040, order: n-m}}\n", "m.yaml");
  CHECK_THROWS_WITH(map_all(pinned.network, 1, tiny),
                    "layer gru: the pinned tiling m1 n48 k1040 does not fit half the weight, input and output buffers "
                    "(32768, 1024, 16384 bytes)");
}

TEST_CASE("mapper: flatten, to_sequence and concat are views that move nothing", "[mapper]") {
  const auto programs = map_all(zoo("googlenet").network, 1, fixtures::shipped_accelerator("small"));
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
  CHECK(program::burst_extent(30, 100, 64) == 192);
  CHECK(program::burst_extent(64, 64, 64) == 64);
  CHECK(program::burst_extent(0, 0, 64) == 0);
}

TEST_CASE("mapper: a layer can pin its tiling and loop order", "[mapper]") {
  // The same 128 -> 128 layer as above, pinned to the tiling the search did not pick: all
  // weights in one tile, 4 M tiles of 64, order n-m. Weights move once (16,384 bytes); the
  // estimate is the 28,160 compute cycles derived above.
  const program::LayerProgram program = map_pinned_linear(128, "{m: 64, n: 128, k: 128, order: n-m}", 256);
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
  const std::vector<program::LayerProgram> programs = map_all(model.network, 1, fixtures::shipped_accelerator("small"));
  const program::LayerProgram& program = programs.front();
  std::vector<std::int32_t> weight_loads, stores;
  std::int32_t first_upper_x = -1;
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const program::Step& step = program.steps[i];
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) {
      weight_loads.push_back(static_cast<std::int32_t>(i));
    }
    if (step.kind == program::StepKind::store) stores.push_back(static_cast<std::int32_t>(i));
    // The first input load after the third weight load belongs to the upper layer.
    if (weight_loads.size() == 3 && first_upper_x < 0 && step.kind == program::StepKind::load &&
        step.tensor == program::TensorRole::inputs) {
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

namespace {

// An int8 model of `layers` (YAML list items) fed `input`.
config::LoadedModel int8_model(const std::string& input, const std::string& layers) {
  return config::load_model_text("name: m\nprecision: int8\ninput: " + input + "\nlayers:\n" + layers, "m.yaml");
}

// Bytes the program stores.
std::int64_t store_bytes(const program::LayerProgram& program) {
  std::int64_t bytes = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::store) bytes += static_cast<std::int64_t>(step.bytes);
  }
  return bytes;
}

}  // namespace

TEST_CASE("mapper: biases load with their weights, once when the weights stay resident", "[mapper]") {
  // int8 on small, batch 4. fc: 16 -> 8 with bias: 16 * 8 weights + 8 biases = 136 bytes, one
  // tile. conv: 3x3, 4 -> 8 channels on 8x8 (padding 1): 3 * 3 * 4 * 8 = 288 weights + 8 biases
  // = 296 bytes, one tile. Both are analyze's compulsory parameter bytes.
  const config::LoadedModel model = int8_model("{channels: 4, height: 8, width: 8}",
                                               "  - {name: conv, type: conv2d, out_channels: 8, kernel: 3, padding: 1}\n"
                                               "  - {name: flat, type: flatten}\n"
                                               "  - {name: fc, type: linear, out_features: 16}\n"
                                               "  - {name: fc2, type: linear, out_features: 8}\n");
  const auto programs = map_all(model.network, 4, fixtures::shipped_accelerator("small"));
  CHECK(weight_load_bytes(programs[0]) == 296);
  CHECK(weight_load_bytes(programs[3]) == 136);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    CHECK(mapping::compulsory_traffic_problem(model.network.layers[i], 4, 1, programs[i]) == "");
  }
  // A program that leaves the biases in DRAM moves less than the hardware must: the check says so.
  program::LayerProgram no_bias = programs[3];
  for (program::Step& step : no_bias.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) step.bytes -= 8;
  }
  CHECK(mapping::compulsory_traffic_problem(model.network.layers[3], 4, 1, no_bias) ==
        "the program loads weights of 128 bytes, fewer than the 136 the analysis says must move");
}

TEST_CASE("mapper: without return_sequences only the last step of a recurrent layer leaves for DRAM", "[mapper]") {
  // LSTM input 8, hidden 16, 5 steps, batch 2, int8 on small: one batch chunk, so h(t) stays in
  // SRAM for step t + 1 and only h(4) of the 2 samples leaves: one store of 2 * 16 = 32 bytes,
  // analyze's output (16 features x batch 2 x 1 B), after the last step's compute.
  const config::LoadedModel model =
      int8_model("{sequence: 5, features: 8}", "  - {name: lstm, type: lstm, hidden_size: 16, return_sequences: false}\n"
                                               "  - {name: fc, type: linear, out_features: 4}\n");
  const auto programs = map_all(model.network, 2, fixtures::shipped_accelerator("small"));
  const program::LayerProgram& program = programs.front();
  std::int64_t stores = 0, computes = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) ++computes;
    if (step.kind != program::StepKind::store) continue;
    ++stores;
    CHECK(computes == 5);
  }
  CHECK(stores == 1);
  CHECK(store_bytes(program) == 32);
  CHECK(mapping::compulsory_traffic_problem(model.network.layers.front(), 2, 1, program) == "");
}

TEST_CASE("mapper: stacked layers without return_sequences keep their sequences in their own regions", "[mapper]") {
  // 3 stacked bidirectional LSTM layers (input 8, hidden 16, 4 steps, batch 1, int8) without
  // return_sequences: the two lower layers write full sequences (4 steps x 2 directions x 16 B,
  // 128 B each) that the layer above reads; the top layer stores only the last step of each
  // direction (forward t = 3, backward t = 0): 2 stores of 16 B at the output, 32 B in all.
  // Every store stays below the next layer's weights.
  const config::LoadedModel model = int8_model(
      "{sequence: 4, features: 8}",
      "  - {name: lstm, type: lstm, hidden_size: 16, num_layers: 3, bidirectional: true, return_sequences: false}\n"
      "  - {name: fc, type: linear, out_features: 4}\n");
  const auto layouts = mapping::layout_network(model.network, 1, 1);
  const auto programs = map_all(model.network, 1, fixtures::shipped_accelerator("small"));
  const program::LayerProgram& program = programs.front();
  std::vector<const program::Step*> stores;
  for (const program::Step& step : program.steps) {
    if (step.kind != program::StepKind::store) continue;
    stores.push_back(&step);
    CHECK(step.address >= layouts[0].output);
    CHECK(step.address + step.bytes <= layouts[1].weights);
  }
  REQUIRE(stores.size() == 2 * 4 * 2 + 2);
  CHECK(store_bytes(program) == 2 * 128 + 32);
  CHECK(stores[16]->address == layouts[0].output);
  CHECK(stores[17]->address == layouts[0].output + 16);
}

TEST_CASE("mapper: depthwise channels share the array's folds", "[mapper]") {
  // A 3x3 depthwise conv of 8 channels on a 6x6 int8 image (padding 1, no bias) on small with 32
  // rows: per channel M = 36, K = 9, N = 1. Three channels' 9-row blocks fit 32 rows, so all 8
  // channels go as one tile of 8 groups in ceil(8 / 3) = 3 folds of 2*32 + 16 + 36 - 2 = 114
  // cycles: 342 (one channel after the other: 8 x 114 = 912).
  const config::LoadedModel model = int8_model("{channels: 8, height: 6, width: 6}",
                                               "  - {name: dw, type: conv2d, depthwise: true, kernel: 3, padding: 1, bias: false}\n");
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small", {"compute.rows=32"});
  const program::LayerProgram program = map_all(model.network, 1, spec).front();
  CHECK(program.mapping == "gemm 36x1x9 x8 groups, tiles g8 m36 n1 k9, order n-m, weights stay for all m");
  std::int64_t cycles = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) cycles += timing::gemm_cycles(spec.compute, step.gemm).cycles;
  }
  CHECK(cycles == 342);
  CHECK(program.estimated_cycles == 342);
}

// small with 16 KiB of 32-bit accumulators (two tiles of 8,192 bytes of partial sums) and its
// outputs buffer of 16 KiB (two tiles of 8,192 bytes). A 1000 -> 1000 int8 layer at batch 64 with K
// in four tiles of 250 (a 64 x 250 weight tile is 16,000 bytes, within the 16,384-byte half):
//   m32 n64: 32 x 64 x 4 B = 8,192 bytes of partial sums, which stay in the accumulators;
//   m64 n64: 16,384 bytes, more than half the accumulators and more than half the outputs buffer:
//     they spill to DRAM. 16 output tiles (15 of n64, the last of n40); every K tile but the last
//     stores its sums and every one but the first loads them back, in pieces of at most the 8,192-
//     byte half: 3 x (15 x 64 x 64 + 64 x 40) x 4 B = 3 x 64,000 x 4 = 768,000 bytes each way
//     (a 16,384-byte tile in 2 pieces, the 10,240-byte last one in 8,192 + 2,048), beside the
//     64 x 1000 bytes of outputs stored once;
//   with a 64 KiB outputs buffer (32,768-byte halves) the sums spill to the output buffer: each K
//     tile but the first reads the tile's sums from it and each but the last writes them back,
//     768,000 bytes each way, and no DRAM traffic for them.
TEST_CASE("mapper: K-tiled partial sums stay in the accumulators or spill to the output buffer or DRAM", "[mapper]") {
  const auto map_linear = [](const std::string& tiling, const std::vector<std::string>& overrides) {
    const config::LoadedModel model = config::load_model_text(
        "name: l\nprecision: int8\ninput: {features: 1000}\nlayers:\n"
        "  - {name: fc, type: linear, out_features: 1000, bias: false" + tiling + "}\n",
        "m.yaml");
    return map_all(model.network, 64, fixtures::shipped_accelerator("small", overrides)).front();
  };
  struct Spill {
    std::int64_t loaded = 0, stored = 0, largest_piece = 0, sram_read = 0, sram_written = 0;
  };
  const auto spill_of = [](const program::LayerProgram& program) {
    Spill spill;
    for (const program::Step& step : program.steps) {
      const auto bytes = static_cast<std::int64_t>(step.bytes);
      if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::outputs) spill.loaded += bytes;
      if (step.kind == program::StepKind::store) spill.stored += bytes;
      if (step.tensor == program::TensorRole::outputs && step.kind == program::StepKind::load) {
        spill.largest_piece = std::max(spill.largest_piece, bytes);
      }
      spill.sram_read += static_cast<std::int64_t>(step.psum_read_bytes);
      spill.sram_written += static_cast<std::int64_t>(step.psum_write_bytes);
    }
    return spill;
  };
  const std::string accumulators = "accumulators.capacity_kib=16";
  const program::LayerProgram kept = map_linear(", tiling: {m: 32, n: 64, k: 250, order: n-m}", {accumulators});
  CHECK(kept.mapping == "gemm 64x1000x1000, tiles m32 n64 k250, order n-m (pinned)");
  CHECK(spill_of(kept).loaded == 0);
  CHECK(spill_of(kept).sram_read == 0);
  const program::LayerProgram to_dram = map_linear(", tiling: {m: 64, n: 64, k: 250, order: n-m}", {accumulators});
  CHECK(to_dram.mapping == "gemm 64x1000x1000, tiles m64 n64 k250, order n-m, partial sums spill to DRAM (pinned)");
  CHECK(spill_of(to_dram).loaded == 768'000);
  CHECK(spill_of(to_dram).stored == 768'000 + 64 * 1000);  // and the 64 x 1000 int8 outputs
  CHECK(spill_of(to_dram).largest_piece == 8192);
  CHECK(spill_of(to_dram).sram_read == 0);
  const program::LayerProgram to_buffer = map_linear(", tiling: {m: 64, n: 64, k: 250, order: n-m}",
                                                     {accumulators, "sram.buffers.outputs.capacity_kib=64"});
  CHECK(to_buffer.mapping ==
        "gemm 64x1000x1000, tiles m64 n64 k250, order n-m, partial sums spill to the output buffer (pinned)");
  CHECK(spill_of(to_buffer).loaded == 0);
  CHECK(spill_of(to_buffer).sram_read == 768'000);
  CHECK(spill_of(to_buffer).sram_written == 768'000);
}

// Snowflake's vMAC lanes run along a kernel row (configs/snowflake.yaml, lane_dimension kernel_row),
// 16 lanes x 16 units. conv1 at batch 1, compute cycles summed over its tiles:
//   AlexNet-OWT 11x11x3, stride 4 -> 55x55x64: a row is 11 x 3 = 33 values, ceil(33/16) = 3 cycles
//     (33 of 48 lane slots busy), 11 rows = 33 cycles a pass; passes = M x ceil(N/16) = 3025 x 4 =
//     12,100: 399,300 cycles; 3025 x 64 x 363 MACs / (399,300 x 256) = 33/48 = 68.75 %.
//   GoogLeNet and ResNet-50 7x7x3, stride 2 -> 112x112x64: a row is 21 values, 2 cycles (21 of 32),
//     7 rows = 14 cycles a pass; 12,544 x 4 = 50,176 passes: 702,464 cycles, 21/32 = 65.625 %.
// Lanes along all of K would give ceil(363/16) = 23 and ceil(147/16) = 10 cycles a pass (98.6 %,
// 91.9 %): the few-channel layers looked nearly perfect.
TEST_CASE("mapper: snowflake's lanes along a kernel row leave conv1's row tails idle", "[mapper]") {
  const spec::AcceleratorSpec snowflake = fixtures::shipped_accelerator("snowflake");
  for (const auto& [name, cycles, busy] : {std::make_tuple("alexnet_owt", 399'300, 33.0 / 48.0),
                                           std::make_tuple("googlenet", 702'464, 21.0 / 32.0),
                                           std::make_tuple("resnet50", 702'464, 21.0 / 32.0)}) {
    const config::LoadedModel model = zoo(name);
    const workload::NetworkLayer& conv1 = model.network.layers.front();
    REQUIRE(conv1.spec.name == "conv1");
    const auto layouts = mapping::layout_network(model.network, 1, snowflake.element_bytes());
    const program::LayerProgram program = mapping::map_layer(conv1, 1, snowflake, layouts.front());
    std::int64_t compute = 0, macs = 0;
    for (const program::Step& step : program.steps) {
      if (step.kind != program::StepKind::compute) continue;
      compute += timing::gemm_cycles(snowflake.compute, step.gemm).cycles;
      macs += step.macs;
    }
    INFO(name << ": " << program.mapping);
    CHECK(compute == cycles);
    CHECK(static_cast<double>(macs) / (static_cast<double>(compute) * 256.0) == Approx(busy));
  }
}

// small (16 x 16 ws, 1 GHz, DDR4-2400: 19.2 B a cycle). A 100 -> 100 int8 layer at batch 16
// pinned to m16 n64 k100 has two N tiles, 64 and a ragged 36 wide. Each tile streams M = 16:
// 2*16 + 16 + 16 - 2 = 62 cycles a fold. K = 100 on 16 rows: 7 row folds.
//   the full tile: 7 x ceil(64/16) = 28 folds; the ragged one: 7 x ceil(36/16) = 21 folds;
//   49 folds x 62 = 3,038 cycles (counting both tiles as full: 56 x 62 = 3,472).
// DRAM: 10,000 weight bytes + 1,600 input bytes per N tile (3,200) + 1,600 output bytes =
// 14,800 bytes / 19.2 = 770 cycles: compute-bound, so the estimate is the 3,038.
TEST_CASE("mapper: the estimate counts a ragged last tile at its own size", "[mapper]") {
  const program::LayerProgram program = map_pinned_linear(100, "{m: 16, n: 64, k: 100, order: n-m}", 16);
  CHECK(program.estimated_cycles == 3'038);
}

// A recurrent layer's column blocks run outermost, so its pinned order must be n-m (the order
// value at line 5, column 81).
TEST_CASE("mapper: a recurrent layer's pinned tiling must run its column blocks outermost", "[mapper]") {
  CHECK_THROWS_WITH(config::load_model_text("name: g\nprecision: int8\ninput: {sequence: 4, features: 8}\nlayers:\n"
                                            "  - {name: gru, type: gru, hidden_size: 16, tiling: {m: 1, n: 16, k: 24, order: m-n}}\n",
                                            "m.yaml"),
                    "m.yaml:5:81: error: layers.gru.tiling.order: a recurrent layer runs its column blocks outermost: "
                    "order must be n-m\n");
}

// The mlp-sized GRU (input 8, hidden 16, 5 steps) at batch 2 on small, pinned to m1 n16 k24: 2
// batch chunks x 3 column blocks of the 48 gate columns x 1 K tile = 6 tiles a step. Each tile
// streams M = 1 through 2 row folds (K = 24 on 16 rows) x 1 column fold of 2*16 + 16 + 1 - 2 = 47
// cycles: 94 cycles; 5 steps x 6 tiles x 94 = 2,820 compute cycles.
TEST_CASE("mapper: a recurrent layer's tiling can be pinned", "[mapper]") {
  const config::LoadedModel model = config::load_model_text(
      "name: g\nprecision: int8\ninput: {sequence: 5, features: 8}\nlayers:\n"
      "  - {name: gru, type: gru, hidden_size: 16, tiling: {m: 1, n: 16, k: 24, order: n-m}}\n",
      "m.yaml");
  const spec::AcceleratorSpec small = fixtures::shipped_accelerator("small");
  const program::LayerProgram program = map_all(model.network, 2, small).front();
  CHECK(program.mapping == "recurrent: 5 steps in order, tiles m1 n16 k24, 6 tile(s) a step, weights resident in SRAM (pinned)");
  std::int64_t compute = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) compute += timing::gemm_cycles(small.compute, step.gemm).cycles;
  }
  CHECK(compute == 2'820);
}

namespace {

// GPT-2 with one layer, one decode step after 1,023 tokens: its attention matmuls read 1,024 keys
// or values of 12 heads x 64 from the KV cache.
config::LoadedModel gpt2_decode() {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/gpt2.yaml", {"parameters.layers=1"},
                                 config::Phase{0, 1023});
}

std::size_t layer_index(const workload::Network& network, const std::string& suffix) {
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const std::string& name = network.layers[i].spec.name;
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return i;
  }
  FAIL("no layer ends in " << suffix);
  return 0;
}

std::int64_t program_compute_cycles(const spec::ComputeSpec& array, const program::LayerProgram& program) {
  std::int64_t cycles = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) cycles += timing::gemm_cycles_on(array, step.gemm, step.unit);
  }
  return cycles;
}

}  // namespace

// tpu_v4i: four 128 x 128 ws arrays with double-buffered stationary tiles (a fold after the first
// costs max(T, 128); a fold 2 x 128 + 128 + T - 2 = 382 + T), splitting each GEMM by columns,
// streamed rows or groups (timing/array_timing.h), swap_operands and vector_unit_gemm, 1,024 vector
// ops a cycle, bf16, 512 GB/s of HBM at 1,050 MHz = 487.6 bytes a compute cycle. Each matmul mapped
// on its own moves 12 x 1,024 x 64 x 2 = 1,572,864 cache bytes, 12 x 64 x 2 = 1,536 bytes of q (or
// of output) and 12 x 1,024 x 2 = 24,576 of output (or of probabilities): 1,598,976 bytes, 3,279
// cycles of HBM.
//   scores (M 1, K 64, N 1,024 per head), all 12 heads a tile:
//     array: columns split, 256 a head on each array, two folds: 24 folds,
//       383 + 23 x 128 = 3,327 cycles (groups split, 3 heads an array: 3 x 8 = 24 folds, the same);
//     array transposed (the query stationary, 1,024 keys streamed): 64 x 1 blocks, two heads a
//       fold, 6 folds; streamed rows split, 256 keys an array: 382 + 256 = 638 + 5 x 256 = 1,918
//       (HBM's 3,279 bound it);
//     vector unit: 2 x 12 x 1,024 x 64 / 1,024 = 1,536 cycles (HBM: 3,279).
//   The transposed array and the vector unit tie on HBM's 3,279 and move the same bytes in as many
//   tiles: the first listed, the transposed array, is kept.
//   context (M 1, K 1,024, N 64): array: 8 folds of 128 rows a head; groups split, 3 heads an array,
//     24 folds: 383 + 23 x 128 = 3,327; transposed (64 rows streamed): 24 folds of 382 + 64 = 446,
//     446 + 23 x 128 = 3,390; vector unit 1,536 (HBM: 3,279): more than 1 % below the array's.
TEST_CASE("mapper: decode attention's matmuls on tpu_v4i take the placement that ends first, and the mapping says why",
          "[mapper]") {
  const config::LoadedModel model = gpt2_decode();
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i");
  const auto programs = map_all(model.network, 1, spec);
  const program::LayerProgram& scores = programs[layer_index(model.network, "/scores")];
  const program::LayerProgram& context = programs[layer_index(model.network, "/context")];
  CHECK(scores.mapping ==
        "gemm 1x1024x64 x12 groups, tiles g12 m1 n1024 k64, order n-m, the second operand stays for all m; on the "
        "array transposed (estimated cycles: array 3327, array transposed 3279, vector unit 3279)");
  CHECK(context.mapping ==
        "gemm 1x64x1024 x12 groups, tiles g12 m1 n64 k1024, order n-m, the second operand stays for all m; on the "
        "vector unit (estimated cycles: array 3327, array transposed 3390, vector unit 3279)");
  CHECK(program_compute_cycles(spec.compute, scores) == 1918);
  CHECK(program_compute_cycles(spec.compute, context) == 1536);
  CHECK(scores.estimated_cycles == 3279);
  // Without the two options the array runs them as before, at the array's estimate.
  const spec::AcceleratorSpec fixed =
      fixtures::shipped_accelerator("tpu_v4i", {"compute.swap_operands=false", "compute.vector_unit_gemm=false"});
  const auto on_array = map_all(model.network, 1, fixed);
  const program::LayerProgram& array_context = on_array[layer_index(model.network, "/context")];
  CHECK(array_context.mapping ==
        "gemm 1x64x1024 x12 groups, tiles g12 m1 n64 k1024, order n-m, the second operand stays for all m");
  CHECK(program_compute_cycles(fixed.compute, array_context) == 3327);
}

// One tiling of the decode scores matmul above (g12 m1 n1024 k64) emitted for each placement: the
// loads, stores and their order are the tiles', so all three move the same bytes and MACs; only the
// compute step differs: the array sees m 1 n 1,024 k 64 (3,327 cycles), transposed m 1,024 n 1
// k 64 with the query stationary (1,918), the vector unit the untransposed tile (1,536).
TEST_CASE("mapper: every placement of a GEMM's tiling moves the same bytes and MACs", "[mapper]") {
  const config::LoadedModel model = gpt2_decode();
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i");
  const std::size_t index = layer_index(model.network, "/scores");
  const workload::NetworkLayer& layer = model.network.layers[index];
  const mapping::DramLayout layout = mapping::layout_network(model.network, 1, spec.element_bytes())[index];
  const mapping::LayerPlan plan;
  const mapping::Context context{spec,
                                 plan,
                                 mapping::role_capacity(spec.sram),
                                 spec.element_bytes(),
                                 spec.dram.peak_bytes_per_second() / (spec.compute.clock_mhz * 1e6),
                                 static_cast<std::uint64_t>(spec.dram.burst_bytes())};
  const mapping::GemmProblem p = mapping::matmul_gemm(layer, 1, context, layout);
  const mapping::GemmTiling tiling =
      mapping::choose_gemm_tiling(p, spec, mapping::activation_operands_capacity(context.capacity),
                                  context.dram_bytes_per_cycle, layer.spec.name, std::nullopt);
  REQUIRE(std::make_tuple(tiling.tg, tiling.tm, tiling.tn, tiling.tk) == std::make_tuple(12, 1, 1024, 64));
  const auto emitted = [&](mapping::GemmPlacement placement) {
    mapping::GemmTiling placed = tiling;
    placed.placement = placement;
    program::LayerProgram program;
    mapping::emit_gemm_program(p, placed, context, program);
    return program;
  };
  const program::LayerProgram array = emitted(mapping::GemmPlacement::array);
  const program::LayerProgram transposed = emitted(mapping::GemmPlacement::array_transposed);
  const program::LayerProgram vector = emitted(mapping::GemmPlacement::vector_unit);
  for (const program::LayerProgram* other : {&transposed, &vector}) {
    CHECK(other->macs == array.macs);
    CHECK(other->dram_read_bytes == array.dram_read_bytes);
    CHECK(other->dram_write_bytes == array.dram_write_bytes);
    REQUIRE(other->steps.size() == array.steps.size());
    for (std::size_t i = 0; i < array.steps.size(); ++i) {
      const program::Step& a = array.steps[i];
      const program::Step& b = other->steps[i];
      INFO("step " << i);
      CHECK(std::make_tuple(a.kind, a.tensor, a.address, a.bytes, a.macs, a.after) ==
            std::make_tuple(b.kind, b.tensor, b.address, b.bytes, b.macs, b.after));
    }
  }
  // 12 x 1,024 x 64 = 786,432 MACs; the cache (12 x 1,024 x 64 x 2 B) and q (12 x 64 x 2 B) read.
  CHECK(array.macs == 786'432);
  const program::Step& on_array = array.steps[2];
  const program::Step& on_transposed = transposed.steps[2];
  const program::Step& on_vector = vector.steps[2];
  REQUIRE(on_array.kind == program::StepKind::compute);
  CHECK(std::make_tuple(on_array.gemm.m, on_array.gemm.n, on_array.gemm.k, on_array.gemm.groups) ==
        std::make_tuple(1, 1024, 64, 12));
  CHECK(std::make_tuple(on_transposed.gemm.m, on_transposed.gemm.n, on_transposed.gemm.k) ==
        std::make_tuple(1024, 1, 64));
  // Both operands are activations in the input buffer, whichever is stationary.
  CHECK((on_transposed.stationary_in_inputs && !on_transposed.streamed_in_weights));
  CHECK(on_vector.unit == timing::GemmUnit::vector);
  CHECK(on_array.unit == timing::GemmUnit::array);
  CHECK(program_compute_cycles(spec.compute, array) == 3327);
  CHECK(program_compute_cycles(spec.compute, transposed) == 1918);
  CHECK(program_compute_cycles(spec.compute, vector) == 1536);
}

// small (16 x 16 ws, no double buffering) with swap_operands: a 64 -> 32 int8 linear layer without
// bias at batch 16 (M 16, N 32, K 64), one tile.
//   array: (K, N) on the array, 4 x 2 = 8 folds of 2 x 16 + 16 + 16 - 2 = 62 cycles = 496;
//   transposed: (K, M) on it, 4 x 1 = 4 folds streaming the 32 weight columns,
//     2 x 16 + 16 + 32 - 2 = 78 cycles = 312.
// The weights then stream from the weight buffer and the inputs are stationary.
TEST_CASE("mapper: swap_operands transposes a GEMM whose M is narrower than its N", "[mapper]") {
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "m.yaml");
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small", {"compute.swap_operands=true"});
  const program::LayerProgram program = map_all(model.network, 16, spec).front();
  CHECK(program.mapping ==
        "gemm 16x32x64, tiles m16 n32 k64, order n-m, weights stay for all m; on the array transposed (estimated "
        "cycles: array 496, array transposed 312)");
  CHECK(program_compute_cycles(spec.compute, program) == 312);
  for (const program::Step& step : program.steps) {
    if (step.kind != program::StepKind::compute) continue;
    CHECK(std::make_tuple(step.gemm.m, step.gemm.n, step.gemm.k) == std::make_tuple(32, 16, 64));
    CHECK((step.stationary_in_inputs && step.streamed_in_weights));
  }
  // Off (the default), the layer runs as laid out.
  const program::LayerProgram plain = map_all(model.network, 16, fixtures::shipped_accelerator("small")).front();
  CHECK(plain.mapping == "gemm 16x32x64, tiles m16 n32 k64, order n-m, weights stay for all m");
  CHECK(program_compute_cycles(spec.compute, plain) == 496);
  CHECK(plain.dram_read_bytes == program.dram_read_bytes);
  CHECK(plain.dram_write_bytes == program.dram_write_bytes);
}

// small with vector_unit_gemm: a 4096 -> 16 int8 linear layer without bias at batch 1 (M 1, N 16,
// K 4096). Half the 32 KiB weight buffer holds a 1,024 x 16 weight tile, so K comes in 4 tiles
// (tn 16, tk 1,024 reads the 65,536 weight bytes and the 4,096 input bytes once; a narrower tn
// with more of K reads the inputs again per column block).
//   array: 64 folds of 2 x 16 + 16 + 1 - 2 = 47 cycles a K tile, 4 x 3,008 = 12,032;
//   vector unit: 2 x 16 x 1,024 / 16 ops a cycle = 2,048 a K tile, 8,192 (the spill's SRAM cycles,
//     64 bytes a K tile on a 64-byte-a-cycle port, hide under them).
// The vector unit has no accumulators: its 16 sums x 4 bytes = 64 wait in the output buffer, the
// first K tile writing them, the middle two reading and writing, the last reading. On the array
// the same 64 bytes fit the accumulators and no step moves partial sums.
TEST_CASE("mapper: a K-tiled GEMM on the vector unit keeps its partial sums in the output buffer", "[mapper]") {
  const config::LoadedModel model = config::load_model_text(
      "name: long\nprecision: int8\ninput: {features: 4096}\nlayers:\n"
      "  - {name: fc, type: linear, out_features: 16, bias: false}\n",
      "m.yaml");
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small", {"compute.vector_unit_gemm=true"});
  const program::LayerProgram program = map_all(model.network, 1, spec).front();
  CHECK(program.mapping ==
        "gemm 1x16x4096, tiles m1 n16 k1024, order n-m, partial sums spill to the output buffer; on the vector unit "
        "(estimated cycles: array 12032, vector unit 8192)");
  CHECK(program.estimated_cycles == 8192);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sums;
  for (const program::Step& step : program.steps) {
    if (step.kind != program::StepKind::compute) continue;
    CHECK(step.unit == timing::GemmUnit::vector);
    sums.emplace_back(step.psum_read_bytes, step.psum_write_bytes);
  }
  using Sums = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  CHECK(sums == Sums{{0, 64}, {64, 64}, {64, 64}, {64, 0}});
  const program::LayerProgram on_array = map_all(model.network, 1, fixtures::shipped_accelerator("small")).front();
  CHECK(on_array.mapping == "gemm 1x16x4096, tiles m1 n16 k1024, order n-m");
  for (const program::Step& step : on_array.steps) {
    CHECK(step.psum_read_bytes + step.psum_write_bytes == 0);
  }
  CHECK(on_array.dram_read_bytes == program.dram_read_bytes);
}

// small (16 ops a cycle): a step m1 n16 k64 with 16,384 output-path ops, 8,192 in its busiest
// stage. On the array: 4 folds of 2 x 16 + 16 + 1 - 2 = 47 = 188 cycles, its output path beside
// the array and left out. On the vector unit: 2 x 16 x 64 / 16 = 128 cycles, then its busiest
// stage on the same units, 8,192 / 16 = 512: 640. No DRAM bytes, so compute sets the estimate.
// With its weights native at 2x (Step::mac_rate), the array's 188 cycles halve to 94; the vector
// unit's are unchanged.
TEST_CASE("mapper: the sub-batch estimate costs a GEMM on the unit that runs it", "[mapper]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small");
  program::Step step;
  step.kind = program::StepKind::compute;
  step.gemm = timing::GemmShape{1, 16, 64};
  step.macs = step.gemm.macs();
  step.vector_ops = 16384;
  step.stage_ops = 8192;
  program::LayerProgram program;
  program.steps.push_back(step);
  CHECK(mapping::estimate_cycles(program, spec) == 188);
  program.steps.front().mac_rate = 2;
  CHECK(mapping::estimate_cycles(program, spec) == 94);
  program.steps.front().unit = timing::GemmUnit::vector;
  CHECK(mapping::estimate_cycles(program, spec) == 640);
}

// The same decode step with the model's KV cache at int8 (docs/model-format.md, "Precision per
// tensor") on bf16 tpu_v4i: the cache region holds 1 byte an element, so each attention matmul
// loads 12 heads x 1,024 tokens x 64 = 786,432 cache bytes, half the 1,572,864 at the operand width;
// the query, the probabilities and the outputs stay at 2 bytes, and the array's compute steps read
// their operands at its width (the same SRAM read bytes as at bf16).
TEST_CASE("mapper: a KV cache at int8 is laid out and loaded at 1 byte an element on a bf16 array",
          "[mapper][precision]") {
  const config::LoadedModel bf16 = gpt2_decode();
  const config::LoadedModel int8 =
      config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/gpt2.yaml",
                              {"parameters.layers=1", "precision.kv_cache=int8"}, config::Phase{0, 1023});
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i");
  const std::size_t scores = layer_index(int8.network, "/scores");
  const std::size_t context = layer_index(int8.network, "/context");
  const auto cache_bytes = [](const program::LayerProgram& program) {
    std::uint64_t bytes = 0, compute_bytes = 0;
    for (const program::Step& step : program.steps) {
      if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::kv_cache) bytes += step.bytes;
      if (step.kind == program::StepKind::compute) compute_bytes += step.bytes;
    }
    return std::make_pair(bytes, compute_bytes);
  };
  const auto at_bf16 = map_all(bf16.network, 1, spec);
  const auto at_int8 = map_all(int8.network, 1, spec);
  for (std::size_t layer : {scores, context}) {
    INFO(int8.network.layers[layer].spec.name);
    CHECK(cache_bytes(at_bf16[layer]).first == 1'572'864);
    CHECK(cache_bytes(at_int8[layer]).first == 786'432);
    CHECK(cache_bytes(at_int8[layer]).second == cache_bytes(at_bf16[layer]).second);
  }
  // The layout: the scores' cache region is 786,432 B (aligned) and starts where the bf16 one does.
  const auto layouts = mapping::layout_network(int8.network, 1, spec.element_bytes());
  const auto bf16_layouts = mapping::layout_network(bf16.network, 1, spec.element_bytes());
  CHECK(layouts[scores].kv_cache_element_bytes == 1);
  CHECK(bf16_layouts[scores].kv_cache_element_bytes == 2);
  CHECK(layouts[scores].kv_cache == bf16_layouts[scores].kv_cache);
}

// The same decode step with int8 activations and an 8-bit KV cache on tpu_v4i multiplying int8 at 2x
// (the run at 1-byte elements): the scores' query is 12 heads x 64 = 768 B, its cache 1,024 tokens
// x 768 = 786,432 B and its output 12 heads x 1,024 = 12,288 B; the context's probabilities
// 12,288 B, its cache 786,432 B and its output 768 B. With the cache at int8, the activations'
// format, the scores' GEMM runs on the array at int8's rate 2; with it at fp8_e4m3 (also 1 B) the
// same bytes at rate 1 (the cache is widened in the array's input path and multiplied at the
// operands' rate).
TEST_CASE("mapper: decode attention with int8 activations and an 8-bit KV cache moves 1 byte an element",
          "[mapper][precision]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i", {"compute.native_formats={int8: 2}"});
  for (const std::string cache : {"int8", "fp8_e4m3"}) {
    INFO(cache);
    const config::LoadedModel model = config::load_model_file(
        std::string(REUSESIM_SOURCE_DIR) + "/models/gpt2.yaml",
        {"parameters.layers=1", "precision={activations: int8, kv_cache: " + cache + "}"}, config::Phase{0, 1023});
    const spec::AcceleratorSpec run = mapping::run_accelerator(spec, model.network);
    REQUIRE(run.element_bytes() == 1);
    const auto programs = map_all(model.network, 1, run);
    const std::int64_t rate = cache == "int8" ? 2 : 1;
    const auto bytes = [](const program::LayerProgram& program, program::StepKind kind, program::TensorRole role) {
      std::uint64_t total = 0;
      for (const program::Step& step : program.steps) {
        if (step.kind == kind && (kind == program::StepKind::store || step.tensor == role)) total += step.bytes;
      }
      return total;
    };
    const program::LayerProgram& scores = programs[layer_index(model.network, "/scores")];
    const program::LayerProgram& context = programs[layer_index(model.network, "/context")];
    CHECK(bytes(scores, program::StepKind::load, program::TensorRole::kv_cache) == 786'432);
    CHECK(bytes(context, program::StepKind::load, program::TensorRole::kv_cache) == 786'432);
    CHECK(bytes(scores, program::StepKind::load, program::TensorRole::inputs) == 768);
    CHECK(bytes(context, program::StepKind::load, program::TensorRole::inputs) == 12'288);
    CHECK(bytes(scores, program::StepKind::store, program::TensorRole::outputs) == 12'288);
    CHECK(bytes(context, program::StepKind::store, program::TensorRole::outputs) == 768);
    // The scores run on the array (transposed) at the rate; the context's one-row GEMMs on the
    // vector unit, which has no int8 rate of its own.
    CHECK(scores.mac_rate == rate);
    CHECK(context.mac_rate == 1);
  }
}

namespace {

// A bias-free 4,096 x 4,096 linear layer, bf16 activations, its weights at `weights`.
config::LoadedModel quantized_linear(const std::string& weights) {
  return config::load_model_text(R"(
name: quantized
precision: {activations: bf16, weights: )" +
                                     weights + R"(}
input: {features: 4096}
layers:
  - {name: q, type: linear, out_features: 4096, bias: false}
)",
                                 "quantized.yaml");
}

struct StepTotals {
  std::uint64_t weight_load_bytes = 0;
  std::int64_t vector_ops = 0, vector_steps = 0, max_mac_rate = 0;
};

StepTotals step_totals(const program::LayerProgram& program) {
  StepTotals totals;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights)
      totals.weight_load_bytes += step.bytes;
    if (step.kind == program::StepKind::compute) {
      totals.max_mac_rate = std::max(totals.max_mac_rate, step.mac_rate);
    }
    if (step.kind == program::StepKind::vector) {
      totals.vector_ops += step.vector_ops;
      ++totals.vector_steps;
    }
  }
  return totals;
}

}  // namespace

// A column of K = 4,096 int4 weights with fp16 scales per 128: 4,096 / 2 = 2,048 B packed and
// 32 scales x 2 B = 64 B. A K tile of 3 values from 127 (127, 128, 129) covers bits 508 .. 519,
// bytes 63 and 64 (2 B, rounded out: each tile loads a byte it shares), and touches groups 0 and
// 1 (2 scales, 4 B): 6 B. Its bias (none here) would follow the scales.
TEST_CASE("mapper: a packed weight column's bytes round out per K tile and bring the scales it touches",
          "[mapper][precision]") {
  mapping::GemmProblem p;
  p.k = 4096;
  p.e = 2;
  p.b_bits = 4;
  p.b_scales = true;
  p.b_group = 128;
  CHECK(p.b_column_bytes(0, 4096) == 2048 + 64);
  CHECK(p.b_column_stride() == 2112);
  CHECK(p.b_column_bytes(127, 3) == 2 + 4);
  CHECK(p.b_column_bytes(128, 128) == 64 + 2);  // a whole group: 64 B and its one scale
  p.b_group = 0;                                // one scale a column: each K tile brings it
  CHECK(p.b_column_bytes(0, 256) == 128 + 2);
  CHECK(p.b_column_bytes(0, 0) == 0);  // what lies before the first K tile: nothing, not its scale
  p.b_bits = 0;  // at the operand width: count x 2
  CHECK(p.b_column_bytes(10, 7) == 14);
}

// The int4, group-128 layer at batch 1 on bf16 tpu_v4i: every weight loaded once (the weights stay
// for the one row of M), 4,096 x 4,096 / 2 = 8,388,608 B of weights and 4,096 / 128 x 4,096 x 2 =
// 262,144 B of scales; the vector unit dequantizes each weight once, 16,777,216 ops, at 1,024 ops a
// cycle 16,384 cycles (every tile's ops are a multiple of 1,024: K tiles of powers of two from 128);
// the array's compute steps read every dequantized weight once at 2 bytes, 33,554,432 B, and the
// conservation check holds at the run's widths.
TEST_CASE("mapper: int4 weights with group-128 scales are loaded packed and dequantized on the vector unit",
          "[mapper][precision]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i");
  const config::LoadedModel int4 = quantized_linear("int4, weight_group_size: 128");
  const config::LoadedModel bf16 = quantized_linear("bf16");
  const program::LayerProgram packed = map_all(int4.network, 1, spec).front();
  const program::LayerProgram plain = map_all(bf16.network, 1, spec).front();
  const StepTotals at_int4 = step_totals(packed), at_bf16 = step_totals(plain);
  CHECK(at_int4.weight_load_bytes == 8'388'608 + 262'144);
  CHECK(at_bf16.weight_load_bytes == 33'554'432);
  CHECK(at_int4.vector_ops == 16'777'216);
  CHECK(packed.dequant_vector_ops == 16'777'216);
  CHECK(packed.dequant_cycles == 16'384);
  std::int64_t weight_reads = 0;
  for (const program::Step& step : packed.steps) {
    if (step.kind == program::StepKind::compute) weight_reads += step.gemm.weight_elements() * 2;
  }
  CHECK(weight_reads == 33'554'432);
  CHECK(at_bf16.vector_steps == 0);
  CHECK(plain.dequant_vector_ops == 0);
  CHECK(mapping::compulsory_traffic_problem(int4.network.layers.front(), 1,
                                            int4.network.run_widths(spec.element_bytes()), packed) == "");
  // Every vector step reads the weight buffer, after a weight load.
  for (const program::Step& step : packed.steps) {
    if (step.kind != program::StepKind::vector) continue;
    CHECK(step.streamed_in_weights);
    REQUIRE(step.after.size() == 1);
    CHECK(packed.steps[static_cast<std::size_t>(step.after.front())].kind == program::StepKind::load);
  }
  // The layout leaves room for the packed weights and their scales.
  const auto layouts = mapping::layout_network(int4.network, 1, spec.element_bytes());
  REQUIRE(layouts.front().weight_format.has_value());
  CHECK(*layouts.front().weight_format == workload::NumberFormat::int4);
  CHECK(layouts.front().output - layouts.front().weights >= 8'388'608 + 262'144);
}

// The array multiplies two operands of one format: int8 weights with bf16 activations (W8A16) on
// an array that multiplies int8 at twice its bf16 rate are still dequantized to bf16 on the vector
// unit (4,096 x 4,096 = 16,777,216 ops) and multiplied at the bf16 rate (1); their loads are the
// same 16 MiB + 4,096 x 2 B of per-column scales.
TEST_CASE("mapper: int8 weights with bf16 activations are dequantized where int8 is native", "[mapper][precision]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i", {"compute.native_formats={int8: 2}"});
  const config::LoadedModel int8 = quantized_linear("int8");
  const spec::AcceleratorSpec run = mapping::run_accelerator(spec, int8.network);
  CHECK(run.element_bytes() == 2);  // bf16 activations: the operand width
  const program::LayerProgram w8a16 = map_all(int8.network, 512, run).front();
  const StepTotals totals = step_totals(w8a16);
  CHECK(totals.weight_load_bytes == 16'777'216 + 8'192);
  CHECK(totals.vector_ops == 16'777'216);
  CHECK(totals.max_mac_rate == 1);
  CHECK(w8a16.mac_rate == 1);
  CHECK(w8a16.mac_format.empty());  // its MACs are bf16's (the operand type)
}

// W8A8 on an array that multiplies int8 at twice its bf16 rate (tpu_v4i with native_formats
// {int8: 2}), batch 512: the run moves 1-byte elements (run_accelerator). One tile, m512 n4096 k4096
// (the weights stay for all m): weights 4,096 x 4,096 x 1 B = 16,777,216 B + 4,096 columns x one
// fp16 scale = 8,192 B; inputs 512 x 4,096 x 1 B = 2,097,152 B; outputs the same. No vector step.
// Array cycles at bf16: 32 K folds x 32 N folds of 128 x 128 over 4 arrays = 256 folds an array,
// double-buffered: the first 2 x 128 + 128 + 512 - 2 = 894, each other max(512, 128) = 512:
// 894 + 255 x 512 = 131,454; at rate 2, ceil(131,454 / 2) = 65,727. The array reads its operands
// at 1 byte: the compute steps' bytes are 16,777,216 + 2,097,152.
TEST_CASE("mapper: a W8A8 linear layer moves 1-byte activations and multiplies at int8's 2x rate",
          "[mapper][precision]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i", {"compute.native_formats={int8: 2}"});
  const config::LoadedModel w8a8 = config::load_model_text(R"(
name: w8a8
precision: {activations: int8, weights: int8}
input: {features: 4096}
layers:
  - {name: q, type: linear, out_features: 4096, bias: false}
)",
                                                           "w8a8.yaml");
  const spec::AcceleratorSpec run = mapping::run_accelerator(spec, w8a8.network);
  CHECK(run.element_bytes() == 1);
  CHECK(run.peak_ops_per_second() == spec.peak_ops_per_second());
  const program::LayerProgram program = map_all(w8a8.network, 512, run).front();
  const StepTotals totals = step_totals(program);
  CHECK(totals.weight_load_bytes == 16'777'216 + 8'192);
  CHECK(totals.vector_steps == 0);
  CHECK(totals.max_mac_rate == 2);
  CHECK(program.mac_rate == 2);
  CHECK(program.mac_format == "int8");  // what its MACs' energy is priced at
  std::uint64_t input_bytes = 0, output_bytes = 0, compute_bytes = 0;
  std::int64_t array_cycles = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::inputs) input_bytes += step.bytes;
    if (step.kind == program::StepKind::store) output_bytes += step.bytes;
    if (step.kind != program::StepKind::compute) continue;
    compute_bytes += step.bytes;
    array_cycles += timing::gemm_cycles_at(run.compute, step.computed_gemm(), step.unit, step.mac_rate);
  }
  CHECK(input_bytes == 2'097'152);
  CHECK(output_bytes == 2'097'152);
  CHECK(compute_bytes == 16'777'216 + 2'097'152);
  CHECK(array_cycles == 65'727);
  CHECK(mapping::compulsory_traffic_problem(w8a8.network.layers.front(), 512,
                                            w8a8.network.run_widths(run.element_bytes()), program) == "");
  const timing::GemmShape tile{512, 4096, 4096, 1, 0};
  CHECK(timing::gemm_cycles_on(spec.compute, tile, timing::GemmUnit::array) == 131'454);
}

// A column of K = 4,096 weights at 16 bits, 2:4 sparse: 2,048 kept x 2 B = 4,096 B, then 2,048 x
// 2 bits = 512 B of metadata. A K tile of 6 from 2 (k 2 .. 7) keeps kept(8) - kept(2) = 4 - 2 = 2
// values (4 B) whose metadata is bits 4 .. 7, within byte 0 (1 B): 5 B.
TEST_CASE("mapper: a 2:4 sparse weight column is its kept values then their metadata", "[mapper][sparsity]") {
  mapping::GemmProblem p;
  p.k = 4096;
  p.e = 2;
  p.b_sparsity = workload::Sparsity{2, 4};
  CHECK(p.b_column_bytes(0, 4096) == 4096 + 512);
  CHECK(p.b_metadata_bytes(0, 4096) == 512);
  CHECK(p.b_column_bytes(2, 6) == 4 + 1);
  CHECK(p.b_metadata_bytes(2, 6) == 1);
  p.b_bits = 4;  // int4 values: 2,048 x 4 bits = 1,024 B
  CHECK(p.b_column_bytes(0, 4096) == 1024 + 512);
}

// The 2:4 layer at batch 512 on tpu_v4i with compute.sparsity 2:4: one tile (m512 n4096 k4096) whose
// compute step sums over K 2,048, its MACs the dense 512 x 4,096 x 4,096; the weights loaded once,
// 4,096 x (4,096 + 512) = 18,874,368 B, the metadata 4,096 x 512 = 2,097,152 B of them. On the
// four 128 x 128 ws arrays (N split, 1,024 each; double-buffered, folds 512 apart after the first's
// 512 + 2 x 128 + 128 - 2 = 894): dense K 4,096 takes 32 x 8 = 256 folds, 894 + 255 x 512 =
// 131,454 cycles; K 2,048 takes 128, 894 + 127 x 512 = 65,918.
TEST_CASE("mapper: an array that skips 2:4 zeros sums over half of K", "[mapper][sparsity]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i", {"compute.sparsity={n: 2, m: 4}"});
  const config::LoadedModel sparse = config::load_model_text(R"(
name: sparse
precision: bf16
input: {features: 4096}
layers:
  - {name: q, type: linear, out_features: 4096, bias: false, sparsity: "2:4"}
)",
                                                             "sparse.yaml");
  const program::LayerProgram program = map_all(sparse.network, 512, spec).front();
  const StepTotals totals = step_totals(program);
  CHECK(totals.weight_load_bytes == 18'874'368);
  CHECK(totals.vector_steps == 0);
  std::int64_t computes = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind != program::StepKind::compute) continue;
    ++computes;
    CHECK(step.gemm.k == 4096);
    CHECK(step.kept_k == 2048);
    CHECK(step.macs == 8'589'934'592);
    CHECK(timing::gemm_cycles_at(spec.compute, step.computed_gemm(), step.unit, step.mac_rate) == 65'918);
    CHECK(timing::gemm_cycles_at(spec.compute, step.gemm, step.unit, step.mac_rate) == 131'454);
  }
  CHECK(computes == 1);
  CHECK(program.macs == 8'589'934'592);
  CHECK_THAT(program.mapping, Catch::Contains("weights 2:4 sparse, 2097152 B of metadata loaded, zeros skipped as 2:4 "
                                              "(K 2048 of 4096)"));
  CHECK(mapping::compulsory_traffic_problem(sparse.network.layers.front(), 512,
                                            sparse.network.run_widths(spec.element_bytes()), program) == "");
}

// A layer run in sub-batches is its passes' programs one after another: their dequantization ops
// and MAC rate are the layer's too. ResNet-50 2:4 sparse (traces/precision/resnet50_2to4.yaml) at
// batch 8 on tpu_v4i, which decompresses sparse tiles on its vector unit, runs its first layers in
// sub-batches; the decompression is the run's work, not the model's, so the network's vector ops
// less it equal the analysis (the run refused the model as an internal error when the passes'
// counts were dropped). Two parts at rate 2 with 10 and 6 dequantization ops in 3 and 2 cycles make
// a program of 16 ops in 5 cycles at rate 2.
TEST_CASE("mapper: a layer in sub-batches keeps its dequantization ops and MAC rate", "[mapper][precision]") {
  program::LayerProgram whole, part;
  part.dequant_vector_ops = 10;
  part.dequant_cycles = 3;
  part.mac_rate = 2;
  mapping::append_steps(whole, part, false);
  part.dequant_vector_ops = 6;
  part.dequant_cycles = 2;
  mapping::append_steps(whole, part, false);
  CHECK(whole.dequant_vector_ops == 16);
  CHECK(whole.dequant_cycles == 5);
  CHECK(whole.mac_rate == 2);
  part.mac_format = "int8";
  mapping::append_steps(whole, part, false);
  CHECK(whole.mac_format == "int8");

  const config::LoadedModel sparse =
      config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/traces/precision/resnet50_2to4.yaml");
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4i");
  const mapping::NetworkMapping mapped = mapping::map_network(sparse.network, 8, spec);
  const bool passes = std::any_of(mapped.programs.begin(), mapped.programs.end(), [](const auto& program) {
    return program.passes > 1 && program.dequant_vector_ops > 0;
  });
  CHECK(passes);
  CHECK(mapping::vector_ops_problem(sparse.network, 8, mapped) == "");
}

namespace {

// Core split.core's program of the one layer of `model_text` at `batch`, on small.
program::LayerProgram small_core_program(const std::string& model_text, std::int64_t batch,
                                         const mapping::LayerSplit& split) {
  const config::LoadedModel model = config::load_model_text(model_text, "model.yaml");
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small");
  const auto layouts = mapping::layout_network(model.network, batch, spec.element_bytes());
  return mapping::map_layer(model.network.layers[0], batch, spec, layouts[0], {}, split);
}

}  // namespace

// An rmsnorm over 6 features (4 ops an element: 24) split by elements over 8 cores: core c has
// elements [floor(6c / 8), floor(6(c + 1) / 8)): 0, 1, 1, 1, 0, 1, 1, 1 of them. A core's ops are
// its elements', 4 each: the cores' ops add up to the layer's 24, and cores 0 and 4 have none and
// no program. (Shared by cores alone, 24 / 8 = 3 ops each, cores 0 and 4 took 6 ops they never ran:
// the programs had 18.)
TEST_CASE("mapper: a vector layer split by elements gives each core its elements' ops", "[mapper]") {
  std::vector<std::int64_t> ops;
  for (std::int64_t core = 0; core < 8; ++core) {
    const program::LayerProgram program = small_core_program(
        "name: norm\nprecision: int8\ninput: {features: 6}\nlayers:\n  - {name: norm, type: rmsnorm}\n", 1,
        mapping::LayerSplit{workload::Partition::rows, core, 8});
    std::int64_t own = 0;
    for (const program::Step& step : program.steps) own += step.vector_ops;
    ops.push_back(own);
  }
  CHECK(ops == std::vector<std::int64_t>{0, 4, 4, 4, 0, 4, 4, 4});
}

// A 64 -> 16 linear (int8, bias) at batch 4 split over K on two cores of small (32-bit
// accumulators). Core 0 sums K 0..31 into its block of 4 x 16 sums at 4 B (256 B at the scratch),
// core 1 K 32..63 and the bias into the block after it. From reduction_step on, core c loads
// outputs 32c..32c+31 of both blocks (2 x 128 B), adds them (32 adds: its reduction_vector_ops)
// and stores its 32 output bytes: the layer's 64 outputs once. The weights are read once between
// them: 16 x 32 B each, core 1's 16 bias bytes besides.
TEST_CASE("mapper: a GEMM split over K sums per core, then each core reduces its outputs", "[mapper]") {
  std::int64_t stored = 0, weights = 0;
  for (std::int64_t core = 0; core < 2; ++core) {
    const program::LayerProgram program = small_core_program(
        "name: k\nprecision: int8\ninput: {features: 64}\nlayers:\n  - {name: fc, type: linear, out_features: 16}\n", 4,
        mapping::LayerSplit{workload::Partition::k, core, 2});
    CHECK(program.part == (core == 0 ? "k 0..31 of 64" : "k 32..63 of 64"));
    REQUIRE(program.reduction_step > 0);
    std::int64_t sums_stored = 0, sums_loaded = 0, outputs_stored = 0, adds = 0;
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const program::Step& step = program.steps[i];
      const bool reduction = i >= program.reduction_step;
      if (step.kind == program::StepKind::store)
        (reduction ? outputs_stored : sums_stored) += static_cast<std::int64_t>(step.bytes);
      if (step.kind == program::StepKind::load && reduction) sums_loaded += static_cast<std::int64_t>(step.bytes);
      if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights)
        weights += static_cast<std::int64_t>(step.bytes);
      if (reduction) adds += step.vector_ops;
    }
    CHECK(sums_stored == 4 * 16 * 4);
    CHECK(sums_loaded == 2 * 32 * 4);
    CHECK(outputs_stored == 32);
    CHECK(adds == 32);
    CHECK(program.reduction_vector_ops == 32);
    CHECK(program.macs == 4 * 16 * 32);
    stored += outputs_stored;
  }
  CHECK(stored == 4 * 16);
  CHECK(weights == 64 * 16 + 16);
}

namespace {

// The (address, bytes) of `program`'s loads of `role`, in program order.
std::vector<std::pair<std::uint64_t, std::uint64_t>> loads_of(const program::LayerProgram& program,
                                                              program::TensorRole role) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> loads;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == role) loads.emplace_back(step.address, step.bytes);
  }
  return loads;
}

// Whether `ranges` tile [first, first + bytes) exactly: no byte twice, none left out.
bool tiles_exactly(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges, std::uint64_t first,
                   std::uint64_t bytes) {
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t next = first;
  for (const auto& [address, size] : ranges) {
    if (address != next) return false;
    next += size;
  }
  return next == first + bytes;
}

}  // namespace

// A decode step's grouped-query scores on a chip with a shared memory (tpu_v4's CMEM), which
// decides hits by address: 4 key/value heads (groups) of M 2 (query heads) x K 8 x N 10 tokens at
// 2 B, the cache at 4,096 and q at 0, split by columns over 3 cores (tokens 0..2, 3..5, 6..9),
// each tiled 2 groups a tile (whole N and K) and one row a tile. A token's key of one head is a
// column of 8 x 2 = 16 B; the cache 4 x 10 x 16 = 640 B, q 4 x 2 x 8 x 2 = 128 B.
// Each core's columns of all 4 groups are its block: core 1 (first column 3) at 4,096 + 4 x 3 x 16
// = 4,288, its two group tiles 2 x 3 x 16 = 96 B each, at 4,288 and 4,384. Every core reads all of
// q: row m0 of the groups at m0 x 4 x 16 (16 B a row and group), group tile g at g x 16 after it,
// 2 x 16 = 32 B: (0, 32) and (64, 32) for groups 0-1's rows 0 and 1, then (32, 32) and (96, 32).
// So the cores' cache loads cover the 640 B once, and each core's q loads the 128 B once. (When
// group g read from g x 3 columns after the core's first, the cores read each other's keys, and
// every group tile the first one's q: a shared memory served keys and queries no load had brought
// from the DRAM.)
TEST_CASE("mapper: with a shared memory, a split GEMM's tiles read each byte of their operands once", "[mapper]") {
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("tpu_v4");
  REQUIRE(spec.shared_memory.has_value());
  mapping::GemmProblem whole;
  whole.groups = 4;
  whole.m = 2;
  whole.n = 10;
  whole.k = 8;
  whole.e = 2;
  whole.b_role = program::TensorRole::kv_cache;
  whole.weights = 4096;
  whole.inputs = 0;
  whole.output = 8192;
  whole.written_bytes = 4 * 2 * 10 * 2;
  whole.input_bytes = [](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * 2; };
  const mapping::LayerPlan plan;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> cache;
  for (std::int64_t core = 0; core < 3; ++core) {
    const mapping::LayerSplit split{workload::Partition::columns, core, 3};
    const mapping::Context context{spec,
                                   plan,
                                   mapping::role_capacity(spec.sram),
                                   2,
                                   spec.dram.peak_bytes_per_second() / (spec.compute.clock_mhz * 1e6),
                                   static_cast<std::uint64_t>(spec.dram.burst_bytes()),
                                   split};
    const mapping::GemmProblem part = mapping::core_part(whole, split, 4, true);
    mapping::GemmTiling tiling;
    tiling.tg = 2;
    tiling.tm = 1;
    tiling.tn = part.n;
    tiling.tk = 8;
    program::LayerProgram program;
    mapping::emit_gemm_program(part, tiling, context, program);
    const auto own = loads_of(program, program::TensorRole::kv_cache);
    if (core == 1) CHECK(own == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{4288, 96}, {4384, 96}});
    cache.insert(cache.end(), own.begin(), own.end());
    const auto q = loads_of(program, program::TensorRole::inputs);
    CHECK(q == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 32}, {64, 32}, {32, 32}, {96, 32}});
    CHECK(tiles_exactly(q, 0, 128));
  }
  CHECK(tiles_exactly(cache, 4096, 640));
}

TEST_CASE("mapper: a split over K needs K at least the cores", "[mapper]") {
  // K = 4 over 8 cores: four would have no part to sum, and the reduction would wait for them.
  CHECK_THROWS_WITH(
      small_core_program(
          "name: k\nprecision: int8\ninput: {features: 4}\nlayers:\n  - {name: fc, type: linear, out_features: 16}\n",
          1, mapping::LayerSplit{workload::Partition::k, 0, 8}),
      "layer fc: its K (4) is smaller than the 8 cores a split over K gives a part each");
}
