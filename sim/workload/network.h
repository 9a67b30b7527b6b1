#pragma once
// A network: layers as a DAG, sorted topologically, with inferred shapes and per-layer counts.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workload/layer.h"
#include "workload/precision.h"

namespace reusesim::workload {

// A block instance written with `repeat` above 1 (docs/model-format.md, "Blocks"): its copies
// name_1, name_2, ... are the layers [first_layer, first_layer + copies x layers_per_copy) of
// ModelSpec::layers, copy after copy.
struct RepeatedBlock {
  std::string name;
  std::size_t first_layer = 0;
  std::size_t layers_per_copy = 0;
  std::int64_t copies = 0;
};

struct ModelSpec {
  std::string name;
  std::string source;
  Precision precision = Precision::fp32;
  // A `precision:` block: each tensor at its own format (`precision` is then left at fp32 and no
  // count reads it). None for a scalar `precision:`.
  std::optional<TensorFormats> formats;
  std::optional<Shape> input;     // none when every layer names its inputs or has its own
  std::vector<LayerSpec> layers;  // file order (block instances expanded)
  std::int64_t max_sequence = 0;  // the most tokens a sequence may hold (positions); 0: no limit
  std::vector<RepeatedBlock> repeated_blocks;  // in file order
};

struct NetworkLayer {
  LayerSpec spec;
  std::size_t spec_index = 0;      // position in ModelSpec::layers
  std::vector<int> input_ids;      // positions in Network::layers; -1 is the model input or the layer's own
  std::vector<Shape> input_shapes;
  Shape output_shape;
  LayerCounts counts;
  // A decode step's kv_cache matmul: rows of its second input read from the cache (the tokens
  // before this one), already in input_shapes[1]; 0 otherwise.
  std::int64_t cached_steps = 0;

  // Elements per sample this layer reads from the KV cache (its cached rows of keys or values).
  std::int64_t cached_elements() const;
};

struct Network {
  std::string name;
  Precision precision = Precision::fp32;
  std::optional<TensorFormats> formats;  // the model's precision block, if it has one
  std::optional<Shape> input;
  std::vector<NetworkLayer> layers;  // topological order, ties broken by file order

  // Elements per sample of the data read from DRAM: the model input and every layer's own input.
  std::int64_t data_input_elems() const;

  std::int64_t total_macs() const;
  std::int64_t total_params() const;
  // Tokens a sample runs: the input sequence's steps (one in a decode step), 1 for other inputs.
  std::int64_t tokens_per_sample() const;
  // Elements one token adds to the KV cache: the key and value rows its kv_cache matmuls read.
  std::int64_t kv_cache_elements_per_token() const;
  // The widths `analyze` and `footprint` size tensors by: the precision block's formats, or every
  // tensor at the scalar precision.
  TensorWidths model_widths() const;
  // Bytes per KV cache element: the precision block's kv_cache format (whole bytes; run refuses a
  // cache of a fraction of a byte, the addressability checks of analyze and footprint round it up),
  // or `operand_bytes`.
  std::int64_t kv_cache_element_bytes(std::int64_t operand_bytes) const;
  // The widths `run` moves tensors at: the weights (with their scales) and the KV cache at the
  // precision block's formats, activations at the accelerator's `operand_bytes`; without a block,
  // every tensor at `operand_bytes`.
  TensorWidths run_widths(std::int64_t operand_bytes) const;
  // Whether some layer's weights are N:M sparse (LayerSpec::sparsity).
  bool has_sparse_weights() const;
};

// A problem with one layer: its position in ModelSpec::layers and the key at fault.
struct NetworkError {
  std::size_t spec_index = 0;
  std::string field;
  std::string message;
};

struct NetworkBuild {
  std::optional<Network> network;  // set when there are no errors
  std::vector<NetworkError> errors;
};

// Resolves inputs, sorts the DAG (reporting cycles), infers shapes and counts every layer.
// decode_context > 0 builds one decode step instead of the prefill: the input is one token, and
// every kv_cache matmul's second input holds decode_context cached tokens before the new one.
NetworkBuild build_network(const ModelSpec& model, std::int64_t decode_context = 0);

// The positions of the layers whose name is in `names` and whose type is in `types` (an empty list
// allows any), in network order: how run files and `run --layers` pick part of a model.
std::vector<std::size_t> select_layers(const Network& network, const std::vector<std::string>& names,
                                       const std::vector<std::string>& types);

// Compulsory DRAM traffic of one layer at a batch size: every input, weight and output moved once.
struct TrafficBytes {
  std::int64_t weight = 0;
  std::int64_t input = 0;
  std::int64_t output = 0;
  std::int64_t total() const;
};
// Each tensor at its width: the weights as parameter_bytes gives them (an embedding's gathered rows
// at the activations' width), the inputs and the output at the activations', but a decode step's
// cached operand (all its rows: the cached tokens' keys or values and the new token's) at the
// KV cache's.
TrafficBytes compulsory_traffic(const NetworkLayer& layer, std::int64_t batch, const TensorWidths& widths);
// Every tensor at one element size.
TrafficBytes compulsory_traffic(const NetworkLayer& layer, std::int64_t batch, std::int64_t element_bytes);
// Bytes per sample a decode step's matmul reads from the KV cache (its whole cached operand), 0 for
// other layers.
std::int64_t kv_cache_read_bytes(const NetworkLayer& layer, const TensorWidths& widths);

}  // namespace reusesim::workload
