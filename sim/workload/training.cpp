#include "workload/training.h"

#include "util/checked_math.h"

namespace reusesim::workload {

bool has_backward(LayerType type) {
  switch (type) {
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm:
    case LayerType::matmul:
    case LayerType::mul:
    case LayerType::embedding:
    case LayerType::concat:
    case LayerType::first_step: return false;
    default: return true;
  }
}

std::string backward_problem(const Network& network) {
  for (const NetworkLayer& layer : network.layers) {
    if (has_backward(layer.spec.type)) continue;
    return "layer " + layer.spec.name + " (type " + util::name(layer.spec.type) +
           ") has no backward pass in a training step; expected only conv2d, linear, relu, relu6, sigmoid, tanh, "
           "gelu, silu, maxpool, avgpool, batchnorm, layernorm, rmsnorm, add, softmax, flatten and to_sequence layers";
  }
  return "";
}

bool needs_input_gradient(const NetworkLayer& layer) {
  for (int input : layer.input_ids) {
    if (input >= 0) return true;
  }
  return false;
}

std::int64_t update_ops_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::momentum: return 4;
    case Optimizer::adam: return 12;
    default: return 2;
  }
}

std::string checkpoint_problem(const Network& network, std::int64_t segments) {
  const auto layers = static_cast<std::int64_t>(network.layers.size());
  if (segments >= 1 && segments <= layers && layers % segments == 0) return "";
  std::string divisors;
  for (std::int64_t d = 1; d <= layers; ++d) {
    if (layers % d == 0) divisors += (divisors.empty() ? "" : ", ") + std::to_string(d);
  }
  return std::to_string(segments) + " segments do not divide model " + network.name + "'s " + std::to_string(layers) +
         " layers into equal runs; expected one of " + divisors;
}

std::size_t checkpoint_segment(const Network& network, std::size_t layer, std::int64_t segments) {
  return layer / (network.layers.size() / static_cast<std::size_t>(segments));
}

std::vector<int> buffer_owners(const Network& network) {
  std::vector<int> owners(network.layers.size());
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    owners[i] = static_cast<int>(i);
    if (!is_view(network.layers[i].spec.type)) continue;
    const int input = network.layers[i].input_ids.front();
    owners[i] = input < 0 ? -1 : owners[static_cast<std::size_t>(input)];
  }
  return owners;
}

std::vector<bool> kept_outputs(const Network& network, std::int64_t segments) {
  std::vector<bool> kept(network.layers.size(), segments == 1);
  const std::vector<int> owners = buffer_owners(network);
  for (std::size_t j = 0; j < network.layers.size(); ++j) {
    if (is_view(network.layers[j].spec.type)) continue;  // its readers read the owner's buffer
    for (int input : network.layers[j].input_ids) {
      const int owner = input < 0 ? -1 : owners[static_cast<std::size_t>(input)];
      if (owner < 0) continue;
      const auto producer = static_cast<std::size_t>(owner);
      if (checkpoint_segment(network, j, segments) > checkpoint_segment(network, producer, segments)) kept[producer] = true;
    }
  }
  return kept;
}

std::vector<std::size_t> last_readers(const Network& network, const std::vector<int>& owners) {
  const std::size_t count = network.layers.size();
  std::vector<std::size_t> readers(count, count);
  for (std::size_t i = 0; i < count; ++i) {
    if (is_view(network.layers[i].spec.type)) continue;  // its readers read the owner's buffer
    for (int input : network.layers[i].input_ids) {
      const int owner = input < 0 ? -1 : owners[static_cast<std::size_t>(input)];
      if (owner >= 0) readers[static_cast<std::size_t>(owner)] = i;  // layers run in order: the latest wins
    }
  }
  return readers;
}

std::int64_t training_step_macs(const Network& network, std::int64_t batch, std::int64_t checkpoint_segments) {
  const auto last = static_cast<std::size_t>(checkpoint_segments - 1);
  std::int64_t macs = 0;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const NetworkLayer& layer = network.layers[i];
    std::int64_t gemms = needs_input_gradient(layer) ? 3 : 2;
    if (checkpoint_segment(network, i, checkpoint_segments) < last) ++gemms;  // recomputed
    macs = util::checked_add(macs, util::checked_product({layer.counts.macs, batch, gemms}));
  }
  return macs;
}

}  // namespace reusesim::workload
