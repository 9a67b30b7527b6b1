#include "mapping/fusion.h"

#include <algorithm>
#include <optional>

namespace reusesim::mapping {

using workload::LayerType;

std::optional<spec::OutputStage> stage_of(LayerType type) {
  if (workload::is_activation(type)) return spec::OutputStage::activation;
  switch (type) {
    case LayerType::batchnorm: return spec::OutputStage::batchnorm;
    case LayerType::add: return spec::OutputStage::add;
    case LayerType::maxpool:
    case LayerType::avgpool: return spec::OutputStage::pooling;
    default: return std::nullopt;
  }
}

std::vector<std::vector<std::size_t>> consumers_of(const workload::Network& network) {
  std::vector<std::vector<std::size_t>> consumers(network.layers.size());
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    for (int input : network.layers[i].input_ids) {
      if (input >= 0) consumers[static_cast<std::size_t>(input)].push_back(i);
    }
  }
  return consumers;
}

FusionPlan plan_fusion(const workload::Network& network, const spec::ComputeSpec& compute) {
  const std::size_t count = network.layers.size();
  FusionPlan plan;
  plan.absorbed.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    plan.head.push_back(i);
    plan.final_layer.push_back(i);
  }
  const std::vector<std::vector<std::size_t>> consumers = consumers_of(network);
  for (std::size_t i = 0; i < count; ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    const std::optional<spec::OutputStage> stage = stage_of(layer.spec.type);
    if (!stage || !compute.output_path_has(*stage)) continue;
    // The tensor the stage runs on: the input written last (an add's other inputs already exist).
    const int source = *std::max_element(layer.input_ids.begin(), layer.input_ids.end());
    if (source < 0) continue;
    const auto producer = static_cast<std::size_t>(source);
    const std::size_t head = plan.head[producer];
    const LayerType head_type = network.layers[head].spec.type;
    if (head_type != LayerType::conv2d && head_type != LayerType::linear) continue;
    if (consumers[producer].size() != 1 || plan.final_layer[head] != producer) continue;
    const bool others_earlier = std::all_of(layer.input_ids.begin(), layer.input_ids.end(), [&](int input) {
      return input == source || input < 0 || plan.head[static_cast<std::size_t>(input)] < head;
    });
    if (!others_earlier) continue;
    plan.head[i] = head;
    plan.absorbed[head].push_back(i);
    plan.final_layer[head] = i;
  }
  return plan;
}

}  // namespace reusesim::mapping
