// Replay of mapped layers on the accelerator top: exact compute cycles with the arithmetic in
// comments, stall accounting, and the bandwidth-bound to compute-bound transition with batch.
// ctest runs each case in its own process (one SystemC elaboration per process).
#include <catch2/catch.hpp>

#include "config/accelerator_loader.h"
#include "replay_harness.h"

using namespace reusesim;

namespace {

const char* const kSmallLinear = R"(
name: small_linear
precision: int8
input: {features: 64}
layers:
  - {name: fc, type: linear, out_features: 32, bias: false}
)";

// Plenty of DRAM bandwidth: 64 channels of ddr4-2400 (1.2 TB/s).
const std::vector<std::string> kWideDram{"dram.channels=64"};

}  // namespace

TEST_CASE("replay: one systolic tile takes its closed-form cycles", "[replay]") {
  // small: 16 x 16 weight-stationary. Batch 16: GEMM M = 16, N = 32, K = 64, one tile.
  // ws maps (K, N) on (R, C): folds = ceil(64/16) * ceil(32/16) = 8; each fold 2R + C + T - 2 =
  // 32 + 16 + 16 - 2 = 62 cycles (T = M = 16 streamed): 8 * 62 = 496 cycles.
  const Replayed replayed = replay("small", kWideDram, kSmallLinear, {16});
  const hw::LayerResult& fc = replayed.results.front();
  CHECK(fc.compute_cycles == 496);
  CHECK(fc.macs == 16 * 32 * 64);
  // The rest is the first load and the last store: the layer is that much longer, no more.
  CHECK(fc.cycles == fc.compute_cycles + fc.stall_cycles());
  CHECK(fc.stall_cycles() < 200);
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
  const hw::LayerResult& dw = replayed.results.front();
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
  const hw::LayerResult& conv = replayed.results.front();
  const hw::AcceleratorSpec spec = config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/snowflake.yaml");
  std::int64_t closed_form = 0;
  for (const mapping::Step& step : replayed.programs.front().steps) {
    if (step.kind == mapping::StepKind::compute) closed_form += mapping::gemm_cycles(spec.compute, step.gemm).cycles;
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
  const auto gops = [](const hw::LayerResult& r) { return 2.0 * static_cast<double>(r.macs) / r.seconds / 1e9; };
  const auto intensity = [](const hw::LayerResult& r) {
    return 2.0 * static_cast<double>(r.macs) / static_cast<double>(r.dram_read_bytes + r.dram_write_bytes);
  };
  const hw::LayerResult& one = replayed.results[0];
  const hw::LayerResult& many = replayed.results[1];
  CHECK(intensity(one) == Approx(1.0).epsilon(0.01));
  CHECK(gops(one) == Approx(4.2667).epsilon(0.05));
  CHECK(one.stall_weights > one.compute_cycles);  // waiting for weights dominates
  CHECK(gops(many) / 128.0 > 0.95);
  CHECK(intensity(many) > 50);
}

TEST_CASE("replay: stalls by cause and compute cycles add up to the layer's cycles", "[replay]") {
  const Replayed replayed = replay("small", {}, kChainModel, {1, 4});
  for (const hw::LayerResult& r : replayed.results) {
    INFO(r.layer << " batch " << r.batch);
    CHECK(r.cycles == r.compute_cycles + r.stall_cycles());
  }
  // flatten is a view: no steps, no time.
  CHECK(replayed.results[2].cycles == 0);
  CHECK(replayed.results[2].dram_read_bytes == 0);
}

namespace {

// Everything a batch's row reports, for comparing two replays of the same work.
void check_same_row(const hw::LayerResult& a, const hw::LayerResult& b) {
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
  CHECK(a.dram_requests == b.dram_requests);
  CHECK(a.dram_row_hits == b.dram_row_hits);
  CHECK(a.dram_activates == b.dram_activates);
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
