#include "workload/network.h"

#include <algorithm>
#include <map>
#include <set>

#include "util/checked_math.h"

namespace reusesim::workload {

namespace {

// Names one cycle among the layers Kahn's algorithm could not place, e.g. "a -> b -> a".
std::string describe_cycle(const ModelSpec& model, const std::vector<std::vector<int>>& inputs_of,
                           const std::vector<bool>& placed, std::size_t start) {
  std::vector<std::size_t> path{start};
  std::map<std::size_t, std::size_t> position{{start, 0}};
  std::size_t current = start;
  while (true) {
    std::size_t next = current;
    for (int input : inputs_of[current]) {
      if (input >= 0 && !placed[static_cast<std::size_t>(input)]) {
        next = static_cast<std::size_t>(input);
        break;
      }
    }
    const auto seen = position.find(next);
    if (seen != position.end()) {
      std::string text;
      for (std::size_t i = seen->second; i < path.size(); ++i) text += model.layers[path[i]].name + " <- ";
      return text + model.layers[next].name;
    }
    position[next] = path.size();
    path.push_back(next);
    current = next;
  }
}

}  // namespace

std::int64_t Network::total_macs() const {
  std::int64_t total = 0;
  for (const NetworkLayer& layer : layers) total = util::checked_add(total, layer.counts.macs);
  return total;
}

std::int64_t Network::total_params() const {
  std::int64_t total = 0;
  for (const NetworkLayer& layer : layers) total = util::checked_add(total, layer.counts.params);
  return total;
}

std::int64_t Network::tokens_per_sample() const {
  return input && input->kind == ShapeKind::sequence ? input->steps : 1;
}

std::int64_t Network::kv_cache_elements_per_token() const {
  std::int64_t total = 0;
  for (const NetworkLayer& layer : layers) {
    if (layer.spec.type == LayerType::matmul && layer.spec.matmul.kv_cache) {
      total = util::checked_add(total, layer.input_shapes[1].features);
    }
  }
  return total;
}

std::int64_t Network::data_input_elems() const {
  std::int64_t total = input ? input->elements() : 0;
  for (const NetworkLayer& layer : layers) {
    if (layer.spec.own_input) total = util::checked_add(total, layer.spec.own_input->elements());
  }
  return total;
}

std::int64_t TrafficBytes::total() const { return util::checked_add(util::checked_add(weight, input), output); }

std::int64_t kv_cache_read_bytes(const NetworkLayer& layer, const TensorWidths& widths) {
  return layer.cached_steps > 0 ? packed_bytes(layer.input_shapes[1].elements(), widths.kv_cache_bits) : 0;
}

TrafficBytes compulsory_traffic(const NetworkLayer& layer, std::int64_t batch, const TensorWidths& widths) {
  TrafficBytes traffic;
  if (layer.spec.type == LayerType::embedding) {
    // Only the gathered rows move: at most one per token, at most the whole table.
    const std::int64_t tokens = util::checked_mul(layer.input_shapes.front().steps, batch);
    traffic.weight = packed_bytes(
        util::checked_mul(std::min(tokens, layer.spec.embedding.num_embeddings), layer.spec.embedding.embedding_dim),
        widths.activation_bits);
  } else {
    traffic.weight = parameter_bytes(layer, widths).total();
  }
  const std::int64_t cached_operand = layer.cached_steps > 0 ? layer.input_shapes[1].elements() : 0;
  traffic.input = util::checked_add(
      packed_bytes(util::checked_mul(layer.counts.input_elems - cached_operand, batch), widths.activation_bits),
      util::checked_mul(kv_cache_read_bytes(layer, widths), batch));
  traffic.output = packed_bytes(util::checked_mul(layer.counts.output_elems, batch), widths.activation_bits);
  return traffic;
}

TrafficBytes compulsory_traffic(const NetworkLayer& layer, std::int64_t batch, std::int64_t element_bytes) {
  return compulsory_traffic(layer, batch, TensorWidths::uniform(element_bytes));
}

std::int64_t Network::kv_cache_element_bytes(std::int64_t operand_bytes) const {
  return formats ? format_bytes(formats->kv_cache) : operand_bytes;
}

TensorWidths Network::run_widths(std::int64_t operand_bytes) const {
  TensorWidths widths = TensorWidths::uniform(operand_bytes);
  if (!formats) return widths;
  widths.weight_bits = format_bits(formats->weights);
  widths.weight_scales = takes_weight_scales(formats->weights);
  widths.weight_group_size = formats->weight_group_size;
  widths.kv_cache_bits = util::checked_mul(kv_cache_element_bytes(operand_bytes), 8);
  return widths;
}

bool Network::has_sparse_weights() const {
  return std::any_of(layers.begin(), layers.end(),
                     [](const NetworkLayer& layer) { return layer.spec.sparsity.sparse(); });
}

TensorWidths Network::model_widths() const {
  return formats ? TensorWidths::of(*formats) : TensorWidths::uniform(bytes_per_element(precision));
}

std::int64_t NetworkLayer::cached_elements() const {
  return cached_steps == 0 ? 0 : util::checked_mul(cached_steps, input_shapes[1].features);
}

NetworkBuild build_network(const ModelSpec& model, std::int64_t decode_context) {
  NetworkBuild build;
  const std::size_t count = model.layers.size();
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < count; ++i) {
    if (!index_of.emplace(model.layers[i].name, i).second) {
      build.errors.push_back({i, "name", "duplicate layer name \"" + model.layers[i].name + "\""});
    }
  }
  // Inputs as spec indices (-1 = model input).
  std::vector<std::vector<int>> inputs_of(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (model.layers[i].own_input) inputs_of[i].push_back(-1);
    for (const std::string& input : model.layers[i].inputs) {
      if (input == kModelInput) {
        if (!model.input) {
          build.errors.push_back({i, "inputs", "takes the model input, but the model has none (give the model an "
                                               "`input:` or the layer its own)"});
          continue;
        }
        inputs_of[i].push_back(-1);
        continue;
      }
      const auto found = index_of.find(input);
      if (found == index_of.end()) {
        build.errors.push_back({i, "inputs", "unknown layer \"" + input + "\""});
      } else {
        inputs_of[i].push_back(static_cast<int>(found->second));
      }
    }
  }
  if (!build.errors.empty()) return build;

  // Kahn's algorithm; the ready set is ordered by file position so the order is deterministic.
  std::vector<std::size_t> pending(count, 0);
  std::vector<std::vector<std::size_t>> consumers(count);
  for (std::size_t i = 0; i < count; ++i) {
    for (int input : inputs_of[i]) {
      if (input < 0) continue;
      ++pending[i];
      consumers[static_cast<std::size_t>(input)].push_back(i);
    }
  }
  std::set<std::size_t> ready;
  for (std::size_t i = 0; i < count; ++i) {
    if (pending[i] == 0) ready.insert(i);
  }
  std::vector<std::size_t> order;
  std::vector<bool> placed(count, false);
  while (!ready.empty()) {
    const std::size_t next = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(next);
    placed[next] = true;
    for (std::size_t consumer : consumers[next]) {
      if (--pending[consumer] == 0) ready.insert(consumer);
    }
  }
  if (order.size() != count) {
    for (std::size_t i = 0; i < count; ++i) {
      if (!placed[i]) {
        build.errors.push_back({i, "inputs", "the layer graph has a cycle: " + describe_cycle(model, inputs_of, placed, i)});
        return build;
      }
    }
  }

  Network network;
  network.name = model.name;
  network.precision = model.precision;
  network.formats = model.formats;
  network.input = model.input;
  if (decode_context > 0 && network.input) network.input->steps = 1;  // one new token per sample
  std::vector<int> position_of(count, -1);
  std::vector<bool> failed(count, false);
  for (std::size_t spec_index : order) {
    NetworkLayer layer;
    layer.spec = model.layers[spec_index];
    layer.spec_index = spec_index;
    bool inputs_ok = true;
    for (int input : inputs_of[spec_index]) {
      if (input < 0) {
        layer.input_ids.push_back(-1);
        layer.input_shapes.push_back(layer.spec.own_input ? *layer.spec.own_input : *network.input);
        continue;
      }
      const auto producer = static_cast<std::size_t>(input);
      if (failed[producer]) {
        inputs_ok = false;  // already reported at the producer
        break;
      }
      layer.input_ids.push_back(position_of[producer]);
      layer.input_shapes.push_back(network.layers[static_cast<std::size_t>(position_of[producer])].output_shape);
    }
    if (inputs_ok && decode_context > 0 && layer.spec.type == LayerType::matmul && layer.spec.matmul.kv_cache &&
        layer.input_shapes.size() == 2) {
      layer.cached_steps = decode_context;
      layer.input_shapes[1].steps = util::checked_add(layer.input_shapes[1].steps, decode_context);
    }
    ShapeResult result;
    if (inputs_ok) {
      try {
        result = infer_output_shape(layer.spec, layer.input_shapes);
        if (result.shape) layer.counts = count_layer(layer.spec, layer.input_shapes, *result.shape);
      } catch (const util::CountOverflow& overflow) {
        result = ShapeResult{std::nullopt, {"", overflow.what()}};
      }
    }
    if (!inputs_ok || !result.shape) {
      failed[spec_index] = true;
      if (inputs_ok) build.errors.push_back({spec_index, result.error.field, result.error.message});
      continue;
    }
    layer.output_shape = *result.shape;
    position_of[spec_index] = static_cast<int>(network.layers.size());
    network.layers.push_back(std::move(layer));
  }
  if (build.errors.empty()) build.network = std::move(network);
  return build;
}

std::vector<std::size_t> select_layers(const Network& network, const std::vector<std::string>& names,
                                       const std::vector<std::string>& types) {
  const auto allows = [](const std::vector<std::string>& list, const std::string& value) {
    return list.empty() || std::find(list.begin(), list.end(), value) != list.end();
  };
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const LayerSpec& spec = network.layers[i].spec;
    if (allows(names, spec.name) && allows(types, util::name(spec.type))) selected.push_back(i);
  }
  return selected;
}

}  // namespace reusesim::workload
