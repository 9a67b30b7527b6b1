#pragma once
// Fusion into the output path: which layers run in their producer's post-processing instead of as
// layers of their own (docs/mapping-and-replay.md, "Fusion into the output path").
//
// A layer fuses when the accelerator's compute.output_path lists its stage (activation functions,
// batchnorm, add, maxpool/avgpool as pooling), the tensor it reads was written by a conv2d or
// linear layer's program (directly or through layers already fused there), and that tensor has no
// other consumer. An add fuses into the producer of its latest input; its other inputs must come
// from earlier programs. Inference batch-norm folds into the producer (its shift becomes the
// producer's per-channel bias); every fused layer's vector work runs in the producer's steps.

#include <cstddef>
#include <optional>
#include <vector>

#include "spec/accelerator_spec.h"
#include "workload/network.h"

namespace reusesim::mapping {

struct FusionPlan {
  std::vector<std::size_t> head;                   // per layer: the layer whose program runs it (itself if unfused)
  std::vector<std::vector<std::size_t>> absorbed;  // per layer: the layers fused into its output path, in order
  // per layer: the layer whose output its program writes (the last of its chain; itself if none)
  std::vector<std::size_t> final_layer;

  bool fused(std::size_t layer) const { return head[layer] != layer; }
};

using workload::is_view;

// The output-path stage that runs a layer of `type`, if any does.
std::optional<spec::OutputStage> stage_of(workload::LayerType type);

// The layers that read the output of each layer (directly; views are consumers too).
std::vector<std::vector<std::size_t>> consumers_of(const workload::Network& network);

FusionPlan plan_fusion(const workload::Network& network, const spec::ComputeSpec& compute);

}  // namespace reusesim::mapping
