#include "mapping/mapper.h"

#include <algorithm>

#include "mapping/fusion.h"
#include "mapping/gemm_mapper.h"
#include "mapping/program_builder.h"
#include "mapping/recurrent_mapper.h"
#include "mapping/residency.h"
#include "mapping/vector_mapper.h"
#include "util/checked_math.h"
#include "util/strings.h"

namespace reusesim::mapping {

namespace {

using util::checked_mul;
using util::checked_product;
using workload::LayerType;

// What the program reads from and keeps in on-chip data (each tensor once).
void count_on_chip(const workload::NetworkLayer& layer, std::int64_t batch, std::int64_t e, const LayerPlan& plan,
                   program::LayerProgram& program) {
  const auto bytes = [&](std::int64_t elements) { return checked_mul(checked_mul(elements, batch), e); };
  for (std::size_t i = 0; i < layer.input_shapes.size(); ++i) {
    if (plan.input_on_chip(i)) program.onchip_input_bytes += bytes(layer.input_shapes[i].elements());
  }
  for (const Addend& addend : plan.addends) {
    if (addend.on_chip) program.onchip_input_bytes += bytes(addend.elements);
  }
  if (plan.output_on_chip) {
    program.onchip_output_bytes = bytes(plan.written_elements(layer));
  }
}

}  // namespace

std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes) {
  std::vector<DramLayout> layouts(network.layers.size());
  const auto tensor_bytes = [&](std::int64_t elements) {
    return static_cast<std::uint64_t>(util::checked_product({elements, batch, element_bytes}));
  };
  // The model input sits at address 0; a layer's own input gets a region of its own.
  std::uint64_t next = align(tensor_bytes(network.input ? network.input->elements() : 0));
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    DramLayout& layout = layouts[i];
    for (int input : layer.input_ids) {
      if (input >= 0) {
        layout.inputs.push_back(layouts[static_cast<std::size_t>(input)].output);
      } else if (layer.spec.own_input) {
        layout.inputs.push_back(next);
        next += align(tensor_bytes(layer.spec.own_input->elements()));
      } else {
        layout.inputs.push_back(0);
      }
    }
    if (is_view(layer.spec.type)) {
      layout.output = layout.inputs.front();  // a view of its (first) input: no data moves
      continue;
    }
    layout.weights = next;
    next = align(next + static_cast<std::uint64_t>(checked_mul(layer.counts.params, element_bytes)));
    layout.output = next;
    next += align(static_cast<std::uint64_t>(checked_mul(checked_mul(layer.counts.output_elems, batch), element_bytes)));
    if (workload::is_recurrent(layer.spec.type)) next += recurrent_scratch_bytes(layer, batch, element_bytes);
    if (layer.cached_steps > 0) {
      layout.kv_cache = next;
      next += align(static_cast<std::uint64_t>(checked_product({layer.input_shapes[1].elements(), batch, element_bytes})));
    }
  }
  return layouts;
}

std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const program::LayerProgram& program, const LayerPlan& plan) {
  if (!plan.fused_into.empty()) {
    return program.steps.empty() && program.macs == 0 ? "" : "the program of a fused layer has steps of its own";
  }
  if (is_view(layer.spec.type)) return "";
  std::int64_t weight_bytes = 0, output_bytes = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) weight_bytes += static_cast<std::int64_t>(step.bytes);
    if (step.kind == program::StepKind::store) output_bytes += static_cast<std::int64_t>(step.bytes);
  }
  output_bytes += program.onchip_output_bytes;  // kept on chip: written, to SRAM
  workload::TrafficBytes compulsory = workload::compulsory_traffic(layer, batch, element_bytes);
  // A fused chain writes its last tensor.
  if (plan.output_elements > 0) compulsory.output = checked_mul(checked_mul(plan.output_elements, batch), element_bytes);
  const auto shortfall = [](const char* what, std::int64_t moved, std::int64_t needed) {
    return std::string("the program ") + what + " " + std::to_string(moved) + " bytes, fewer than the " +
           std::to_string(needed) + " the analysis says must move";
  };
  if (weight_bytes < compulsory.weight) return shortfall("loads weights of", weight_bytes, compulsory.weight);
  if (output_bytes < compulsory.output) return shortfall("stores", output_bytes, compulsory.output);
  return "";
}

program::LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch, const spec::AcceleratorSpec& accelerator,
                       const DramLayout& layout, const LayerPlan& plan) {
  program::LayerProgram program;
  program.layer = layer.spec.name;
  program.type = util::name(layer.spec.type);
  if (!plan.fused_into.empty()) {
    program.mapping = "fused into " + plan.fused_into + "'s output path";
    return program;
  }
  if (is_view(layer.spec.type)) {
    program.mapping = "view of its input: no data moves";
    return program;
  }
  const Context context{accelerator, plan, role_capacity(accelerator.sram, plan.resident_bytes), accelerator.element_bytes(),
                        accelerator.dram.peak_bytes_per_second() / (accelerator.compute.clock_mhz * 1e6),
                        static_cast<std::uint64_t>(accelerator.dram.burst_bytes())};
  switch (layer.spec.type) {
    case LayerType::conv2d:
    case LayerType::linear: map_conv_or_linear(layer, batch, context, layout, program); break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: map_recurrent(layer, batch, context, layout, program); break;
    case LayerType::matmul: map_matmul(layer, batch, context, layout, program); break;
    default: map_vector(layer, batch, context, layout, program); break;
  }
  count_on_chip(layer, batch, context.e, plan, program);
  if (!plan.absorbed.empty()) program.mapping += "; output path runs " + util::join(plan.absorbed, ", ");
  if (plan.output_on_chip) program.mapping += "; output kept on chip";
  return program;
}

NetworkMapping map_network(const workload::Network& network, std::int64_t batch, const spec::AcceleratorSpec& accelerator) {
  const std::int64_t e = accelerator.element_bytes();
  const std::vector<DramLayout> layouts = layout_network(network, batch, e);
  const FusionPlan fusion = plan_fusion(network, accelerator.compute);
  const int keeping = accelerator.sram.keeping_buffer();
  const std::int64_t keep_capacity =
      keeping < 0 ? 0 : accelerator.sram.buffers[static_cast<std::size_t>(keeping)].capacity_bytes;
  const std::size_t count = network.layers.size();
  std::vector<bool> to_dram(count, false);
  NetworkMapping mapped;
  mapped.programs.resize(count);
  std::size_t from = 0;
  while (true) {
    const ResidencyPlan residency = plan_residency(network, fusion, layouts, batch, e, keep_capacity, to_dram);
    mapped.plans = residency.layers;
    std::size_t redo_from = count;
    for (std::size_t i = from; i < count && redo_from == count; ++i) {
      DramLayout layout = layouts[i];
      layout.output = layouts[fusion.final_layer[i]].output;  // a chain writes its last tensor
      try {
        mapped.programs[i] = map_layer(network.layers[i], batch, accelerator, layout, mapped.plans[i]);
      } catch (const MappingError&) {
        // The tiles do not fit beside the resident tensors: the largest live one goes to DRAM.
        const KeptTensor* largest = nullptr;
        for (const KeptTensor& tensor : residency.kept) {
          if (tensor.producer <= i && i <= tensor.last_use && (largest == nullptr || tensor.bytes > largest->bytes)) {
            largest = &tensor;
          }
        }
        if (largest == nullptr) throw;
        to_dram[largest->producer] = true;
        redo_from = largest->producer;  // earlier programs do not see it
      }
    }
    if (redo_from == count) return mapped;
    from = redo_from;
  }
}

std::string vector_ops_problem(const workload::Network& network, std::int64_t batch, const NetworkMapping& mapped) {
  std::int64_t analysed = 0, programmed = 0, folded = 0;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    analysed = util::checked_add(analysed, checked_mul(network.layers[i].counts.vector_ops, batch));
    programmed = util::checked_add(programmed, mapped.programs[i].vector_ops);
    folded = util::checked_add(folded, checked_mul(mapped.plans[i].folded_vector_ops, batch));
  }
  if (analysed == util::checked_add(programmed, folded)) return "";
  return "the programs have " + std::to_string(programmed) + " vector ops and folded batch-norms " +
         std::to_string(folded) + ", the analysis " + std::to_string(analysed);
}

}  // namespace reusesim::mapping
