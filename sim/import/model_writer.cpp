#include "import/model_writer.h"

#include "import/import_error.h"

namespace reusesim::import {

namespace {

std::string pair_text(HeightWidth value) {
  if (value.height == value.width) return std::to_string(value.height);
  return "[" + std::to_string(value.height) + ", " + std::to_string(value.width) + "]";
}

std::string shape_text(const Shape& shape) {
  switch (shape.kind) {
    case ShapeKind::image:
      return "{channels: " + std::to_string(shape.channels) + ", height: " + std::to_string(shape.height) +
             ", width: " + std::to_string(shape.width) + "}";
    case ShapeKind::vector: return "{features: " + std::to_string(shape.features) + "}";
    case ShapeKind::sequence:
      // {sequence: T} alone is T token ids (one feature each).
      return "{sequence: " + std::to_string(shape.steps) +
             (shape.features == 1 ? "" : ", features: " + std::to_string(shape.features)) + "}";
  }
  return "";
}

// The fields of `layer` that differ from the format's defaults, as ", key: value" pairs.
std::string fields_text(const LayerSpec& layer) {
  std::string text;
  const auto add = [&](const std::string& key, const std::string& value) { text += ", " + key + ": " + value; };
  const auto add_pair = [&](const std::string& key, HeightWidth value, std::int64_t fallback) {
    if (value.height != fallback || value.width != fallback) add(key, pair_text(value));
  };
  switch (layer.type) {
    case LayerType::conv2d:
      add("out_channels", std::to_string(layer.conv.out_channels));
      add("kernel", pair_text(layer.conv.kernel));
      add_pair("stride", layer.conv.stride, 1);
      add_pair("padding", layer.conv.padding, 0);
      add_pair("dilation", layer.conv.dilation, 1);
      if (layer.conv.groups != 1) add("groups", std::to_string(layer.conv.groups));
      if (!layer.conv.bias) add("bias", "false");
      break;
    case LayerType::linear:
      add("out_features", std::to_string(layer.linear.out_features));
      if (!layer.linear.bias) add("bias", "false");
      break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm:
      add("hidden_size", std::to_string(layer.recurrent.hidden_size));
      if (layer.recurrent.num_layers != 1) add("num_layers", std::to_string(layer.recurrent.num_layers));
      if (layer.recurrent.bidirectional) add("bidirectional", "true");
      if (!layer.recurrent.bias) add("bias", "false");
      if (!layer.recurrent.return_sequences) add("return_sequences", "false");
      break;
    case LayerType::maxpool:
    case LayerType::avgpool:
      if (layer.pool.global) {
        add("global", "true");
        break;
      }
      add("kernel", pair_text(layer.pool.kernel));
      if (layer.pool.stride) {
        const HeightWidth stride = *layer.pool.stride;
        if (stride.height != layer.pool.kernel.height || stride.width != layer.pool.kernel.width) {
          add("stride", pair_text(stride));
        }
      }
      add_pair("padding", layer.pool.padding, 0);
      if (layer.pool.ceil_mode) add("ceil_mode", "true");
      break;
    case LayerType::embedding:
      add("num_embeddings", std::to_string(layer.embedding.num_embeddings));
      add("embedding_dim", std::to_string(layer.embedding.embedding_dim));
      break;
    default: break;  // activations, batchnorm, add, mul, concat, flatten, views, softmax: no fields
  }
  if (layer.activation != workload::Activation::none) add("activation", util::name(layer.activation));
  return text;
}

std::string list_text(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return "[" + text + "]";
}

}  // namespace

std::string layer_name_from(const std::string& name) {
  std::string text;
  for (char c : name) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    text += keep ? c : '_';
  }
  text.erase(0, text.find_first_not_of('_'));
  if (text.empty() || (text[0] >= '0' && text[0] <= '9') || text[0] == '-') text = "n" + text;
  // TOTAL names the reports' sum row; YAML reads null, Null and NULL as no value.
  if (text == "TOTAL" || text == "null" || text == "Null" || text == "NULL") text += "_";
  return text;
}

std::string model_yaml(const ImportedModel& model) {
  const workload::ModelSpec& spec = model.spec;
  std::string text;
  for (const std::string& line : model.header) text += "# " + line + "\n";
  text += "name: " + spec.name + "\n";
  text += "precision: " + util::name(spec.precision) + "\n";
  if (spec.input) text += "input: " + shape_text(*spec.input) + "\n";
  text += "layers:\n";
  std::string previous = workload::kModelInput;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& layer = spec.layers[i];
    std::string line = "  - {name: " + layer.name + ", type: " + util::name(layer.type);
    if (layer.own_input) {
      line += ", input: " + shape_text(*layer.own_input);
    } else if (layer.inputs != std::vector<std::string>{previous}) {
      line += ", inputs: " + list_text(layer.inputs);
    }
    line += fields_text(layer) + "}";
    if (i < model.layer_comments.size() && !model.layer_comments[i].empty()) line += "  # " + model.layer_comments[i];
    text += line + "\n";
    previous = layer.name;
  }
  return text;
}

workload::Network build_imported(const ImportedModel& model, const std::string& origin) {
  workload::NetworkBuild build = workload::build_network(model.spec);
  if (build.errors.empty()) return std::move(*build.network);
  const workload::NetworkError& error = build.errors.front();
  const std::size_t index = error.spec_index;
  const std::string from = index < model.layer_comments.size() ? " (" + model.layer_comments[index] + ")" : "";
  throw ImportError(origin + ": layer " + model.spec.layers[index].name + from + ": " +
                    (error.field.empty() ? "" : error.field + ": ") + error.message);
}

}  // namespace reusesim::import
