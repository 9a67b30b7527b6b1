#include "mapping/mapper.h"

#include <algorithm>

#include "mapping/fusion.h"
#include "mapping/gemm_mapper.h"
#include "mapping/program_builder.h"
#include "mapping/recurrent_mapper.h"
#include "mapping/residency.h"
#include "mapping/vector_mapper.h"
#include "timing/array_timing.h"
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

std::int64_t LayerPlan::busiest_stage_ops(std::int64_t batch, std::int64_t own_activation_ops) const {
  std::int64_t busiest = 0;
  for (std::size_t stage = 0; stage < kOutputStages; ++stage) {
    std::int64_t ops = checked_mul(absorbed_stage_ops[stage], batch);
    if (stage == static_cast<std::size_t>(spec::OutputStage::activation))
      ops = util::checked_add(ops, own_activation_ops);
    busiest = std::max(busiest, ops);
  }
  return busiest;
}

spec::AcceleratorSpec run_accelerator(const spec::AcceleratorSpec& accelerator, const workload::Network& network) {
  spec::AcceleratorSpec run = accelerator;
  if (network.formats) {
    const std::int64_t bits = workload::format_bits(network.formats->activations);
    if (bits < accelerator.element_bytes() * 8) run.compute.operand_bits = bits;
  }
  return run;
}

std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes) {
  std::vector<DramLayout> layouts(network.layers.size());
  const workload::TensorWidths widths = network.run_widths(element_bytes);
  const bool packed_weights =
      network.formats && (widths.weight_bits != checked_mul(element_bytes, 8) || widths.weight_scales);
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
    if (network.formats) {
      layout.activation_format = network.formats->activations;
      layout.kv_cache_format = network.formats->kv_cache;
    }
    std::int64_t weight_bytes = checked_mul(layer.counts.params, element_bytes);
    if (packed_weights) {
      layout.weight_format = network.formats->weights;
      layout.weight_group_size = network.formats->weight_group_size;
      // Packed at no more bits than the operands' (run refuses wider weights), plus the scales.
      weight_bytes = util::checked_add(weight_bytes, workload::parameter_bytes(layer, widths).scales);
    }
    if (layer.spec.sparsity.sparse()) {
      // Room for the kept values (at most K a column) and their metadata, each rounded up to whole
      // bytes per column (GemmProblem::b_column_bytes).
      std::int64_t columns = 0;
      for (const workload::WeightMatrix& matrix : workload::weight_matrices(layer)) {
        columns = util::checked_add(columns, checked_mul(matrix.n, matrix.count));
      }
      weight_bytes = util::checked_add(weight_bytes, workload::parameter_bytes(layer, widths).metadata);
      weight_bytes = util::checked_add(weight_bytes, checked_mul(columns, 2));
    }
    next = align(next + static_cast<std::uint64_t>(weight_bytes));
    layout.output = next;
    next += align(static_cast<std::uint64_t>(checked_mul(checked_mul(layer.counts.output_elems, batch), element_bytes)));
    if (workload::is_recurrent(layer.spec.type)) next += recurrent_scratch_bytes(layer, batch, element_bytes);
    if (layer.cached_steps > 0) {
      layout.kv_cache = next;
      layout.kv_cache_element_bytes = network.kv_cache_element_bytes(element_bytes);
      next += align(static_cast<std::uint64_t>(
          checked_product({layer.input_shapes[1].elements(), batch, layout.kv_cache_element_bytes})));
    }
  }
  for (DramLayout& layout : layouts) layout.scratch = align(next);
  return layouts;
}

std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       const workload::TensorWidths& widths, const program::LayerProgram& program,
                                       const LayerPlan& plan) {
  const std::int64_t element_bytes = widths.activation_bits / 8;
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
  workload::TrafficBytes compulsory = workload::compulsory_traffic(layer, batch, widths);
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

std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const program::LayerProgram& program,
                                       const LayerPlan& plan) {
  return compulsory_traffic_problem(layer, batch, workload::TensorWidths::uniform(element_bytes), program, plan);
}

std::int64_t LayerSplit::first(std::int64_t total) const { return prorate(total, core, cores); }

program::LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch,
                                const spec::AcceleratorSpec& accelerator, const DramLayout& layout,
                                const LayerPlan& plan, const LayerSplit& split) {
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
  if (!split.whole() && workload::is_recurrent(layer.spec.type) && split.core > 0) {
    program.mapping = "runs whole on core 0";  // step t needs h(t-1): one core runs the sequence
    program.part = "none";
    return program;
  }
  const Context context{accelerator,
                        plan,
                        role_capacity(accelerator.sram, plan.resident_bytes),
                        accelerator.element_bytes(),
                        accelerator.dram.peak_bytes_per_second() / (accelerator.compute.clock_mhz * 1e6),
                        static_cast<std::uint64_t>(accelerator.dram.burst_bytes()),
                        split};
  switch (layer.spec.type) {
    case LayerType::conv2d:
    case LayerType::linear: map_conv_or_linear(layer, batch, context, layout, program); break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: map_recurrent(layer, batch, context, layout, program); break;
    case LayerType::matmul: map_matmul(layer, batch, context, layout, program); break;
    default: map_vector(layer, batch, context, layout, program); break;
  }
  if (!split.whole() && workload::is_recurrent(layer.spec.type)) program.part = "whole";
  count_on_chip(layer, batch, context.e, plan, program);
  if (!plan.absorbed.empty()) program.mapping += "; output path runs " + util::join(plan.absorbed, ", ");
  if (plan.output_on_chip) program.mapping += "; output kept on chip";
  return program;
}

namespace {

// What mapping the network at one batch size shares between its candidate plans.
struct NetworkSetup {
  const workload::Network& network;
  const spec::AcceleratorSpec& accelerator;
  std::int64_t batch;
  std::int64_t e;
  std::vector<DramLayout> layouts;  // at the whole batch
  FusionPlan fusion;
  std::int64_t keep_capacity;
};

// `layout` (at the whole batch) for the sub-batch whose first sample is `sample`: activations are
// batch-outermost in DRAM, so a sub-batch's part of each tensor starts that many samples in;
// weights and the scratch region stay where they are.
DramLayout sub_batch_layout(const workload::NetworkLayer& layer, DramLayout layout, std::int64_t written_elements,
                            std::int64_t sample, std::int64_t e) {
  const auto offset = [&](std::int64_t elements) {
    return static_cast<std::uint64_t>(checked_product({elements, sample, e}));
  };
  for (std::size_t i = 0; i < layout.inputs.size(); ++i) layout.inputs[i] += offset(layer.input_shapes[i].elements());
  layout.output += offset(written_elements);
  if (layer.cached_steps > 0) {
    layout.kv_cache += static_cast<std::uint64_t>(
        checked_product({layer.input_shapes[1].elements(), sample, layout.kv_cache_element_bytes}));
  }
  return layout;
}

// Layer i of `setup` in `passes` sub-batches of `sub_batch` samples, the first samples first.
program::LayerProgram map_in_passes(const NetworkSetup& setup, std::size_t i, std::int64_t sub_batch,
                                    std::int64_t passes, const LayerPlan& plan) {
  const workload::NetworkLayer& layer = setup.network.layers[i];
  DramLayout layout = setup.layouts[i];
  layout.output = setup.layouts[setup.fusion.final_layer[i]].output;  // a chain writes its last tensor
  if (passes == 1) return map_layer(layer, sub_batch, setup.accelerator, layout, plan);
  const std::int64_t written = plan.written_elements(layer);
  program::LayerProgram program;
  for (std::int64_t pass = 0; pass < passes; ++pass) {
    const std::int64_t sample = pass * sub_batch;
    LayerPlan pass_plan = plan;
    for (Addend& addend : pass_plan.addends)
      addend.address += static_cast<std::uint64_t>(checked_product({addend.elements, sample, setup.e}));
    program::LayerProgram part = map_layer(layer, sub_batch, setup.accelerator,
                                           sub_batch_layout(layer, layout, written, sample, setup.e), pass_plan);
    if (pass == 0) {
      program.layer = part.layer;
      program.type = part.type;
      program.mapping = part.mapping;
      if (!part.steps.empty())
        program.mapping += "; in " + std::to_string(passes) + " sub-batches of " + std::to_string(sub_batch);
    }
    if (program.steps.size() + part.steps.size() > program::kMaxLayerSteps) {
      throw MappingError("layer " + program.layer + ": its " + std::to_string(passes) + " sub-batches need more than " +
                         std::to_string(program::kMaxLayerSteps) + " data-movement steps, the limit of one layer");
    }
    append_steps(program, std::move(part), false);
  }
  program.passes = passes;  // also when empty (a fused layer, a view): it runs in its place among the passes
  return program;
}

// Maps layers [first, last) in `passes` passes of `sub_batch` samples (residency planned for a
// sub-batch): a layer whose tiles do not fit beside the resident tensors sends the largest live
// one to DRAM and the range is redone from its producer. `to_dram` forces tensors to DRAM.
void map_range(const NetworkSetup& setup, std::int64_t sub_batch, std::int64_t passes, std::vector<bool> to_dram,
               std::size_t first, std::size_t last, NetworkMapping& mapped) {
  std::size_t from = first;
  while (true) {
    const ResidencyPlan residency =
        plan_residency(setup.network, setup.fusion, setup.layouts, sub_batch, setup.e, setup.keep_capacity, to_dram);
    std::copy(residency.layers.begin() + static_cast<std::ptrdiff_t>(first),
              residency.layers.begin() + static_cast<std::ptrdiff_t>(last),
              mapped.plans.begin() + static_cast<std::ptrdiff_t>(first));
    std::size_t redo_from = last;
    for (std::size_t i = from; i < last && redo_from == last; ++i) {
      try {
        mapped.programs[i] = map_in_passes(setup, i, sub_batch, passes, mapped.plans[i]);
      } catch (const MappingError&) {
        // The tiles do not fit beside the resident tensors: the largest live one goes to DRAM.
        const KeptTensor* largest = nullptr;
        for (const KeptTensor& tensor : residency.kept) {
          if (tensor.producer <= i && i <= tensor.last_use && (largest == nullptr || tensor.bytes > largest->bytes)) {
            largest = &tensor;
          }
        }
        if (largest == nullptr || largest->producer < first) throw;
        to_dram[largest->producer] = true;
        redo_from = largest->producer;  // earlier programs do not see it
      }
    }
    if (redo_from == last) return;
    from = redo_from;
  }
}

// The network with its first `split` layers in sub-batches of `sub_batch` samples and the rest at
// the whole batch: no tensor stays on chip across the split (the two sides run in different
// orders), so the sub-batched layers store what the later ones read.
NetworkMapping map_split(const NetworkSetup& setup, std::size_t split, std::int64_t sub_batch) {
  const std::size_t count = setup.network.layers.size();
  NetworkMapping mapped;
  mapped.programs.resize(count);
  mapped.plans.resize(count);
  std::vector<bool> to_dram(count, false);
  if (split > 0) {
    // The tensors the sub-batch plan would keep past the split go to DRAM.
    for (const KeptTensor& tensor :
         plan_residency(setup.network, setup.fusion, setup.layouts, sub_batch, setup.e, setup.keep_capacity, to_dram)
             .kept) {
      if (tensor.producer < split && tensor.last_use >= split) to_dram[tensor.producer] = true;
    }
    map_range(setup, sub_batch, setup.batch / sub_batch, to_dram, 0, split, mapped);
  }
  if (split < count) {
    std::fill(to_dram.begin(), to_dram.begin() + static_cast<std::ptrdiff_t>(split), true);
    map_range(setup, setup.batch, 1, to_dram, split, count, mapped);
  }
  return mapped;
}

std::int64_t total_estimate(const NetworkMapping& mapped, const spec::AcceleratorSpec& accelerator, std::size_t first,
                            std::size_t last) {
  std::int64_t total = 0;
  for (std::size_t i = first; i < last; ++i)
    total = util::checked_add(total, estimate_cycles(mapped.programs[i], accelerator));
  return total;
}

// At most this many sub-batches: each is the prefix mapped again, so the mapping time grows with
// them (a batch of 64 in sub-batches of 1).
constexpr std::int64_t kMaxSubBatches = 64;

// Where a sub-batched prefix of the network may end: not inside a fused chain (its layers run in
// the head's program), and not past a recurrent layer (its sequences are time-major in DRAM, so a
// sub-batch is not one range) or a matmul (a batch's samples are its groups).
std::size_t split_limit(const NetworkSetup& setup) {
  for (std::size_t i = 0; i < setup.network.layers.size(); ++i) {
    const LayerType type = setup.network.layers[i].spec.type;
    if (workload::is_recurrent(type) || type == LayerType::matmul) return i;
  }
  return setup.network.layers.size();
}

}  // namespace

namespace {

// The compute part of estimate_cycles: its compute and vector steps' closed forms.
std::int64_t compute_estimate_cycles(const program::LayerProgram& program, const spec::AcceleratorSpec& accelerator) {
  std::int64_t compute = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind == program::StepKind::compute) {
      compute = util::checked_add(
          compute, timing::gemm_cycles_at(accelerator.compute, step.computed_gemm(), step.unit, step.mac_rate));
      if (step.unit == timing::GemmUnit::vector) {
        compute = util::checked_add(compute, timing::vector_cycles(accelerator.compute, step.busiest_stage_ops()));
      }
    } else if (step.kind == program::StepKind::vector) {
      compute = util::checked_add(compute, timing::vector_cycles(accelerator.compute, step.vector_ops));
    }
  }
  return compute;
}

}  // namespace

std::int64_t estimate_cycles(const program::LayerProgram& program, const spec::AcceleratorSpec& accelerator) {
  return chip_estimate({&program}, accelerator).cycles;
}

void ChipEstimate::add(const ChipEstimate& other) {
  cycles = util::checked_add(cycles, other.cycles);
  busiest_core_bytes = util::checked_add(busiest_core_bytes, other.busiest_core_bytes);
}

ChipEstimate chip_estimate(const std::vector<const program::LayerProgram*>& programs,
                           const spec::AcceleratorSpec& accelerator) {
  std::int64_t compute = 0, bytes = 0;
  ChipEstimate estimate;
  for (const program::LayerProgram* program : programs) {
    compute = std::max(compute, compute_estimate_cycles(*program, accelerator));
    const std::int64_t own = util::checked_add(program->dram_read_bytes, program->dram_write_bytes);
    bytes = util::checked_add(bytes, own);
    estimate.busiest_core_bytes = std::max(estimate.busiest_core_bytes, own);
  }
  const double cycles_per_byte = accelerator.compute.clock_mhz * 1e6 / accelerator.dram.peak_bytes_per_second();
  estimate.cycles = std::max(compute, static_cast<std::int64_t>(static_cast<double>(bytes) * cycles_per_byte));
  return estimate;
}

std::size_t fastest_on_chip(const std::vector<ChipEstimate>& candidates) {
  std::int64_t lowest = candidates.front().cycles;
  for (const ChipEstimate& candidate : candidates) lowest = std::min(lowest, candidate.cycles);
  const std::int64_t tolerance = lowest + lowest / 100;
  std::size_t best = candidates.size();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].cycles > tolerance) continue;
    if (best == candidates.size() || candidates[i].busiest_core_bytes < candidates[best].busiest_core_bytes) best = i;
  }
  return best;
}

NetworkMapping map_network(const workload::Network& network, std::int64_t batch,
                           const spec::AcceleratorSpec& accelerator) {
  const std::int64_t e = accelerator.element_bytes();
  const int keeping = accelerator.sram.keeping_buffer();
  const NetworkSetup setup{
      network,
      accelerator,
      batch,
      e,
      layout_network(network, batch, e),
      plan_fusion(network, accelerator.compute),
      keeping < 0 ? 0 : accelerator.sram.buffers[static_cast<std::size_t>(keeping)].capacity_bytes};
  const std::size_t count = network.layers.size();
  NetworkMapping whole = map_split(setup, 0, batch);
  if (setup.keep_capacity == 0) return whole;  // nothing stays on chip: sub-batches would only reload weights
  // Sub-batches: a prefix of the network in sub-batches of batch / 2, / 4, ... samples, the rest
  // at the whole batch, scored by the estimate (the prefix from the network mapped at the
  // sub-batch, the rest from the whole); the best split is mapped as it runs and kept when its
  // own estimate beats the whole batch's.
  const std::size_t limit = split_limit(setup);
  std::int64_t best = total_estimate(whole, accelerator, 0, count);
  std::size_t best_split = 0;
  std::int64_t best_sub_batch = batch;
  for (std::int64_t sub_batch = batch / 2;
       limit > 0 && sub_batch >= 1 && batch % (2 * sub_batch) == 0 && batch / sub_batch <= kMaxSubBatches;
       sub_batch /= 2) {
    NetworkMapping part;
    part.programs.resize(count);
    part.plans.resize(count);
    try {
      map_range(setup, sub_batch, 1, std::vector<bool>(count, false), 0, limit, part);  // one sub-batch
    } catch (const MappingError&) {
      continue;
    }
    std::int64_t prefix = 0;
    for (std::size_t split = 1; split <= limit; ++split) {
      prefix = util::checked_add(prefix, estimate_cycles(part.programs[split - 1], accelerator));
      if (split < count && setup.fusion.fused(split)) continue;  // inside a chain
      const std::int64_t score = util::checked_add(util::checked_mul(prefix, batch / sub_batch),
                                                   total_estimate(whole, accelerator, split, count));
      if (score < best) {
        best = score;
        best_split = split;
        best_sub_batch = sub_batch;
      }
    }
  }
  if (best_split == 0) return whole;
  NetworkMapping split;
  try {
    split = map_split(setup, best_split, best_sub_batch);
  } catch (const MappingError&) {
    return whole;  // its passes need more steps than a layer may have
  }
  const auto steps = [](const NetworkMapping& mapped) {
    std::size_t total = 0;
    for (const program::LayerProgram& program : mapped.programs) total += program.steps.size();
    return total;
  };
  // Kept only when it is faster by the estimate and does not push the network past a run's steps.
  const bool faster = total_estimate(split, accelerator, 0, count) < total_estimate(whole, accelerator, 0, count);
  return faster && (steps(split) <= program::kMaxRunSteps || steps(split) <= steps(whole)) ? split : whole;
}

SplitNetworkMapping map_network_split(const workload::Network& network, std::int64_t batch,
                                      const spec::AcceleratorSpec& accelerator) {
  const std::int64_t e = accelerator.element_bytes();
  const std::size_t count = network.layers.size();
  const std::vector<DramLayout> layouts = layout_network(network, batch, e);
  const FusionPlan fusion = plan_fusion(network, accelerator.compute);
  SplitNetworkMapping mapped;
  mapped.plans = plan_residency(network, fusion, layouts, batch, e, 0, std::vector<bool>(count, false)).layers;
  mapped.programs.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    DramLayout layout = layouts[i];
    layout.output = layouts[fusion.final_layer[i]].output;  // a chain writes its last tensor
    PartTilings tilings;  // the layer's alike parts tiled once, whatever the partition
    const auto map_split = [&](workload::Partition partition) {
      std::vector<program::LayerProgram> cores;
      for (std::int64_t core = 0; core < accelerator.cores; ++core) {
        cores.push_back(map_layer(layer, batch, accelerator, layout, mapped.plans[i],
                                  LayerSplit{partition, core, accelerator.cores, &tilings}));
      }
      return cores;
    };
    const auto estimate = [&](const std::vector<program::LayerProgram>& cores) {
      std::vector<const program::LayerProgram*> programs;
      for (const program::LayerProgram& core : cores) programs.push_back(&core);
      return chip_estimate(programs, accelerator);
    };
    const bool gemm = workload::is_partitioned_gemm(layer.spec.type);
    const std::optional<workload::Partition>& pinned = layer.spec.partition;
    if (pinned) {  // the model's: the only candidate
      mapped.programs[i] = map_split(*pinned);
      if (!mapped.programs[i].front().steps.empty()) mapped.programs[i].front().mapping += " (partition pinned)";
      continue;
    }
    std::vector<std::vector<program::LayerProgram>> candidates{
        map_split(gemm ? workload::Partition::columns : workload::Partition::rows)};
    if (gemm && mapped.plans[i].fused_into.empty()) {
      for (workload::Partition partition :
           {workload::Partition::rows, workload::Partition::groups, workload::Partition::k}) {
        try {
          candidates.push_back(map_split(partition));
        } catch (const MappingError&) {
          continue;  // another partition's parts fit
        }
      }
    }
    std::vector<ChipEstimate> estimates;
    for (const std::vector<program::LayerProgram>& candidate : candidates) estimates.push_back(estimate(candidate));
    mapped.programs[i] = std::move(candidates[fastest_on_chip(estimates)]);
  }
  return mapped;
}

std::string vector_ops_problem(const workload::Network& network, std::int64_t batch, const NetworkMapping& mapped) {
  std::int64_t analysed = 0, programmed = 0, folded = 0;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    analysed = util::checked_add(analysed, checked_mul(network.layers[i].counts.vector_ops, batch));
    // Dequantizing weights and reducing a K split's partial sums are the run's work, not the model's.
    const program::LayerProgram& program = mapped.programs[i];
    programmed =
        util::checked_add(programmed, program.vector_ops - program.dequant_vector_ops - program.reduction_vector_ops);
    folded = util::checked_add(folded, checked_mul(mapped.plans[i].folded_vector_ops, batch));
  }
  if (analysed == util::checked_add(programmed, folded)) return "";
  return "the programs have " + std::to_string(programmed) + " vector ops and folded batch-norms " +
         std::to_string(folded) + ", the analysis " + std::to_string(analysed);
}

}  // namespace reusesim::mapping
