#pragma once
// Megatron-style tensor parallelism (docs/systems.md, "Tensor parallelism"): each of `degree`
// chips runs a share of every layer, and collectives put the shares back together. Plain C++: it
// rewrites the model's layers into one chip's and says where the collectives go.
//
// Following the tensors from the model's input, each tensor is whole on every chip (full), cut
// into `degree` slices of its features (split), or a whole-width partial sum (partial):
//   - a linear layer fed a full tensor is column-parallel: a slice of its output features on each
//     chip (rounded up when they do not divide: the busiest chip's share); fed a split one it is
//     row-parallel: its weights' input rows sliced, its output a partial sum (all-reduced at once
//     when it has a fused activation, which needs the whole sum);
//   - a key or value projection (the second input of an attention matmul) holds its chip's key
//     and value heads: kv_heads / degree of them, or, when the chips outnumber them (grouped- and
//     multi-query attention), the one head its query heads share, each computed on every chip
//     that needs it;
//   - an attention matmul runs heads / degree heads (degree must divide them);
//   - element-wise layers keep their inputs' split; an add takes partial sums (and adds them up
//     before their reduction: it moves the same bytes after it);
//   - any other layer (norms, embeddings, views of several inputs) needs full inputs: a partial sum
//     is all-reduced first, which is where Megatron's all-reduces after the attention's output
//     projection and the MLP's down projection come from;
//   - the network's outputs are all-gathered when split (a vocabulary-parallel head's logits) and
//     all-reduced when partial.
// Convolutions and recurrent layers are not split (a model with them runs data-parallel).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parallel/plan_error.h"
#include "util/enum_names.h"
#include "workload/network.h"

namespace reusesim::parallel {

enum class CollectiveKind { all_reduce, all_gather };
constexpr util::EnumNames<CollectiveKind, 2> enum_names(CollectiveKind) {
  return {{{CollectiveKind::all_reduce, "all-reduce"}, {CollectiveKind::all_gather, "all-gather"}}};
}

struct TensorCollective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  std::size_t after_layer = 0;           // its position in the network (the same in the chip's)
  std::int64_t elements_per_sample = 0;  // of the whole tensor: every chip's input to an all-reduce
};

struct TensorParallelSplit {
  workload::ModelSpec chip_model;
  workload::Network chip_network;             // one chip's share of every layer
  std::vector<TensorCollective> collectives;  // in network order
};

// `model` and `network` as loaded (network built from model at `decode_context`, 0: prefill).
// Throws PlanError.
TensorParallelSplit split_tensor_parallel(const workload::ModelSpec& model, const workload::Network& network,
                                          std::int64_t degree, std::int64_t decode_context);

}  // namespace reusesim::parallel
