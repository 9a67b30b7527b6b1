#pragma once
// What a system runs (docs/systems.md, "Running a model on a system"): every chip's layer runs and
// the collectives and transfers between them, from the system's parallel plan. Plain C++: planned
// and checked before anything is simulated.

#include <cstdint>
#include <string>
#include <vector>

#include "parallel/pipeline_parallel.h"
#include "parallel/tensor_parallel.h"
#include "program/system_program.h"
#include "simulate/plan.h"
#include "spec/system_spec.h"
#include "workload/network.h"

namespace reusesim::simulate {

struct SystemRunPlan {
  program::SystemProgram program;
  // Each pipeline stage's share of the model on one chip (tensor-parallel), and what its chips'
  // runs replay: each batch's micro-batches in turn, `plans` and `layers` of one micro-batch.
  std::vector<parallel::PipelineStage> stages;
  std::vector<RunPlan> stage_plans;
  // Whether the chips that run what replica 0's rank 0 of their stage runs are replayed as its twins
  // (program::ChipWork::same_layers_as).
  bool twins = false;
};

// `model` and `network` as loaded (network at `decode_context`), split by `system`'s plan: tensor
// parallelism (parallel/tensor_parallel.h), then the chip's share cut into pipeline stages
// (parallel/pipeline_parallel.h). Each batch runs as plan.micro_batches equal micro-batches
// (which must divide it): a stage's chip receives a micro-batch's input from the stage before,
// replays its layers and sends their output on, micro-batch after micro-batch (a stage starts the
// next as soon as it has sent one: GPipe's forward pass). A stage's runs are planned as
// plan_inference plans one accelerator's at the micro-batch (its share of the model, and the KV
// cache and activations of the whole batch, must fit its DRAM); a tensor-parallel collective
// follows the layer whose output it puts together, over the micro-batch.
//
// Each data-parallel replica runs this on its share of the batch. Unless `every_chip`, the chips
// that run what replica 0's rank 0 of their stage runs are replayed as its twins when that gives
// the same result: the links take every chip's collectives and transfers the same time (a switch,
// fully connected chips, or a ring the collectives go all round, and every collective's chunks of
// one size) and the chip has one core. Throws parallel::PlanError for a plan the model cannot
// take, a mapping::MappingError for a chip past the run's step limit, and what plan_inference
// throws.
// What plan_system_inference checks before it maps anything: the batches shared evenly, the model
// split as the plan says (parallel::PlanError) and every stage's share in its chips' DRAM
// (check_capacity's mapping::MappingError). A run that plans a model cut short (run
// --reuse-blocks, workload/block_reuse.h) checks the whole model first.
void check_system_plan(const spec::SystemSpec& system, const workload::ModelSpec& model,
                       const workload::Network& network, std::int64_t decode_context,
                       const std::vector<std::int64_t>& batches, const std::string& origin);

SystemRunPlan plan_system_inference(const spec::SystemSpec& system, const workload::ModelSpec& model,
                                    const workload::Network& network, std::int64_t decode_context,
                                    const std::vector<std::int64_t>& batches, const std::string& origin,
                                    bool every_chip, const RunLimits& limits = run_limits());

}  // namespace reusesim::simulate
