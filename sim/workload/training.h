#pragma once
// What a training step computes (docs/training.md): which layers have a backward pass, which need
// their input's gradient, and the step's MACs. The optimizer's names and state are footprint.h's.

#include <cstdint>
#include <string>
#include <vector>

#include "workload/footprint.h"
#include "workload/network.h"

namespace reusesim::workload {

// What a training step runs with (run --mode train; footprint.h sizes its memory alike).
struct TrainingOptions {
  Optimizer optimizer = Optimizer::sgd;
  std::int64_t checkpoint_segments = 1;
  bool mixed_precision = false;  // fp32 master weights and optimizer state (kMasterElementBytes)
};

// conv2d, linear, element-wise activations, pooling, batchnorm, layernorm, rmsnorm, add, softmax,
// and the views flatten and to_sequence. Recurrent layers (no backward through time), matmul,
// mul, embedding, concat and first_step have none.
bool has_backward(LayerType type);

// The first layer of `network` without a backward pass, as a message naming it, its type and the
// types that have one; "" when every layer has one.
std::string backward_problem(const Network& network);

// A layer fed only by the model's data needs no input gradient (nothing consumes the data's).
bool needs_input_gradient(const NetworkLayer& layer);

// Vector ops per parameter of one optimizer update: SGD w -= lr g (2); momentum v = mu v + g,
// w -= lr v (4); Adam m = b1 m + (1 - b1) g (3), v = b2 v + (1 - b2) g^2 (4),
// w -= lr m / (sqrt(v) + eps) (5): 12, the bias corrections folded into lr.
std::int64_t update_ops_per_parameter(Optimizer optimizer);

// Activation checkpointing: the layers, in network order, split into `segments` runs of equal
// length. Every segment but the last runs its forward pass again in the backward pass, from the
// tensors kept at its boundaries; the last segment's backward comes first, so its activations stay.
// "" when `segments` divides the network's layers, else what was expected.
std::string checkpoint_problem(const Network& network, std::int64_t segments);
std::size_t checkpoint_segment(const Network& network, std::size_t layer, std::int64_t segments);
// Per layer: its output is kept from the forward pass to the backward pass, because a layer of a
// later segment reads it, directly or through views (every output, with one segment).
std::vector<bool> kept_outputs(const Network& network, std::int64_t segments);

// Per layer: the layer whose output buffer it is, its own or, for a view, its input's (-1: the data).
std::vector<int> buffer_owners(const Network& network);
// Per layer: the last layer (views aside) that reads its buffer, whose backward writes the buffer's
// gradient first and whose forward reads it last; the layer count when none reads it (the loss
// writes its gradient). Meaningful for layers that own their buffer.
std::vector<std::size_t> last_readers(const Network& network, const std::vector<int>& owners);

// MACs of one training step at `batch`: each conv2d and linear layer's forward, weight-gradient
// and (unless needs_input_gradient is false) input-gradient GEMMs, each as many MACs as the forward,
// and the forward again of the layers a checkpointed segment recomputes.
std::int64_t training_step_macs(const Network& network, std::int64_t batch, std::int64_t checkpoint_segments);

}  // namespace reusesim::workload
