#include "workload/layer.h"

#include <algorithm>
#include <utility>

#include "util/checked_math.h"

namespace reusesim::workload {

namespace {

// Element operations per hidden unit per time step beyond the gate matrix products:
// RNN: tanh (1). GRU: 3 gate nonlinearities + reset product + (1 - z), two products and a sum
// for the blend (7). LSTM: 4 gate nonlinearities + f*c + i*g + their sum + tanh(c) + o*tanh(c) (9).
std::int64_t recurrent_vector_ops_per_unit(LayerType type) {
  return type == LayerType::lstm ? 9 : type == LayerType::gru ? 7 : 1;
}

ShapeResult fail(std::string field, std::string message) { return ShapeResult{std::nullopt, {std::move(field), std::move(message)}}; }
ShapeResult ok(Shape shape) { return ShapeResult{shape, {}}; }

std::string pair_text(HeightWidth value) { return std::to_string(value.height) + "x" + std::to_string(value.width); }

// floor((size + 2 pad - dilation (kernel - 1) - 1) / stride) + 1, or the ceiling variant
// (PyTorch's ceil_mode: a last window that would start inside the right padding is dropped).
std::int64_t window_count(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t pad,
                          std::int64_t dilation, bool ceil_mode) {
  const std::int64_t span = util::checked_add(size, util::checked_mul(2, pad)) - util::checked_mul(dilation, kernel - 1) - 1;
  std::int64_t count = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (count - 1) * stride >= size + pad) --count;
  return count;
}

ShapeResult expect_single_input(const LayerSpec& layer, const std::vector<Shape>& inputs) {
  if (inputs.size() != 1) {
    return fail("inputs", util::name(layer.type) + " takes one input, got " + std::to_string(inputs.size()));
  }
  return ok(inputs.front());
}

ShapeResult infer_conv2d(const LayerSpec& layer, const Shape& in) {
  const Conv2dParams& conv = layer.conv;
  if (in.kind != ShapeKind::image) return fail("", "conv2d needs an image input, got " + in.describe());
  if (conv.in_channels && *conv.in_channels != in.channels) {
    return fail("in_channels", "expects " + std::to_string(*conv.in_channels) + " input channels but is fed " +
                                   in.describe());
  }
  const std::int64_t groups = conv.depthwise ? in.channels : conv.groups;
  const std::int64_t out_channels = conv.out_channels > 0 ? conv.out_channels : in.channels;
  if (in.channels % groups != 0) {
    return fail("groups", "groups " + std::to_string(groups) + " does not divide the " +
                              std::to_string(in.channels) + " input channels");
  }
  if (out_channels % groups != 0) {
    return fail(conv.depthwise ? "out_channels" : "groups",
                "groups " + std::to_string(groups) + " does not divide the " + std::to_string(out_channels) +
                    " output channels");
  }
  const HeightWidth reach{util::checked_mul(conv.dilation.height, conv.kernel.height - 1) + 1,
                          util::checked_mul(conv.dilation.width, conv.kernel.width - 1) + 1};
  const HeightWidth padded{util::checked_add(in.height, util::checked_mul(2, conv.padding.height)),
                           util::checked_add(in.width, util::checked_mul(2, conv.padding.width))};
  if (reach.height > padded.height || reach.width > padded.width) {
    return fail("kernel", "kernel " + pair_text(conv.kernel) +
                              (reach.height != conv.kernel.height || reach.width != conv.kernel.width
                                   ? " (" + pair_text(reach) + " dilated)"
                                   : "") +
                              " is larger than the padded input " + pair_text(padded));
  }
  return ok(Shape::image(out_channels,
                         window_count(in.height, conv.kernel.height, conv.stride.height, conv.padding.height,
                                      conv.dilation.height, false),
                         window_count(in.width, conv.kernel.width, conv.stride.width, conv.padding.width,
                                      conv.dilation.width, false)));
}

ShapeResult infer_pool(const LayerSpec& layer, const Shape& in) {
  const PoolParams& pool = layer.pool;
  if (in.kind != ShapeKind::image) {
    return fail("", util::name(layer.type) + " needs an image input, got " + in.describe());
  }
  if (pool.global) return ok(Shape::image(in.channels, 1, 1));
  const HeightWidth stride = pool.stride.value_or(pool.kernel);
  if (pool.padding.height * 2 > pool.kernel.height || pool.padding.width * 2 > pool.kernel.width) {
    return fail("padding", "padding " + pair_text(pool.padding) + " is more than half the kernel " +
                               pair_text(pool.kernel));
  }
  const HeightWidth padded{in.height + 2 * pool.padding.height, in.width + 2 * pool.padding.width};
  if (pool.kernel.height > padded.height || pool.kernel.width > padded.width) {
    return fail("kernel", "kernel " + pair_text(pool.kernel) + " is larger than the padded input " + pair_text(padded));
  }
  return ok(Shape::image(in.channels,
                         window_count(in.height, pool.kernel.height, stride.height, pool.padding.height, 1,
                                      pool.ceil_mode),
                         window_count(in.width, pool.kernel.width, stride.width, pool.padding.width, 1,
                                      pool.ceil_mode)));
}

ShapeResult infer_linear(const LayerSpec& layer, const Shape& in) {
  if (in.kind == ShapeKind::image) {
    return fail("", "linear needs a vector or sequence input, got " + in.describe() + " (add a flatten layer)");
  }
  if (layer.linear.in_features && *layer.linear.in_features != in.features) {
    return fail("in_features", "expects " + std::to_string(*layer.linear.in_features) + " input features but is fed " +
                                   in.describe());
  }
  return ok(in.kind == ShapeKind::sequence ? Shape::sequence(in.steps, layer.linear.out_features)
                                           : Shape::vector(layer.linear.out_features));
}

ShapeResult infer_recurrent(const LayerSpec& layer, const Shape& in) {
  const RecurrentParams& rnn = layer.recurrent;
  if (in.kind != ShapeKind::sequence) {
    return fail("", util::name(layer.type) + " needs a sequence input, got " + in.describe() +
                        (in.kind == ShapeKind::image ? " (add a to_sequence layer)" : ""));
  }
  if (rnn.input_size && *rnn.input_size != in.features) {
    return fail("input_size", "expects " + std::to_string(*rnn.input_size) + " input features but is fed " +
                                  in.describe());
  }
  const std::int64_t out_features = util::checked_mul(rnn.hidden_size, rnn.bidirectional ? 2 : 1);
  return ok(rnn.return_sequences ? Shape::sequence(in.steps, out_features) : Shape::vector(out_features));
}

ShapeResult infer_concat(const std::vector<Shape>& inputs) {
  if (inputs.size() < 2) return fail("inputs", "concat takes two or more inputs, got " + std::to_string(inputs.size()));
  Shape out = inputs.front();
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const Shape& in = inputs[i];
    const bool same_kind = in.kind == out.kind;
    const bool compatible = same_kind && (in.kind == ShapeKind::image ? in.height == out.height && in.width == out.width
                                          : in.kind == ShapeKind::sequence ? in.steps == out.steps
                                                                           : true);
    if (!compatible) {
      return fail("inputs", "cannot concatenate " + inputs.front().describe() + " with " + in.describe() +
                                " (images need the same height and width, sequences the same length)");
    }
    if (in.kind == ShapeKind::image) {
      out.channels = util::checked_add(out.channels, in.channels);
    } else {
      out.features = util::checked_add(out.features, in.features);
    }
  }
  return ok(out);
}

// add and mul: element-wise over two or more tensors of one shape.
ShapeResult infer_elementwise(LayerType type, const std::vector<Shape>& inputs) {
  const std::string name = util::name(type);
  if (inputs.size() < 2) return fail("inputs", name + " takes two or more inputs, got " + std::to_string(inputs.size()));
  for (const Shape& in : inputs) {
    if (in != inputs.front()) {
      return fail("inputs", "cannot " + name + " " + inputs.front().describe() + " and " + in.describe() +
                                " (element-wise " + name + " needs equal shapes)");
    }
  }
  return ok(inputs.front());
}

ShapeResult infer_matmul(const LayerSpec& layer, const std::vector<Shape>& inputs) {
  if (inputs.size() != 2) return fail("inputs", "matmul takes two inputs, got " + std::to_string(inputs.size()));
  const Shape& a = inputs[0];
  const Shape& b = inputs[1];
  if (a.kind != ShapeKind::sequence || b.kind != ShapeKind::sequence) {
    return fail("inputs", "matmul multiplies two sequences, got " + a.describe() + " and " + b.describe());
  }
  const MatmulParams& mm = layer.matmul;
  const std::int64_t heads = mm.heads, kv_heads = mm.kv_heads_or_heads();
  if (heads % kv_heads != 0) {
    return fail("kv_heads", "kv_heads " + std::to_string(kv_heads) + " does not divide heads " + std::to_string(heads));
  }
  if (b.features % kv_heads != 0) {
    const std::string field = mm.kv_heads > 0 ? "kv_heads" : "heads";
    return fail(field, field + " " + std::to_string(kv_heads) + " does not divide the second input's " +
                           std::to_string(b.features) + " features");
  }
  const std::int64_t head_size = b.features / kv_heads;
  if (mm.transpose_b) {
    if (a.features != util::checked_mul(heads, head_size)) {
      return fail("heads", "the first input has " + std::to_string(a.features) + " features, not heads " +
                               std::to_string(heads) + " x " + std::to_string(head_size) + " (the second input's head size)");
    }
    return ok(Shape::sequence(a.steps, util::checked_mul(heads, b.steps)));
  }
  if (a.features != util::checked_mul(heads, b.steps)) {
    return fail("heads", "the first input has " + std::to_string(a.features) + " features, not heads " +
                             std::to_string(heads) + " x " + std::to_string(b.steps) + " (the second input's rows)");
  }
  return ok(Shape::sequence(a.steps, util::checked_mul(heads, head_size)));
}

}  // namespace

std::int64_t recurrent_gates(LayerType type) { return type == LayerType::lstm ? 4 : type == LayerType::gru ? 3 : 1; }

bool is_activation(LayerType type) {
  return type == LayerType::relu || type == LayerType::relu6 || type == LayerType::sigmoid ||
         type == LayerType::tanh || type == LayerType::gelu || type == LayerType::silu;
}

bool is_recurrent(LayerType type) { return type == LayerType::rnn || type == LayerType::gru || type == LayerType::lstm; }

bool is_partitioned_gemm(LayerType type) {
  return type == LayerType::conv2d || type == LayerType::linear || type == LayerType::matmul;
}

bool is_view(LayerType type) {
  return type == LayerType::flatten || type == LayerType::to_sequence || type == LayerType::to_tokens ||
         type == LayerType::first_step || type == LayerType::concat;
}

ShapeResult infer_output_shape(const LayerSpec& layer, const std::vector<Shape>& inputs) {
  if (layer.type == LayerType::concat) return infer_concat(inputs);
  if (layer.type == LayerType::add || layer.type == LayerType::mul) return infer_elementwise(layer.type, inputs);
  if (layer.type == LayerType::matmul) return infer_matmul(layer, inputs);
  const ShapeResult single = expect_single_input(layer, inputs);
  if (!single.shape) return single;
  const Shape& in = *single.shape;
  switch (layer.type) {
    case LayerType::conv2d: return infer_conv2d(layer, in);
    case LayerType::linear: return infer_linear(layer, in);
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: return infer_recurrent(layer, in);
    case LayerType::maxpool:
    case LayerType::avgpool: return infer_pool(layer, in);
    case LayerType::batchnorm:
      if (in.kind != ShapeKind::image) return fail("", "batchnorm needs an image input, got " + in.describe());
      return ok(in);
    case LayerType::layernorm:
    case LayerType::rmsnorm:
      if (in.kind == ShapeKind::image) {
        return fail("", util::name(layer.type) + " normalizes features: it needs a vector or sequence input, got " +
                            in.describe());
      }
      return ok(in);
    case LayerType::flatten:
      if (in.kind != ShapeKind::image) return fail("", "flatten needs an image input, got " + in.describe());
      return ok(Shape::vector(in.elements()));
    case LayerType::to_sequence:
      if (in.kind != ShapeKind::image) return fail("", "to_sequence needs an image input, got " + in.describe());
      return ok(Shape::sequence(in.width, util::checked_mul(in.channels, in.height)));
    case LayerType::first_step:
      if (in.kind != ShapeKind::sequence) return fail("", "first_step needs a sequence input, got " + in.describe());
      return ok(Shape::vector(in.features));
    case LayerType::to_tokens:
      if (in.kind != ShapeKind::image) return fail("", "to_tokens needs an image input, got " + in.describe());
      return ok(Shape::sequence(util::checked_mul(in.height, in.width), in.channels));
    case LayerType::class_token:
    case LayerType::position_embedding:
      if (in.kind != ShapeKind::sequence) {
        return fail("", util::name(layer.type) + " needs a sequence input, got " + in.describe());
      }
      return ok(layer.type == LayerType::class_token ? Shape::sequence(util::checked_add(in.steps, 1), in.features) : in);
    case LayerType::embedding:
      if (in.kind != ShapeKind::sequence || in.features != 1) {
        return fail("", "embedding needs a token sequence (sequence of 1 feature), got " + in.describe());
      }
      return ok(Shape::sequence(in.steps, layer.embedding.embedding_dim));
    default:  // activations and softmax keep the shape
      return ok(in);
  }
}

LayerCounts count_layer(const LayerSpec& layer, const std::vector<Shape>& inputs, const Shape& output) {
  LayerCounts counts;
  for (const Shape& in : inputs) counts.input_elems = util::checked_add(counts.input_elems, in.elements());
  counts.output_elems = output.elements();
  const Shape& in = inputs.front();
  const std::int64_t fused_activation_ops = layer.activation == Activation::none ? 0 : counts.output_elems;
  switch (layer.type) {
    case LayerType::conv2d: {
      const Conv2dParams& conv = layer.conv;
      const std::int64_t groups = conv.depthwise ? in.channels : conv.groups;
      const std::int64_t kernel_area = util::checked_mul(conv.kernel.height, conv.kernel.width);
      const std::int64_t weights = util::checked_product({kernel_area, in.channels / groups, output.channels});
      counts.params = util::checked_add(weights, conv.bias ? output.channels : 0);
      // Each output element is a dot product over k_h k_w C_in/g inputs.
      counts.macs = util::checked_product({counts.output_elems, kernel_area, in.channels / groups});
      counts.vector_ops = fused_activation_ops;
      const bool lowering_needed = kernel_area > 1 || conv.stride.height > 1 || conv.stride.width > 1 ||
                                   conv.padding.height > 0 || conv.padding.width > 0;
      if (lowering_needed) {
        counts.im2col_elems = util::checked_product({in.channels, kernel_area, output.height, output.width});
      }
      break;
    }
    case LayerType::linear: {
      const std::int64_t steps = in.kind == ShapeKind::sequence ? in.steps : 1;
      const std::int64_t weights = util::checked_mul(in.features, layer.linear.out_features);
      counts.params = util::checked_add(weights, layer.linear.bias ? layer.linear.out_features : 0);
      counts.macs = util::checked_mul(steps, weights);
      counts.vector_ops = fused_activation_ops;
      break;
    }
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: {
      const RecurrentParams& rnn = layer.recurrent;
      const std::int64_t directions = rnn.bidirectional ? 2 : 1;
      const std::int64_t hidden = rnn.hidden_size;
      std::int64_t layer_input = in.features;
      for (std::int64_t stacked = 0; stacked < rnn.num_layers; ++stacked) {
        // Per direction: gates x (W_ih: H x in, W_hh: H x H) and, with bias, b_ih and b_hh (2H each gate).
        const std::int64_t matrix = util::checked_mul(hidden, util::checked_add(layer_input, hidden));
        const std::int64_t per_direction =
            util::checked_mul(recurrent_gates(layer.type), util::checked_add(matrix, rnn.bias ? 2 * hidden : 0));
        counts.params = util::checked_add(counts.params, util::checked_mul(directions, per_direction));
        counts.macs = util::checked_add(
            counts.macs, util::checked_product({in.steps, directions, recurrent_gates(layer.type), matrix}));
        counts.vector_ops = util::checked_add(
            counts.vector_ops,
            util::checked_product({in.steps, directions, hidden, recurrent_vector_ops_per_unit(layer.type)}));
        layer_input = util::checked_mul(hidden, directions);
      }
      break;
    }
    case LayerType::maxpool:
    case LayerType::avgpool: {
      // One compare (or add) per window element.
      const std::int64_t window = layer.pool.global ? util::checked_mul(in.height, in.width)
                                                    : util::checked_mul(layer.pool.kernel.height, layer.pool.kernel.width);
      counts.vector_ops = util::checked_mul(counts.output_elems, window);
      break;
    }
    case LayerType::batchnorm:
      // Inference form y = scale * x + shift (running mean and variance folded in).
      counts.params = util::checked_mul(2, in.channels);
      counts.vector_ops = util::checked_mul(2, counts.output_elems);
      break;
    case LayerType::add:
    case LayerType::mul: counts.vector_ops = util::checked_mul(static_cast<std::int64_t>(inputs.size() - 1), counts.output_elems); break;
    case LayerType::layernorm: {
      // gamma (and beta) per feature. Per element: an add for the mean; a subtract, a multiply and
      // an add for the variance; the multiply by 1/std; the scale (and the shift): 7, or 6 unbiased.
      const std::int64_t per_feature = layer.norm.bias ? 2 : 1;
      counts.params = util::checked_mul(per_feature, in.features);
      counts.vector_ops = util::checked_mul(5 + per_feature, counts.output_elems);
      break;
    }
    case LayerType::rmsnorm:
      // gamma per feature. Per element: a multiply and an add for the mean square; the multiply by
      // 1/rms; the scale (4).
      counts.params = in.features;
      counts.vector_ops = util::checked_mul(4, counts.output_elems);
      break;
    case LayerType::matmul: {
      // Per output element, a dot product over the head size (transpose_b) or the T rows.
      const Shape& b = inputs[1];
      const std::int64_t reduced = layer.matmul.transpose_b ? b.features / layer.matmul.kv_heads_or_heads() : b.steps;
      counts.macs = util::checked_mul(counts.output_elems, reduced);
      break;
    }
    case LayerType::softmax: counts.vector_ops = util::checked_mul(3, counts.output_elems); break;  // exp, sum, divide
    case LayerType::embedding:
      counts.params = util::checked_mul(layer.embedding.num_embeddings, layer.embedding.embedding_dim);
      break;
    case LayerType::class_token: counts.params = in.features; break;  // one learned token, copied in front
    case LayerType::position_embedding:
      // A learned vector per position, added: as many parameters and adds as the input's elements.
      counts.params = in.elements();
      counts.vector_ops = counts.output_elems;
      break;
    default:
      if (is_activation(layer.type)) counts.vector_ops = counts.output_elems;
      break;  // flatten, to_sequence, to_tokens, first_step, concat only move data
  }
  return counts;
}

}  // namespace reusesim::workload
