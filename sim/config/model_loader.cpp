#include "config/model_loader.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "config/model_limits.h"
#include "config/node_reader.h"

namespace reusesim::config {

namespace {

using workload::HeightWidth;
using workload::LayerSpec;
using workload::LayerType;

// Names visible to `inputs` in one list of layers (the model's, or one block instance's).
struct NameScope {
  std::string prefix;      // "" at top level, "inc3a/" inside an instance
  std::string input_name;  // what $input means here (an expanded name, or the model input)
  std::string previous;    // the default input of the next layer
  std::map<std::string, std::string> names;  // written name -> expanded layer name
  std::vector<std::string> failed;           // names whose definition was reported as wrong
};

// An `inputs` entry, resolved once every name in its scope is known (references may point forward).
struct WrittenInput {
  std::string name;
  std::string reader_name;  // the written name of the layer that reads it
  const NameScope* scope = nullptr;  // nullptr: `name` is already expanded
  util::SourceLocation location;
  std::string path;
};

// Where a layer of the expanded model was written, to place the errors found when building it.
struct LayerOrigin {
  std::string path;      // e.g. "layers.conv1" or "blocks.inception.layers.b1"
  bool in_block = false;
  util::SourceLocation location;
  std::map<std::string, util::SourceLocation> fields;  // key -> where its value was written
  std::vector<WrittenInput> inputs;
};

struct BlockTemplate {
  std::vector<std::string> parameters;
  const ConfigNode* layers = nullptr;
  std::string path;
};

constexpr std::int64_t kMaxRepeat = 10'000;
const IntegerRange kSize{1, kMaxModelDimension};
const IntegerRange kOffset{0, kMaxModelDimension};

std::string item_path(const std::string& list_path, const ConfigNode& item, std::size_t index) {
  const ConfigNode* name = item.is_map() ? item.find("name") : nullptr;
  const bool named = name != nullptr && name->is_scalar() && !name->scalar.empty();
  return join_key_path(list_path, named ? name->scalar : std::to_string(index));
}

// An integer, or a [height, width] pair.
HeightWidth read_pair(MapReader& reader, const std::string& key, HeightWidth fallback, IntegerRange range,
                      const ParameterScope& scope) {
  const ConfigNode* node = reader.optional(key);
  if (node == nullptr) return fallback;
  const std::string path = reader.child_path(key);
  if (node->is_sequence() && node->items.size() != 2) {
    reader.diagnostics().error(node->location, path, "expected an integer or a [height, width] pair, got a list of " +
                                                         std::to_string(node->items.size()));
    return fallback;
  }
  const std::vector<std::int64_t> values = read_integer_list(*node, path, range, &scope, reader.diagnostics());
  if (values.size() == 1 && node->is_scalar()) return HeightWidth{values[0], values[0]};
  if (values.size() == 2) return HeightWidth{values[0], values[1]};
  return fallback;
}

class ModelReader {
 public:
  explicit ModelReader(util::Diagnostics& diagnostics) : diagnostics_(diagnostics) {}

  workload::ModelSpec read(const ConfigNode& root) {
    workload::ModelSpec spec;
    MapReader reader(root, "", diagnostics_);
    if (!reader.valid()) return spec;
    spec.name = reader.required_name("name").value_or("");
    spec.source = reader.string_or("source", "");
    if (const ConfigNode* precision = reader.required("precision")) {
      if (precision->is_map()) {
        spec.formats = read_formats(*precision);
      } else if (auto word = read_choice(*precision, "precision", util::names<workload::Precision>(), diagnostics_)) {
        spec.precision = *util::from_name<workload::Precision>(*word);
      }
    }
    if (const ConfigNode* parameters = reader.optional("parameters")) read_parameters(*parameters);
    if (const ConfigNode* input = reader.optional("input")) spec.input = read_input(*input, "input");
    spec.max_sequence = reader.integer_or("max_sequence", 0, kSize, &model_parameters_);
    if (const ConfigNode* blocks = reader.optional("blocks")) read_blocks(*blocks);
    const ConfigNode* layers = reader.required("layers");
    reader.finish();
    if (layers != nullptr && (!layers->is_sequence() || layers->items.empty())) {
      diagnostics_.error(layers->location, "layers", "expected a non-empty list of layers, got " + layers->describe());
    } else if (layers != nullptr) {
      NameScope& top = scopes_.emplace_back(NameScope{"", workload::kModelInput, workload::kModelInput, {}, {}});
      read_layer_list(*layers, "layers", top, model_parameters_, false);
      resolve_inputs();
    }
    spec.layers = layers_;
    spec.repeated_blocks = repeated_blocks_;
    return spec;
  }

  const std::vector<LayerOrigin>& origins() const { return origins_; }

 private:
  // A precision block: each tensor's format (docs/model-format.md, "Precision per tensor").
  std::optional<workload::TensorFormats> read_formats(const ConfigNode& node) {
    MapReader reader(node, "precision", diagnostics_);
    const auto activations = reader.required_enum<workload::NumberFormat>("activations");
    if (!activations) {
      reader.optional("weights");
      reader.optional("kv_cache");
      reader.optional("weight_group_size");
      reader.finish();
      return std::nullopt;
    }
    workload::TensorFormats formats;
    formats.activations = *activations;
    formats.kv_cache = reader.enum_or("kv_cache", *activations);
    // An unknown weights word is reported here; the group size is then judged against nothing.
    std::optional<workload::NumberFormat> weights = *activations;
    if (reader.has("weights")) weights = reader.required_enum<workload::NumberFormat>("weights");
    formats.weights = weights.value_or(*activations);
    if (const ConfigNode* group = reader.optional("weight_group_size")) {
      formats.weight_group_size = reader.integer_or("weight_group_size", 0, kSize);
      if (weights && !workload::takes_weight_scales(*weights)) {
        diagnostics_.error(group->location, reader.child_path("weight_group_size"),
                           "a group size applies to int4 and int8 weights (one fp16 scale per group); weights "
                           "are " +
                               util::name(*weights));
      }
    }
    reader.finish();
    return formats;
  }

  void read_parameters(const ConfigNode& node) {
    MapReader reader(node, "parameters", diagnostics_);
    for (const ConfigEntry& entry : node.entries) {
      if (auto value = reader.optional_integer(entry.key, IntegerRange::non_negative())) {
        model_parameters_.define(entry.key, *value);
      } else {
        model_parameters_.define_invalid(entry.key);
      }
    }
    reader.finish();
  }

  // A model's input, or a layer's own (`path`).
  std::optional<workload::Shape> read_input(const ConfigNode& node, const std::string& path) {
    MapReader reader(node, path, diagnostics_);
    if (!reader.valid()) return std::nullopt;
    const bool image = reader.has("channels") || reader.has("height") || reader.has("width");
    const bool complete_image = reader.has("channels") && reader.has("height") && reader.has("width");
    const bool has_features = reader.has("features"), has_sequence = reader.has("sequence");
    const auto channels = reader.optional_integer("channels", kSize, &model_parameters_);
    const auto height = reader.optional_integer("height", kSize, &model_parameters_);
    const auto width = reader.optional_integer("width", kSize, &model_parameters_);
    const auto features = reader.optional_integer("features", kSize, &model_parameters_);
    const auto sequence = reader.optional_integer("sequence", kSize, &model_parameters_);
    reader.finish();
    if (complete_image && !has_features && !has_sequence) {
      if (channels && height && width) return workload::Shape::image(*channels, *height, *width);
    } else if (!image && has_features && !has_sequence) {
      if (features) return workload::Shape::vector(*features);
    } else if (!image && has_sequence) {
      if (sequence && (features || !has_features)) return workload::Shape::sequence(*sequence, features.value_or(1));
    } else {
      diagnostics_.error(node.location, path,
                         "expected {channels, height, width} (image), {features} (vector), "
                         "{sequence, features} (sequence) or {sequence} (token ids)");
    }
    return std::nullopt;
  }

  void read_blocks(const ConfigNode& node) {
    MapReader reader(node, "blocks", diagnostics_);
    for (const ConfigEntry& entry : node.entries) {
      reader.optional(entry.key);
      const std::string path = reader.child_path(entry.key);
      MapReader block(entry.value, path, diagnostics_);
      if (!block.valid()) continue;
      BlockTemplate result;
      result.path = path;
      if (const ConfigNode* parameters = block.optional("parameters")) {
        result.parameters = read_string_list(*parameters, block.child_path("parameters"), diagnostics_);
      }
      result.layers = block.required("layers");
      if (result.layers != nullptr && (!result.layers->is_sequence() || result.layers->items.empty())) {
        diagnostics_.error(result.layers->location, block.child_path("layers"),
                           "expected a non-empty list of layers, got " + result.layers->describe());
        result.layers = nullptr;
      }
      block.finish();
      blocks_[entry.key] = result;
    }
    reader.finish();
  }

  void read_layer_list(const ConfigNode& list, const std::string& list_path, NameScope& names,
                       const ParameterScope& scope, bool in_block) {
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      const ConfigNode& item = list.items[i];
      if (too_many_layers(1, item, item_path(list_path, item, i))) return;
      MapReader reader(item, item_path(list_path, item, i), diagnostics_);
      if (!reader.valid()) continue;
      const std::string name = reader.required_name("name").value_or("");
      if (name.find_first_of("/.$") != std::string::npos) {
        diagnostics_.error(reader.optional("name")->location, reader.child_path("name"),
                           "a layer name cannot contain '/', '.' or '$' ('/' separates block instances from their "
                           "layers, '.' key paths, '$' parameters and $input)");
      }
      if (!in_block && name == "TOTAL") {
        diagnostics_.error(reader.optional("name")->location, reader.child_path("name"),
                           "\"TOTAL\" names the whole network's row in reports; choose another layer name");
      }
      if (!reader.has("block")) {
        read_layer(reader, item, name, names, scope, in_block);
      } else if (in_block) {
        diagnostics_.error(item.location, reader.path(), "a block cannot instantiate another block");
      } else {
        read_block_instance(reader, name, names, scope);
      }
    }
  }

  void read_block_instance(MapReader& reader, const std::string& name, NameScope& names, const ParameterScope& scope) {
    const std::optional<std::string> block_name = reader.required_string("block");
    const std::int64_t repeat = reader.integer_or("repeat", 1, IntegerRange{1, kMaxRepeat}, &scope);
    std::string input = names.previous;
    if (const ConfigNode* inputs = reader.optional("inputs")) {
      const std::vector<std::string> written = read_string_list(*inputs, reader.child_path("inputs"), diagnostics_);
      if (written.size() > 1) {
        diagnostics_.error(inputs->location, reader.child_path("inputs"), "a block instance takes one input");
      } else if (written.size() == 1) {
        // Resolved now: an instance must follow what feeds it.
        const auto found = names.names.find(written[0]);
        if (written[0] == workload::kModelInput) {
          input = names.input_name;
        } else if (found != names.names.end()) {
          input = found->second;
        } else {
          diagnostics_.error(inputs->location, reader.child_path("inputs"),
                             "unknown layer \"" + written[0] + "\" (a block instance's input must be written before it)" +
                                 util::did_you_mean(written[0], known_names(names)));
        }
      }
    }
    const ConfigNode* args = reader.optional("args");
    reader.finish();
    if (name.empty()) return;
    if (!block_name) {
      names.failed.push_back(name);
      return;
    }
    if (!claim_name(reader, name, names)) return;
    const auto block = blocks_.find(*block_name);
    if (block == blocks_.end()) {
      names.failed.push_back(name);
      std::vector<std::string> known;
      for (const auto& entry : blocks_) known.push_back(entry.first);
      diagnostics_.error(reader.optional("block")->location, reader.child_path("block"),
                         "unknown block \"" + *block_name + "\"" + util::did_you_mean(*block_name, known));
      return;
    }
    ParameterScope& block_scope = parameter_scopes_.emplace_back(&scope);
    if (args != nullptr) {
      MapReader args_reader(*args, reader.child_path("args"), diagnostics_);
      for (const std::string& parameter : block->second.parameters) {
        if (auto value = args_reader.required_integer(parameter, IntegerRange::non_negative(), &scope)) {
          block_scope.define(parameter, *value);
        } else {
          block_scope.define_invalid(parameter);
        }
      }
      args_reader.finish();
    } else if (!block->second.parameters.empty()) {
      diagnostics_.error(reader.location(), reader.child_path("args"),
                         "missing required key (block " + *block_name + " takes parameters)");
      for (const std::string& parameter : block->second.parameters) block_scope.define_invalid(parameter);
    }
    if (block->second.layers == nullptr) return;
    const std::size_t first_layer = layers_.size();
    for (std::int64_t copy = 1; copy <= repeat; ++copy) {
      const char* key = reader.has("repeat") ? "repeat" : "name";
      if (too_many_layers(block->second.layers->items.size(), *reader.optional(key), reader.child_path(key))) return;
      const std::string instance = repeat == 1 ? name : name + "_" + std::to_string(copy);
      if (repeat > 1 && names.names.count(instance) > 0) {
        diagnostics_.error(reader.optional("name")->location, reader.child_path("name"),
                           "repeat instance \"" + instance + "\" has the name of another layer");
        return;
      }
      NameScope& inner = scopes_.emplace_back(NameScope{instance + "/", input, input, {}, {}});
      read_layer_list(*block->second.layers, block->second.path + ".layers", inner, block_scope, true);
      input = inner.previous;
      names.names[instance] = input;  // an instance stands for its last layer
    }
    names.names[name] = input;
    names.previous = input;
    if (repeat > 1) {
      repeated_blocks_.push_back(
          {name, first_layer, (layers_.size() - first_layer) / static_cast<std::size_t>(repeat), repeat});
    }
  }

  void read_layer(MapReader& reader, const ConfigNode& node, const std::string& name, NameScope& names,
                  const ParameterScope& scope, bool in_block) {
    LayerSpec layer;
    LayerOrigin origin;
    origin.path = reader.path();
    origin.in_block = in_block;
    origin.location = reader.location();
    for (const ConfigEntry& entry : node.entries) origin.fields[entry.key] = entry.value.location;
    layer.name = names.prefix + name;
    if (const ConfigNode* own = reader.optional("input")) {
      layer.own_input = read_input(*own, reader.child_path("input"));
      if (const ConfigNode* inputs = reader.optional("inputs")) {
        diagnostics_.error(inputs->location, reader.child_path("inputs"),
                           "a layer with its own `input` reads no other layer; give one or the other");
      }
    } else if (const ConfigNode* inputs = reader.optional("inputs")) {
      const std::string path = reader.child_path("inputs");
      for (const std::string& input : read_string_list(*inputs, path, diagnostics_)) {
        origin.inputs.push_back(WrittenInput{input, name, &names, inputs->location, path});
      }
    } else {
      origin.inputs.push_back(WrittenInput{names.previous, name, nullptr, reader.location(), reader.path()});
    }
    const std::optional<std::string> type = reader.required_string("type");
    const std::optional<LayerType> parsed = type ? util::from_name<workload::LayerType>(*type) : std::nullopt;
    if (type && !parsed) {
      diagnostics_.error(reader.optional("type")->location, reader.child_path("type"),
                         "unknown layer type \"" + *type + "\"" +
                             util::did_you_mean(*type, util::names<workload::LayerType>()));
    }
    if (parsed) {
      layer.type = *parsed;
      read_fields(reader, layer, scope);
      reader.finish();  // only a known type knows which keys it allows
    }
    if (!name.empty() && claim_name(reader, name, names)) names.names[name] = layer.name;
    names.previous = layer.name;
    layers_.push_back(std::move(layer));
    origins_.push_back(std::move(origin));
  }

  void read_fields(MapReader& reader, LayerSpec& layer, const ParameterScope& scope) {
    const bool gemm_layer = layer.type == LayerType::conv2d || layer.type == LayerType::linear;
    if (gemm_layer) {
      const std::string activation = reader.choice_or("activation", "none", util::names<workload::Activation>());
      layer.activation = *util::from_name<workload::Activation>(activation);
      if (const ConfigNode* tiling = reader.optional("tiling")) layer.tiling = read_tiling(*tiling, reader.child_path("tiling"), scope);
      read_sparsity(reader, layer);
    }
    if (workload::is_partitioned_gemm(layer.type)) read_partition(reader, layer);
    switch (layer.type) {
      case LayerType::conv2d: {
        workload::Conv2dParams& conv = layer.conv;
        conv.depthwise = reader.boolean_or("depthwise", false);
        conv.out_channels = conv.depthwise ? reader.integer_or("out_channels", 0, kSize, &scope)
                                           : reader.required_integer("out_channels", kSize, &scope).value_or(1);
        if (!reader.has("kernel")) reader.required("kernel");
        conv.kernel = read_pair(reader, "kernel", conv.kernel, kSize, scope);
        conv.stride = read_pair(reader, "stride", conv.stride, kSize, scope);
        conv.padding = read_pair(reader, "padding", conv.padding, kOffset, scope);
        conv.dilation = read_pair(reader, "dilation", conv.dilation, kSize, scope);
        conv.groups = reader.integer_or("groups", 1, kSize, &scope);
        if (conv.depthwise && reader.has("groups")) {
          diagnostics_.error(reader.optional("groups")->location, reader.child_path("groups"),
                             "depthwise sets groups to the input channels; give one or the other");
        }
        conv.bias = reader.boolean_or("bias", true);
        conv.in_channels = reader.optional_integer("in_channels", kSize, &scope);
        break;
      }
      case LayerType::linear:
        layer.linear.out_features = reader.required_integer("out_features", kSize, &scope).value_or(1);
        layer.linear.bias = reader.boolean_or("bias", true);
        layer.linear.in_features = reader.optional_integer("in_features", kSize, &scope);
        break;
      case LayerType::rnn:
      case LayerType::gru:
      case LayerType::lstm: {
        workload::RecurrentParams& rnn = layer.recurrent;
        rnn.hidden_size = reader.required_integer("hidden_size", kSize, &scope).value_or(1);
        // A step's GEMM (M = batch, K = x and h, N = gate columns) tiles like a linear layer's,
        // but its column blocks run outermost (each block's weights serve every batch chunk).
        if (const ConfigNode* tiling = reader.optional("tiling")) {
          layer.tiling = read_tiling(*tiling, reader.child_path("tiling"), scope);
          if (layer.tiling && !layer.tiling->n_outer) {
            const ConfigNode* order = tiling->find("order");
            diagnostics_.error(order != nullptr ? order->location : tiling->location,
                               reader.child_path("tiling") + ".order",
                               "a recurrent layer runs its column blocks outermost: order must be n-m");
          }
        }
        rnn.num_layers = reader.integer_or("num_layers", 1, IntegerRange{1, kMaxRepeat}, &scope);
        rnn.bidirectional = reader.boolean_or("bidirectional", false);
        rnn.bias = reader.boolean_or("bias", true);
        rnn.return_sequences = reader.boolean_or("return_sequences", true);
        rnn.input_size = reader.optional_integer("input_size", kSize, &scope);
        break;
      }
      case LayerType::maxpool:
      case LayerType::avgpool: {
        workload::PoolParams& pool = layer.pool;
        pool.global = reader.boolean_or("global", false);
        if (pool.global) {
          for (const char* key : {"kernel", "stride", "padding", "ceil_mode"}) {
            if (const ConfigNode* value = reader.optional(key)) {
              diagnostics_.error(value->location, reader.child_path(key), "not used by a global pool");
            }
          }
          break;
        }
        if (!reader.has("kernel")) reader.required("kernel");
        pool.kernel = read_pair(reader, "kernel", pool.kernel, kSize, scope);
        if (reader.has("stride")) pool.stride = read_pair(reader, "stride", pool.kernel, kSize, scope);
        pool.padding = read_pair(reader, "padding", pool.padding, kOffset, scope);
        pool.ceil_mode = reader.boolean_or("ceil_mode", false);
        break;
      }
      case LayerType::embedding:
        layer.embedding.num_embeddings = reader.required_integer("num_embeddings", kSize, &scope).value_or(1);
        layer.embedding.embedding_dim = reader.required_integer("embedding_dim", kSize, &scope).value_or(1);
        break;
      case LayerType::matmul:
        layer.matmul.heads = reader.integer_or("heads", 1, kSize, &scope);
        layer.matmul.kv_heads = reader.integer_or("kv_heads", 0, kSize, &scope);
        layer.matmul.transpose_b = reader.boolean_or("transpose_b", false);
        layer.matmul.kv_cache = reader.boolean_or("kv_cache", false);
        break;
      case LayerType::layernorm:
        layer.norm.bias = reader.boolean_or("bias", true);
        break;
      default:  // activations, rmsnorm, add, mul, concat, views, softmax, class_token, position_embedding
        break;  // no fields
    }
  }

  // Reports, at `where`, a model that `adding` more layers would take past kMaxModelLayers.
  bool too_many_layers(std::size_t adding, const ConfigNode& where, const std::string& path) {
    if (layers_.size() + adding <= kMaxModelLayers) return false;
    diagnostics_.error(where.location, path,
                       "the model has more than " + std::to_string(kMaxModelLayers) +
                           " layers once blocks are expanded, the most a model may have");
    return true;
  }

  // Reserves a written name in its scope, reporting a duplicate; false if it was taken.
  bool claim_name(MapReader& reader, const std::string& name, NameScope& names) {
    if (names.names.count(name) > 0) {
      diagnostics_.error(reader.optional("name")->location, reader.child_path("name"),
                         "duplicate layer name \"" + names.prefix + name + "\"");
      return false;
    }
    names.names[name] = names.prefix + name;
    return true;
  }

  // sparsity: "N:M": at most N nonzero weights in every M along K (docs/model-format.md,
  // "Structured sparsity"), 1 <= N < M <= kMaxSparsityBlock.
  void read_sparsity(MapReader& reader, LayerSpec& layer) {
    const ConfigNode* node = reader.optional("sparsity");
    if (node == nullptr) return;
    const std::optional<std::string> text = reader.required_string("sparsity");
    if (!text) return;
    const auto number = [](const std::string& digits) -> std::int64_t {
      if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
      return std::stoll(digits);
    };
    const std::size_t colon = text->find(':');
    const std::int64_t n = colon == std::string::npos ? -1 : number(text->substr(0, colon));
    const std::int64_t m = colon == std::string::npos ? -1 : number(text->substr(colon + 1));
    if (n < 1 || m <= n || m > spec::kMaxSparsityBlock) {
      diagnostics_.error(node->location, reader.child_path("sparsity"),
                         "expected \"N:M\", N nonzero weights of every M along K with 1 <= N < M <= " +
                             std::to_string(spec::kMaxSparsityBlock) + " (as \"2:4\"), got \"" + *text + "\"");
      return;
    }
    layer.sparsity = workload::Sparsity{n, m};
  }

  // partition: rows | columns | groups | k: how the layer's GEMM is split over a chip's cores when its
  // layers are split (docs/mapping-and-replay.md, "Cores").
  void read_partition(MapReader& reader, LayerSpec& layer) {
    if (!reader.has("partition")) return;
    const std::string partition = reader.choice_or("partition", "columns", util::names<workload::Partition>());
    layer.partition = util::from_name<workload::Partition>(partition);
  }

  // tiling: {m, n, k, order}: the GEMM tile sizes and loop order the mapper must use.
  std::optional<workload::PinnedTiling> read_tiling(const ConfigNode& node, const std::string& path,
                                                    const ParameterScope& scope) {
    MapReader reader(node, path, diagnostics_);
    if (!reader.valid()) return std::nullopt;
    workload::PinnedTiling tiling;
    const auto m = reader.required_integer("m", kSize, &scope);
    const auto n = reader.required_integer("n", kSize, &scope);
    const auto k = reader.required_integer("k", kSize, &scope);
    const auto order = reader.required_choice("order", {"n-m", "m-n"});
    reader.finish();
    if (!m || !n || !k || !order) return std::nullopt;
    tiling.m = *m;
    tiling.n = *n;
    tiling.k = *k;
    tiling.n_outer = *order == "n-m";
    return tiling;
  }

  static std::vector<std::string> known_names(const NameScope& names) {
    std::vector<std::string> known{workload::kModelInput};
    for (const auto& entry : names.names) known.push_back(entry.first);
    return known;
  }

  void resolve_inputs() {
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      layers_[i].inputs.clear();
      for (const WrittenInput& input : origins_[i].inputs) {
        if (input.scope == nullptr) {
          layers_[i].inputs.push_back(input.name);
        } else if (input.name == workload::kModelInput) {
          layers_[i].inputs.push_back(input.scope->input_name);
        } else if (auto found = input.scope->names.find(input.name); found != input.scope->names.end()) {
          layers_[i].inputs.push_back(found->second);
        } else if (std::find(input.scope->failed.begin(), input.scope->failed.end(), input.name) ==
                   input.scope->failed.end()) {
          const std::string where =
              input.scope->prefix.empty() ? "" : " (inside a block, names refer to the block's own layers or $input)";
          std::vector<std::string> candidates = known_names(*input.scope);
          candidates.erase(std::remove(candidates.begin(), candidates.end(), input.reader_name), candidates.end());
          diagnostics_.error(input.location, input.path,
                             "unknown layer \"" + input.name + "\"" + where + util::did_you_mean(input.name, candidates));
        }
      }
    }
  }

  util::Diagnostics& diagnostics_;
  ParameterScope model_parameters_;
  std::deque<ParameterScope> parameter_scopes_;  // deque: scopes point at their parents
  std::deque<NameScope> scopes_;
  std::map<std::string, BlockTemplate> blocks_;
  std::vector<LayerSpec> layers_;
  std::vector<workload::RepeatedBlock> repeated_blocks_;
  std::vector<LayerOrigin> origins_;
};

// What a phase needs of the model: a sequence input (for --sequence and decode) within
// max_sequence and, to decode, attention with a KV cache. Reported at the input, or at the option
// that asks too much. A --sequence replaces the input's length before the limit is checked.
void apply_phase(const ConfigNode& root, const Phase& phase, workload::ModelSpec& spec, util::Diagnostics& diagnostics) {
  const ConfigNode* input = root.find("input");
  const util::SourceLocation at_input = input != nullptr ? input->location : root.location;
  const std::string limit = " the model's max_sequence " + std::to_string(spec.max_sequence);
  const bool sequence_input = spec.input && spec.input->kind == workload::ShapeKind::sequence;
  const auto require_sequence_input = [&](const std::string& what) {
    if (!sequence_input) {
      diagnostics.error(at_input, "input",
                        what + "; the input is " + (spec.input ? spec.input->describe() : std::string("not one model input")));
    }
  };
  if (phase.decode_context == 0) {
    if (phase.sequence > 0) {
      require_sequence_input("--sequence " + std::to_string(phase.sequence) + " sets the tokens of a sequence input");
      if (!sequence_input) return;
      spec.input->steps = phase.sequence;
    }
    if (spec.max_sequence > 0 && sequence_input && spec.input->steps > spec.max_sequence) {
      const bool asked = phase.sequence > 0;
      diagnostics.error(asked ? util::SourceLocation{"--sequence " + std::to_string(phase.sequence), 0, 0} : at_input,
                        asked ? "sequence" : "input.sequence",
                        std::to_string(spec.input->steps) + " tokens are more than" + limit);
    }
    return;
  }
  const util::SourceLocation at_context{"--context " + std::to_string(phase.decode_context), 0, 0};
  require_sequence_input("decode runs one token of a sequence");
  const bool attends = std::any_of(spec.layers.begin(), spec.layers.end(), [](const workload::LayerSpec& layer) {
    return layer.type == workload::LayerType::matmul && layer.matmul.kv_cache;
  });
  if (!attends) {
    diagnostics.error(at_context, "context",
                      "decode needs attention with a KV cache: model " + spec.name +
                          " has no matmul layer with kv_cache: true (decode is for transformers)");
  }
  if (spec.max_sequence > 0 && phase.decode_context >= spec.max_sequence) {
    diagnostics.error(at_context, "context",
                      std::to_string(phase.decode_context) + " cached tokens and the new one are more than" + limit);
  }
}

// `--set precision.weights=int4` on a model whose `precision:` is one word: the word becomes the
// block's activations (and so every tensor the override leaves alone), then the override applies.
void widen_scalar_precision(ConfigNode& root, const std::vector<std::string>& overrides) {
  ConfigNode* precision = root.is_map() ? root.find("precision") : nullptr;
  if (precision == nullptr || !precision->is_scalar()) return;
  const bool sets_a_tensor = std::any_of(overrides.begin(), overrides.end(), [](const std::string& assignment) {
    return assignment.rfind("precision.", 0) == 0;
  });
  if (!sets_a_tensor) return;
  ConfigNode word = *precision;
  precision->kind = ConfigNode::Kind::map;
  precision->scalar.clear();
  precision->entries.push_back(ConfigEntry{"activations", word.location, word});
}

LoadedModel load_model(const DocumentSource& source, const std::vector<std::string>& overrides, const Phase& phase) {
  util::Diagnostics diagnostics;
  ConfigNode root = load_document(source, FileKind::model, {}, diagnostics);
  widen_scalar_precision(root, overrides);
  for (const std::string& assignment : overrides) apply_override(root, assignment, diagnostics);
  diagnostics.throw_if_any();
  ModelReader reader(diagnostics);
  LoadedModel loaded;
  loaded.file = source.origin;
  loaded.spec = reader.read(root);
  diagnostics.throw_if_any();
  apply_phase(root, phase, loaded.spec, diagnostics);
  diagnostics.throw_if_any();
  workload::NetworkBuild build = workload::build_network(loaded.spec, phase.decode_context);
  for (const workload::NetworkError& error : build.errors) {
    const auto& layer_origin = reader.origins()[error.spec_index];
    const auto field = layer_origin.fields.find(error.field);
    const util::SourceLocation location = field != layer_origin.fields.end() ? field->second : layer_origin.location;
    const std::string path = error.field.empty() ? layer_origin.path : join_key_path(layer_origin.path, error.field);
    const std::string instance = layer_origin.in_block ? "in " + loaded.spec.layers[error.spec_index].name + ": " : "";
    diagnostics.error(location, path, instance + error.message);
  }
  diagnostics.throw_if_any();
  loaded.network = std::move(*build.network);
  return loaded;
}

}  // namespace

LoadedModel load_model_file(const std::string& path, const std::vector<std::string>& overrides, const Phase& phase) {
  return load_model({path, std::nullopt}, overrides, phase);
}

LoadedModel load_model_text(const std::string& text, const std::string& origin,
                            const std::vector<std::string>& overrides, const Phase& phase) {
  return load_model({origin, text}, overrides, phase);
}

}  // namespace reusesim::config
