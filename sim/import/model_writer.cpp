#include "import/model_writer.h"

#include <cstdio>

#include "config/model_limits.h"
#include "config/model_loader.h"
#include "import/import_error.h"
#include "util/utf8.h"

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
    case LayerType::layernorm:
      if (!layer.norm.bias) add("bias", "false");
      break;
    default:
      break;  // activations, batchnorm, rmsnorm, add, mul, concat, flatten, views, softmax: no fields
  }
  if (layer.activation != workload::Activation::none) add("activation", util::name(layer.activation));
  return text;
}

// The first value of `layer` (or of the model input, layer == nullptr) outside what a model file
// holds, as "key value is outside min..max", or "" when all fit.
std::string range_problem(const std::optional<Shape>& input, const LayerSpec* layer) {
  std::string problem;
  const auto check = [&](const char* key, std::int64_t value, std::int64_t low) {
    if (problem.empty() && (value < low || value > config::kMaxModelDimension)) {
      problem = std::string(key) + " " + std::to_string(value) + " is outside " + std::to_string(low) + ".." +
                std::to_string(config::kMaxModelDimension) + ", what a model file holds";
    }
  };
  const auto check_pair = [&](const char* key, HeightWidth value, std::int64_t low) {
    check(key, value.height, low);
    check(key, value.width, low);
  };
  if (input) {
    if (input->kind == ShapeKind::image) {
      check("channels", input->channels, 1);
      check("height", input->height, 1);
      check("width", input->width, 1);
    } else {
      check(input->kind == ShapeKind::vector ? "features" : "sequence",
            input->kind == ShapeKind::vector ? input->features : input->steps, 1);
      check("features", input->features, 1);
    }
  }
  if (layer == nullptr) return problem;
  switch (layer->type) {
    case LayerType::conv2d:
      check("out_channels", layer->conv.out_channels, 1);
      check_pair("kernel", layer->conv.kernel, 1);
      check_pair("stride", layer->conv.stride, 1);
      check_pair("padding", layer->conv.padding, 0);
      check_pair("dilation", layer->conv.dilation, 1);
      check("groups", layer->conv.groups, 1);
      break;
    case LayerType::linear:
      check("out_features", layer->linear.out_features, 1);
      break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm:
      check("hidden_size", layer->recurrent.hidden_size, 1);
      break;
    case LayerType::maxpool:
    case LayerType::avgpool:
      if (layer->pool.global) break;
      check_pair("kernel", layer->pool.kernel, 1);
      if (layer->pool.stride) check_pair("stride", *layer->pool.stride, 1);
      check_pair("padding", layer->pool.padding, 0);
      break;
    case LayerType::embedding:
      check("num_embeddings", layer->embedding.num_embeddings, 1);
      check("embedding_dim", layer->embedding.embedding_dim, 1);
      break;
    default:
      break;  // no numbers written
  }
  return problem;
}

// Whether the UTF-8 character at `text[at]` (`length` bytes, well formed) may stand in a comment.
bool printable_character(const std::string& text, std::size_t at, std::size_t length) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  if (length == 1) return byte(0) >= 0x20 && byte(0) < 0x7f && byte(0) != '\\';
  if (length == 2) return !(byte(0) == 0xc2 && byte(1) < 0xa0);  // C1 controls, U+0085 among them
  // U+2028, U+2029 (line and paragraph separators) and U+FEFF (byte order mark).
  if (length == 3)
    return !(byte(0) == 0xe2 && byte(1) == 0x80 && (byte(2) == 0xa8 || byte(2) == 0xa9)) &&
           !(byte(0) == 0xef && byte(1) == 0xbb && byte(2) == 0xbf);
  return true;
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

std::string comment_text(const std::string& text) {
  std::string escaped;
  for (std::size_t at = 0; at < text.size();) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (at + length > text.size() || util::invalid_utf8_offset(text.substr(at, length))) length = 0;
    if (length > 0 && printable_character(text, at, length)) {
      escaped.append(text, at, length);
      at += length;
    } else if (text[at] == '\\') {
      escaped += "\\\\";
      ++at;
    } else {
      // Each byte of a character that may not stand, or the one byte that is not UTF-8.
      for (const std::size_t end = at + std::max<std::size_t>(length, 1); at < end; ++at) {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(text[at])));
        escaped += hex;
      }
    }
  }
  return escaped;
}

std::string model_yaml(const ImportedModel& model) {
  const workload::ModelSpec& spec = model.spec;
  std::string text;
  for (const std::string& line : model.header) text += "# " + comment_text(line) + "\n";
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
    if (i < model.layer_comments.size() && !model.layer_comments[i].empty()) {
      line += "  # " + comment_text(model.layer_comments[i]);
    }
    text += line + "\n";
    previous = layer.name;
  }
  return text;
}

workload::Network build_imported(const ImportedModel& model, const std::string& origin) {
  const auto layer_label = [&](std::size_t index) {
    const std::string from = index < model.layer_comments.size() ? " (" + model.layer_comments[index] + ")" : "";
    return "layer " + model.spec.layers[index].name + from;
  };
  const workload::ModelSpec& spec = model.spec;
  if (spec.layers.size() > config::kMaxModelLayers) {
    throw ImportError(origin + ": the model has " + std::to_string(spec.layers.size()) + " layers, more than the " +
                      std::to_string(config::kMaxModelLayers) + " a model file may have");
  }
  if (const std::string problem = range_problem(spec.input, nullptr); !problem.empty()) {
    throw ImportError(origin + ": the model input: " + problem);
  }
  for (std::size_t index = 0; index < spec.layers.size(); ++index) {
    const LayerSpec& layer = spec.layers[index];
    if (const std::string problem = range_problem(layer.own_input, &layer); !problem.empty()) {
      throw ImportError(origin + ": " + layer_label(index) + ": " + problem);
    }
  }
  workload::NetworkBuild build = workload::build_network(spec);
  if (build.errors.empty()) return std::move(*build.network);
  const workload::NetworkError& error = build.errors.front();
  throw ImportError(origin + ": " + layer_label(error.spec_index) + ": " +
                    (error.field.empty() ? "" : error.field + ": ") + error.message);
}

workload::Network load_back(const ImportedModel& model, const std::string& text, const std::string& origin) {
  const workload::Network imported = build_imported(model, origin);
  const auto broken = [&](const std::string& what) {
    return ImportInvariantError("the imported model does not load back from " + origin + " as imported: " + what);
  };
  config::LoadedModel loaded;
  try {
    loaded = config::load_model_text(text, origin);
  } catch (const std::exception& error) {
    throw broken(error.what());
  }
  const std::vector<workload::NetworkLayer>& layers = loaded.network.layers;
  if (layers.size() != imported.layers.size()) {
    throw broken(std::to_string(layers.size()) + " layers, not " + std::to_string(imported.layers.size()));
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const workload::NetworkLayer& written = layers[i];
    const workload::NetworkLayer& wanted = imported.layers[i];
    if (written.spec.name != wanted.spec.name || written.spec.type != wanted.spec.type ||
        written.output_shape != wanted.output_shape || written.counts.macs != wanted.counts.macs ||
        written.counts.params != wanted.counts.params) {
      throw broken("layer " + std::to_string(i + 1) + " is " + written.spec.name + " (" +
                   util::name(written.spec.type) + ", " + written.output_shape.describe() + ", " +
                   std::to_string(written.counts.macs) + " MACs, " + std::to_string(written.counts.params) +
                   " parameters), not " + wanted.spec.name + " (" + util::name(wanted.spec.type) + ", " +
                   wanted.output_shape.describe() + ", " + std::to_string(wanted.counts.macs) + " MACs, " +
                   std::to_string(wanted.counts.params) + " parameters)");
    }
  }
  if (loaded.network.precision != imported.precision || loaded.network.input != imported.input ||
      loaded.network.total_macs() != imported.total_macs() ||
      loaded.network.total_params() != imported.total_params()) {
    throw broken("its precision, input or totals differ");
  }
  return std::move(loaded.network);
}

}  // namespace reusesim::import
