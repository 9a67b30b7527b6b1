// The driver's invariants (simulate/invariants.h), each broken on purpose: a check that cannot
// fire protects nothing. Plain C++: the results are built by hand, nothing is simulated.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "mapping/mapper.h"
#include "mapping/training_mapper.h"
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

// A result that agrees with `program` and takes `seconds`.
results::LayerResult result_of(const program::LayerProgram& program, double seconds) {
  results::LayerResult result;
  result.layer = program.layer;
  result.batch = 4;
  result.macs = program.macs;
  result.dram_read_bytes = program.dram_read_bytes;
  result.dram_write_bytes = program.dram_write_bytes;
  result.seconds = seconds;
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
        "layer fc (batch 4): its steps read " + std::to_string(program.dram_read_bytes) + " B and wrote " +
            std::to_string(program.dram_write_bytes + 64) + " B of DRAM, the program moves " +
            std::to_string(program.dram_read_bytes) + " and " + std::to_string(program.dram_write_bytes));
}

TEST_CASE("invariant: a replay cannot beat the compute roof", "[invariants]") {
  // Compute-bound by hand: 1,000,000 MACs at 512e9 ops/s take 2e6 / 512e9 = 3.90625 us; with no
  // DRAM bytes the memory bound is 0.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  program::LayerProgram program;
  program.layer = "gemm";
  program.macs = 1'000'000;
  results::LayerResult result = result_of(program, 3.90625e-6);
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.seconds = 3.9e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer gemm (batch 4): simulated 0.000004 s beats the roofline bound 0.000004 s");
}

TEST_CASE("invariant: a replay cannot beat the DRAM roof, prefetched bytes aside", "[invariants]") {
  // 20,000 bytes read and 10,000 written at 1e9 B/s take 30 us; of the reads, 12,000 bytes were
  // prefetched during the layer before, so only 18,000 bytes crossed inside the window: 18 us.
  const spec::AcceleratorSpec spec = small_on_one_gbps();
  program::LayerProgram program;
  program.layer = "stream";
  program.dram_read_bytes = 20'000;
  program.dram_write_bytes = 10'000;
  results::LayerResult result = result_of(program, 30e-6);
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.seconds = 29.9e-6;
  CHECK(simulate::replay_problem(result, program, spec) ==
        "layer stream (batch 4): simulated 0.000030 s beats the roofline bound 0.000030 s");
  result.prefetched_weight_bytes = 12'000;
  result.seconds = 18e-6;
  CHECK(simulate::replay_problem(result, program, spec).empty());
  result.seconds = 17.9e-6;
  CHECK_FALSE(simulate::replay_problem(result, program, spec).empty());
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
  REQUIRE(simulate::plan_inference(spec, model.network, {4, 4}, {0}, "small.yaml", 10).runs.size() == 2);
  try {
    simulate::plan_inference(spec, model.network, {4, 4, 4}, {0}, "small.yaml", 10);
    FAIL("no MappingError");
  } catch (const mapping::MappingError& error) {
    CHECK(std::string(error.what()) ==
          "the run needs more than 10 data-movement steps (the limit of one run; reached at layer fc); run fewer "
          "batch sizes or layers at once (reusesim trace runs each batch size as a job of its own) (accelerator "
          "small.yaml, batch 4)");
  }
}
