#pragma once
// Number formats per tensor (docs/model-format.md, "Precision per tensor"): a model's weights,
// activations and KV cache each at their own width, quantized weights with their scales, and the
// bytes each tensor takes at its width.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/sparsity.h"
#include "util/enum_names.h"
#include "workload/shape.h"

namespace reusesim::workload {

enum class NumberFormat { int4, int8, int16, fp8_e4m3, fp8_e5m2, fp16, bf16, fp32 };
// The words of a model's precision block (util/enum_names.h).
constexpr util::EnumNames<NumberFormat, 8> enum_names(NumberFormat) {
  return {{{NumberFormat::int4, "int4"},
           {NumberFormat::int8, "int8"},
           {NumberFormat::int16, "int16"},
           {NumberFormat::fp8_e4m3, "fp8_e4m3"},
           {NumberFormat::fp8_e5m2, "fp8_e5m2"},
           {NumberFormat::fp16, "fp16"},
           {NumberFormat::bf16, "bf16"},
           {NumberFormat::fp32, "fp32"}}};
}

std::int64_t format_bits(NumberFormat format);
// Whole bytes one element of `format` takes alone (an int4 value: 1).
std::int64_t format_bytes(NumberFormat format);
// The format of a scalar `precision:` (every tensor at it).
NumberFormat format_of(Precision precision);
// int4 and int8 weights carry scales (kWeightScaleBytes each); other formats none.
bool takes_weight_scales(NumberFormat format);

// One fp16 scale per group of quantized weights (as GPTQ and AWQ store them).
constexpr std::int64_t kWeightScaleBytes = 2;

// N:M structured sparsity of a GEMM layer's weights.
using Sparsity = spec::Sparsity;

// A model's `precision:` block.
struct TensorFormats {
  NumberFormat weights = NumberFormat::fp32;
  NumberFormat activations = NumberFormat::fp32;
  NumberFormat kv_cache = NumberFormat::fp32;
  std::int64_t weight_group_size = 0;  // int4/int8 weights: one scale per this many along K; 0: per output channel
  bool operator==(const TensorFormats& other) const;
};
// "weights int4 (fp16 scales per 128 along K), activations fp16, KV cache int8".
std::string describe(const TensorFormats& formats);

// The widths the byte counts use: a precision block's formats, or one element size for everything
// (a scalar precision, or the accelerator's operand width), which has no scales.
struct TensorWidths {
  std::int64_t weight_bits = 32;
  std::int64_t activation_bits = 32;
  std::int64_t kv_cache_bits = 32;
  bool weight_scales = false;
  std::int64_t weight_group_size = 0;

  static TensorWidths uniform(std::int64_t element_bytes);
  static TensorWidths of(const TensorFormats& formats);
};

// Bytes of `elements` values packed at `bits` each: ceil(elements * bits / 8). A tensor is rounded
// up once, as a whole (two int4 values share a byte; an odd count leaves half a byte unused).
std::int64_t packed_bytes(std::int64_t elements, std::int64_t bits);

// The weight matrices of a GEMM layer (conv2d, linear, rnn/gru/lstm), K (summed over) x N
// (outputs), `count` of them: a convolution's groups, a recurrent layer's stacked layers and
// directions (W_ih and W_hh side by side, K = in + hidden). Other layers have none: their
// parameters (and every bias) stay at the activations' format.
struct WeightMatrix {
  std::int64_t k = 0;
  std::int64_t n = 0;
  std::int64_t count = 1;
  Sparsity sparsity;  // a conv2d's or linear layer's (LayerSpec::sparsity)
};
struct NetworkLayer;
std::vector<WeightMatrix> weight_matrices(const NetworkLayer& layer);

// A layer's parameters in bytes: its weight matrices at the weights' width plus, for scaled
// weights, kWeightScaleBytes per output column and group of weight_group_size along K
// (ceil(K / group) groups; the whole K with no group size); every other parameter at the
// activations' width. Sparse matrices keep Sparsity::kept(K) values a column, with their
// metadata; each of values, metadata and scales is rounded up once over the layer.
struct ParameterBytes {
  std::int64_t weights = 0;  // the matrices, packed
  std::int64_t metadata = 0;  // sparse matrices' positions of their kept values
  std::int64_t scales = 0;
  std::int64_t other = 0;  // biases, norms' scales, embedding tables, learned tokens and positions
  std::int64_t total() const;
};
ParameterBytes parameter_bytes(const NetworkLayer& layer, const TensorWidths& widths);

}  // namespace reusesim::workload
