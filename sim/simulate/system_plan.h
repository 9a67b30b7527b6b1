#pragma once
// What a system runs (docs/systems.md, "Running a model on a system"): every chip's layer runs and
// the collectives between them, from the system's parallel plan. Plain C++: planned and checked
// before anything is simulated.

#include <cstdint>
#include <string>
#include <vector>

#include "parallel/tensor_parallel.h"
#include "program/system_program.h"
#include "simulate/plan.h"
#include "spec/system_spec.h"
#include "workload/network.h"

namespace reusesim::simulate {

struct SystemRunPlan {
  program::SystemProgram program;
  // One chip's share of the model, and its plan (the runs are in program.chips, every chip's the
  // same under tensor parallelism; `layers` and `plans` say what each run replays).
  parallel::TensorParallelSplit split;
  RunPlan chip_plan;
  // Whether chips 1, 2, ... are replayed as chip 0's twins (program::ChipWork::same_layers_as).
  bool twins = false;
};

// `model` and `network` as loaded (network at `decode_context`), split by `system`'s plan over its
// chips, every layer at each batch size. Each chip's runs are planned as plan_inference plans one
// accelerator's (its share must fit its DRAM); a collective follows the layer whose output it
// puts together, over the whole batch. Under tensor parallelism every chip runs the same layers:
// unless `every_chip`, chips 1, 2, ... are replayed as chip 0's twins when that gives the same
// result: the links make their collectives take the same time on every chip (a ring, a switch or
// fully connected chips, and every collective's chunks of one size) and the chip has one core.
// Throws parallel::PlanError for a plan the model cannot
// take, and what plan_inference throws.
SystemRunPlan plan_system_inference(const spec::SystemSpec& system, const workload::ModelSpec& model,
                                    const workload::Network& network, std::int64_t decode_context,
                                    const std::vector<std::int64_t>& batches, const std::string& origin,
                                    bool every_chip, const RunLimits& limits = run_limits());

}  // namespace reusesim::simulate
