#include "mapping/training_mapper.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "mapping/fusion.h"
#include "mapping/gemm_mapper.h"
#include "mapping/program_builder.h"
#include "mapping/vector_mapper.h"
#include "util/checked_math.h"
#include "workload/training.h"

namespace reusesim::mapping {

namespace {

using util::checked_mul;
using util::checked_product;
using workload::LayerType;

// Both factors of a share reach 2^40 and more: the product needs 128 bits to stay exact.
__extension__ typedef __int128 WideCount;

// Where the step's own tensors live in DRAM, after the forward pass's (layout_network): the
// gradient of every layer's output, and each layer's weight gradient, optimizer state and (with
// mixed precision) master weights.
struct GradientLayout {
  std::vector<int> owner;  // per layer: the layer whose output buffer it is (a view's input's; -1: the data)
  std::vector<std::uint64_t> output_gradient;
  std::vector<std::uint64_t> weight_gradient;
  std::vector<std::array<std::uint64_t, 2>> state;
  std::vector<std::uint64_t> master;
  std::int64_t state_element_bytes = 0;  // of the state and the master weights
};

GradientLayout layout_gradients(const workload::Network& network, const std::vector<DramLayout>& layouts,
                                std::int64_t batch, std::int64_t e, const workload::TrainingOptions& options) {
  const std::size_t count = network.layers.size();
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    next = std::max(next, layouts[i].weights + static_cast<std::uint64_t>(checked_mul(layer.counts.params, e)));
    next = std::max(next, layouts[i].output + static_cast<std::uint64_t>(checked_product({layer.counts.output_elems, batch, e})));
  }
  const auto place = [&](std::int64_t bytes) {
    next = align(next);
    const std::uint64_t address = next;
    next += static_cast<std::uint64_t>(bytes);
    return address;
  };
  GradientLayout gradients;
  gradients.owner = workload::buffer_owners(network);
  gradients.output_gradient.resize(count);
  gradients.weight_gradient.resize(count);
  gradients.state.resize(count);
  gradients.master.resize(count);
  gradients.state_element_bytes = options.mixed_precision ? workload::kMasterElementBytes : e;
  const std::int64_t state_tensors = workload::optimizer_state_per_parameter(options.optimizer);
  for (std::size_t i = 0; i < count; ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    if (is_view(layer.spec.type)) continue;
    gradients.output_gradient[i] = place(checked_product({layer.counts.output_elems, batch, e}));
    const std::int64_t parameter_bytes = checked_mul(layer.counts.params, e);
    if (parameter_bytes == 0) continue;
    gradients.weight_gradient[i] = place(parameter_bytes);
    const std::int64_t state_bytes = checked_mul(layer.counts.params, gradients.state_element_bytes);
    for (std::int64_t s = 0; s < state_tensors; ++s) gradients.state[i][static_cast<std::size_t>(s)] = place(state_bytes);
    if (options.mixed_precision) gradients.master[i] = place(state_bytes);
  }
  return gradients;
}

// The gradient of one of a layer's inputs: written, or added to what another consumer of the same
// tensor wrote before (a residual connection's tensor has two).
struct GradientTarget {
  std::uint64_t address = 0;
  std::int64_t bytes = 0;
  bool accumulate = false;
};

// The stored activations that stay on chip through the step, in the buffer that keeps activations.
struct Residency {
  std::vector<bool> on_chip;  // per layer owning an output buffer
  std::int64_t bytes = 0;     // resident while every program of the step runs

  // Whether input j of `layer` (a layer's output, or a view of one) is on chip.
  bool input(const workload::NetworkLayer& layer, std::size_t j, const GradientLayout& gradients) const {
    const int producer = layer.input_ids[j];
    const int owner = producer < 0 ? -1 : gradients.owner[static_cast<std::size_t>(producer)];
    return owner >= 0 && on_chip[static_cast<std::size_t>(owner)];
  }
};

// The outputs that fit in `room` bytes, the last layers' first (their backward comes first).
Residency choose_residency(const workload::Network& network, std::int64_t batch, std::int64_t e, std::int64_t room) {
  Residency residency;
  residency.on_chip.assign(network.layers.size(), false);
  for (std::size_t i = network.layers.size(); i-- > 0;) {
    if (is_view(network.layers[i].spec.type)) continue;
    const std::int64_t bytes = checked_product({network.layers[i].counts.output_elems, batch, e});
    if (residency.bytes + bytes > room) continue;
    residency.on_chip[i] = true;
    residency.bytes += bytes;
  }
  return residency;
}

// A tensor a backward program reads: loaded, or counted as read on chip.
void read_saved(std::vector<Stream>& loads, std::int64_t& onchip_bytes, std::uint64_t address, std::int64_t bytes,
                bool on_chip) {
  if (on_chip) {
    onchip_bytes += bytes;
  } else {
    loads.push_back({program::TensorRole::inputs, address, bytes});
  }
}

program::LayerProgram named(const workload::NetworkLayer& layer) {
  program::LayerProgram program;
  program.layer = layer.spec.name;
  program.type = util::name(layer.spec.type);
  return program;
}

// A vector program: `parameter_bytes` from `parameters` loaded once, then `loads` streamed through
// the vector unit into `stores`, in as many chunks as the buffers need with double buffering;
// `onchip_bytes` more are read where the step keeps them on chip.
program::LayerProgram vector_program(const workload::NetworkLayer& layer, const Context& context, std::uint64_t parameters,
                            std::int64_t parameter_bytes, const std::vector<Stream>& loads,
                            const std::vector<Stream>& stores, std::int64_t onchip_bytes, std::int64_t vector_ops,
                            const std::string& what) {
  if (parameter_bytes > context.capacity.weights) {
    throw MappingError("layer " + layer.spec.name + " (" + what + "): its " + std::to_string(parameter_bytes) +
                       " bytes of parameters do not fit the weight buffer (" + std::to_string(context.capacity.weights) + ")");
  }
  std::int64_t input_bytes = 0, weight_bytes = 0, output_bytes = 0;
  for (const Stream& load : loads) (load.role == program::TensorRole::weights ? weight_bytes : input_bytes) += load.bytes;
  for (const Stream& store : stores) output_bytes += store.bytes;
  const std::int64_t chunks = std::max<std::int64_t>({1, double_buffered_chunks(input_bytes, context.capacity.inputs),
                                                      double_buffered_chunks(weight_bytes, context.capacity.weights),
                                                      double_buffered_chunks(output_bytes, context.capacity.outputs)});
  program::LayerProgram program = named(layer);
  ProgramBuilder builder(program, context.burst_bytes);
  const std::int32_t first = parameter_bytes > 0 ? builder.load(program::TensorRole::weights, parameters, parameter_bytes, {}) : -1;
  stream_chunks(builder, chunks, first, loads, stores,
                util::checked_add(util::checked_add(input_bytes, weight_bytes), onchip_bytes), vector_ops);
  program.onchip_input_bytes = onchip_bytes;
  program.mapping = what + ": " + std::to_string(chunks) + (chunks == 1 ? " chunk" : " chunks") + " through the vector unit";
  return program;
}

// Runs `next` after `program` as one program: steps of `next` that waited for nothing wait for
// `program`'s last step (they read the gradient it wrote).
void append(program::LayerProgram& program, program::LayerProgram next) {
  const std::size_t offset = program.steps.size();
  if (offset + next.steps.size() > program::kMaxLayerSteps) {
    throw MappingError("layer " + program.layer + ": its backward program needs more than " +
                       std::to_string(program::kMaxLayerSteps) + " data-movement steps, the limit of one layer; lower the batch size");
  }
  program.mapping += (program.mapping.empty() ? "" : "; then ") + next.mapping;
  append_steps(program, std::move(next), true);
}

// A backward GEMM over `forward`'s groups, of its own m x n x k.
GemmProblem backward_gemm(const GemmProblem& forward, std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmProblem p;
  p.e = forward.e;
  p.groups = forward.groups;
  p.m = m;
  p.n = n;
  p.k = k;
  p.partial_sums = forward.partial_sums;
  return p;
}

// The input gradient of a conv2d or linear layer: dY (m x k, rows of the output gradient) times its
// weights read transposed (k x n), the im2col columns folded into dX as they are written; a second
// contribution to dX is read and added in the output path.
program::LayerProgram dgrad_program(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                           const DramLayout& layout, const GemmProblem& forward, std::uint64_t output_gradient,
                           const GradientTarget& target) {
  const std::int64_t e = context.e;
  GemmProblem p = backward_gemm(forward, forward.m, forward.k, forward.n);
  p.input_bytes = [e](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * e; };
  p.weights = layout.weights;
  p.inputs = output_gradient;
  p.output = target.address;
  p.written_bytes = target.bytes;
  if (target.accumulate) {
    p.addends.push_back(Addend{target.address, target.bytes / e / batch, false});
    p.output_vector_ops = target.bytes / e;
  }
  program::LayerProgram program = named(layer);
  map_gemm(p, context, context.capacity, layer.spec.name, std::nullopt, program);
  program.mapping = "dgrad " + program.mapping;
  return program;
}

// The weight gradient of a conv2d or linear layer: the input read transposed (m x k, the im2col
// columns built on chip from the input's own bytes) times dY (k x n), both activations; a bias's
// gradient (dY summed over M) is added in the output path.
program::LayerProgram wgrad_program(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                           const DramLayout& layout, const GemmProblem& forward, std::uint64_t output_gradient,
                           std::uint64_t weight_gradient, bool input_on_chip) {
  const std::int64_t e = context.e;
  GemmProblem p = backward_gemm(forward, forward.k, forward.n, forward.m);
  // A tile of tm of the columns' K and tk of their M rows reads that share of the group's input.
  const std::int64_t group_input_bytes =
      checked_product({layer.input_shapes.front().elements(), batch, e}) / forward.groups;
  const std::int64_t rows = forward.k, columns = forward.m;
  p.input_bytes = [=](std::int64_t, std::int64_t tm, std::int64_t tk) {
    const WideCount share = static_cast<WideCount>(group_input_bytes) * tm * tk;
    const WideCount whole = static_cast<WideCount>(rows) * columns;
    return std::max<std::int64_t>(e, static_cast<std::int64_t>((share + whole - 1) / whole));
  };
  p.inputs = layout.inputs.front();
  p.inputs_on_chip = input_on_chip;
  p.weights = output_gradient;
  p.b_role = program::TensorRole::inputs;
  p.output = weight_gradient;
  p.written_bytes = checked_mul(layer.counts.params, e);
  p.output_vector_ops = forward.bias > 0 ? checked_product({forward.groups, forward.m, forward.n}) : 0;
  program::LayerProgram program = named(layer);
  map_gemm(p, context, activation_operands_capacity(context.capacity), layer.spec.name, std::nullopt, program);
  if (input_on_chip) program.onchip_input_bytes = group_input_bytes * forward.groups;
  program.mapping = "wgrad " + program.mapping;
  return program;
}

// Which stored tensor a vector layer's backward reads besides dY: its input (gelu, silu, maxpool,
// the norms), its output (relu, relu6, sigmoid, tanh, softmax), or neither (avgpool, add).
enum class Saved { none, input, output };

Saved saved_tensor(LayerType type) {
  switch (type) {
    case LayerType::gelu:
    case LayerType::silu:
    case LayerType::maxpool:
    case LayerType::batchnorm:
    case LayerType::layernorm:
    case LayerType::rmsnorm: return Saved::input;
    case LayerType::avgpool:
    case LayerType::add: return Saved::none;
    default: return Saved::output;
  }
}

// The backward of a layer without MACs: dY and the tensor it saved in, each input's gradient (and
// its parameters' gradient) out, as many vector ops as its forward, plus one per accumulated element.
std::optional<program::LayerProgram> vector_backward(const workload::NetworkLayer& layer, std::size_t i, std::int64_t batch,
                                            const Context& context, const DramLayout& layout,
                                            const GradientLayout& gradients, const Residency& residency,
                                            const std::vector<GradientTarget>& targets) {
  const std::int64_t e = context.e;
  const std::int64_t parameter_bytes = checked_mul(layer.counts.params, e);
  if (targets.empty() && parameter_bytes == 0) return std::nullopt;
  const std::int64_t output_bytes = checked_product({layer.counts.output_elems, batch, e});
  std::vector<Stream> loads{{program::TensorRole::inputs, gradients.output_gradient[i], output_bytes}};
  std::int64_t onchip_bytes = 0;
  switch (saved_tensor(layer.spec.type)) {
    case Saved::input:
      for (std::size_t j = 0; j < layer.input_shapes.size(); ++j) {
        read_saved(loads, onchip_bytes, layout.inputs[j], checked_product({layer.input_shapes[j].elements(), batch, e}),
                   residency.input(layer, j, gradients));
      }
      break;
    case Saved::output: read_saved(loads, onchip_bytes, layout.output, output_bytes, residency.on_chip[i]); break;
    case Saved::none: break;
  }
  std::int64_t ops = checked_mul(layer.counts.vector_ops, batch);
  std::vector<Stream> stores;
  for (const GradientTarget& target : targets) {
    if (target.accumulate) {
      loads.push_back({program::TensorRole::inputs, target.address, target.bytes});
      ops = util::checked_add(ops, target.bytes / e);
    }
    stores.push_back({program::TensorRole::outputs, target.address, target.bytes});
  }
  if (parameter_bytes > 0) stores.push_back({program::TensorRole::outputs, gradients.weight_gradient[i], parameter_bytes});
  return vector_program(layer, context, layout.weights, parameter_bytes, loads, stores, onchip_bytes, ops, "backward");
}

// The optimizer's update of a layer's parameters: w, g and the optimizer state in, w and the state
// out. With mixed precision w is the fp32 master copy, and the weights the layers compute with are
// written again at their own size (one more vector op per parameter, the rounding).
program::LayerProgram update_program(const workload::NetworkLayer& layer, const Context& context, const DramLayout& layout,
                            const GradientLayout& gradients, std::size_t i, const workload::TrainingOptions& options) {
  const std::int64_t bytes = checked_mul(layer.counts.params, context.e);
  const std::int64_t state_bytes = checked_mul(layer.counts.params, gradients.state_element_bytes);
  const std::uint64_t weights = options.mixed_precision ? gradients.master[i] : layout.weights;
  std::vector<Stream> loads{{program::TensorRole::weights, weights, state_bytes},
                            {program::TensorRole::inputs, gradients.weight_gradient[i], bytes}};
  std::vector<Stream> stores{{program::TensorRole::outputs, weights, state_bytes}};
  for (std::int64_t s = 0; s < workload::optimizer_state_per_parameter(options.optimizer); ++s) {
    loads.push_back({program::TensorRole::inputs, gradients.state[i][static_cast<std::size_t>(s)], state_bytes});
    stores.push_back({program::TensorRole::outputs, gradients.state[i][static_cast<std::size_t>(s)], state_bytes});
  }
  std::int64_t ops_per_parameter = workload::update_ops_per_parameter(options.optimizer);
  if (options.mixed_precision) {
    stores.push_back({program::TensorRole::outputs, layout.weights, bytes});
    ++ops_per_parameter;
  }
  return vector_program(layer, context, 0, 0, loads, stores, 0, checked_mul(layer.counts.params, ops_per_parameter),
                        util::name(options.optimizer) + (options.mixed_precision ? " mixed-precision" : "") +
                            " update");
}

}  // namespace

std::string phase_name(TrainingPhase phase) {
  switch (phase) {
    case TrainingPhase::recompute: return "recompute";
    case TrainingPhase::dgrad: return "dgrad";
    case TrainingPhase::wgrad: return "wgrad";
    case TrainingPhase::update: return "update";
    default: return "forward";
  }
}

namespace {

// The step with `residency`'s activations on chip (map_training_step).
std::vector<TrainingProgram> map_step(const workload::Network& network, std::int64_t batch,
                                      const spec::AcceleratorSpec& accelerator, const workload::TrainingOptions& options,
                                      const std::vector<DramLayout>& layouts, const GradientLayout& gradients,
                                      const Residency& residency) {
  const std::int64_t e = accelerator.element_bytes();
  const std::int64_t checkpoint_segments = options.checkpoint_segments;
  // Every layer runs on its own (no fusion: a batch-norm cannot fold into the weights while they
  // train), its output stored for the backward pass: on chip, or in DRAM.
  LayerPlan alone;
  alone.resident_bytes = residency.bytes;
  const Context context{accelerator,
                        alone,
                        role_capacity(accelerator.sram, residency.bytes),
                        e,
                        accelerator.dram.peak_bytes_per_second() / (accelerator.compute.clock_mhz * 1e6),
                        static_cast<std::uint64_t>(accelerator.dram.burst_bytes()),
                        LayerSplit{}};
  const std::size_t count = network.layers.size();
  const auto segment = [&](std::size_t i) { return workload::checkpoint_segment(network, i, checkpoint_segments); };
  const std::size_t last_segment = static_cast<std::size_t>(checkpoint_segments - 1);
  std::vector<TrainingProgram> step;
  std::vector<std::size_t> recomputed;  // positions in `step` of the forward programs a segment runs again
  for (std::size_t i = 0; i < count; ++i) {
    if (is_view(network.layers[i].spec.type)) continue;
    if (segment(i) < last_segment) recomputed.push_back(step.size());
    LayerPlan plan = alone;
    plan.output_on_chip = residency.on_chip[i];
    for (std::size_t j = 0; j < network.layers[i].input_ids.size(); ++j) {
      plan.inputs_on_chip.push_back(residency.input(network.layers[i], j, gradients));
    }
    step.push_back({TrainingPhase::forward, i, map_layer(network.layers[i], batch, accelerator, layouts[i], plan)});
  }
  std::vector<bool> gradient_written(count, false);
  for (std::size_t i = count; i-- > 0;) {
    const workload::NetworkLayer& layer = network.layers[i];
    if (segment(i) < last_segment && (i + 1 == count || segment(i + 1) != segment(i))) {
      // The backward pass reaches a checkpointed segment: its forward runs again from the tensor
      // kept at its start, and its activations are there for its backward.
      for (std::size_t position : recomputed) {
        if (segment(step[position].layer) != segment(i)) continue;
        TrainingProgram again = step[position];
        again.phase = TrainingPhase::recompute;
        step.push_back(std::move(again));
      }
    }
    if (is_view(layer.spec.type)) continue;
    std::vector<GradientTarget> targets;
    for (std::size_t j = 0; j < layer.input_ids.size(); ++j) {
      const int producer = layer.input_ids[j];
      const int owner = producer < 0 ? -1 : gradients.owner[static_cast<std::size_t>(producer)];
      if (owner < 0) continue;  // nothing needs the data's gradient
      const auto o = static_cast<std::size_t>(owner);
      targets.push_back({gradients.output_gradient[o], checked_product({layer.input_shapes[j].elements(), batch, e}),
                         gradient_written[o]});
      gradient_written[o] = true;
    }
    const std::uint64_t output_gradient = gradients.output_gradient[i];
    if (layer.spec.type != LayerType::conv2d && layer.spec.type != LayerType::linear) {
      std::optional<program::LayerProgram> backward =
          vector_backward(layer, i, batch, context, layouts[i], gradients, residency, targets);
      if (backward) step.push_back({TrainingPhase::dgrad, i, std::move(*backward)});
      continue;
    }
    const GemmProblem forward = conv_or_linear_gemm(layer, batch, context, layouts[i]);
    std::optional<program::LayerProgram> dgrad;
    if (layer.spec.activation != workload::Activation::none) {
      // The layer's own activation: dY times its derivative at the stored output, in place.
      const std::int64_t output_bytes = checked_product({layer.counts.output_elems, batch, e});
      std::vector<Stream> loads{{program::TensorRole::inputs, output_gradient, output_bytes}};
      std::int64_t onchip_bytes = 0;
      read_saved(loads, onchip_bytes, layouts[i].output, output_bytes, residency.on_chip[i]);
      dgrad = vector_program(layer, context, 0, 0, loads, {{program::TensorRole::outputs, output_gradient, output_bytes}},
                             onchip_bytes, output_bytes / e, util::name(layer.spec.activation) + " backward");
    }
    if (!targets.empty()) {
      program::LayerProgram gemm = dgrad_program(layer, batch, context, layouts[i], forward, output_gradient, targets.front());
      if (dgrad) {
        append(*dgrad, std::move(gemm));
      } else {
        dgrad = std::move(gemm);
      }
    }
    if (dgrad) step.push_back({TrainingPhase::dgrad, i, std::move(*dgrad)});
    step.push_back({TrainingPhase::wgrad, i,
                    wgrad_program(layer, batch, context, layouts[i], forward, output_gradient,
                                  gradients.weight_gradient[i], residency.input(layer, 0, gradients))});
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (network.layers[i].counts.params == 0) continue;
    step.push_back({TrainingPhase::update, i, update_program(network.layers[i], context, layouts[i], gradients, i, options)});
  }
  return step;
}

}  // namespace

std::vector<std::int64_t> training_live_bytes(const workload::Network& network, std::int64_t batch,
                                              std::int64_t element_bytes, const workload::TrainingOptions& options,
                                              const std::vector<TrainingProgram>& step) {
  const std::size_t count = network.layers.size();
  const std::size_t n = step.size();
  const std::vector<int> owners = workload::buffer_owners(network);
  const std::vector<std::size_t> readers = workload::last_readers(network, owners);
  const std::vector<bool> kept = workload::kept_outputs(network, options.checkpoint_segments);
  const auto segment = [&](std::size_t i) { return workload::checkpoint_segment(network, i, options.checkpoint_segments); };
  const std::size_t last_segment = static_cast<std::size_t>(options.checkpoint_segments - 1);
  // Where each layer's programs run: forward, recompute, its dgrad, its last backward program; and
  // where each segment's backward, and the whole backward pass, begin and end.
  std::vector<std::size_t> forward(count, n), recompute(count, n), dgrad(count, n), backward_end(count, n);
  std::vector<std::size_t> segment_end(static_cast<std::size_t>(options.checkpoint_segments), 0);
  std::size_t backward_begin = n, step_backward_end = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = step[k].layer;
    switch (step[k].phase) {
      case TrainingPhase::forward: forward[i] = k; continue;
      case TrainingPhase::recompute: recompute[i] = k; continue;
      case TrainingPhase::update: continue;
      case TrainingPhase::dgrad: dgrad[i] = k; break;
      case TrainingPhase::wgrad: break;
    }
    backward_begin = std::min(backward_begin, k);
    backward_end[i] = k;
    segment_end[segment(i)] = k;
    step_backward_end = k;
  }
  // Bytes live from program `first` to program `last`, both included.
  std::vector<std::int64_t> delta(n + 1, 0);
  const auto live = [&](std::size_t first, std::size_t last, std::int64_t bytes) {
    delta[first] += bytes;
    delta[std::max(first, last) + 1] -= bytes;
  };
  // Held throughout: the parameters, their gradients, the optimizer state (with mixed precision
  // the fp32 master weights too) and the model's input, kept for the step like the parameters.
  std::int64_t parameters = 0;
  for (const workload::NetworkLayer& layer : network.layers) parameters = util::checked_add(parameters, layer.counts.params);
  live(0, n - 1,
       util::checked_add(
           checked_mul(parameters, 2 * element_bytes +
                                       workload::optimizer_bytes_per_parameter(options.optimizer, options.mixed_precision,
                                                                               element_bytes)),
           checked_product({network.data_input_elems(), batch, element_bytes})));
  for (std::size_t o = 0; o < count; ++o) {
    if (owners[o] != static_cast<int>(o)) continue;
    const std::int64_t bytes = checked_product({network.layers[o].counts.output_elems, batch, element_bytes});
    // The output: a kept one until the backward pass ends; a last segment's until that segment's
    // backward ends; a recomputed segment's until its last reader's forward, then again from its
    // recompute until its segment's backward ends.
    if (kept[o]) {
      live(forward[o], step_backward_end, bytes);
    } else if (segment(o) == last_segment) {
      live(forward[o], segment_end[segment(o)], bytes);
    } else {
      live(forward[o], readers[o] < count ? forward[readers[o]] : forward[o], bytes);
      live(recompute[o], segment_end[segment(o)], bytes);
    }
    // Its gradient: from its last reader's dgrad (the loss, before the backward pass, for an
    // output nobody reads) until its own last backward program.
    const std::size_t written = readers[o] < count ? dgrad[readers[o]] : backward_begin;
    live(written, backward_end[o] < n ? backward_end[o] : written, bytes);
  }
  std::vector<std::int64_t> bytes(n, 0);
  std::int64_t running = 0;
  for (std::size_t k = 0; k < n; ++k) bytes[k] = running += delta[k];
  return bytes;
}

std::vector<TrainingProgram> map_training_step(const workload::Network& network, std::int64_t batch,
                                               const spec::AcceleratorSpec& accelerator,
                                               const workload::TrainingOptions& options) {
  const std::int64_t e = accelerator.element_bytes();
  const std::vector<DramLayout> layouts = layout_network(network, batch, e);
  const GradientLayout gradients = layout_gradients(network, layouts, batch, e, options);
  // Stored activations stay on chip in up to half the buffer that keeps activations (the other
  // half is the tiles'); when a program then fits no buffer, the room halves and the step is mapped again.
  const int keeping = accelerator.sram.keeping_buffer();
  std::int64_t room = keeping < 0 ? 0 : accelerator.sram.buffers[static_cast<std::size_t>(keeping)].capacity_bytes / 2;
  while (true) {
    const Residency residency = choose_residency(network, batch, e, room);
    try {
      return map_step(network, batch, accelerator, options, layouts, gradients, residency);
    } catch (const MappingError&) {
      if (residency.bytes == 0) throw;
      room = residency.bytes / 2;
    }
  }
}

}  // namespace reusesim::mapping
