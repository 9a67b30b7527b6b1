// Replay of mapped layers on the accelerator top: exact compute cycles with the arithmetic in
// comments, stall accounting, and the bandwidth-bound to compute-bound transition with batch.
// ctest runs each case in its own process (one SystemC elaboration per process).
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

#include "energy/energy_model.h"
#include "fixtures.h"
#include "program/program_text.h"
#include "replay_harness.h"

using namespace reusesim;
using fixtures::kSmallLinear;
using fixtures::small_with_dram;

namespace {

// Plenty of DRAM bandwidth: 64 channels of ddr4-2400 (1.2 TB/s).
const std::vector<std::string> kWideDram{"dram.channels=64"};

// The output-path tests' layer: two loads, three tiles m1 n16 k64 (the first two with 16,384
// output-path ops, 8,192 in the busiest stage), four stores of 16,384 bytes after the last tile;
// `unit` goes into each compute line (empty: the array).
std::string output_path_program(const std::string& unit) {
  const std::string compute = "compute m 1 n 16 k 64 " + unit;
  return "layer conv type conv2d batch 1\nmapping by hand\n"
         "load weights addr 0x0 bytes 1024 after -\nload inputs addr 0x10000 bytes 64 after -\n" +
         compute + "vector_ops 16384 stage_ops 8192 bytes 1088 after 0,1\n" + compute +
         "vector_ops 16384 stage_ops 8192 bytes 1088 after 0,1\n" + compute + "vector_ops 0 bytes 1088 after 0,1\n" +
         "store outputs addr 0x20000 bytes 16384 after 4\nstore outputs addr 0x24000 bytes 16384 after 4\n"
         "store outputs addr 0x28000 bytes 16384 after 4\nstore outputs addr 0x2c000 bytes 16384 after 4\nend\n";
}

}  // namespace

TEST_CASE("replay: one systolic tile takes its closed-form cycles", "[replay]") {
  // small: 16 x 16 weight-stationary. Batch 16: GEMM M = 16, N = 32, K = 64, one tile.
  // ws maps (K, N) on (R, C): folds = ceil(64/16) * ceil(32/16) = 8; each fold 2R + C + T - 2 =
  // 32 + 16 + 16 - 2 = 62 cycles (T = M = 16 streamed): 8 * 62 = 496 cycles.
  const Replayed replayed = replay("small", kWideDram, kSmallLinear, {16});
  const results::LayerResult& fc = replayed.results.front();
  CHECK(fc.compute_cycles == 496);
  CHECK(fc.macs == 16 * 32 * 64);
  CHECK(fc.dram_read_bytes == 3072);  // 64 x 32 weights + 16 x 64 inputs
  CHECK(fc.dram_write_bytes == 512);  // 16 x 32 outputs
  // The rest is the first load and the last store: the layer is that much longer, no more.
  CHECK(fc.cycles == fc.compute_cycles + fc.stall_cycles());
  CHECK(fc.stall_cycles() < 200);
}

TEST_CASE("replay: a transposed GEMM streams its weights and moves the same bytes", "[replay]") {
  // The tile above with compute.swap_operands: (K, M) on (R, C) and the N = 32 weight columns
  // streamed: folds = ceil(64/16) * ceil(16/16) = 4 of 2R + C + T - 2 = 32 + 16 + 32 - 2 = 78
  // cycles = 312, against 496 as laid out. The same tiles load and store the same bytes as the
  // test above: 64 x 32 weights + 16 x 64 inputs = 3,072 read, 16 x 32 outputs = 512 written.
  std::vector<std::string> swapped = kWideDram;
  swapped.push_back("compute.swap_operands=true");
  const results::LayerResult transposed = replay("small", swapped, kSmallLinear, {16}).results.front();
  CHECK(transposed.compute_cycles == 312);
  CHECK(transposed.macs == 16 * 32 * 64);
  CHECK(transposed.dram_read_bytes == 3072);
  CHECK(transposed.dram_write_bytes == 512);
  CHECK(transposed.mapping.find("; on the array transposed (estimated cycles: array 496, array transposed 312)") !=
        std::string::npos);
}

TEST_CASE("replay: a core's two arrays split a tile's columns and share its bytes", "[replay]") {
  // The tile above on two 16 x 16 arrays (compute.arrays=2): 16 of the 32 columns each,
  // ceil(64/16) * ceil(16/16) = 4 folds of 62 cycles = 248 (split by the streamed rows instead, 8
  // rows each: 8 folds of 32 + 16 + 8 - 2 = 54 = 432). The inputs are broadcast to both arrays:
  // the same 3,072 bytes read and 512 written, in one tile.
  std::vector<std::string> two_arrays = kWideDram;
  two_arrays.push_back("compute.arrays=2");
  const results::LayerResult fc = replay("small", two_arrays, kSmallLinear, {16}).results.front();
  CHECK(fc.compute_cycles == 248);
  CHECK(fc.macs == 16 * 32 * 64);
  CHECK(fc.dram_read_bytes == 3072);
  CHECK(fc.dram_write_bytes == 512);
  CHECK(fc.mapping.find("tiles m16 n32 k64") != std::string::npos);
}

TEST_CASE("replay: a depthwise conv's channels share the array's folds", "[replay]") {
  // small with 32 rows (32 x 16 ws). A 3x3 depthwise conv of 8 channels on 6x6 (padding 1),
  // batch 1: per channel M = 36, K = 9, N = 1. Three 9-row channel blocks fit 32 rows side by
  // side: ceil(8 / 3) = 3 folds of 2*32 + 16 + 36 - 2 = 114 cycles = 342 (8 x 114 = 912 when the
  // channels ran one after another).
  std::vector<std::string> overrides = kWideDram;
  overrides.push_back("compute.rows=32");
  const Replayed replayed = replay("small", overrides, R"(
name: depthwise
precision: int8
input: {channels: 8, height: 6, width: 6}
layers:
  - {name: dw, type: conv2d, depthwise: true, kernel: 3, padding: 1, bias: false}
)", {1});
  const results::LayerResult& dw = replayed.results.front();
  CHECK(dw.compute_cycles == 342);
  CHECK(dw.macs == 8 * 36 * 9);
}

TEST_CASE("replay: one vector-MAC tile takes its closed-form cycles", "[replay]") {
  // snowflake: 16 units x 16 lanes. GEMM M = 16, N = 32, K = 64: each unit makes one output,
  // lanes reduce K: 16 * ceil(32/16) * ceil(64/16) = 16 * 2 * 4 = 128 cycles.
  const Replayed replayed = replay("snowflake", {"dram.channels=64"}, kSmallLinear, {16});
  CHECK(replayed.results.front().compute_cycles == 128);
}

TEST_CASE("replay: with ample DRAM bandwidth a conv layer runs at its compute cycles", "[replay]") {
  // AlexNet conv3 (13x13x256 -> 384, 3x3) on snowflake with 64 DRAM channels (273 GB/s against
  // 128 Gops/s): loads hide behind compute, so the layer takes its closed-form compute cycles
  // (the sum over its tiles) plus the first load and last store, within 2%.
  const Replayed replayed = replay("snowflake", kWideDram, R"(
name: conv3
precision: fp16
input: {channels: 256, height: 13, width: 13}
layers:
  - {name: conv3, type: conv2d, out_channels: 384, kernel: 3, padding: 1}
)", {1});
  const results::LayerResult& conv = replayed.results.front();
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("snowflake");
  std::int64_t closed_form = 0;
  for (const program::Step& step : replayed.programs.front().steps) {
    if (step.kind == program::StepKind::compute) closed_form += timing::gemm_cycles(spec.compute, step.gemm).cycles;
  }
  CHECK(conv.compute_cycles == closed_form);
  // 13*13 = 169 outputs x 384 channels x 3*3*256 = 2,304 taps = 149,520,384 MACs; K and N are
  // multiples of 16, so all 256 MACs work every cycle: 149,520,384 / 256 = 584,064 cycles.
  CHECK(closed_form == 584'064);
  CHECK(static_cast<double>(conv.cycles) == Approx(static_cast<double>(closed_form)).epsilon(0.02));
}

TEST_CASE("replay: a 4096 x 4096 linear layer climbs from the bandwidth slope to the compute roof", "[replay]") {
  // snowflake: 128 Gops/s peak, DDR3-1066 x32 at 4.27 GB/s. At batch 1 every 16-bit weight is
  // used once: 2 ops per 2 bytes, ~1 op/byte, so ~4.27 Gops/s. At batch 256 each weight serves
  // 256 inputs and the layer is compute-bound.
  const Replayed replayed = replay("snowflake", {}, R"(
name: linear4096
precision: fp16
input: {features: 4096}
layers:
  - {name: fc, type: linear, out_features: 4096, bias: false}
)", {1, 256});
  const auto gops = [](const results::LayerResult& r) { return 2.0 * static_cast<double>(r.macs) / r.seconds / 1e9; };
  const auto intensity = [](const results::LayerResult& r) {
    return 2.0 * static_cast<double>(r.macs) / static_cast<double>(r.dram_read_bytes + r.dram_write_bytes);
  };
  const results::LayerResult& one = replayed.results[0];
  const results::LayerResult& many = replayed.results[1];
  CHECK(intensity(one) == Approx(1.0).epsilon(0.01));
  CHECK(gops(one) == Approx(4.2667).epsilon(0.05));
  CHECK(one.stall_weights > one.compute_cycles);  // waiting for weights dominates
  CHECK(gops(many) / 128.0 > 0.95);
  CHECK(intensity(many) > 50);
}

TEST_CASE("replay: stalls by cause and compute cycles add up to the layer's cycles", "[replay]") {
  const Replayed replayed = replay("small", {}, kChainModel, {1, 4});
  for (const results::LayerResult& r : replayed.results) {
    INFO(r.layer << " batch " << r.batch);
    CHECK(r.cycles == r.compute_cycles + r.stall_cycles());
  }
  // flatten is a view: no steps, no time.
  CHECK(replayed.results[2].cycles == 0);
  CHECK(replayed.results[2].dram_read_bytes == 0);
}

namespace {

// Everything a batch's row reports, for comparing two replays of the same work.
void check_same_row(const results::LayerResult& a, const results::LayerResult& b) {
  INFO("layer " << a.layer << ", batch " << a.batch);
  CHECK(a.cycles == b.cycles);
  CHECK(a.seconds == b.seconds);
  CHECK(a.compute_cycles == b.compute_cycles);
  CHECK(a.stall_weights == b.stall_weights);
  CHECK(a.stall_inputs == b.stall_inputs);
  CHECK(a.stall_output_drain == b.stall_output_drain);
  CHECK(a.stall_sram == b.stall_sram);
  CHECK(a.stall_vector == b.stall_vector);
  CHECK(a.dram_read_bytes == b.dram_read_bytes);
  CHECK(a.dram_write_bytes == b.dram_write_bytes);
  CHECK(a.dram.counters.reads + a.dram.counters.writes == b.dram.counters.reads + b.dram.counters.writes);
  CHECK(a.dram.counters.row_hits == b.dram.counters.row_hits);
  CHECK(a.dram.counters.activates == b.dram.counters.activates);
  CHECK(a.sram_read_bytes == b.sram_read_bytes);
  CHECK(a.sram_write_bytes == b.sram_write_bytes);
}

}  // namespace

TEST_CASE("replay: each batch starts from the same machine, so batch 4,4 gives the same rows twice", "[replay]") {
  // The DRAM's open rows, queues and refresh timers and the SRAM ports do not carry from one
  // batch into the next: the second batch 4 replays exactly as the first.
  const Replayed replayed = replay("small", {}, kChainModel, {4, 4});
  const std::size_t layers = replayed.results.size() / 2;
  for (std::size_t i = 0; i < layers; ++i) check_same_row(replayed.results[i], replayed.results[layers + i]);
}

TEST_CASE("replay: with batches 1,2,1 the two batch-1 runs give the same rows", "[replay]") {
  const Replayed replayed = replay("small", {}, kChainModel, {1, 2, 1});
  const std::size_t layers = replayed.results.size() / 3;
  for (std::size_t i = 0; i < layers; ++i) check_same_row(replayed.results[i], replayed.results[2 * layers + i]);
}

namespace {

double share(std::int64_t part, const results::LayerResult& r) {
  return static_cast<double>(part) / static_cast<double>(r.stall_cycles());
}

// The one layer of `model_text` replayed at batch 1 on configs/`arch`.yaml; its causes add up.
results::LayerResult one_layer(const std::string& arch, const std::vector<std::string>& overrides, const char* model_text) {
  const results::LayerResult layer = replay(arch, overrides, model_text, {1}).results.front();
  CHECK(layer.cycles == layer.compute_cycles + layer.stall_cycles());
  return layer;
}

std::string stalls_text(const results::LayerResult& r) {
  return "weights " + std::to_string(r.stall_weights) + " inputs " + std::to_string(r.stall_inputs) + " drain " +
         std::to_string(r.stall_output_drain) + " of " + std::to_string(r.stall_cycles()) + " in " +
         std::to_string(r.cycles);
}

}  // namespace

// Stall causes name the bottleneck (docs/mapping-and-replay.md, "Stall causes"): a wait on a load
// is split by the bytes of each role the memory delivered during it, so an input tile queued behind
// a weight tile no longer takes the blame for the weight stream.
TEST_CASE("stall causes: a 4096 x 4096 linear layer at batch 1 stalls on its weights", "[replay][stall-causes]") {
  // snowflake, fp16: 32 MiB of weights against 8 KiB of inputs; the DDR3 moves weights ~99.9% of the time.
  const results::LayerResult fc = one_layer("snowflake", {}, R"(
name: linear4096
precision: fp16
input: {features: 4096}
layers:
  - {name: fc, type: linear, out_features: 4096, bias: false}
)");
  INFO(stalls_text(fc));
  CHECK(share(fc.stall_weights, fc) >= 0.9);
}

TEST_CASE("stall causes: a GRU at batch 1 stalls on its weights", "[replay][stall-causes]") {
  // DeepSpeech2's gru2 on snowflake: 50 steps of 400 features, hidden 400, fp16. Each step streams
  // 3 gates x (400 + 400) x 400 x 2 B = 1.92 MB of weights for 800 B of inputs and state.
  const results::LayerResult gru = one_layer("snowflake", {}, R"(
name: gru2
precision: fp16
input: {sequence: 50, features: 400}
layers:
  - {name: gru2, type: gru, hidden_size: 400}
)");
  INFO(stalls_text(gru));
  CHECK(share(gru.stall_weights, gru) >= 0.9);
}

TEST_CASE("stall causes: a 1x1 conv to 4 channels over a large map stalls on its inputs", "[replay][stall-causes]") {
  // small.yaml with its DDR4 clocked at tCK 2.5 ns (6.4 GB/s): 64 channels x 112 x 112 int8 =
  // 802,816 B of inputs take 125 us, against 256 B of weights, 50,176 B of outputs and 12,544 x 4
  // x 64 / 256 = 12,544 MAC cycles at the best: the memory moves inputs while the array waits. The
  // stores share the memory: a wait's output drain is the output bytes delivered in it (16 input
  // bytes for each output byte), plus the drain after the last compute step.
  const results::LayerResult conv = one_layer("small", {"dram.tck_ns=2.5"}, R"(
name: input_bound
precision: int8
input: {channels: 64, height: 112, width: 112}
layers:
  - {name: squeeze, type: conv2d, out_channels: 4, kernel: 1, bias: false}
)");
  INFO(stalls_text(conv));
  CHECK(conv.stall_cycles() * 4 > conv.cycles);  // input-bound: a good part of its time is waiting
  CHECK(share(conv.stall_inputs, conv) >= 0.85);
  CHECK(conv.stall_inputs > 5 * conv.stall_output_drain);
}

TEST_CASE("stall causes: a 1x1 conv from 4 to 256 channels waits on its output drain", "[replay][stall-causes]") {
  // snowflake.yaml (16 vMACs x 16 lanes at 250 MHz, DDR3 at 4.27 GB/s), fp16: each output pixel's
  // 256 channels take 256 / 16 = 16 cycles and leave 512 B: 32 B/cycle = 8 GB/s of stores, against
  // 100 KB in and 2 KiB of weights. The array waits for output slots the store DMA has not drained.
  const results::LayerResult conv = one_layer("snowflake", {}, R"(
name: drain_bound
precision: fp16
input: {channels: 4, height: 112, width: 112}
layers:
  - {name: expand, type: conv2d, out_channels: 256, kernel: 1, bias: false}
)");
  INFO(stalls_text(conv));
  CHECK(conv.stall_cycles() * 4 > conv.cycles);
  CHECK(share(conv.stall_output_drain, conv) >= 0.9);
}

namespace {

std::vector<results::LayerResult> replay_program_text(const spec::AcceleratorSpec& spec, const std::string& program) {
  std::vector<program::LayerRun> runs;
  for (program::ProgramRecord& record : program::read_programs(program, "test.program", static_cast<std::uint64_t>(spec.dram.burst_bytes()))) {
    runs.push_back(program::LayerRun{record.batch, std::move(record.program), runs.empty(), {}, {}});
  }
  const simulate::Replay replay = simulate::replay(spec, std::move(runs));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  return replay.results;
}

}  // namespace

TEST_CASE("stall causes: a wait on a load is split by the bytes the memory delivered", "[replay][stall-causes]") {
  // An ideal memory of 1 GB/s = 1 byte/ns, no latency, and a 1 GHz array: 1 byte per cycle. The
  // weight load (4,096 B) is served over cycles 0-4,096, the input load (64 B) queued behind it over
  // 4,096-4,160. The compute step needs both: it waits 4,160 cycles, during which the memory
  // delivered 4,096 weight bytes and 64 input bytes: 4,160 x 4,096 / 4,160 = 4,096 cycles on weights
  // and 64 on inputs. (Charging the load that arrived last would give all 4,160 to inputs.)
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n");
  const auto results = replay_program_text(spec, R"(layer fc type linear batch 1
mapping by hand
load weights addr 0x0 bytes 4096 after -
load inputs addr 0x10000 bytes 64 after -
compute m 1 n 64 k 64 vector_ops 0 bytes 4160 after 0,1
store outputs addr 0x20000 bytes 64 after 2
end
)");
  const results::LayerResult& fc = results.front();
  CHECK(fc.stall_weights == 4096);
  CHECK(fc.stall_inputs == 64);
  CHECK(fc.cycles == fc.compute_cycles + fc.stall_cycles());
}

TEST_CASE("stall causes: a wait on a load while a store drains is split three ways", "[replay][stall-causes]") {
  // The same 1 byte/cycle ideal memory, serving requests in the order they arrive, each request's
  // bytes counted when it completes. Compute step 2 waits for loads 0 and 1 (1,024 + 64 bytes):
  // 1,024 cycles of weights, 64 of inputs; it runs from 1,088 for 188 cycles (m1 n16 k64 on the
  // 16 x 16 ws array: 4 folds of 2R + C + T - 2 = 47). At 1,276 store 3 (2,048 B) starts draining
  // and vector step 4 runs 896 / 16 = 56 cycles; then loads 5 and 6 (1,024 B of weights, 512 of
  // inputs) queue behind the store: the memory is busy until 1,276 + 2,048 + 1,536 = 4,860.
  // Compute 7 waits from 1,332 to 4,860, 3,528 cycles, in which the memory delivered all 2,048
  // store bytes (its first request of at least a burst, 64 B, completes at 1,340) and the 1,536
  // load bytes: weights 3,528 x 1,024 / 3,584 = 1,008, inputs 504, output drain 2,016. Compute 7
  // then runs 188 cycles and store 8 drains its 64 bytes: 5,112 cycles in all. Weights 1,024 +
  // 1,008 = 2,032, inputs 64 + 504 = 568, output drain 2,016 + 64 = 2,080; compute 188 x 2 + 56.
  // (With the store's bytes left out of the split, the wait went 2:1 to weights and inputs:
  // 3,376 and 1,240, drain 64.)
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n");
  const auto results = replay_program_text(spec, R"(layer fc type linear batch 1
mapping by hand
load weights addr 0x0 bytes 1024 after -
load inputs addr 0x10000 bytes 64 after -
compute m 1 n 16 k 64 vector_ops 0 bytes 1088 after 0,1
store outputs addr 0x20000 bytes 2048 after 2
vector ops 896 bytes 64 after 2
load weights addr 0x400 bytes 1024 after 4
load inputs addr 0x10040 bytes 512 after 4
compute m 1 n 16 k 64 vector_ops 0 bytes 1536 after 5,6
store outputs addr 0x20800 bytes 64 after 7
end
)");
  const results::LayerResult& fc = results.front();
  CHECK(fc.compute_cycles == 2 * 188 + 56);
  CHECK(fc.stall_weights == 2032);
  CHECK(fc.stall_inputs == 568);
  CHECK(fc.stall_output_drain == 2080);
  CHECK(fc.cycles == 5112);
}

TEST_CASE("per-tensor DRAM columns: outputs read back count as inputs", "[replay][dram-bytes]") {
  // A program that reads back 256 B of its outputs (partial sums it spilled) beside 1,024 B of
  // weights and 64 B of inputs: dram_read_input_bytes = 64 + 256 = 320, and the per-tensor reads add
  // up to dram_read_bytes, 1,344 (every range burst-aligned, so nothing is widened).
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n");
  const auto results = replay_program_text(spec, R"(layer fc type linear batch 1
mapping by hand
load weights addr 0x0 bytes 1024 after -
load inputs addr 0x10000 bytes 64 after -
load outputs addr 0x20000 bytes 256 after -
compute m 1 n 16 k 64 vector_ops 0 bytes 1088 after 0,1,2
store outputs addr 0x20000 bytes 256 after 3
end
)");
  const results::LayerResult& fc = results.front();
  CHECK(fc.dram_read_weight_bytes == 1024);
  CHECK(fc.dram_read_input_bytes == 320);
  CHECK(fc.dram_read_kv_cache_bytes == 0);
  CHECK(fc.dram_read_bytes == 1344);
}

TEST_CASE("ideal memory: unlimited, a layer that fits the buffers takes exactly its compute cycles", "[replay][ideal-memory]") {
  // Every load and store completes the moment it is issued, and the 64 x 32 int8 weights (2 KiB),
  // 16 x 64 inputs (1 KiB) and 16 x 32 outputs fit small.yaml's buffers whole: nothing is left to
  // wait for, so cycles = the closed-form compute cycles, with no stall of any cause.
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: unlimited\n");
  const config::LoadedModel model = config::load_model_text(kSmallLinear, "model.yaml");
  const auto layouts = mapping::layout_network(model.network, 16, spec.element_bytes());
  const program::LayerProgram program = mapping::map_layer(model.network.layers[0], 16, spec, layouts[0]);
  std::int64_t closed_form = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) closed_form += timing::gemm_cycles(spec.compute, step.gemm).cycles;
  }
  const simulate::Replay replay = simulate::replay(spec, {program::LayerRun{16, program, true, {}, {}}});
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const results::LayerResult& fc = replay.results.front();
  CHECK(fc.compute_cycles == closed_form);
  CHECK(fc.stall_cycles() == 0);
  CHECK(fc.cycles == closed_form);
  CHECK(fc.dram_read_bytes == program.dram_read_bytes);
  CHECK(fc.dram.counters.columns() == 0);  // no DRAM: no column commands, so no row_hit_rate
}

namespace {

// Two layers by hand, for weight prefetch: `a` computes long (m 4,000) on a 256-byte weight tile;
// `b`'s 2,048-byte weight load waits for nothing, so it may load during `a`.
const char* const kTwoLayers = R"(layer a type linear batch 1
mapping by hand
load weights addr 0x0 bytes 256 after -
load inputs addr 0x100000 bytes 64 after -
compute m 4000 n 16 k 16 vector_ops 0 bytes 320 after 0,1
store outputs addr 0x200000 bytes 64 after 2
end
layer b type linear batch 1
mapping by hand
load weights addr 0x10000 bytes 2048 after -
load inputs addr 0x200000 bytes 64 after -
compute m 16 n 16 k 16 vector_ops 0 bytes 320 after 0,1
store outputs addr 0x300000 bytes 64 after 2
end
)";

const char* const kOneBytePerNsMemory = "  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n";

}  // namespace

TEST_CASE("weight prefetch: the next layer's weights load during the layer before", "[replay][prefetch]") {
  // small.yaml: 16 x 16 ws array at 1 GHz, 32 KiB weight buffer; an ideal memory of 1 byte/ns, so
  // 1 byte per cycle, requests served in order. A ws step takes m + 2 x 16 + 16 - 2 cycles.
  // Layer a: weights 0-256, inputs 256-320, then b's weights (room 32,768 - 256 >= 2,048) 320-2,368.
  //   The compute waits 320 (256 weights, 64 inputs) and runs 4,000 + 46 = 4,046 to 4,366; its
  //   store follows b's weights in the memory's order and ends at 4,366 + 64 = 4,430: 4,430 cycles.
  // Layer b from 4,430: its weights are in; inputs 4,430-4,494 (64 on inputs), compute 16 + 46 = 62
  //   to 4,556, store to 4,620: 190 cycles.
  const auto results = replay_program_text(small_with_dram(kOneBytePerNsMemory), kTwoLayers);
  CHECK(results[0].cycles == 4430);
  CHECK(results[0].stall_weights == 256);
  CHECK(results[0].stall_inputs == 64);
  CHECK(results[0].dram_read_bytes == 256 + 64);  // its own loads, though b's weights moved in its window
  CHECK(results[1].cycles == 190);
  CHECK(results[1].stall_weights == 0);
  CHECK(results[1].stall_inputs == 64);
  CHECK(results[1].prefetched_weight_bytes == 2048);
  CHECK(results[1].dram_read_weight_bytes == 2048);
}

TEST_CASE("weight prefetch: without room in the weight buffer the layers do not overlap", "[replay][prefetch]") {
  // The same with a 2 KiB weight buffer: a keeps 256 bytes, leaving 1,792 < 2,048. Layer a as
  // before: 320 + 4,046 + 64 = 4,430 (its store now ends at 4,366 + 64, the memory idle since 320).
  // Layer b from 4,430: weights 4,430-6,478, inputs to 6,542, so the compute waits 2,112 (2,048 on
  // weights, 64 on inputs), runs 62 to 6,604, and the store ends at 6,668: 2,238 cycles.
  spec::AcceleratorSpec spec = small_with_dram(kOneBytePerNsMemory);
  spec.sram.buffers[spec.sram.buffer_index(spec::TensorKind::weights)].capacity_bytes = 2048;
  const auto results = replay_program_text(spec, kTwoLayers);
  CHECK(results[0].cycles == 4430);
  CHECK(results[1].cycles == 2238);
  CHECK(results[1].stall_weights == 2048);
  CHECK(results[1].stall_inputs == 64);
  CHECK(results[1].prefetched_weight_bytes == 0);
}

TEST_CASE("weight prefetch: never across a batch boundary", "[replay][prefetch]") {
  // b starts a batch of its own: the machine restarts, nothing loads early, b runs as without room.
  std::vector<program::LayerRun> runs;
  const spec::AcceleratorSpec spec = small_with_dram(kOneBytePerNsMemory);
  for (program::ProgramRecord& record : program::read_programs(kTwoLayers, "test.program", 64)) {
    runs.push_back(program::LayerRun{record.batch, std::move(record.program), true, {}, {}});
  }
  const simulate::Replay replay = simulate::replay(spec, std::move(runs));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  CHECK(replay.results[1].cycles == 2238);
  CHECK(replay.results[1].prefetched_weight_bytes == 0);
}

TEST_CASE("replay: a layer's energy is its action counts times the 45 nm table and the DDR4 currents", "[replay][energy]") {
  // small (16 x 16 ws, int8, 1 GHz) on one ddr4-2400 channel, technology 45nm. Batch 16 of the
  // 64 -> 32 linear layer without bias: one tile m16 n32 k64, so the program is
  // load weights 2,048 B, load inputs 1,024 B, compute, store outputs 512 B.
  const Replayed replayed = replay("small", {"technology=45nm", "compute.number_format=int"}, kSmallLinear, {16});
  const results::LayerResult& fc = replayed.results.front();
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small", {"technology=45nm", "compute.number_format=int"});

  // Action counts. Buffers in small's order: weights (32 KiB, 4 banks of 4 B), inputs (32 KiB,
  // 4 x 4 B), outputs (16 KiB, 4 x 16 B). Weights: written 2,048 B = 512 words by the load, read
  // 512 words by the compute; inputs 1,024 B = 256 words each way; outputs read 512 B = 32 words of
  // 16 B by the store (the array writes its results through the accumulators, not the buffer).
  CHECK(fc.macs == 16 * 32 * 64);
  CHECK(fc.accumulator_updates == 16 * 32);  // one K tile: each output element added into once
  REQUIRE(fc.sram_words.size() == 3);
  CHECK(fc.sram_words[0].write_words == 512);
  CHECK(fc.sram_words[0].read_words == 512);
  CHECK(fc.sram_words[1].write_words == 256);
  CHECK(fc.sram_words[1].read_words == 256);
  CHECK(fc.sram_words[2].write_words == 0);
  CHECK(fc.sram_words[2].read_words == 32);
  CHECK(fc.dram_read_bytes == 3072);
  CHECK(fc.dram_write_bytes == 512);

  const energy::EnergyBreakdown e = energy::layer_energy(spec, fc);
  // SRAM (Horowitz: 64-bit reads cost 10 pJ at 8 KiB, 20 at 32 KiB; log-log between, the table's
  // first point below 8 KiB): a weights or inputs bank is 8 KiB, 10 pJ per 64 bits, 5 pJ per
  // 32-bit word; an outputs bank is 4 KiB, below the table: 10 pJ per 64 bits, 20 per 128-bit word.
  // (512 + 512 + 256 + 256) x 5 + 32 x 20 = 7,680 + 640 = 8,320 pJ.
  CHECK(e.sram_pj == Approx(7680 + 32 * 20).epsilon(1e-12));
  // Array: a MAC is an int8 multiply (0.2 pJ) and an int32 add (0.1 pJ): 32,768 x 0.3 = 9,830.4 pJ.
  // An accumulator update reads and writes one 32-bit partial sum of the 64 KiB accumulators:
  // above 32 KiB the slope is log(100/20)/log(1024/32) = 0.46439, so 64 KiB costs
  // 20 x 2^0.46439 = 27.594 pJ per 64 bits, 13.797 per 32-bit access, 27.594 per update:
  // 512 x 27.594 = 14,128.4 pJ.
  const double accumulator_pj_per_64_bits = 20 * std::pow(2.0, std::log(5.0) / std::log(32.0));
  CHECK(e.array_pj == Approx(32768 * 0.3 + 512 * accumulator_pj_per_64_bits).epsilon(1e-12));
  CHECK(e.vector_pj == 0);
  // DMA: 3,584 DRAM bytes x 1.6 pJ = 5,734.4 pJ.
  CHECK(e.dma_pj == Approx(3584 * 1.6).epsilon(1e-12));
  // Leakage: SRAM 32 + 32 + 16 + 64 (accumulators) = 144 KiB x 0.1 uW = 14.4 uW; the array's
  // 256 int8 multipliers (282 um^2) and int32 adders (137 um^2) = 107,264 um^2 x 0.002 uW = 214.528 uW;
  // 228.928 uW over the layer's time (uW x s x 1e6 = pJ).
  CHECK(e.static_pj == Approx(228.928 * fc.seconds * 1e6).epsilon(1e-12));

  // DRAM (ddr4-2400's power block: 8 x8 devices per rank, VDD 1.2 V, VPP 2.5 V, tCK 0.833 ns), in
  // pJ per mA-clock: VDD 1.2 x 0.833 x 8 = 7.9968, VPP 2.5 x 0.833 x 8 = 16.66.
  //   activate  (48 - 43) x tRAS 39 x 7.9968 + (3 - 3) x 39 x 16.66 = 1,559.376
  //   read      (135 - 43) x BL/2 4 x 7.9968 = 2,942.8224, plus I/O 1.23 pJ x 512 bits = 629.76
  //   write     (123 - 43) x 4 x 7.9968 = 2,558.976, plus I/O 5.65 x 512 = 2,892.8
  //   standby per rank-clock: active 43 x 7.9968 + 3 x 16.66 = 393.8424,
  //                           precharged 34 x 7.9968 + 3 x 16.66 = 321.8712
  // over the layer's time in memory clocks x 2 ranks; the rank-clocks with a row open are the
  // channel's count.
  REQUIRE(e.dram);
  const results::DramChannelStats& commands = fc.dram.counters;
  CHECK(commands.read_commands == 48);  // 3,072 B in 64 B bursts
  CHECK(commands.write_commands == 8);  // 512 B
  CHECK(commands.precharges == 0);
  CHECK(commands.refreshes == 0);
  CHECK(e.dram->activate_pj == Approx(commands.activates * 1559.376).epsilon(1e-12));
  CHECK(e.dram->precharge_pj == 0);
  CHECK(e.dram->read_pj == Approx(48 * 2942.8224).epsilon(1e-12));
  CHECK(e.dram->write_pj == Approx(8 * 2558.976).epsilon(1e-12));
  CHECK(e.dram->io_pj == Approx(48 * 629.76 + 8 * 2892.8).epsilon(1e-12));
  const double rank_clocks = fc.seconds / 0.833e-9 * 2;
  const double active = static_cast<double>(commands.active_rank_cycles);
  CHECK(active > 0);
  CHECK(e.dram->active_standby_pj == Approx(active * 393.8424).epsilon(1e-12));
  CHECK(e.dram->precharged_standby_pj == Approx((rank_clocks - active) * 321.8712).epsilon(1e-9));
  CHECK(e.total_pj() == Approx(e.sram_pj + e.array_pj + e.dma_pj + e.static_pj + e.dram->total_pj()).epsilon(1e-12));
}

TEST_CASE("replay: a matmul of two activations loads both as inputs, one GEMM per sample and head", "[replay]") {
  // Q x K^T of 2 heads of 16 over 32 tokens, batch 2: 4 GEMMs of 32 x 32 x 16 (groups = batch x
  // heads), 2 x 2 x 32 x 32 x 16 = 65,536 MACs. Neither operand is a weight: the program loads
  // Q and K (2 x 32 x 32 int8 bytes each, 2,048 B apiece) as inputs and no weights.
  const char* const model = R"(
name: attention_scores
precision: int8
input: {sequence: 32}
layers:
  - {name: tok, type: embedding, num_embeddings: 64, embedding_dim: 32}
  - {name: scores, type: matmul, heads: 2, transpose_b: true, inputs: [tok, tok]}
)";
  const Replayed replayed = replay("small", kWideDram, model, {2});
  const results::LayerResult& scores = replayed.results.back();
  CHECK(scores.macs == 65'536);
  CHECK(scores.dram_read_weight_bytes == 0);
  CHECK(scores.dram_read_input_bytes == 2 * 2048);
  CHECK(scores.dram_write_bytes == 2 * 32 * 64);  // 2 samples x 32 rows x 2 heads x 32 scores
  const program::LayerProgram& program = replayed.programs.back();
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load) CHECK(step.tensor == program::TensorRole::inputs);
  }
}

TEST_CASE("tpu_v1: the second weight tile hides the shift-in of every fold but the first", "[replay][tpu_v1]") {
  // configs/tpu_v1.yaml: 256 x 256 ws with double_buffered_stationary (Jouppi et al., ISCA 2017,
  // Sec. 2: one weight tile in use, the next shifting in). One compute step m 200 n 256 k 512 is
  // ceil(512 / 256) x ceil(256 / 256) = 2 folds, T = 200 streamed: the first 2R + C + T - 2 = 512 +
  // 256 + 200 - 2 = 966 cycles, the second max(T, R) = 256 later: 1,222 cycles (2 x 966 = 1,932
  // with one register per PE). Its SRAM reads are shorter: 512 x 256 weights at 256 B a cycle =
  // 512 cycles, 200 x 512 inputs at 256 B = 400.
  const spec::AcceleratorSpec tpu = fixtures::shipped_accelerator("tpu_v1");
  CHECK(tpu.compute.double_buffered_stationary);
  const auto results = replay_program_text(tpu, R"(layer fc type linear batch 200
mapping by hand
compute m 200 n 256 k 512 vector_ops 0 bytes 233472 after -
end
)");
  CHECK(results.front().compute_cycles == 1222);
  CHECK(results.front().cycles == 1222);
}

TEST_CASE("output path: its stages are a pipeline beside the array, fed by double-buffered accumulators",
          "[replay][output-path]") {
  // small (16 x 16 ws, 1 GHz, 16 vector ops a cycle) on an ideal memory of 64 GB/s = 64 bytes a
  // cycle. The loads take 1,024 / 64 = 16 and 64 / 64 = 1 cycles; every compute step m1 n16 k64 is
  // 4 folds of 2 x 16 + 16 + 1 - 2 = 47: 188 cycles on the array. Steps 2 and 3 send 16,384 output-
  // path ops each through two stages of 8,192: the busiest stage takes 8,192 / 16 = 512 cycles (one
  // stage after the other: 1,024). Step 4 has no output-path work; stores 5-8 move 16,384 bytes
  // each, 256 cycles apiece, after it.
  //   step 2: array 17-205; output path 17-529 (it takes the rows as they come: max(205, 17 + 512)).
  //   step 3: array 205-393; output path from 529, when it is done with step 2: 529-1,041.
  //   step 4: both accumulator buffers hold tiles still in the output path, so it waits for the
  //           older one to leave (529): 136 cycles of vector stall, then the array 529-717.
  //   stores: 717-973-1,229-1,485-1,741. The layer ends at 1,741.
  // compute 3 x 188 = 564; weights 16 and inputs 1 (the first wait, split by bytes delivered);
  // vector 136 + the output path's tail after the array's last step, 717-1,041 = 324, so 460; the
  // rest, 1,741 - 564 - 17 - 460 = 700, the stores' output drain.
  // Serial stages with the vector work inside each step (the model before) took 17 + 1,024 +
  // 1,024 + 188 = 2,253 before the stores: 3,277 cycles.
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 0}\n");
  const auto results = replay_program_text(spec, output_path_program(""));
  const results::LayerResult& conv = results.front();
  CHECK(conv.compute_cycles == 564);
  CHECK(conv.stall_weights == 16);
  CHECK(conv.stall_inputs == 1);
  CHECK(conv.stall_vector == 460);
  CHECK(conv.stall_output_drain == 700);
  CHECK(conv.cycles == 1741);
}

TEST_CASE("output path: a GEMM on the vector unit runs its output-path work after its MACs, on the same units",
          "[replay][output-path]") {
  // The layer of the test above with its three tiles on the vector unit (small: 16 ops a cycle):
  // each is 2 x 16 x 64 / 16 = 128 cycles of MACs, and the vector unit is the output path's
  // units, so a tile's busiest stage (512 cycles) follows its MACs and the next tile waits for it.
  //   loads 0-17; step 2: MACs 17-145, output path 145-657;
  //   step 3: waits 145-657 (512 of vector stall), MACs 657-785, output path 785-1,297;
  //   step 4: waits 785-1,297 (512), MACs 1,297-1,425; stores 1,425-1,681-1,937-2,193-2,449.
  // compute 3 x 128 = 384, weights 16, inputs 1, vector 1,024, output drain 1,024: 2,449 cycles
  // (on the array, 1,741: there the path runs beside the next tiles).
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 0}\n");
  const results::LayerResult vector = replay_program_text(spec, output_path_program("unit vector ")).front();
  CHECK(std::make_tuple(vector.compute_cycles, vector.stall_weights, vector.stall_inputs, vector.stall_vector,
                        vector.stall_output_drain, vector.cycles) == std::make_tuple(384, 16, 1, 1024, 1024, 2449));
}

TEST_CASE("partial sums spilled to the output buffer cost its ports", "[replay][partial-sums]") {
  // small on the 64 bytes-a-cycle ideal memory: loads 16 + 1 cycles, then a compute step m1 n16
  // k64 (188 array cycles, as above) that reads 16,384 bytes of partial sums from the outputs
  // buffer and writes them back: 4 banks x 16 B = 64 bytes a cycle, 256 cycles each way on its
  // own port. The step takes 256 cycles, 68 of them beyond the array's: an SRAM stall. 17 + 256 =
  // 273 cycles (without the spill's traffic, 17 + 188 = 205).
  const spec::AcceleratorSpec spec = small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 0}\n");
  const auto results = replay_program_text(spec, R"(layer fc type linear batch 1
mapping by hand
load weights addr 0x0 bytes 1024 after -
load inputs addr 0x10000 bytes 64 after -
compute m 1 n 16 k 64 vector_ops 0 bytes 1088 psum_read 16384 psum_write 16384 after 0,1
end
)");
  const results::LayerResult& fc = results.front();
  CHECK(fc.compute_cycles == 188);
  CHECK(fc.stall_sram == 68);
  CHECK(fc.cycles == 273);
  // The loads write 1,088 bytes of operands, which the step reads; 16,384 bytes of sums each way.
  CHECK(fc.sram_read_bytes == 1088 + 16384);
  CHECK(fc.sram_write_bytes == 1088 + 16384);
}

TEST_CASE("sub-batches: the replay runs the layers pass by pass, each layer's row over its passes",
          "[replay][sub-batches]") {
  // The two 1x1 convolutions of tests/test_network_plan.cpp ("sub-batches: ..."), batch 4 on a
  // 3 KiB keeping buffer: both run in 2 sub-batches of 2. The replay runs conv1's first pass,
  // conv2's first, conv1's second, conv2's second: conv1's span (first pass to last) encloses
  // conv2's first pass, and each row adds up its passes (its program's DRAM bytes and MACs).
  namespace simulate = reusesim::simulate;
  const spec::AcceleratorSpec spec = fixtures::keeping_accelerator(3, "[]", "ddr3-1066");
  const config::LoadedModel model = config::load_model_text(R"(
name: m
precision: int8
input: {channels: 16, height: 8, width: 8}
layers:
  - {name: conv1, type: conv2d, out_channels: 16, kernel: 1, bias: false}
  - {name: conv2, type: conv2d, out_channels: 16, kernel: 1, bias: false}
)",
                                                            "m.yaml");
  simulate::RunPlan plan = simulate::plan_inference(spec, model.network, {4}, {0, 1}, "keeper");
  REQUIRE(plan.runs[0].program.passes == 2);
  REQUIRE(plan.runs[1].program.passes == 2);
  std::vector<program::LayerProgram> programs;
  for (const program::LayerRun& run : plan.runs) programs.push_back(run.program);
  results::TimelineRecorder timeline;
  const simulate::Replay replay = simulate::replay(spec, std::move(plan.runs), &timeline);
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const std::vector<results::LayerSpan>& spans = timeline.layers();
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].start_ps < spans[1].start_ps);
  CHECK(spans[1].start_ps < spans[0].end_ps);  // conv2's first pass ran before conv1's second
  CHECK(spans[0].end_ps < spans[1].end_ps);
  for (std::size_t i = 0; i < 2; ++i) {
    const results::LayerResult& row = replay.results[i];
    CHECK(row.macs == 4 * 64 * 16 * 16);
    CHECK(row.dram_read_bytes == programs[i].dram_read_bytes);
    CHECK(row.dram_write_bytes == programs[i].dram_write_bytes);
    CHECK(row.cycles == row.compute_cycles + row.stall_cycles());
  }
}
