// The driver's invariants (simulate/invariants.h), each broken on purpose: a check that cannot
// fire protects nothing. Plain C++: the results are built by hand, nothing is simulated.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "mapping/mapper.h"
#include "mapping/training_mapper.h"
#include "results/cycle_count.h"
#include "simulate/invariants.h"
#include "simulate/plan.h"

using namespace reusesim;

namespace {

// configs/small.yaml (512e9 ops/s) on an ideal memory of 1 GB/s (1e9 bytes/s): the bounds below
// are round numbers.
spec::AcceleratorSpec small_on_one_gbps() {
  return fixtures::small_with_dram("  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n");
}

struct Mapped {
  config::LoadedModel model;
  mapping::NetworkMapping mapping;
};

Mapped map_linear(const spec::AcceleratorSpec& spec, std::int64_t batch) {
  Mapped mapped{config::load_model_text(fixtures::kSmallLinear, "linear.yaml"), {}};
  mapped.mapping = mapping::map_network(mapped.model.network, batch, spec);
  return mapped;
}

// A program of `layer` that does `macs` and reads and writes these DRAM bytes, and no steps.
program::LayerProgram program_of(const std::string& layer, std::int64_t macs, std::int64_t read_bytes,
                                 std::int64_t write_bytes) {
  program::LayerProgram program;
  program.layer = layer;
  program.macs = macs;
  program.dram_read_bytes = read_bytes;
  program.dram_write_bytes = write_bytes;
  return program;
}

// A result that agrees with `program` and takes `seconds`.
results::LayerResult result_of(const program::LayerProgram& program, double seconds) {
  results::LayerResult result;
  result.layer = program.layer;
  result.batch = 4;
  result.macs = program.macs;
  result.dram_read_bytes = program.dram_read_bytes;
  result.dram_write_bytes = program.dram_write_bytes;
  result.seconds = seconds;
  result.dram_span_seconds = seconds;
  return result;
}

}  // namespace

TEST_CASE("invariant: a program's MACs equal the analysis", "[invariants]") {
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  Mapped mapped = map_linear(spec, 4);
  const workload::NetworkLayer& fc = mapped.model.network.layers[0];
  program::LayerProgram& program = mapped.mapping.programs[0];
  CHECK(simulate::analysis_problem(fc, program, mapped.mapping.plans[0], 4, 1).empty());
  // 2,048 MACs a sample x batch 4 = 8,192; one MAC fewer is caught.
  program.macs -= 1;
  CHECK(simulate::analysis_problem(fc, program, mapped.mapping.plans[0], 4, 1) ==
        "layer fc (batch 4): the program has 8191 MACs, the analysis 8192");
}

TEST_CASE("invariant: a program moves no fewer bytes than the analysis's compulsory traffic", "[invariants]") {
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  Mapped mapped = map_linear(spec, 4);
  const workload::NetworkLayer& fc = mapped.model.network.layers[0];
  program::LayerProgram& program = mapped.mapping.programs[0];
  // The weights, 64 x 32 = 2,048 bytes at int8, must be loaded at least once: halve every weight load.
  std::int64_t loaded = 0;
  for (program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) {
      step.bytes /= 2;
      loaded += static_cast<std::int64_t>(step.bytes);
    }
  }
  REQUIRE(loaded < 2048);
  CHECK(simulate::analysis_problem(fc, program, mapped.mapping.plans[0], 4, 1) ==
        "layer fc (batch 4): the program loads weights of " + std::to_string(loaded) +
            " bytes, fewer than the 2048 the analysis says must move");
}

TEST_CASE("invariant: a replay's MACs equal its program's", "[invariants]") {
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const Mapped mapped = map_linear(spec, 4);
  const program::LayerProgram& program = mapped.mapping.programs[0];
  results::LayerResult result = result_of(program, 1.0);
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.macs += 1;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer fc (batch 4): replayed 8193 MACs, the program has 8192");
}

TEST_CASE("invariant: a replay's DRAM bytes equal its program's", "[invariants]") {
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const Mapped mapped = map_linear(spec, 4);
  const program::LayerProgram& program = mapped.mapping.programs[0];
  results::LayerResult result = result_of(program, 1.0);
  result.dram_write_bytes += 64;  // one burst more than the program stores
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer fc (batch 4): its steps read " + std::to_string(program.dram_read_bytes) +
            " B (0 from the shared memory, 0 as copies of other cores' reads) and wrote " +
            std::to_string(program.dram_write_bytes + 64) + " B of DRAM, the program moves " +
            std::to_string(program.dram_read_bytes) + " and " + std::to_string(program.dram_write_bytes));
  // A shared memory's bytes count as loads: a burst it served instead of the DRAM balances; one
  // more than the DRAM gave up does not.
  result.dram_write_bytes -= 64;
  result.dram_read_bytes -= 64;
  result.shared_read_bytes = 64;
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.shared_read_bytes = 128;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer fc (batch 4): its steps read " + std::to_string(program.dram_read_bytes + 64) +
            " B (128 from the shared memory, 0 as copies of other cores' reads) and wrote " +
            std::to_string(program.dram_write_bytes) + " B of DRAM, the program moves " +
            std::to_string(program.dram_read_bytes) + " and " + std::to_string(program.dram_write_bytes));
  // So do a multicast's copies.
  result.shared_read_bytes = 0;
  result.multicast_read_bytes = 64;
  CHECK(simulate::replay_problem(result, program, spec).empty());
}

TEST_CASE("invariant: a replay cannot beat the compute roof", "[invariants]") {
  // Compute-bound by hand: 1,000,000 MACs at 512e9 ops/s take 2e6 / 512e9 = 3.90625 us; with no
  // DRAM bytes the memory bound is 0.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const program::LayerProgram program = program_of("gemm", 1'000'000, 0, 0);
  results::LayerResult result = result_of(program, 3.90625e-6);
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.seconds = result.dram_span_seconds = 3.9e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer gemm (batch 4): 2e+06 ops in 3.9e-06 s is 512.821 Gops/s, above the compute peak of 512");
}

TEST_CASE("invariant: a replay cannot beat the DRAM roof over its time or its DRAM span", "[invariants]") {
  // 20,000 bytes read and 10,000 written at 1e9 B/s take 30 us.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const program::LayerProgram program = program_of("stream", 0, 20'000, 10'000);
  results::LayerResult result = result_of(program, 30e-6);
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.seconds = result.dram_span_seconds = 29.9e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer stream (batch 4): 30000 DRAM bytes within its DRAM span of 2.99e-05 s is 1.00334 GB/s, above the "
        "memory's peak of 1");
  // 12,000 bytes of the reads were prefetched during the layer before, which took 12 us: the
  // layer's own 18 us hold the other 18,000 bytes, and its DRAM span of 18 + 12 = 30 us all of them.
  result.prefetched_weight_bytes = 12'000;
  result.seconds = 18e-6;
  result.dram_span_seconds = 30e-6;
  CHECK(simulate::replay_problem(result, program, spec).empty());
  // Its own bytes over its time alone would be 30,000 B / 18 us = 1.67 GB/s: no row shows that.
  result.dram_span_seconds = 29.9e-6;
  CHECK_FALSE(simulate::replay_problem(result, program, spec).empty());
  // The bytes but the prefetched crossed inside its time: 18,000 B need 18 us.
  result.seconds = 17.9e-6;
  result.dram_span_seconds = 30e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer stream (batch 4): 18000 DRAM bytes within its time of 1.79e-05 s is 1.00559 GB/s, above the memory's "
        "peak of 1");
  // A span shorter than the layer is a broken clock.
  result.seconds = 30e-6;
  result.dram_span_seconds = 29e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer stream (batch 4): its DRAM span of 2.9e-05 s is shorter than its time, 3e-05 s");
}

TEST_CASE("invariant: every row's cycles are its compute and stall cycles, TOTAL too", "[invariants]") {
  // tpu_v4i's GPT-2 decode had rows one cycle off and a TOTAL six off: each stall was rounded on
  // its own. 100 cycles = 60 compute + 10 weights + 10 inputs + 10 output drain + 5 sram + 5 vector.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const program::LayerProgram program = program_of("gemm", 0, 0, 0);
  results::LayerResult result = result_of(program, 1e-6);
  result.cycles = 100;
  result.compute_cycles = 60;
  result.stall_weights = result.stall_inputs = 10;
  result.stall_output_drain = 10;
  result.stall_sram = result.stall_vector = 5;
  CHECK(simulate::row_problem(result, false, spec).empty());
  result.stall_inputs += 1;
  CHECK(simulate::row_problem(result, false, spec) ==
        "layer gemm (batch 4): 100 cycles, but compute_cycles 60 + stall_cycles 41 = 101");
  // A count below zero is caught even where the sum holds: 60 - 1 + 11 + 10 + 5 + 5 = 90.
  result.stall_weights = -1;
  result.cycles = 90;
  CHECK(simulate::row_problem(result, false, spec) == "layer gemm (batch 4): a negative cycle count");
  // The TOTAL adds the layers up: two right rows make a right TOTAL; a row one cycle off makes it off.
  results::LayerResult right = result_of(program, 1e-6);
  right.cycles = 10;
  right.compute_cycles = 7;
  right.stall_sram = 3;
  CHECK(simulate::batch_total_problem({right, right}, spec).empty());
  results::LayerResult off = right;
  off.stall_sram = 4;
  CHECK(simulate::batch_total_problem({right, off}, spec) ==
        "TOTAL (batch 4): 20 cycles, but compute_cycles 14 + stall_cycles 7 = 21");
}

TEST_CASE("invariant: a batch's TOTAL is under the roofs over the batch's time, prefetches inside it", "[invariants]") {
  // Two layers of 5 us each at 1 GB/s: the batch may move 10,000 bytes. The second's 6,000 bytes
  // were prefetched during the first: on its row they count over its DRAM span, on the TOTAL over
  // the batch's 10 us, which holds them all.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const results::LayerResult first = result_of(program_of("a", 0, 4'000, 0), 5e-6);
  results::LayerResult second = result_of(program_of("b", 0, 6'000, 0), 5e-6);
  second.prefetched_weight_bytes = 6'000;
  second.dram_span_seconds = 5e-6 + 3e-6;
  CHECK(simulate::row_problem(second, false, spec).empty());
  CHECK(simulate::batch_total_problem({first, second}, spec).empty());
  second.dram_read_bytes = 6'064;  // a burst more than 10 us carry
  CHECK(simulate::batch_total_problem({first, second}, spec) ==
        "TOTAL (batch 4): 10064 DRAM bytes within its DRAM span of 1e-05 s is 1.0064 GB/s, above the memory's peak "
        "of 1");
}

TEST_CASE("invariant: over a run the memory moves exactly the layers' bytes", "[invariants]") {
  std::vector<results::LayerResult> layers(2);
  layers[0].dram_read_bytes = 1'000;
  layers[1].dram_read_bytes = 2'000;
  layers[1].dram_write_bytes = 500;
  results::DramChannelStats memory;
  memory.read_bytes = 3'000;
  memory.write_bytes = 500;
  CHECK(simulate::memory_total_problem(layers, memory).empty());
  memory.write_bytes = 564;
  CHECK(simulate::memory_total_problem(layers, memory) ==
        "the memory read 3000 B and wrote 564 B over the run, the layers' steps 3000 and 500");
}

TEST_CASE("invariant: a training step's programs have the analysis's MACs", "[invariants]") {
  // One linear layer, batch 4: forward 8,192 MACs, wgrad 8,192, no dgrad (the first layer's input
  // needs no gradient): 16,384. Dropping the wgrad program leaves 8,192.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "linear.yaml");
  const workload::TrainingOptions training;
  std::vector<mapping::TrainingProgram> step = mapping::map_training_step(model.network, 4, spec, training);
  CHECK(simulate::training_step_problem(model.network, step, 4, 1, 1).empty());
  const auto wgrad = std::find_if(step.begin(), step.end(), [](const mapping::TrainingProgram& program) {
    return program.phase == mapping::TrainingPhase::wgrad;
  });
  REQUIRE(wgrad != step.end());
  step.erase(wgrad);
  CHECK(simulate::training_step_problem(model.network, step, 4, 1, 1) ==
        "model small_linear (batch 4): the training step's programs have 8192 MACs, the analysis 16384");
}

TEST_CASE("the plan refuses a run past the step limit, naming the layer, accelerator and batch", "[invariants][plan]") {
  // The linear layer at batch 4 is one tile on small (64 x 32 int8 weights, 4 x 64 inputs): load
  // weights, load inputs, compute, store = 4 steps a batch. Three batches are 12 steps: past a
  // limit of 10 at the third.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "linear.yaml");
  simulate::RunLimits limits;
  limits.max_steps = 10;
  REQUIRE(simulate::plan_inference(spec, model.network, {4, 4}, {0}, "small.yaml", limits).runs.size() == 2);
  try {
    simulate::plan_inference(spec, model.network, {4, 4, 4}, {0}, "small.yaml", limits);
    FAIL("no MappingError");
  } catch (const mapping::MappingError& error) {
    CHECK(std::string(error.what()) ==
          "the run needs more than 10 data-movement steps (the limit of one run; reached at layer fc); run fewer "
          "batch sizes or layers at once (reusesim trace runs each batch size as a job of its own) (accelerator "
          "small.yaml, batch 4)");
  }
}

TEST_CASE("the plan refuses a run past its DRAM bytes or simulated time, naming the limit and how to raise it",
          "[invariants][plan]") {
  // The linear layer at batch 4 on small: 64 x 32 int8 weights (2,048 B), 4 x 64 inputs (256 B) and
  // 4 x 32 outputs (128 B): 2,432 B a batch. At 1 GB/s that takes 2.432 us, more than its
  // 2 x 8,192 ops at 512e9 ops/s (0.032 us): its roofline bound is 2.432 us.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "linear.yaml");
  simulate::RunLimits limits;
  const simulate::RunPlan one = simulate::plan_inference(spec, model.network, {4}, {0}, "small.yaml", limits);
  REQUIRE(one.runs[0].program.dram_read_bytes + one.runs[0].program.dram_write_bytes == 2432);
  // Two batches move 4,864 B: within a limit of 4,864, past one of 4,863.
  limits.max_dram_bytes = 4864;
  CHECK(simulate::plan_inference(spec, model.network, {4, 4}, {0}, "small.yaml", limits).runs.size() == 2);
  limits.max_dram_bytes = 4863;
  CHECK_THROWS_WITH(simulate::plan_inference(spec, model.network, {4, 4}, {0}, "small.yaml", limits),
                    "the run moves more than 4863 bytes through the DRAM model (the limit of one run, minutes of "
                    "simulation): 4864 by layer fc; lower the batch size (or the context or sequence length), run "
                    "fewer batch sizes or layers at once, or raise the limit with REUSESIM_MAX_DRAM_BYTES=<bytes> "
                    "(accelerator small.yaml, batch 4)");
  // Before mapping a batch, its weights alone (2,048 B) are held against the limit.
  limits.max_dram_bytes = 2047;
  CHECK_THROWS_WITH(simulate::plan_inference(spec, model.network, {4}, {0}, "small.yaml", limits),
                    Catch::StartsWith("the run moves more than 2047 bytes through the DRAM model (the limit of one "
                                      "run, minutes of simulation): 2048 with the weights and KV caches of batch 4 "
                                      "alone; "));
  // Two batches take at least 4.864 us: past a limit of 4.8 us.
  limits = simulate::RunLimits{};
  limits.max_simulated_seconds = 4.8e-6;
  CHECK_THROWS_WITH(simulate::plan_inference(spec, model.network, {4, 4}, {0}, "small.yaml", limits),
                    "the run simulates more than 4.8e-06 s of the accelerator's time (the limit of one run, minutes "
                    "of simulation): its roofline bound is 4.864e-06 s by layer fc; lower the batch size, run fewer "
                    "batch sizes or layers at once, or raise the limit with REUSESIM_MAX_SIMULATED_SECONDS=<seconds> "
                    "(accelerator small.yaml, batch 4)");
}

TEST_CASE("run limits: the environment raises them; a value that is not a positive number is refused",
          "[invariants][plan]") {
  CHECK(simulate::run_limits().max_dram_bytes == 25'000'000'000);
  CHECK(simulate::run_limits().max_simulated_seconds == 60);
  setenv("REUSESIM_MAX_DRAM_BYTES", "50000000000", 1);
  setenv("REUSESIM_MAX_SIMULATED_SECONDS", "600.5", 1);
  CHECK(simulate::run_limits().max_dram_bytes == 50'000'000'000);
  CHECK(simulate::run_limits().max_simulated_seconds == 600.5);
  setenv("REUSESIM_MAX_DRAM_BYTES", "12x", 1);
  CHECK_THROWS_WITH(simulate::run_limits(), "REUSESIM_MAX_DRAM_BYTES: expected a positive integer, got \"12x\"");
  setenv("REUSESIM_MAX_DRAM_BYTES", "1", 1);
  setenv("REUSESIM_MAX_SIMULATED_SECONDS", "-1", 1);
  CHECK_THROWS_WITH(simulate::run_limits(), "REUSESIM_MAX_SIMULATED_SECONDS: expected a positive number, got \"-1\"");
  unsetenv("REUSESIM_MAX_DRAM_BYTES");
  unsetenv("REUSESIM_MAX_SIMULATED_SECONDS");
}

TEST_CASE("cycle counts: consecutive spans rounded where they end add up to their window's cycles", "[invariants]") {
  // tpu_v4i's 1,050 MHz clock is 952 ps. Two stalls of 1,428 ps are 1.5 cycles each: rounded on
  // their own, 2 + 2 = 4 cycles of a 2,856 ps (3.0-cycle) window. Rounded where each ends: the
  // first ends at 1.5 -> 2, the second at 3.0 -> 3, so 2 and 1, and 3 in all.
  CHECK(results::span_cycles({1428, 1428}, 952) == std::vector<std::int64_t>{2, 1});
  CHECK(results::nearest_cycles(2856, 952) == 3);
  // Halves round up, the rest to the nearest: 476 ps is 0.5 cycles, 475 ps 0.499.
  CHECK(results::nearest_cycles(476, 952) == 1);
  CHECK(results::nearest_cycles(475, 952) == 0);
  // Compute 2,000 ps (2.10 cycles), weights 666 (0.70), inputs 666, an empty sram span, output drain
  // 1,000 (1.05): ends at 2.10, 2.80, 3.50, 3.50, 4.55 -> 2, 3, 4, 4, 5 cycles; the spans 2, 1, 1, 0, 1.
  const std::vector<std::int64_t> cycles = results::span_cycles({2000, 666, 666, 0, 1000}, 952);
  CHECK(cycles == std::vector<std::int64_t>{2, 1, 1, 0, 1});
  CHECK(results::nearest_cycles(2000 + 666 + 666 + 1000, 952) == 5);
}
