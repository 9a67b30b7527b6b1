#include "workload/footprint.h"

#include <algorithm>

#include "util/checked_math.h"
#include "workload/training.h"

namespace reusesim::workload {

namespace {

// An activation layer working in place shares its input's buffer; in training, as the step lays
// out its tensors, so does a view (and its gradient its input's gradient's).
bool shares_input_buffer(const NetworkLayer& layer, const FootprintOptions& options) {
  return (options.inplace_activations && is_activation(layer.spec.type)) ||
         (options.mode == FootprintMode::train && is_view(layer.spec.type));
}

struct InferencePeak {
  std::int64_t activation_bytes = 0;  // the largest live set of activations
  std::int64_t with_workspace_bytes = 0;  // the largest live set plus that layer's im2col workspace
};

// Layers run in topological order; a tensor lives from its producer until its last consumer has
// run (outputs nobody consumes live to the end). An in-place activation's output is its input's
// buffer, so that buffer lives until the output's last use.
InferencePeak peak_live_inference(const Network& network, const Footprint& footprint, const FootprintOptions& options) {
  const std::size_t count = network.layers.size();
  std::vector<std::size_t> last_use(count, count);
  std::vector<bool> consumed(count, false);
  std::size_t input_last_use = 0;
  for (std::size_t i = 0; i < count; ++i) {
    for (int input : network.layers[i].input_ids) {
      if (input < 0) {
        input_last_use = i;
        continue;
      }
      const auto producer = static_cast<std::size_t>(input);
      last_use[producer] = consumed[producer] ? std::max(last_use[producer], i) : i;
      consumed[producer] = true;
    }
  }
  for (std::size_t i = count; i-- > 0;) {
    if (!shares_input_buffer(network.layers[i], options)) continue;
    const int input = network.layers[i].input_ids.front();
    if (input < 0) {
      input_last_use = std::max(input_last_use, last_use[i]);
    } else {
      last_use[static_cast<std::size_t>(input)] = std::max(last_use[static_cast<std::size_t>(input)], last_use[i]);
    }
  }
  InferencePeak peak;
  for (std::size_t step = 0; step < count; ++step) {
    std::int64_t live = step <= input_last_use ? footprint.input_bytes : 0;
    for (std::size_t i = 0; i <= step; ++i) {
      if (last_use[i] >= step) live = util::checked_add(live, footprint.layers[i].activation_bytes);
    }
    peak.activation_bytes = std::max(peak.activation_bytes, live);
    peak.with_workspace_bytes = std::max(peak.with_workspace_bytes, util::checked_add(live, footprint.layers[step].im2col_bytes));
  }
  return peak;
}

// Training's backward pass runs the layers in reverse. The gradient of a tensor lives from the
// backward of its last reader (which writes it first; the loss, for an output nobody reads) until
// its producer's backward: a layer's backward holds its output's gradient, its inputs' and any a
// later reader wrote for an earlier consumer to add to (a residual branch's). Per layer, those bytes.
std::vector<std::int64_t> live_gradient_bytes(const Network& network, const Footprint& footprint) {
  const std::vector<int> owners = buffer_owners(network);
  const std::vector<std::size_t> readers = last_readers(network, owners);
  const std::size_t count = network.layers.size();
  std::vector<std::int64_t> live(count, 0);
  for (std::size_t p = 0; p < count; ++p) {
    if (owners[p] != static_cast<int>(p)) continue;
    for (std::size_t i = p; i <= std::min(readers[p], count - 1); ++i) {
      live[i] = util::checked_add(live[i], footprint.layers[p].activation_gradient_bytes);
    }
  }
  return live;
}

struct TrainingPeak {
  std::int64_t activation_bytes = 0;  // the kept tensors and the largest segment's others
  std::int64_t live_bytes = 0;        // the most activations, gradients and workspace held at once
};

// The input and the kept outputs (training.h) live through the step; a segment's other outputs
// (recomputed, or the last segment's, kept) until its backward is done, so the step's peak is the
// largest over segments of those outputs and the most gradients one of its layers' backward holds.
TrainingPeak training_peak(const Network& network, const Footprint& footprint, std::int64_t segments) {
  const std::vector<bool> kept = kept_outputs(network, segments);
  const std::vector<std::int64_t> gradients = live_gradient_bytes(network, footprint);
  std::int64_t kept_bytes = footprint.input_bytes;
  std::vector<std::int64_t> segment_bytes(static_cast<std::size_t>(segments), 0);
  std::vector<std::int64_t> backward_bytes(static_cast<std::size_t>(segments), 0);
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const std::size_t segment = checkpoint_segment(network, i, segments);
    std::int64_t& bytes = kept[i] ? kept_bytes : segment_bytes[segment];
    bytes = util::checked_add(bytes, footprint.layers[i].activation_bytes);
    backward_bytes[segment] =
        std::max(backward_bytes[segment], util::checked_add(gradients[i], footprint.layers[i].im2col_bytes));
  }
  TrainingPeak peak;
  for (std::size_t s = 0; s < segment_bytes.size(); ++s) {
    peak.activation_bytes = std::max(peak.activation_bytes, util::checked_add(kept_bytes, segment_bytes[s]));
    peak.live_bytes = std::max(peak.live_bytes, util::checked_add(util::checked_add(kept_bytes, segment_bytes[s]), backward_bytes[s]));
  }
  return peak;
}

}  // namespace

std::int64_t optimizer_state_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::momentum: return 1;
    case Optimizer::adam: return 2;
    default: return 0;
  }
}

std::int64_t optimizer_bytes_per_parameter(Optimizer optimizer, bool mixed_precision, std::int64_t element_bytes) {
  const std::int64_t state = optimizer_state_per_parameter(optimizer);
  return mixed_precision ? (state + 1) * kMasterElementBytes : state * element_bytes;
}

Footprint compute_footprint(const Network& network, const FootprintOptions& options) {
  const TensorWidths widths = options.widths    ? *options.widths
                              : options.formats ? TensorWidths::of(*options.formats)
                                                : TensorWidths::uniform(bytes_per_element(options.dtype));
  // A training step holds every tensor at one width (footprint refuses a precision block there, run
  // a block that is not uniform), its optimizer state too.
  const std::int64_t element_bytes = widths.activation_bits / 8;
  const bool train = options.mode == FootprintMode::train;
  const auto tensor_bytes = [&](std::int64_t elements_per_sample, std::int64_t bits) {
    return packed_bytes(util::checked_mul(elements_per_sample, options.batch), bits);
  };
  const auto activation_bytes = [&](std::int64_t elements_per_sample) {
    return tensor_bytes(elements_per_sample, widths.activation_bits);
  };
  Footprint footprint;
  footprint.input_bytes = activation_bytes(network.data_input_elems());
  for (const NetworkLayer& layer : network.layers) {
    LayerFootprint row;
    row.name = layer.spec.name;
    row.type = util::name(layer.spec.type);
    row.weight_bytes = parameter_bytes(layer, widths).total();
    if (train) {
      row.gradient_bytes = row.weight_bytes;
      row.optimizer_bytes = util::checked_mul(
          layer.counts.params, optimizer_bytes_per_parameter(options.optimizer, options.mixed_precision, element_bytes));
      row.activation_gradient_bytes = is_view(layer.spec.type) ? 0 : activation_bytes(layer.counts.output_elems);
    }
    row.activation_bytes = shares_input_buffer(layer, options) ? 0 : activation_bytes(layer.counts.output_elems);
    if (options.im2col) row.im2col_bytes = activation_bytes(layer.counts.im2col_elems);
    row.kv_cache_bytes = tensor_bytes(layer.cached_elements(), widths.kv_cache_bits);
    footprint.weight_bytes = util::checked_add(footprint.weight_bytes, row.weight_bytes);
    footprint.gradient_bytes = util::checked_add(footprint.gradient_bytes, row.gradient_bytes);
    footprint.optimizer_bytes = util::checked_add(footprint.optimizer_bytes, row.optimizer_bytes);
    footprint.activation_gradient_bytes = util::checked_add(footprint.activation_gradient_bytes, row.activation_gradient_bytes);
    footprint.im2col_bytes = std::max(footprint.im2col_bytes, row.im2col_bytes);
    footprint.kv_cache_bytes = util::checked_add(footprint.kv_cache_bytes, row.kv_cache_bytes);
    footprint.layers.push_back(row);
  }
  // Held for the whole step, like the parameters: the KV cache too.
  const std::int64_t state_bytes = util::checked_add(
      util::checked_add(util::checked_add(footprint.weight_bytes, footprint.gradient_bytes), footprint.optimizer_bytes),
      footprint.kv_cache_bytes);
  footprint.activation_bytes = footprint.input_bytes;
  for (const LayerFootprint& layer : footprint.layers) {
    footprint.activation_bytes = util::checked_add(footprint.activation_bytes, layer.activation_bytes);
  }
  footprint.total_bytes = util::checked_add(util::checked_add(state_bytes, footprint.activation_bytes),
                                      util::checked_add(footprint.activation_gradient_bytes, footprint.im2col_bytes));
  if (train) {
    const TrainingPeak peak = training_peak(network, footprint, options.checkpoint_segments);
    footprint.peak_activation_bytes = peak.activation_bytes;
    footprint.peak_bytes = util::checked_add(state_bytes, peak.live_bytes);
  } else {
    const InferencePeak peak = peak_live_inference(network, footprint, options);
    footprint.peak_activation_bytes = peak.activation_bytes;
    footprint.peak_bytes = util::checked_add(state_bytes, peak.with_workspace_bytes);
  }
  return footprint;
}

}  // namespace reusesim::workload
