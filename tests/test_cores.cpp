// A chip of several cores (spec::AcceleratorSpec::cores): each batch split over the cores, data
// parallel, every core on the chip's memory; exact cycles on an ideal memory, and the shared
// DRAM's contention.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "energy/energy_model.h"
#include "fixtures.h"
#include "hw/core.h"
#include "simulate/plan.h"
#include "simulate/replay.h"

namespace results = reusesim::results;
namespace simulate = reusesim::simulate;
namespace spec = reusesim::spec;

namespace {

// `model_text` (kSmallLinear: 64 -> 32, int8, no bias) at each of `batches` on `chip`.
std::vector<results::LayerResult> replay_linear(const spec::AcceleratorSpec& chip,
                                                const std::vector<std::int64_t>& batches,
                                                const std::string& model_text = fixtures::kSmallLinear) {
  const reusesim::config::LoadedModel model = reusesim::config::load_model_text(model_text, "model.yaml");
  simulate::RunPlan plan = simulate::plan_inference(chip, model.network, batches, {0}, "chip");
  const simulate::Replay replay = simulate::replay(chip, std::move(plan.runs));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  return replay.results;
}

// small's cores on an ideal unlimited memory, each batch split as `partition` says.
spec::AcceleratorSpec ideal_chip(std::int64_t cores, spec::CorePartition partition = spec::CorePartition::samples) {
  spec::AcceleratorSpec chip = fixtures::small_with_dram("  ideal: unlimited\n");
  chip.cores = cores;
  chip.core_partition = partition;
  return chip;
}

// kSmallLinear with `from` replaced by `to`.
std::string small_linear_with(const std::string& from, const std::string& to) {
  std::string text = fixtures::kSmallLinear;
  return text.replace(text.find(from), from.size(), to);
}

// kSmallLinear as 64 -> 16: one column tile of small's 16 x 16 array.
std::string narrow_linear() { return small_linear_with("out_features: 32", "out_features: 16"); }

}  // namespace

TEST_CASE("cores: two cores split a batch of two, each one sample's tile in its closed-form cycles", "[cores]") {
  // small: 16 x 16 ws. Each core maps M = 1, N = 32, K = 64: ceil(64/16) x ceil(32/16) = 8 folds
  // of 2 x 16 + 16 + 1 - 2 = 47 cycles = 376, side by side on an ideal unlimited memory (no
  // stall): the layer takes 376 cycles for both samples, 2 x 1 x 32 x 64 = 4,096 MACs. Each core
  // loads the 2 KiB of weights itself: 4,096 weight bytes read.
  const results::LayerResult fc = replay_linear(ideal_chip(2), {2}).front();
  CHECK(fc.cycles == 376);
  CHECK(fc.compute_cycles == 376);
  CHECK(fc.stall_cycles() == 0);
  CHECK(fc.macs == 4096);
  CHECK(fc.dram_read_weight_bytes == 2 * 2048);
  REQUIRE(fc.cores.size() == 2);
  for (const results::CoreFigures& core : fc.cores) {
    CHECK(core.samples == 1);
    CHECK(core.compute_cycles == 376);
    CHECK(core.sync_cycles == 0);
    CHECK(core.macs == 2048);
  }
  CHECK(fc.mapping.find("; data parallel over 2 cores: 1 + 1 samples") != std::string::npos);
}

TEST_CASE("cores: an uneven batch waits for its busiest core, the others count sync", "[cores]") {
  // Batch 3 on two cores: core 0 two samples, 8 folds of 2 x 16 + 16 + 2 - 2 = 48 cycles = 384;
  // core 1 one sample, 376 cycles, then 8 cycles of sync. The row is core 0's: 384 cycles.
  const results::LayerResult fc = replay_linear(ideal_chip(2), {3}).front();
  CHECK(fc.cycles == 384);
  CHECK(fc.compute_cycles == 384);
  CHECK(fc.macs == 3 * 2048);
  REQUIRE(fc.cores.size() == 2);
  CHECK(fc.cores[0].samples == 2);
  CHECK(fc.cores[0].compute_cycles == 384);
  CHECK(fc.cores[0].sync_cycles == 0);
  CHECK(fc.cores[1].samples == 1);
  CHECK(fc.cores[1].compute_cycles == 376);
  CHECK(fc.cores[1].sync_cycles == 8);
}

TEST_CASE("cores: a core without samples idles the layer through", "[cores]") {
  // Batch 1 on three cores: core 0 runs the sample (376 cycles), cores 1 and 2 have no program:
  // no MACs, 376 cycles of sync each.
  const results::LayerResult fc = replay_linear(ideal_chip(3), {1}).front();
  CHECK(fc.cycles == 376);
  REQUIRE(fc.cores.size() == 3);
  CHECK(fc.cores[1].samples == 0);
  CHECK(fc.cores[1].macs == 0);
  CHECK(fc.cores[1].sync_cycles == 376);
  CHECK(fc.cores[2].sync_cycles == 376);
}

TEST_CASE("cores: cores sharing one DRAM channel contend for it", "[cores]") {
  // small's one DDR4-2400 channel, two cores (one simulation a process: both batches in one run,
  // each from a fresh machine). Batch 1: core 0 alone; batch 2: both cores load the 2 KiB of
  // weights and their sample through the same channel, twice the bytes, so the layer takes
  // longer than the one-sample run, where the ideal memory above gave both the same 376 cycles.
  spec::AcceleratorSpec chip = fixtures::shipped_accelerator("small");
  chip.cores = 2;
  chip.core_partition = spec::CorePartition::samples;
  const std::vector<results::LayerResult> rows = replay_linear(chip, {1, 2});
  const results::LayerResult& alone = rows[0];
  const results::LayerResult& shared = rows[1];
  CHECK(shared.compute_cycles == alone.compute_cycles);
  CHECK(shared.dram_read_bytes == 2 * alone.dram_read_bytes);
  CHECK(shared.cycles > alone.cycles);
  CHECK(shared.stall_cycles() > alone.stall_cycles());
}

TEST_CASE("cores: a layer split by columns gives each core its columns and its weights", "[cores]") {
  // Batch 1 on two cores, every layer split: each core maps M = 1, N = 16, K = 64: ceil(64/16) x
  // ceil(16/16) = 4 folds of 2 x 16 + 16 + 1 - 2 = 47 cycles = 188, half the 376 of one core; 1 x 16
  // x 64 = 1,024 MACs each; each core loads its 16 x 64 = 1,024 weight bytes: 2,048 read, the
  // layer's weights once.
  const results::LayerResult fc = replay_linear(ideal_chip(2, spec::CorePartition::layers), {1}).front();
  CHECK(fc.cycles == 188);
  CHECK(fc.compute_cycles == 188);
  CHECK(fc.macs == 2048);
  CHECK(fc.dram_read_weight_bytes == 2048);
  REQUIRE(fc.cores.size() == 2);
  CHECK(fc.cores[0].part == "columns 0..15 of 32");
  CHECK(fc.cores[1].part == "columns 16..31 of 32");
  for (const results::CoreFigures& core : fc.cores) {
    CHECK(core.samples == 1);
    CHECK(core.compute_cycles == 188);
    CHECK(core.sync_cycles == 0);
    CHECK(core.macs == 1024);
  }
  CHECK(fc.mapping.find("; split over 2 cores by columns") != std::string::npos);
}

TEST_CASE("cores: a layer with one column tile is split over K and the cores reduce their partial sums", "[cores]") {
  // 64 -> 16 at batch 4 on two cores, every layer split. By columns each core has N = 8, M = 4:
  // 4 folds of 2 x 16 + 16 + 4 - 2 = 50 cycles = 200; by rows N = 16, M = 2: 4 folds of 48 = 192;
  // over K each core sums K = 32 of the 64: 2 folds of 50 = 100 cycles, and stores its 4 x 16
  // partial sums at 4 B (256 B). Then (every core done: a barrier) core c reduces outputs
  // 32c..32c+31: it loads both cores' 32 sums (2 x 128 B) into its input buffer and adds them, 32
  // adds, 2 cycles on the 16-wide vector unit, but the step reads its 256 B at the input buffer's
  // 4 banks x 4 B = 16 B a cycle: 16 cycles, 14 of them an SRAM stall. 100 + 16 = 116 cycles.
  // Each core reads its half of the weights (16 x 32 = 512 B), its 4 x 32 input bytes and 256 B
  // of sums: 1,024 weight and 768 input bytes; it writes 256 B of sums and its 32 output bytes
  // (a 64 B burst on the ideal memory): 320 B.
  const results::LayerResult fc =
      replay_linear(ideal_chip(2, spec::CorePartition::layers), {4}, narrow_linear()).front();
  CHECK(fc.cycles == 116);
  CHECK(fc.compute_cycles == 100 + 2);
  CHECK(fc.macs == 4 * 16 * 64);
  CHECK(fc.vector_ops == 2 * 32);
  CHECK(fc.dram_read_weight_bytes == 1024);
  CHECK(fc.dram_read_input_bytes == 2 * (4 * 32 + 256));
  CHECK(fc.dram_write_bytes == 2 * 320);
  REQUIRE(fc.cores.size() == 2);
  CHECK(fc.cores[0].part == "k 0..31 of 64");
  CHECK(fc.cores[1].part == "k 32..63 of 64");
  for (const results::CoreFigures& core : fc.cores) {
    CHECK(core.compute_cycles == 102);
    CHECK(core.stall_cycles == 14);
    CHECK(core.sync_cycles == 0);
    CHECK(core.macs == 2048);
  }
  CHECK(fc.mapping.find("; then reduces outputs 0..31 over the 2 cores' partial sums in 1 chunk") != std::string::npos);
  CHECK(fc.mapping.find("; split over 2 cores by k") != std::string::npos);
}

TEST_CASE("cores: a reduction waits for every core's partial sums", "[cores]") {
  // 49 -> 16 at batch 4 over K on three cores: K parts of 16, 16 and 17. Cores 0 and 1 sum theirs
  // in one fold of 2 x 16 + 16 + 4 - 2 = 50 cycles, core 2 its 17 in ceil(17/16) = 2 folds, 100
  // cycles. No reduction starts before every core's sums are stored: cores 0 and 1 wait 50
  // cycles (sync). Then the 64 outputs go 21, 21 and 22 to the reductions: 3 cores' sums of 4 B,
  // 252 B for cores 0 and 1 at the input buffer's 16 B a cycle, 16 cycles (their 42 adds, 3
  // cycles of the 16-wide vector unit, and 13 of SRAM stall); core 2's 264 B, 17 cycles (44 adds,
  // 3 cycles, and 14 of stall). The layer ends with core 2: 100 + 17 = 117; cores 0 and 1 wait
  // 1 more cycle: 51 of sync each.
  const std::string model = R"(
name: k_split
precision: int8
input: {features: 49}
layers:
  - {name: fc, type: linear, out_features: 16, bias: false, partition: k}
)";
  const results::LayerResult fc = replay_linear(ideal_chip(3, spec::CorePartition::layers), {4}, model).front();
  CHECK(fc.cycles == 117);
  REQUIRE(fc.cores.size() == 3);
  CHECK(fc.cores[0].part == "k 0..15 of 49");
  CHECK(fc.cores[2].part == "k 32..48 of 49");
  for (std::size_t core = 0; core < 2; ++core) {
    CHECK(fc.cores[core].compute_cycles == 50 + 3);
    CHECK(fc.cores[core].stall_sram == 13);
    CHECK(fc.cores[core].sync_cycles == 50 + 1);
    CHECK(fc.cores[core].macs == 4 * 16 * 16);
  }
  CHECK(fc.cores[2].compute_cycles == 100 + 3);
  CHECK(fc.cores[2].stall_sram == 14);
  CHECK(fc.cores[2].sync_cycles == 0);
  CHECK(fc.cores[2].macs == 4 * 16 * 17);
  CHECK(fc.vector_ops == 2 * 64);
}

TEST_CASE("cores: the chip takes the partition with the lower estimate", "[cores]") {
  // Batch 1 on two cores: data parallel leaves core 1 idle (376 cycles by the estimate), split
  // by columns 188: the layers are split. Batch 2: data parallel 376 on both cores, split by
  // columns M = 2: 4 folds of 48 = 192: split again.
  const std::vector<results::LayerResult> rows = replay_linear(ideal_chip(2, spec::CorePartition::automatic), {1, 2});
  CHECK(rows[0].cycles == 188);
  CHECK(rows[0].mapping.find("(chosen by the network's estimate: data parallel 376 cycles, layers split 188)") !=
        std::string::npos);
  CHECK(rows[1].cycles == 192);
  CHECK(rows[1].mapping.find("data parallel 376 cycles, layers split 192") != std::string::npos);
}

TEST_CASE("cores: on a tie in the estimate the chip runs data parallel", "[cores]") {
  // 64 -> 16 at batch 4 on two cores, the layer pinned to rows: data parallel M = 2 a core, 4
  // folds of 48 = 192; split by rows the same 192: the tie goes to data parallel.
  const results::LayerResult fc = replay_linear(ideal_chip(2, spec::CorePartition::automatic), {4},
                                                small_linear_with("out_features: 32, bias: false}",
                                                                  "out_features: 16, bias: false, partition: rows}"))
                                      .front();
  CHECK(fc.cycles == 192);
  CHECK(fc.cores[0].part == "samples 0..1 of 4");
  CHECK(fc.mapping.find("data parallel 192 cycles, layers split 192") != std::string::npos);
}

TEST_CASE("cores: a layer's pinned partition is the only one tried", "[cores]") {
  // Batch 1 on two cores, the layer pinned to rows: M = 1 goes to core 1 whole (core 0's part of
  // rows [0, floor(1/2)) is empty), 8 folds of 47 = 376 cycles, where columns would take 188.
  const results::LayerResult fc = replay_linear(ideal_chip(2, spec::CorePartition::layers), {1},
                                                small_linear_with("bias: false}", "bias: false, partition: rows}"))
                                      .front();
  CHECK(fc.cycles == 376);
  REQUIRE(fc.cores.size() == 2);
  CHECK(fc.cores[0].part == "none");
  CHECK(fc.cores[0].macs == 0);
  CHECK(fc.cores[1].part == "rows 0..0 of 1");
  CHECK(fc.cores[1].macs == 2048);
}

TEST_CASE("cores: a chip's DRAM span runs from the earliest core's prefetch to the unit's end", "[cores]") {
  // Core 0 finishes last (100 ns) after 10 ns of prefetch before the unit; core 1, idle in the
  // unit before, prefetched for 40 ns and finished at 50 ns. The chip's traffic moved from 40 ns
  // before the unit's start to its end: 140 ns, not the last core's own 110.
  reusesim::hw::CoreUnitTotals first, second;
  first.elapsed = sc_core::sc_time(100, sc_core::SC_NS);
  first.dram_span = sc_core::sc_time(110, sc_core::SC_NS);
  second.elapsed = sc_core::sc_time(50, sc_core::SC_NS);
  second.dram_span = sc_core::sc_time(90, sc_core::SC_NS);
  const reusesim::hw::CoreUnitTotals chip = reusesim::hw::chip_unit({first, second});
  CHECK(chip.elapsed == sc_core::sc_time(100, sc_core::SC_NS));
  CHECK(chip.dram_span == sc_core::sc_time(140, sc_core::SC_NS));
}

TEST_CASE("cores: a chip's energy counts every core's SRAM, array, vector unit and leakage", "[cores][energy]") {
  // Two cores at batch 1 and 2 (one simulation): at batch 1 core 0 runs the sample and core 1
  // idles, at batch 2 each core runs one, both in 376 cycles (the first test). Batch 2's SRAM
  // words, MACs (2 x 2,048) and accumulator updates are both cores': each dynamic part is batch
  // 1's x 2; the MACs alone are 4,096 x 0.3 pJ (45 nm: int8 multiply 0.2 + int32 add 0.1) =
  // 1,228.8 pJ of it. Both cores leak through both layers: the static energy is the same at both
  // batches, and twice what one core's area leaks over the layer's time.
  spec::AcceleratorSpec chip = ideal_chip(2);
  chip.compute.operand_type = "int8";  // small's operands (its file names no number format)
  chip.technology =
      reusesim::config::load_technology_file(reusesim::config::technology_preset_directory() + "/45nm.yaml");
  const std::vector<results::LayerResult> layers = replay_linear(chip, {1, 2});
  REQUIRE(layers.size() == 2);
  const results::LayerResult& one = layers[0];
  const results::LayerResult& both = layers[1];
  REQUIRE(one.cycles == 376);
  REQUIRE(both.cycles == 376);
  CHECK(both.macs == 2 * one.macs);
  const reusesim::energy::EnergyBreakdown e1 = reusesim::energy::layer_energy(chip, one);
  const reusesim::energy::EnergyBreakdown e2 = reusesim::energy::layer_energy(chip, both);
  CHECK(e1.sram_pj > 0);
  CHECK(e2.sram_pj == Approx(2 * e1.sram_pj));
  CHECK(e2.array_pj == Approx(2 * e1.array_pj));
  CHECK(reusesim::energy::mac_pj(chip) * static_cast<double>(both.macs) == Approx(1228.8));
  CHECK(e2.vector_pj == Approx(2 * e1.vector_pj));
  spec::AcceleratorSpec core = chip;
  core.cores = 1;
  const double one_core_static = reusesim::energy::layer_energy(core, one).static_pj;
  CHECK(one_core_static > 0);
  CHECK(e1.static_pj == Approx(2 * one_core_static));
  CHECK(e2.static_pj == Approx(e1.static_pj));
}
