#include "mapping/residency.h"

#include <algorithm>

#include "util/checked_math.h"

namespace reusesim::mapping {

namespace {

using util::checked_mul;
using workload::LayerType;

// The programs whose tensors input `id` reads, through views (-1: the model input); sets
// `through_concat` when a concat joins them (its consumers read one DRAM range).
void sources(const workload::Network& network, const FusionPlan& fusion, int id, std::vector<int>& found,
             bool& through_concat) {
  if (id < 0) {
    found.push_back(-1);
    return;
  }
  const workload::NetworkLayer& layer = network.layers[static_cast<std::size_t>(id)];
  if (!is_view(layer.spec.type)) {
    found.push_back(static_cast<int>(fusion.head[static_cast<std::size_t>(id)]));
    return;
  }
  if (layer.spec.type == LayerType::concat) through_concat = true;
  for (int input : layer.input_ids) sources(network, fusion, input, found, through_concat);
}

}  // namespace

ResidencyPlan plan_residency(const workload::Network& network, const FusionPlan& fusion,
                             const std::vector<DramLayout>& layouts, std::int64_t batch, std::int64_t element_bytes,
                             std::int64_t keep_capacity_bytes, const std::vector<bool>& to_dram) {
  const std::size_t count = network.layers.size();
  const auto tensor_bytes = [&](std::size_t layer) {
    return checked_mul(checked_mul(network.layers[layer].counts.output_elems, batch), element_bytes);
  };
  // Per program: its last consumer, and whether its tensor may stay at all.
  std::vector<std::size_t> last_use(count, 0);
  std::vector<bool> consumed(count, false), keepable(count, true);
  // Per layer and input: the programs it reads.
  std::vector<std::vector<std::vector<int>>> reads(count);
  for (std::size_t j = 0; j < count; ++j) {
    const workload::NetworkLayer& layer = network.layers[j];
    if (is_view(layer.spec.type)) continue;
    for (std::size_t i = 0; i < layer.input_ids.size(); ++i) {
      std::vector<int> found;
      bool through_concat = false;
      sources(network, fusion, layer.input_ids[i], found, through_concat);
      // A decode step's new keys and values go to the KV cache in DRAM, where attention reads them.
      const bool to_cache = i == 1 && layer.cached_steps > 0;
      for (int source : found) {
        if (source < 0 || static_cast<std::size_t>(source) == fusion.head[j]) continue;  // model input; own chain
        const auto producer = static_cast<std::size_t>(source);
        consumed[producer] = true;
        last_use[producer] = std::max(last_use[producer], fusion.head[j]);
        if (through_concat || to_cache) keepable[producer] = false;
      }
      reads[j].push_back(std::move(found));
    }
  }
  ResidencyPlan plan;
  plan.layers.resize(count);
  std::vector<std::int64_t> live(count, 0);  // kept bytes in the buffer while each program runs
  std::vector<bool> kept(count, false);
  for (std::size_t p = 0; p < count; ++p) {
    const LayerType type = network.layers[p].spec.type;
    if (fusion.fused(p) || is_view(type) || workload::is_recurrent(type) || !consumed[p] || !keepable[p] || to_dram[p]) {
      continue;
    }
    const std::int64_t bytes = tensor_bytes(fusion.final_layer[p]);
    const std::int64_t peak = *std::max_element(live.begin() + static_cast<std::ptrdiff_t>(p),
                                                live.begin() + static_cast<std::ptrdiff_t>(last_use[p]) + 1);
    if (bytes <= 0 || peak + bytes > keep_capacity_bytes) continue;
    for (std::size_t at = p; at <= last_use[p]; ++at) live[at] += bytes;
    kept[p] = true;
    plan.kept.push_back(KeptTensor{p, last_use[p], bytes});
  }
  const auto on_chip = [&](const std::vector<int>& found) {
    return std::all_of(found.begin(), found.end(), [&](int source) { return source >= 0 && kept[static_cast<std::size_t>(source)]; });
  };
  for (std::size_t j = 0; j < count; ++j) {
    LayerPlan& layer_plan = plan.layers[j];
    const std::size_t head = fusion.head[j];
    if (fusion.fused(j)) {
      layer_plan.fused_into = network.layers[head].spec.name;
      continue;
    }
    layer_plan.resident_bytes = live[j];
    layer_plan.output_on_chip = kept[j];
    for (const std::vector<int>& found : reads[j]) layer_plan.inputs_on_chip.push_back(on_chip(found));
    layer_plan.output_elements = network.layers[fusion.final_layer[j]].counts.output_elems;
    for (std::size_t absorbed : fusion.absorbed[j]) {
      const workload::NetworkLayer& layer = network.layers[absorbed];
      layer_plan.absorbed.push_back(layer.spec.name);
      if (layer.spec.type == LayerType::batchnorm) {
        layer_plan.folds_batchnorm = true;
        layer_plan.folded_vector_ops += layer.counts.vector_ops;
      } else {
        layer_plan.absorbed_vector_ops += layer.counts.vector_ops;
        layer_plan.absorbed_stage_ops[static_cast<std::size_t>(*stage_of(layer.spec.type))] += layer.counts.vector_ops;
      }
      if (layer.spec.type != LayerType::add) continue;
      for (std::size_t i = 0; i < layer.input_ids.size(); ++i) {
        const std::vector<int>& found = reads[absorbed][i];
        if (found.size() == 1 && found.front() == static_cast<int>(j)) continue;  // the chain's own tensor
        const int input = layer.input_ids[i];
        layer_plan.addends.push_back(
            Addend{input < 0 ? 0 : layouts[static_cast<std::size_t>(input)].output, layer.counts.output_elems, on_chip(found)});
      }
    }
  }
  return plan;
}

}  // namespace reusesim::mapping
