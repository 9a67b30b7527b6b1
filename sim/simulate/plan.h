#pragma once
// What a run replays: the network mapped at each batch size into per-layer programs, checked
// against the analysis before anything is simulated. Plain C++ (the replay is simulate/replay.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mapping/mapper.h"
#include "program/program.h"
#include "spec/accelerator_spec.h"
#include "workload/network.h"
#include "workload/training.h"

namespace reusesim::simulate {

// What one run may ask of the simulator, checked while it is planned, before anything is
// simulated (docs/conventions.md, "Run limits"). Steps bound the plan's memory; the DRAM bytes and
// the simulated time bound the simulation's wall time. The DRAM model simulates every burst: 25 to
// 80 MB a second on the 2-core machine the defaults were measured on (busy to quiet; 32-byte DDR3
// and 64-byte HBM2 bursts alike), so 25 GB is 5 to 10 minutes, and the largest shipped job then,
// the ResNet-50 training step at batch 32 on snowflake, moved 20.1 GB (now refused: it does not fit
// snowflake's DRAM, simulate/capacity.h). Each
// refresh is an event too: an idle HBM2 (16 channels) costs 2 s of wall time per simulated second.
struct RunLimits {
  std::size_t max_steps = program::kMaxRunSteps;
  std::int64_t max_dram_bytes = 25'000'000'000;  // every load and store, burst-widened
  double max_simulated_seconds = 60;             // at least the roofline bound of every layer
};

// The default limits, with REUSESIM_MAX_DRAM_BYTES (a positive integer) and
// REUSESIM_MAX_SIMULATED_SECONDS (a positive number) in the environment raising or lowering
// theirs; a value that is not one is a mapping::MappingError naming the variable.
RunLimits run_limits();

struct RunPlan {
  std::vector<program::LayerRun> runs;  // every batch's programs, batch after batch
  // Inference: the network layer each run replays, and the mapper's plan of it.
  std::vector<std::size_t> layers;
  std::vector<mapping::LayerPlan> plans;
  // Training: the phase of each program of a step (the same at every batch), and each batch's peak
  // memory walked from its programs.
  std::vector<std::string> phases;
  std::vector<std::int64_t> peak_memory_bytes;
};

// Refuses a run whose largest batch does not fit the DRAM (simulate/capacity.h), before anything
// is mapped: a mapping::MappingError saying what does not fit, ending as plan_inference's errors.
void check_capacity(const spec::AcceleratorSpec& spec, const workload::Network& network,
                    const std::vector<std::int64_t>& batches, const workload::TrainingOptions* training,
                    const std::string& origin);

// The `selected` layers (positions in `network`) at each batch size, each mapped as it runs in the
// whole network (residency, fusion). `origin` names the accelerator in errors: a layer that does
// not map, or a run past one of `limits`, is a mapping::MappingError ending in
// " (accelerator ORIGIN, batch B)". A program that disagrees with the analysis is a
// std::logic_error (a bug).
RunPlan plan_inference(const spec::AcceleratorSpec& spec, const workload::Network& network,
                       const std::vector<std::int64_t>& batches, const std::vector<std::size_t>& selected,
                       const std::string& origin, const RunLimits& limits = run_limits());

// A training step (workload/training.h) at each batch size: errors as plan_inference's.
RunPlan plan_training(const spec::AcceleratorSpec& spec, const workload::Network& network,
                      const std::vector<std::int64_t>& batches, const workload::TrainingOptions& training,
                      const std::string& origin, const RunLimits& limits = run_limits());

}  // namespace reusesim::simulate
