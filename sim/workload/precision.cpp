#include "workload/precision.h"

#include "util/checked_math.h"
#include "workload/network.h"

namespace reusesim::workload {

std::int64_t format_bits(NumberFormat format) {
  switch (format) {
    case NumberFormat::int4:
      return 4;
    case NumberFormat::int8:
    case NumberFormat::fp8_e4m3:
    case NumberFormat::fp8_e5m2:
      return 8;
    case NumberFormat::int16:
    case NumberFormat::fp16:
    case NumberFormat::bf16:
      return 16;
    default:
      return 32;
  }
}

std::int64_t format_bytes(NumberFormat format) { return (format_bits(format) + 7) / 8; }

NumberFormat format_of(Precision precision) {
  switch (precision) {
    case Precision::fp16:
      return NumberFormat::fp16;
    case Precision::bf16:
      return NumberFormat::bf16;
    case Precision::int16:
      return NumberFormat::int16;
    case Precision::int8:
      return NumberFormat::int8;
    default:
      return NumberFormat::fp32;
  }
}

bool takes_weight_scales(NumberFormat format) { return format == NumberFormat::int4 || format == NumberFormat::int8; }

bool TensorFormats::operator==(const TensorFormats& other) const {
  return weights == other.weights && activations == other.activations && kv_cache == other.kv_cache &&
         weight_group_size == other.weight_group_size;
}

std::string describe(const TensorFormats& formats) {
  std::string weights = "weights " + util::name(formats.weights);
  if (takes_weight_scales(formats.weights)) {
    weights += formats.weight_group_size > 0
                   ? " (fp16 scales per " + std::to_string(formats.weight_group_size) + " along K)"
                   : " (fp16 scales per output channel)";
  }
  return weights + ", activations " + util::name(formats.activations) + ", KV cache " + util::name(formats.kv_cache);
}

TensorWidths TensorWidths::uniform(std::int64_t element_bytes) {
  const std::int64_t bits = util::checked_mul(element_bytes, 8);
  return TensorWidths{bits, bits, bits, false, 0};
}

TensorWidths TensorWidths::of(const TensorFormats& formats) {
  return TensorWidths{format_bits(formats.weights), format_bits(formats.activations), format_bits(formats.kv_cache),
                      takes_weight_scales(formats.weights), formats.weight_group_size};
}

std::int64_t packed_bytes(std::int64_t elements, std::int64_t bits) {
  // Whole bytes per element need no rounding (and overflow only where elements x bytes does); eight
  // elements always fill whole bytes, so only the last few round up.
  if (bits % 8 == 0) return util::checked_mul(elements, bits / 8);
  return util::checked_add(util::checked_mul(elements / 8, bits), ((elements % 8) * bits + 7) / 8);
}

std::vector<WeightMatrix> weight_matrices(const NetworkLayer& layer) {
  const Shape& in = layer.input_shapes.front();
  switch (layer.spec.type) {
    case LayerType::conv2d: {
      const Conv2dParams& conv = layer.spec.conv;
      const std::int64_t groups = conv.depthwise ? in.channels : conv.groups;
      const std::int64_t k = util::checked_product({conv.kernel.height, conv.kernel.width, in.channels / groups});
      return {WeightMatrix{k, layer.output_shape.channels / groups, groups, layer.spec.sparsity}};
    }
    case LayerType::linear:
      return {WeightMatrix{in.features, layer.spec.linear.out_features, 1, layer.spec.sparsity}};
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: {
      const RecurrentParams& rnn = layer.spec.recurrent;
      const std::int64_t directions = rnn.bidirectional ? 2 : 1;
      const std::int64_t n = util::checked_mul(recurrent_gates(layer.spec.type), rnn.hidden_size);
      std::vector<WeightMatrix> matrices;
      std::int64_t layer_input = in.features;
      for (std::int64_t stacked = 0; stacked < rnn.num_layers; ++stacked) {
        matrices.push_back(WeightMatrix{util::checked_add(layer_input, rnn.hidden_size), n, directions, {}});
        layer_input = util::checked_mul(rnn.hidden_size, directions);
      }
      return matrices;
    }
    default:
      return {};
  }
}

std::int64_t ParameterBytes::total() const {
  return util::checked_add(util::checked_add(util::checked_add(weights, metadata), scales), other);
}

ParameterBytes parameter_bytes(const NetworkLayer& layer, const TensorWidths& widths) {
  std::int64_t matrix_elements = 0, kept_elements = 0, metadata_bits = 0, scale_count = 0;
  for (const WeightMatrix& matrix : weight_matrices(layer)) {
    matrix_elements = util::checked_add(matrix_elements, util::checked_product({matrix.k, matrix.n, matrix.count}));
    const std::int64_t kept = util::checked_product({matrix.sparsity.kept(matrix.k), matrix.n, matrix.count});
    kept_elements = util::checked_add(kept_elements, kept);
    metadata_bits = util::checked_add(metadata_bits, util::checked_mul(kept, matrix.sparsity.index_bits()));
    const std::int64_t groups_along_k =
        widths.weight_group_size > 0 ? (matrix.k + widths.weight_group_size - 1) / widths.weight_group_size : 1;
    scale_count = util::checked_add(scale_count, util::checked_product({groups_along_k, matrix.n, matrix.count}));
  }
  ParameterBytes bytes;
  bytes.weights = packed_bytes(kept_elements, widths.weight_bits);
  bytes.metadata = packed_bytes(metadata_bits, 1);
  if (widths.weight_scales) bytes.scales = util::checked_mul(scale_count, kWeightScaleBytes);
  bytes.other = packed_bytes(layer.counts.params - matrix_elements, widths.activation_bits);
  return bytes;
}

}  // namespace reusesim::workload
