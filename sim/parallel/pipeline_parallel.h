#pragma once
// Pipeline parallelism (docs/systems.md, "Pipeline parallelism"): the network's layers cut into
// consecutive stages, each a network of its own that one chip (or one tensor-parallel group) runs,
// fed by the one tensor that crosses the cut. Plain C++.
//
// A cut goes between two layers (in the network's order) where exactly one tensor produced before
// it is read after it (a transformer's decoder layers meet there; the model's input counts as a
// tensor produced before every cut). The stages hold as nearly equal MACs as the cuts allow (a
// decode step's linear layers multiply each weight once a token, so that balances their weights
// too, and an embedding, which reads a few rows of its table, weighs nothing): stage s ends at the
// cut whose MACs before it are nearest (s + 1) / stages of the whole.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parallel/plan_error.h"
#include "workload/network.h"

namespace reusesim::parallel {

struct PipelineStage {
  std::size_t first_layer = 0, end_layer = 0;  // the network's layers [first_layer, end_layer)
  // The stage's layers as a network, their input the tensor crossing the cut before them (the
  // model's input for the first stage); layers keep their names.
  workload::ModelSpec model;
  workload::Network network;
  std::int64_t input_elements_per_sample = 0;  // what the stage before sends, a sample
};

// `network` built from `model` at `decode_context`. Throws PlanError when the
// network has fewer places to cut than stages - 1.
std::vector<PipelineStage> split_pipeline(const workload::ModelSpec& model, const workload::Network& network,
                                          std::int64_t stages, std::int64_t decode_context);

}  // namespace reusesim::parallel
