#include "workload/training.h"

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
    return "layer " + layer.spec.name + " (type " + layer_type_name(layer.spec.type) +
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

std::int64_t training_step_macs(const Network& network, std::int64_t batch) {
  std::int64_t macs = 0;
  for (const NetworkLayer& layer : network.layers) {
    const std::int64_t gemms = needs_input_gradient(layer) ? 3 : 2;
    macs = checked_add(macs, checked_product({layer.counts.macs, batch, gemms}));
  }
  return macs;
}

}  // namespace reusesim::workload
