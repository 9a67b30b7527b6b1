#include "mapping/mapper.h"

#include <algorithm>

#include "mapping/gemm_mapper.h"
#include "mapping/program_builder.h"
#include "mapping/recurrent_mapper.h"
#include "mapping/vector_mapper.h"

namespace reusesim::mapping {

namespace {

using workload::checked_mul;
using workload::LayerType;

bool is_view(LayerType type) {
  return type == LayerType::flatten || type == LayerType::to_sequence || type == LayerType::concat;
}

}  // namespace

std::string role_name(TensorRole role) {
  switch (role) {
    case TensorRole::weights: return "weights";
    case TensorRole::inputs: return "inputs";
    case TensorRole::outputs: return "outputs";
    default: return "state";
  }
}

std::string step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::load: return "load";
    case StepKind::store: return "store";
    case StepKind::compute: return "compute";
    default: return "vector";
  }
}

std::uint64_t burst_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t burst_bytes) {
  if (bytes == 0) return 0;
  const std::uint64_t first = address / burst_bytes * burst_bytes;
  const std::uint64_t end = (address + bytes + burst_bytes - 1) / burst_bytes * burst_bytes;
  return end - first;
}

std::int64_t element_bytes(const hw::AcceleratorSpec& accelerator) {
  return std::max<std::int64_t>(1, (accelerator.compute.operand_bits + 7) / 8);
}

std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes) {
  std::vector<DramLayout> layouts(network.layers.size());
  std::uint64_t next = align(static_cast<std::uint64_t>(checked_mul(checked_mul(network.input.elements(), batch), element_bytes)));
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    DramLayout& layout = layouts[i];
    for (int input : layer.input_ids) layout.inputs.push_back(input < 0 ? 0 : layouts[static_cast<std::size_t>(input)].output);
    if (is_view(layer.spec.type)) {
      layout.output = layout.inputs.front();  // a view of its (first) input: no data moves
      continue;
    }
    layout.weights = next;
    next = align(next + static_cast<std::uint64_t>(checked_mul(layer.counts.params, element_bytes)));
    layout.output = next;
    next += align(static_cast<std::uint64_t>(checked_mul(checked_mul(layer.counts.output_elems, batch), element_bytes)));
    if (workload::is_recurrent(layer.spec.type)) next += recurrent_scratch_bytes(layer, batch, element_bytes);
  }
  return layouts;
}

std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const LayerProgram& program) {
  if (is_view(layer.spec.type)) return "";
  std::int64_t weight_bytes = 0, output_bytes = 0;
  for (const Step& step : program.steps) {
    if (step.kind == StepKind::load && step.tensor == TensorRole::weights) weight_bytes += static_cast<std::int64_t>(step.bytes);
    if (step.kind == StepKind::store) output_bytes += static_cast<std::int64_t>(step.bytes);
  }
  const workload::TrafficBytes compulsory = workload::compulsory_traffic(layer, batch, element_bytes);
  const auto shortfall = [](const char* what, std::int64_t moved, std::int64_t needed) {
    return std::string("the program ") + what + " " + std::to_string(moved) + " bytes, fewer than the " +
           std::to_string(needed) + " the analysis says must move";
  };
  if (weight_bytes < compulsory.weight) return shortfall("loads weights of", weight_bytes, compulsory.weight);
  if (output_bytes < compulsory.output) return shortfall("stores", output_bytes, compulsory.output);
  return "";
}

LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch, const hw::AcceleratorSpec& accelerator,
                       const DramLayout& layout) {
  LayerProgram program;
  program.layer = layer.spec.name;
  program.type = workload::layer_type_name(layer.spec.type);
  if (is_view(layer.spec.type)) {
    program.mapping = "view of its input: no data moves";
    return program;
  }
  const Context context{accelerator, role_capacity(accelerator.sram), element_bytes(accelerator),
                        accelerator.dram.peak_bytes_per_second() / (accelerator.compute.clock_mhz * 1e6),
                        static_cast<std::uint64_t>(accelerator.dram.burst_bytes())};
  switch (layer.spec.type) {
    case LayerType::conv2d:
    case LayerType::linear: map_conv_or_linear(layer, batch, context, layout, program); break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: map_recurrent(layer, batch, context, layout, program); break;
    default: map_vector(layer, batch, context, layout, program); break;
  }
  return program;
}

}  // namespace reusesim::mapping
