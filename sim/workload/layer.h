#pragma once
// One layer: what the model file says (LayerSpec), how its output shape follows from its inputs,
// and what it costs per sample (LayerCounts). Conventions: docs/model-format.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/enum_names.h"
#include "workload/precision.h"
#include "workload/shape.h"

namespace reusesim::workload {

enum class LayerType {
  conv2d, linear, rnn, gru, lstm, maxpool, avgpool,
  relu, relu6, sigmoid, tanh, gelu, silu,
  batchnorm, layernorm, rmsnorm, add, mul, concat, flatten, to_sequence, first_step, softmax, embedding, matmul,
  to_tokens, class_token, position_embedding
};
// The model files' words (util/enum_names.h).
constexpr util::EnumNames<LayerType, 28> enum_names(LayerType) {
  return {{
      {LayerType::conv2d, "conv2d"},       {LayerType::linear, "linear"},     {LayerType::rnn, "rnn"},
      {LayerType::gru, "gru"},             {LayerType::lstm, "lstm"},         {LayerType::maxpool, "maxpool"},
      {LayerType::avgpool, "avgpool"},     {LayerType::relu, "relu"},         {LayerType::relu6, "relu6"},
      {LayerType::sigmoid, "sigmoid"},     {LayerType::tanh, "tanh"},         {LayerType::gelu, "gelu"},
      {LayerType::silu, "silu"},           {LayerType::batchnorm, "batchnorm"}, {LayerType::layernorm, "layernorm"},
      {LayerType::rmsnorm, "rmsnorm"},     {LayerType::add, "add"},           {LayerType::mul, "mul"},
      {LayerType::concat, "concat"},       {LayerType::flatten, "flatten"},   {LayerType::to_sequence, "to_sequence"},
      {LayerType::first_step, "first_step"},
      {LayerType::softmax, "softmax"},     {LayerType::embedding, "embedding"}, {LayerType::matmul, "matmul"},
      {LayerType::to_tokens, "to_tokens"}, {LayerType::class_token, "class_token"},
      {LayerType::position_embedding, "position_embedding"},
  }};
}
bool is_activation(LayerType type);
bool is_recurrent(LayerType type);
// Gate matrices of a recurrent layer: RNN 1, GRU 3, LSTM 4.
std::int64_t recurrent_gates(LayerType type);
// A view of its (first) input's buffer: no program of its own, no tensor of its own.
bool is_view(LayerType type);
// A layer that runs as one GEMM (conv2d, linear, matmul): split over a chip's cores by the GEMM's
// rows, columns, groups or K (Partition), which the model may pin.
bool is_partitioned_gemm(LayerType type);

// Activation fused into a conv2d or linear layer: vector work, no extra tensor.
enum class Activation { none, relu, relu6, sigmoid, tanh, gelu, silu };
constexpr util::EnumNames<Activation, 7> enum_names(Activation) {
  return {{
      {Activation::none, "none"}, {Activation::relu, "relu"}, {Activation::relu6, "relu6"},
      {Activation::sigmoid, "sigmoid"}, {Activation::tanh, "tanh"}, {Activation::gelu, "gelu"},
      {Activation::silu, "silu"},
  }};
}

struct HeightWidth {
  std::int64_t height = 1;
  std::int64_t width = 1;
};

struct Conv2dParams {
  std::int64_t out_channels = 0;  // 0 with depthwise: as many as input channels
  HeightWidth kernel;
  HeightWidth stride;
  HeightWidth padding{0, 0};
  HeightWidth dilation;
  std::int64_t groups = 1;
  bool depthwise = false;
  bool bias = true;
  std::optional<std::int64_t> in_channels;  // when given, must match what the layer is fed
};

struct LinearParams {
  std::int64_t out_features = 0;
  bool bias = true;
  std::optional<std::int64_t> in_features;
};

struct RecurrentParams {
  std::int64_t hidden_size = 0;
  std::int64_t num_layers = 1;
  bool bidirectional = false;
  bool bias = true;
  bool return_sequences = true;
  std::optional<std::int64_t> input_size;
};

struct PoolParams {
  HeightWidth kernel;
  std::optional<HeightWidth> stride;  // default: the kernel
  HeightWidth padding{0, 0};
  bool ceil_mode = false;
  bool global = false;
};

// A product of two activations per head (attention's Q x K^T and A x V). The first input is
// a sequence of S rows of heads x d features, the second of T rows of kv_heads x d (query heads
// share a key/value head in groups of heads / kv_heads). transpose_b: out[s, h, t] = sum_d
// a[s, h, d] b[t, g(h), d] (S x heads*T); otherwise the first input holds heads x T weights per row and
// out[s, h, d] = sum_t a[s, h, t] b[t, g(h), d] (S x heads*d).
// kv_cache: the second input is a key or value projection, which a decode step extends by the
// cached keys or values of the tokens before it (network.h, build_network).
struct MatmulParams {
  std::int64_t heads = 1;
  std::int64_t kv_heads = 0;  // 0: as many as heads
  bool transpose_b = false;
  bool kv_cache = false;
  std::int64_t kv_heads_or_heads() const { return kv_heads > 0 ? kv_heads : heads; }
};

// layernorm: a shift (beta) per feature beside the scale, or the scale alone (PaLM's LayerNorm).
struct NormParams {
  bool bias = true;
};

struct EmbeddingParams {
  std::int64_t num_embeddings = 0;
  std::int64_t embedding_dim = 0;
};

// A tiling the model file pins for a conv2d or linear layer's GEMM (per group): tile sizes and the
// loop order (n-m: N tiles outside M tiles; m-n: the reverse). The mapper uses it instead of searching.
struct PinnedTiling {
  std::int64_t m = 0, n = 0, k = 0;
  bool n_outer = true;
};

// How a layer is split over a chip's cores when every layer is (docs/mapping-and-replay.md,
// "Cores"): its GEMM by rows (M: samples and output positions), columns (N: output channels or
// features), groups (a grouped convolution's groups, a matmul's samples and heads) or K (each core
// sums over its part of K, then the cores reduce their partial sums); a layer without a GEMM by its
// elements (as rows). A model may pin a GEMM layer's (LayerSpec::partition).
enum class Partition { rows, columns, groups, k };
constexpr util::EnumNames<Partition, 4> enum_names(Partition) {
  return {
      {{Partition::rows, "rows"}, {Partition::columns, "columns"}, {Partition::groups, "groups"}, {Partition::k, "k"}}};
}

// The name the model input goes by in `inputs`.
inline const std::string kModelInput = "$input";

struct LayerSpec {
  std::string name;
  LayerType type = LayerType::relu;
  std::vector<std::string> inputs;  // producing layers' names, or kModelInput
  // A tensor of this shape the layer reads from DRAM on its own, instead of `inputs` (a model of
  // independent layers, such as a SCALE-Sim topology).
  std::optional<Shape> own_input;
  Activation activation = Activation::none;
  Conv2dParams conv;
  LinearParams linear;
  RecurrentParams recurrent;
  PoolParams pool;
  EmbeddingParams embedding;
  MatmulParams matmul;
  NormParams norm;
  std::optional<PinnedTiling> tiling;
  std::optional<Partition> partition;  // pinned for a chip whose layers are split over its cores
  Sparsity sparsity;                   // conv2d and linear: N:M structured sparsity of the weights
};

// Per-sample costs, except parameters which do not scale with the batch.
struct LayerCounts {
  std::int64_t macs = 0;
  std::int64_t params = 0;
  std::int64_t input_elems = 0;   // all inputs together
  std::int64_t output_elems = 0;
  std::int64_t vector_ops = 0;    // element operations that are not MACs (activations, pooling, ...)
  std::int64_t im2col_elems = 0;  // a convolution's input lowered to a matrix (0 when no lowering is needed)
};

// A layer that cannot be built from what it is fed. `field` is the key at fault ("" = the layer).
struct ShapeError {
  std::string field;
  std::string message;
};

// Output shape from input shapes, or the reason there is none.
struct ShapeResult {
  std::optional<Shape> shape;
  ShapeError error;
};

ShapeResult infer_output_shape(const LayerSpec& layer, const std::vector<Shape>& inputs);
LayerCounts count_layer(const LayerSpec& layer, const std::vector<Shape>& inputs, const Shape& output);

}  // namespace reusesim::workload
