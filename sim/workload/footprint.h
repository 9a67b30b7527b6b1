#pragma once
// Memory a network needs to run (inference) or to train, per layer and in total.
//
// total_bytes follows the textbook sum: parameters + gradients + optimizer state + every stored
// activation + every activation gradient + the largest im2col workspace, all held at once.
// peak_bytes is liveness-aware: inference keeps a tensor only until its last consumer has run;
// training keeps every stored activation through the backward pass and each activation gradient
// from the backward of its last reader to its producer's (a view shares its input's buffers).
// A decode step (a network built with a decode context) also holds the KV cache: the keys and
// values of the tokens before it, read by its attention layers, for the whole step.
// With activation checkpointing, training keeps the tensors at segment boundaries and one
// segment's activations at a time, until that segment's backward is done.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.h"
#include "workload/network.h"

namespace reusesim::workload {

// The words of --mode and --optimizer and of a run file's mode and optimizer (util/enum_names.h).
enum class FootprintMode { infer, train };
constexpr util::EnumNames<FootprintMode, 2> enum_names(FootprintMode) {
  return {{{FootprintMode::infer, "infer"}, {FootprintMode::train, "train"}}};
}
enum class Optimizer { sgd, momentum, adam };
constexpr util::EnumNames<Optimizer, 3> enum_names(Optimizer) {
  return {{{Optimizer::sgd, "sgd"}, {Optimizer::momentum, "momentum"}, {Optimizer::adam, "adam"}}};
}

struct FootprintOptions {
  std::int64_t batch = 1;
  FootprintMode mode = FootprintMode::infer;
  Optimizer optimizer = Optimizer::sgd;  // train only
  Precision dtype = Precision::fp32;     // every tensor, optimizer state included
  // infer: each tensor at its own format (a model's precision block) in place of dtype.
  std::optional<TensorFormats> formats;
  // In place of dtype and formats: each tensor at the width `run` moves it (Network::run_widths), a
  // training step's optimizer state at the activations'.
  std::optional<TensorWidths> widths;
  bool im2col = false;                   // convolutions lowered to matrix products need a workspace
  bool inplace_activations = false;      // activation layers overwrite their input
  // train: activation checkpointing (training.h); 1 keeps every activation.
  std::int64_t checkpoint_segments = 1;
  // train: mixed precision, a 2-byte dtype for compute with fp32 master weights and fp32 optimizer
  // state, both counted as optimizer_bytes.
  bool mixed_precision = false;
};

// Bytes per value of the master weights and optimizer state with mixed precision.
constexpr std::int64_t kMasterElementBytes = 4;

struct LayerFootprint {
  std::string name;
  std::string type;
  std::int64_t weight_bytes = 0;
  std::int64_t gradient_bytes = 0;
  std::int64_t optimizer_bytes = 0;
  std::int64_t activation_bytes = 0;           // this layer's stored output
  std::int64_t activation_gradient_bytes = 0;  // gradient of that output (train)
  std::int64_t im2col_bytes = 0;               // lowered input of a convolution (with im2col)
  std::int64_t kv_cache_bytes = 0;             // cached keys or values this attention matmul reads (decode)
};

struct Footprint {
  std::vector<LayerFootprint> layers;
  std::int64_t input_bytes = 0;  // the model input and layers' own inputs, stored for the backward pass
  std::int64_t weight_bytes = 0;
  std::int64_t gradient_bytes = 0;
  std::int64_t optimizer_bytes = 0;
  std::int64_t activation_bytes = 0;  // the input + every layer's stored output (the column's sum)
  // The most activation bytes held at one time: inference frees a tensor after its last use;
  // training holds every stored activation until the backward pass.
  std::int64_t peak_activation_bytes = 0;
  std::int64_t activation_gradient_bytes = 0;
  std::int64_t im2col_bytes = 0;  // the largest workspace: it is reused layer to layer
  std::int64_t kv_cache_bytes = 0;
  std::int64_t total_bytes = 0;
  std::int64_t peak_bytes = 0;
};

// Optimizer state values per parameter: SGD 0, momentum 1 (velocity), Adam 2 (two moments).
std::int64_t optimizer_state_per_parameter(Optimizer optimizer);
// Bytes the optimizer holds per parameter: its state at the dtype's size, or with mixed precision
// an fp32 master copy of the weight and fp32 state.
std::int64_t optimizer_bytes_per_parameter(Optimizer optimizer, bool mixed_precision, std::int64_t element_bytes);

// options.checkpoint_segments must divide the network's layers (workload::checkpoint_problem).
Footprint compute_footprint(const Network& network, const FootprintOptions& options);

}  // namespace reusesim::workload
