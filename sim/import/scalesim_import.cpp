#include "import/scalesim_import.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "import/import_error.h"
#include "util/checked_math.h"

namespace reusesim::import {

namespace {

// Dimensions past 2^40 are absurd, as in model files.
constexpr std::int64_t kMaxValue = std::int64_t{1} << 40;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// A positive integer of at most kMaxValue, or nullopt.
std::optional<std::int64_t> positive_integer(const std::string& text) {
  if (text.empty() || text.size() > 13 || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  const std::int64_t value = std::stoll(text);
  if (value < 1 || value > kMaxValue) return std::nullopt;
  return value;
}

std::string file_name(const std::string& origin) {
  const std::size_t slash = origin.find_last_of('/');
  return slash == std::string::npos ? origin : origin.substr(slash + 1);
}

std::string stem(const std::string& origin) {
  std::string name = file_name(origin);
  if (const std::size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

// One CSV line as SCALE-Sim writes it: fields separated by commas, a trailing comma ending the row.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) fields.push_back(trimmed(field));
  while (!fields.empty() && fields.back().empty()) fields.pop_back();
  return fields;
}

// SCALE-Sim's output size: ceil((size - filter + stride) / stride), no padding.
std::int64_t scalesim_outputs(std::int64_t size, std::int64_t filter, std::int64_t stride) {
  return (size - filter + stride + stride - 1) / stride;
}

std::string pair_text(std::int64_t height, std::int64_t width) {
  return std::to_string(height) + "x" + std::to_string(width);
}

}  // namespace

ImportedModel import_scalesim_topology(const std::string& text, const std::string& origin) {
  const auto fail = [&](std::size_t line, const std::string& message) -> void {
    throw ImportError(origin + ":" + std::to_string(line) + ": " + message);
  };
  ImportedModel model;
  model.spec.name = layer_name_from(stem(origin));
  model.spec.precision = workload::Precision::int8;  // SCALE-Sim counts 1-byte words
  std::vector<std::string> header;
  bool gemm = false;
  std::set<std::string> names;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    const std::vector<std::string> fields = fields_of(line);
    if (fields.empty()) continue;
    if (header.empty()) {
      header = fields;
      const std::vector<std::string> mnk{"m", "n", "k"};
      gemm = header.size() == 4 && std::equal(mnk.begin(), mnk.end(), header.begin() + 1,
                                                [](const std::string& a, const std::string& b) { return a == lowercase(b); });
      if (!gemm && header.size() != 8 && header.size() != 9) {
        fail(number, "the header has " + std::to_string(header.size()) +
                         " columns; a SCALE-Sim topology has Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                         "Filter Width, Channels, Num Filter, Strides (and optionally a stride width), or Layer Name, "
                         "M, N, K");
      }
      continue;
    }
    const std::string row_name = fields[0].empty() ? "(unnamed)" : fields[0];
    if (fields.size() < header.size()) {
      fail(number, "row " + row_name + ": the " + header[fields.size()] + " column is missing (" +
                       std::to_string(header.size()) + " columns expected, " + std::to_string(fields.size()) + " found)");
    }
    if (fields.size() > header.size()) {
      fail(number, "row " + row_name + ": " + std::to_string(fields.size()) + " columns, but the header has " +
                       std::to_string(header.size()));
    }
    std::vector<std::int64_t> values;
    for (std::size_t column = 1; column < fields.size(); ++column) {
      const std::optional<std::int64_t> value = positive_integer(fields[column]);
      if (!value) {
        fail(number, "row " + row_name + ", column " + header[column] + ": \"" + fields[column] +
                         "\" is not a positive integer (up to 2^40)");
      }
      values.push_back(*value);
    }
    LayerSpec layer;
    std::string name = layer_name_from(row_name);
    for (int copy = 2; !names.insert(name).second; ++copy) name = layer_name_from(row_name) + "_" + std::to_string(copy);
    layer.name = name;
    std::string comment = "line " + std::to_string(number) + ": " + row_name;
    if (gemm) {
      // SCALE-Sim runs M, N, K as a convolution of an M x K input with N filters of 1 x K: a GEMM of M
      // rows of K, which is a linear layer applied to each of M steps.
      const std::int64_t m = values[0], n = values[1], k = values[2];
      layer.type = LayerType::linear;
      layer.own_input = Shape::sequence(m, k);
      layer.linear.out_features = n;
      layer.linear.bias = false;
      comment += " (M " + std::to_string(m) + ", N " + std::to_string(n) + ", K " + std::to_string(k) + ")";
    } else {
      const std::int64_t height = values[0], width = values[1], filter_height = values[2], filter_width = values[3];
      const std::int64_t channels = values[4], filters = values[5];
      const HeightWidth stride{values[6], values.size() > 7 ? values[7] : values[6]};
      if (filter_height > height || filter_width > width) {
        fail(number, "row " + row_name + ": the filter " + pair_text(filter_height, filter_width) +
                         " is larger than the IFMAP " + pair_text(height, width));
      }
      const std::int64_t out_height = scalesim_outputs(height, filter_height, stride.height);
      const std::int64_t out_width = scalesim_outputs(width, filter_width, stride.width);
      // The rows and columns SCALE-Sim's windows cover: more than the IFMAP when its ceil keeps a
      // last window that runs past the edge (AlexNet's 224 with 11x11 at stride 4: 55 windows, 227).
      const HeightWidth covered{(out_height - 1) * stride.height + filter_height,
                                (out_width - 1) * stride.width + filter_width};
      layer.type = LayerType::conv2d;
      layer.conv.kernel = HeightWidth{filter_height, filter_width};
      layer.conv.stride = stride;
      layer.conv.bias = false;
      layer.conv.out_channels = filters;
      // SCALE-Sim runs a row named "DP..." as one single-channel convolution per channel.
      if (row_name.find("DP") != std::string::npos) {
        layer.conv.groups = channels;
        layer.conv.out_channels = util::checked_mul(channels, filters);
      }
      layer.own_input = Shape::image(channels, covered.height, covered.width);
      comment += " (IFMAP " + pair_text(height, width) + ", filter " + pair_text(filter_height, filter_width) + ", " +
                 std::to_string(channels) + " channels, " + std::to_string(filters) + " filters, stride " +
                 pair_text(stride.height, stride.width) + ")";
      if (covered.height != height || covered.width != width) {
        comment += "; input " + pair_text(covered.height, covered.width) + " for SCALE-Sim's " +
                   pair_text(out_height, out_width) + " outputs";
      }
    }
    model.spec.layers.push_back(layer);
    model.layer_comments.push_back(comment);
  }
  if (model.spec.layers.empty()) {
    throw ImportError(origin + ": no layer rows (a topology needs a header and at least one layer)");
  }
  model.header = {"Imported from " + file_name(origin) + " by `reusesim import scalesim` in SCALE-Sim's conventions:",
                  "no padding, ceil((H - F + S) / S) outputs, 1-byte words (int8). The layers do not feed each",
                  "other: each reads its own input from DRAM. Comments give each layer's line and row."};
  build_imported(model, origin);
  return model;
}

ScaleSimConfig read_scalesim_config(const std::string& text, const std::string& origin) {
  // key (lowercase, as Python's configparser reads them) -> value and line.
  std::map<std::string, std::pair<std::string, std::size_t>> entries;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    const std::string content = trimmed(line);
    if (content.empty() || content[0] == '#' || content[0] == ';' || content[0] == '[') continue;
    const std::size_t separator = content.find_first_of(":=");
    if (separator == std::string::npos) {
      throw ImportError(origin + ":" + std::to_string(number) + ": expected \"key: value\" or \"key = value\", got \"" +
                        content + "\"");
    }
    entries[lowercase(trimmed(content.substr(0, separator)))] = {trimmed(content.substr(separator + 1)), number};
  }
  const auto value_of = [&](const std::string& key) -> std::pair<std::string, std::size_t> {
    const auto found = entries.find(lowercase(key));
    if (found == entries.end()) throw ImportError(origin + ": " + key + ": missing required key");
    return found->second;
  };
  const auto integer = [&](const std::string& key) {
    const auto [text_value, number] = value_of(key);
    const std::optional<std::int64_t> value = positive_integer(text_value);
    if (!value) {
      throw ImportError(origin + ":" + std::to_string(number) + ": " + key + ": \"" + text_value +
                        "\" is not a positive integer (up to 2^40)");
    }
    return *value;
  };
  const auto choice = [&](const std::string& key, const std::vector<std::string>& choices) {
    const auto [text_value, number] = value_of(key);
    const std::string value = lowercase(text_value);
    if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
      std::string list;
      for (const std::string& item : choices) list += (list.empty() ? "" : ", ") + item;
      throw ImportError(origin + ":" + std::to_string(number) + ": " + key + ": \"" + text_value + "\" is not one of " +
                        list);
    }
    return value;
  };
  ScaleSimConfig config;
  const auto run_name = entries.find("run_name");
  config.run_name = layer_name_from(run_name != entries.end() ? run_name->second.first : stem(origin));
  config.array_rows = integer("ArrayHeight");
  config.array_cols = integer("ArrayWidth");
  config.dataflow = choice("Dataflow", {"os", "ws", "is"});
  config.ifmap_sram_kib = integer("IfmapSramSzkB");
  config.filter_sram_kib = integer("FilterSramSzkB");
  config.ofmap_sram_kib = integer("OfmapSramSzkB");
  config.user_bandwidth = choice("InterfaceBandwidth", {"user", "calc"}) == "user";
  if (config.user_bandwidth) config.bandwidth_words_per_cycle = integer("Bandwidth");
  if (entries.count("sparsitysupport") > 0 && choice("SparsitySupport", {"true", "false"}) == "true") {
    throw ImportError(origin + ":" + std::to_string(entries.at("sparsitysupport").second) +
                      ": SparsitySupport: sparse arrays are not modelled");
  }
  return config;
}

std::string accelerator_yaml(const ScaleSimConfig& config, const std::string& origin) {
  const std::string rows = std::to_string(config.array_rows), cols = std::to_string(config.array_cols);
  // Each SRAM delivers a whole array edge of 1-byte words per cycle: SCALE-Sim's SRAMs never stall the array.
  const std::string width = std::to_string(std::max(config.array_rows, config.array_cols));
  const auto buffer = [&](const std::string& name, std::int64_t kib, const std::string& holds) {
    return "    - {name: " + name + ", capacity_kib: " + std::to_string(kib) + ", banks: 1, bank_width_bytes: " + width +
           ", read_ports: 1, write_ports: 1, holds: [" + holds + "]}\n";
  };
  // 1 GHz: Bandwidth words (bytes) per cycle are as many GB/s.
  const std::string dram = config.user_bandwidth
                               ? "{bandwidth_gbps: " + std::to_string(config.bandwidth_words_per_cycle) + ", latency_ns: 0}"
                               : "unlimited";
  return "# Imported from " + file_name(origin) + " by `reusesim import scalesim`: SCALE-Sim's array, dataflow\n"
         "# and SRAM sizes, 1-byte words at 1 GHz (a cycle is a nanosecond), SRAMs that feed a whole array\n"
         "# edge per cycle, and DRAM an ideal memory: " +
         std::string(config.user_bandwidth ? "USER mode's Bandwidth in bytes per cycle" : "unlimited (CALC mode)") +
         ".\n"
         "name: " + config.run_name + "\n"
         "compute: {type: systolic, rows: " + rows + ", cols: " + cols + ", dataflow: " + config.dataflow +
         ", clock_mhz: 1000, operand_bits: 8, vector_ops_per_cycle: " + cols + "}\n"
         "accumulators: {capacity_kib: " + std::to_string(config.ofmap_sram_kib) + ", bits: 32}\n"
         "sram:\n"
         "  clock_mhz: 1000\n"
         "  buffers:\n" +
         buffer("ifmap", config.ifmap_sram_kib, "inputs") + buffer("filter", config.filter_sram_kib, "weights") +
         buffer("ofmap", config.ofmap_sram_kib, "outputs") + "dram: {ideal: " + dram + "}\n";
}

}  // namespace reusesim::import
