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

// The `selected` layers (positions in `network`) at each batch size, each mapped as it runs in the
// whole network (residency, fusion). `origin` names the accelerator in errors: a layer that does
// not map, or a run past program::kMaxRunSteps, is a mapping::MappingError ending in
// " (accelerator ORIGIN, batch B)". A program that disagrees with the analysis is a
// std::logic_error (a bug). `max_run_steps` is the run's limit (tests lower it).
RunPlan plan_inference(const spec::AcceleratorSpec& spec, const workload::Network& network,
                       const std::vector<std::int64_t>& batches, const std::vector<std::size_t>& selected,
                       const std::string& origin, std::size_t max_run_steps = program::kMaxRunSteps);

// A training step (workload/training.h) at each batch size: errors as plan_inference's.
RunPlan plan_training(const spec::AcceleratorSpec& spec, const workload::Network& network,
                      const std::vector<std::int64_t>& batches, const workload::TrainingOptions& training,
                      const std::string& origin, std::size_t max_run_steps = program::kMaxRunSteps);

}  // namespace reusesim::simulate
