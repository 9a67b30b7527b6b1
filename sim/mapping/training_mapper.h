#pragma once
// One training step as data-movement programs (docs/training.md): the forward pass, every layer
// on its own with its output stored to DRAM for the backward pass; then, layer by layer in
// reverse, the backward pass: a conv2d or linear layer's input-gradient GEMM (dgrad) and
// weight-gradient GEMM (wgrad), each tiled by the GEMM mapper with its own shape, and the vector
// layers' backward on the vector unit; then the optimizer's update of every layer's parameters.
//
// GEMM views (per group; forward M x K . K x N): dgrad M x N . N x K (m = M, n = K, k = N), its
// columns folded back into the input's gradient (col2im) as they are written; wgrad K x M . M x N
// (m = K, n = N, k = M), both operands activations sharing the input buffer. A linear layer at
// batch B, F in, O out: forward B x F . F x O, dgrad B x O . O x F, wgrad F x B . B x O.

#include <cstdint>
#include <string>
#include <vector>

#include "program/program.h"
#include "spec/accelerator_spec.h"
#include "workload/network.h"
#include "workload/training.h"

namespace reusesim::mapping {

// recompute: a checkpointed segment's forward pass run again in the backward pass.
enum class TrainingPhase { forward, recompute, dgrad, wgrad, update };
std::string phase_name(TrainingPhase phase);

struct TrainingProgram {
  TrainingPhase phase = TrainingPhase::forward;
  std::size_t layer = 0;  // position in the network
  program::LayerProgram program;
};

// The step's programs in the order they run: forward in layer order, then per layer in reverse
// its dgrad (a vector layer's backward, and a conv2d or linear layer's own activation's, count
// as dgrad) and wgrad, then the updates in layer order. With checkpoint_segments > 1
// (workload/training.h), each segment but the last recomputes its forward programs before the
// backward of its last layer. With mixed precision the update reads and writes the fp32 master
// weights and state and writes the weights again at the run's element size. Layers without work in a phase (views, the dgrad of a layer fed only
// by the data, the update of a layer without parameters) have no program in it. The network must
// have a backward pass (workload::backward_problem) and checkpoint_segments divide its layers
// (workload::checkpoint_problem); MappingError when a program fits no buffer.
std::vector<TrainingProgram> map_training_step(const workload::Network& network, std::int64_t batch,
                                               const spec::AcceleratorSpec& accelerator,
                                               const workload::TrainingOptions& options);

// The bytes the step holds while each of its programs runs, from `step` (map_training_step's, at
// `batch` and `element_bytes`): the parameters, their gradients and the optimizer state
// throughout; each stored activation from the program writing it until the backward pass (or,
// not kept across a checkpoint boundary, its segment's) is done; each activation gradient from
// the dgrad writing it until its layer's last backward program. Its largest is the step's peak
// memory, which footprint --mode train derives from the network alone.
std::vector<std::int64_t> training_live_bytes(const workload::Network& network, std::int64_t batch,
                                              std::int64_t element_bytes, const workload::TrainingOptions& options,
                                              const std::vector<TrainingProgram>& step);

}  // namespace reusesim::mapping
