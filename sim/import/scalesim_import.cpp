#include "import/scalesim_import.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "import/import_error.h"
#include "util/checked_math.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace reusesim::import {

namespace {

// Dimensions past 2^40 are absurd, as in model files.
constexpr std::int64_t kMaxValue = std::int64_t{1} << 40;

// As model files (docs/model-format.md): the written model must load.
constexpr std::size_t kMaxLayers = 100'000;

// The columns of SCALE-Sim's two topology formats, for messages.
const std::string kHeaderColumns =
    "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides (and "
    "optionally a stride width), or Layer, M, N, K";

// Whitespace as Python's str.strip() sees it in ASCII (SCALE-Sim strips its rows and configparser its
// lines and values with it): space, \t \n \v \f \r and the separators \x1c-\x1f.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }

std::string trimmed(const std::string& text) {
  std::size_t first = 0, last = text.size();
  while (first < last && is_space(text[first])) ++first;
  while (last > first && is_space(text[last - 1])) --last;
  return text.substr(first, last - first);
}

// The lines of a file as Python reads text: "\n", "\r\n" and a lone "\r" each end one.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
  }
  return lines;
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

// What a comment of the written YAML may hold (the loader refuses control characters and bytes that
// are not UTF-8 anywhere in a file): those bytes as '?'.
std::string printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  while (const std::optional<std::size_t> offset = util::invalid_utf8_offset(text)) text[*offset] = '?';
  return text;
}

std::string stem(const std::string& origin) {
  std::string name = file_name(origin);
  if (const std::size_t dot = name.rfind('.'); dot != std::string::npos && dot > 0) name.resize(dot);
  return name;
}

// One CSV line as SCALE-Sim writes it: fields separated by commas, a trailing comma ending the row.
std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  for (const std::string& field : util::split(line, ',')) fields.push_back(trimmed(field));
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
  std::map<std::string, int> name_copies;
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t number = 1; number <= lines.size(); ++number) {
    const std::vector<std::string> fields = fields_of(lines[number - 1]);
    if (fields.empty()) continue;
    if (header.empty()) {
      // SCALE-Sim skips a topology's first row unread, whatever it holds (topology_utils.py,
      // load_arrays_conv and load_arrays_gemm): a layer there would be lost without a word.
      if (std::any_of(fields.begin() + 1, fields.end(), util::all_digits)) {
        fail(number, "the first row (" + util::join(fields, ", ") +
                         ") holds numbers, like a layer, where SCALE-Sim expects its header row (" + kHeaderColumns +
                         "); SCALE-Sim skips the first row unread, so this layer would be lost: add the header");
      }
      header = fields;
      const std::vector<std::string> mnk{"m", "n", "k"};
      gemm = header.size() == 4 && std::equal(mnk.begin(), mnk.end(), header.begin() + 1,
                                                [](const std::string& a, const std::string& b) { return a == lowercase(b); });
      if (!gemm && header.size() != 8 && header.size() != 9) {
        fail(number, "the header has " + std::to_string(header.size()) + " columns; a SCALE-Sim topology has " +
                         kHeaderColumns);
      }
      continue;
    }
    const std::string row_name = fields[0].empty() ? "(unnamed)" : fields[0];
    // The name is kept in the layer's comment: one line of UTF-8, as every name ReuseSim reads.
    if (printable(row_name) != row_name) {
      const auto bad = std::find_if(row_name.begin(), row_name.end(),
                                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
      const std::size_t offset = bad != row_name.end() ? static_cast<std::size_t>(bad - row_name.begin())
                                                       : util::invalid_utf8_offset(row_name).value_or(0);
      fail(number, "the layer name holds " + util::describe_byte(row_name[offset]) +
                       (bad != row_name.end() ? ", a control character" : ", which is not UTF-8") +
                       "; a name is one line of printable UTF-8 text");
    }
    if (model.spec.layers.size() == kMaxLayers) {
      fail(number, "more than " + std::to_string(kMaxLayers) + " layers, the most a model file may have");
    }
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
    // A repeated name gets _2, _3, ...: each name's count is kept, so many repeats stay linear.
    const std::string base = layer_name_from(row_name);
    std::string name = base;
    for (int& copies = name_copies[base]; !names.insert(name).second;) name = base + "_" + std::to_string(++copies + 1);
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
  model.header = {
      "Imported from " + printable(file_name(origin)) + " by `reusesim import scalesim` in SCALE-Sim's conventions:",
      "no padding, ceil((H - F + S) / S) outputs, 1-byte words (int8). The layers do not feed each",
      "other: each reads its own input from DRAM. Comments give each layer's line and row."};
  build_imported(model, origin);
  return model;
}

namespace {

// A .cfg as Python's configparser reads it (ConfigParser() with its defaults, which SCALE-Sim
// uses): `[section]` headers, `key: value` or `key = value` lines, keys lowercased (optionxform),
// full-line comments starting with `#` or `;`, values continued on lines indented deeper than their
// key (empty lines inside a value kept), [DEFAULT] seen by every section, a repeated section or a
// key repeated in its section refused (strict=True), and %-interpolation when a value is read.
struct ConfigOption {
  std::string value;
  std::size_t line = 0;
};

struct ConfigSection {
  std::size_t line = 0;
  std::map<std::string, ConfigOption> options;  // by lowercased key
};

const std::string kDefaultSection = "DEFAULT";
// configparser's MAX_INTERPOLATION_DEPTH; the reference count bounds the work a value of many
// references to references makes (configparser has no such bound, and never ends on some).
constexpr int kMaxInterpolationDepth = 10;
constexpr int kMaxInterpolationReferences = 10'000;
constexpr std::size_t kMaxInterpolatedBytes = std::size_t{1} << 20;

// A value in a message: one line.
std::string shown(const std::string& value) {
  std::string text;
  for (const char c : value) text += c == '\n' ? std::string("\\n") : std::string(1, c);
  return "\"" + text + "\"";
}

std::map<std::string, ConfigSection> parse_config(const std::string& text, const std::string& origin) {
  const auto fail = [&](std::size_t line, const std::string& message) -> void {
    throw ImportError(origin + ":" + std::to_string(line) + ": " + message);
  };
  std::map<std::string, ConfigSection> sections;
  std::set<std::string> seen;  // sections but [DEFAULT], and section + "\n" + key: each once
  ConfigSection* section = nullptr;
  std::string section_name;
  ConfigOption* option = nullptr;  // what a deeper-indented line continues
  std::size_t option_indent = 0;
  const std::vector<std::string> lines = lines_of(text);
  for (std::size_t number = 1; number <= lines.size(); ++number) {
    const std::string& line = lines[number - 1];
    const std::string content = trimmed(line);
    if (content.empty() || content[0] == '#' || content[0] == ';') {
      if (content.empty() && option != nullptr) option->value += '\n';  // a comment is no part of a value
      continue;
    }
    const auto indent = static_cast<std::size_t>(std::find_if_not(line.begin(), line.end(), is_space) - line.begin());
    if (option != nullptr && indent > option_indent) {
      option->value += "\n" + content;
      continue;
    }
    option = nullptr;
    // configparser's section pattern \[(?P<header>.+)\]: up to the last ']', one character at least.
    const std::size_t close = content.rfind(']');
    if (content[0] == '[' && close != std::string::npos && close >= 2) {
      section_name = content.substr(1, close - 1);
      if (section_name != kDefaultSection && !seen.insert(section_name).second) {
        fail(number, "[" + section_name + "]: the section appeared before, at line " +
                         std::to_string(sections[section_name].line) +
                         "; configparser, which SCALE-Sim reads its .cfg with, refuses a repeated section");
      }
      section = &sections[section_name];
      if (section->line == 0) section->line = number;
      continue;
    }
    if (section == nullptr) {
      fail(number, shown(content) + " comes before any [section]; configparser requires a section header first");
    }
    const std::size_t separator = content.find_first_of(":=");
    if (separator == std::string::npos || separator == 0) {
      fail(number, "expected \"key: value\" or \"key = value\", got " + shown(content));
    }
    const std::string name = trimmed(content.substr(0, separator));
    const std::string key = lowercase(name);
    if (!seen.insert(section_name + "\n" + key).second) {
      fail(number, section_name + "." + name + ": the key appeared before in [" + section_name + "], at line " +
                       std::to_string(section->options[key].line) +
                       "; configparser, which SCALE-Sim reads its .cfg with, refuses a repeated key (keys are "
                       "compared in lowercase)");
    }
    option = &section->options[key];
    *option = ConfigOption{trimmed(content.substr(separator + 1)), number};
    option_indent = indent;
  }
  // configparser joins a value's lines and strips whitespace (the empty lines) off the end only: a
  // value that starts on the next line keeps its leading line break.
  for (auto& named : sections) {
    for (auto& entry : named.second.options) {
      std::string& value = entry.second.value;
      value.erase(
          static_cast<std::size_t>(std::find_if_not(value.rbegin(), value.rend(), is_space).base() - value.begin()));
    }
  }
  return sections;
}

// A value as configparser's get(section, key) returns it, with the line and key path it came from.
struct ConfigValue {
  std::string text;
  std::size_t line = 0;
  std::string where;  // "file:line: section.Key: ", the start of a message about it
};

class ConfigReader {
 public:
  ConfigReader(const std::string& text, const std::string& origin)
      : sections_(parse_config(text, origin)), origin_(origin) {}

  bool has_section(const std::string& section) const {
    return section != kDefaultSection && sections_.count(section) > 0;
  }

  // `name` of `section` (or of [DEFAULT]) interpolated; throws naming the section or key missing.
  ConfigValue get(const std::string& section, const std::string& name) const {
    std::optional<ConfigValue> value = value_if_set(section, name);
    if (!value) {
      const std::string key = lowercase(name);
      std::string elsewhere;
      for (const auto& [other_name, other] : sections_) {
        const auto found = other.options.find(key);
        if (found == other.options.end()) continue;
        elsewhere = "; line " + std::to_string(found->second.line) + " sets it in [" + other_name +
                    "], where SCALE-Sim does not read it";
        break;
      }
      throw ImportError(origin_ + ":" + std::to_string(sections_.at(section).line) + ": " + section + "." + name +
                        ": missing; SCALE-Sim reads it from [" + section + "]" + elsewhere);
    }
    return std::move(*value);
  }

  // The same, or nullopt when neither `section` nor [DEFAULT] has the key.
  std::optional<ConfigValue> value_if_set(const std::string& section, const std::string& name) const {
    if (!has_section(section)) {
      throw ImportError(origin_ + ": no [" + section + "] section; SCALE-Sim reads " + name + " from it");
    }
    const ConfigOption* option = find(section, lowercase(name));
    if (option == nullptr) return std::nullopt;
    ConfigValue value{"", option->line,
                      origin_ + ":" + std::to_string(option->line) + ": " + section + "." + name + ": "};
    int references = 0;
    interpolate(section, option->value, 1, value.where, references, value.text);
    return value;
  }

 private:
  const ConfigOption* find(const std::string& section, const std::string& key) const {
    for (const std::string& name : {section, kDefaultSection}) {
      const auto found_section = sections_.find(name);
      if (found_section == sections_.end()) continue;
      const auto found = found_section->second.options.find(key);
      if (found != found_section->second.options.end()) return &found->second;
    }
    return nullptr;
  }

  // configparser's BasicInterpolation: "%%" is "%", "%(key)s" the value of key in the same section or
  // [DEFAULT], itself interpolated; any other '%' is an error.
  void interpolate(const std::string& section, const std::string& value, int depth, const std::string& where,
                   int& references, std::string& out) const {
    if (depth > kMaxInterpolationDepth) {
      throw ImportError(where + "%(key)s references nest more than " + std::to_string(kMaxInterpolationDepth) +
                        " deep, configparser's limit");
    }
    std::size_t at = 0;
    while (at < value.size()) {
      const std::size_t percent = value.find('%', at);
      if (percent == std::string::npos) {
        out.append(value, at, std::string::npos);
        break;
      }
      out.append(value, at, percent - at);
      if (value.compare(percent, 2, "%%") == 0) {
        out += '%';
        at = percent + 2;
        continue;
      }
      const std::size_t close = value.find(')', percent);
      if (value.compare(percent, 2, "%(") != 0 || close == std::string::npos || close == percent + 2 ||
          value.compare(close, 2, ")s") != 0) {
        throw ImportError(where + "in " + shown(value) +
                          ", '%' must start \"%%\" or \"%(key)s\" (configparser's interpolation)");
      }
      const std::string key = lowercase(value.substr(percent + 2, close - percent - 2));
      const ConfigOption* option = find(section, key);
      if (option == nullptr) {
        throw ImportError(where + "%(" + key + ")s names no key of [" + section + "] or [DEFAULT]");
      }
      if (++references > kMaxInterpolationReferences) {
        throw ImportError(where + "more than " + std::to_string(kMaxInterpolationReferences) + " %(key)s references");
      }
      if (option->value.find('%') == std::string::npos) {
        out += option->value;
      } else {
        interpolate(section, option->value, depth + 1, where, references, out);
      }
      if (out.size() > kMaxInterpolatedBytes) {
        throw ImportError(where + "longer than " + std::to_string(kMaxInterpolatedBytes) + " bytes once interpolated");
      }
      at = close + 2;
    }
  }

  std::map<std::string, ConfigSection> sections_;
  std::string origin_;
};

// A key's value as a positive integer of at most `max` (`limit` says whose limit); throws naming it.
std::int64_t config_integer(const ConfigValue& value, std::int64_t max, const std::string& limit) {
  const std::optional<std::int64_t> number = positive_integer(value.text);
  if (!number) throw ImportError(value.where + shown(value.text) + " is not a positive integer");
  if (*number > max) {
    throw ImportError(value.where + "expected at most " + std::to_string(max) + " (" + limit + "), got " + value.text);
  }
  return *number;
}

// A key's value, one of `choices` as written (SCALE-Sim compares them so); throws naming it.
std::string config_choice(const ConfigValue& value, const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), value.text) == choices.end()) {
    throw ImportError(value.where + shown(value.text) + " is not one of " + util::join(choices, ", "));
  }
  return value.text;
}

}  // namespace

ScaleSimConfig read_scalesim_config(const std::string& text, const std::string& origin) {
  const ConfigReader reader(text, origin);
  // The sections and keys of SCALE-Sim v2's scale_config.read_conf_file (scalesim/scale_config.py),
  // in its order.
  const std::string arch = "architecture_presets";
  ScaleSimConfig config;
  config.run_name = layer_name_from(reader.get("general", "run_name").text);
  config.user_bandwidth = config_choice(reader.get("run_presets", "InterfaceBandwidth"), {"USER", "CALC"}) == "USER";
  // The limits are those of the accelerator file the config becomes (docs/accelerator-format.md).
  const std::int64_t max_edge = std::int64_t{1} << 20;
  config.array_rows = config_integer(reader.get(arch, "ArrayHeight"), max_edge, "the most rows an array may have");
  const ConfigValue width = reader.get(arch, "ArrayWidth");
  config.array_cols = config_integer(width, max_edge, "the most columns an array may have");
  const std::string buffer_limit = "the largest SRAM buffer, 2^30 KiB";
  config.ifmap_sram_kib = config_integer(reader.get(arch, "IfmapSramSzkB"), std::int64_t{1} << 30, buffer_limit);
  config.filter_sram_kib = config_integer(reader.get(arch, "FilterSramSzkB"), std::int64_t{1} << 30, buffer_limit);
  const ConfigValue ofmap = reader.get(arch, "OfmapSramSzkB");
  config.ofmap_sram_kib = config_integer(ofmap, std::int64_t{1} << 20,
                                         "the accumulators take the ofmap SRAM's size, and hold at most 2^20 KiB");
  // 32-bit partial sums: the accumulators must hold one array row of them (one per column).
  const std::int64_t row_bytes = config.array_cols * 4;
  if (config.ofmap_sram_kib * 1024 < row_bytes) {
    throw ImportError(width.where + std::to_string(config.array_cols) + " columns make a row of " +
                      std::to_string(row_bytes) + " bytes of 32-bit partial sums, more than OfmapSramSzkB (" +
                      ofmap.text + " KiB, line " + std::to_string(ofmap.line) +
                      ") holds: the accumulators take the ofmap SRAM's size and must hold one array row");
  }
  config.dataflow = config_choice(reader.get(arch, "Dataflow"), {"os", "ws", "is"});
  // Later SCALE-Sim v2 files say how many memory banks; several take memory-map files.
  if (const std::optional<ConfigValue> banks = reader.value_if_set(arch, "MemoryBanks")) {
    config_integer(*banks, 1, "one bank: SCALE-Sim spreads operands over more by memory-map files, not imported");
  }
  if (config.user_bandwidth) {
    // At 1 GHz, words (bytes) per cycle are GB/s.
    config.bandwidth_words_per_cycle =
        config_integer(reader.get(arch, "Bandwidth"), 1'000'000, "10^6 GB/s at 1 GHz, the fastest ideal memory");
  }
  if (reader.has_section("sparsity")) {
    const ConfigValue sparsity = reader.get("sparsity", "SparsitySupport");
    // SCALE-Sim compares the value in lowercase.
    if (config_choice(ConfigValue{lowercase(sparsity.text), sparsity.line, sparsity.where}, {"true", "false"}) ==
        "true") {
      throw ImportError(sparsity.where + "sparse arrays are not modelled");
    }
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
  return "# Imported from " + printable(file_name(origin)) +
         " by `reusesim import scalesim`: SCALE-Sim's array, dataflow\n"
         "# and SRAM sizes, 1-byte words at 1 GHz (a cycle is a nanosecond), SRAMs that feed a whole array\n"
         "# edge per cycle, and DRAM an ideal memory: " +
         std::string(config.user_bandwidth ? "USER mode's Bandwidth in bytes per cycle" : "unlimited (CALC mode)") +
         ".\n"
         "name: " +
         config.run_name +
         "\n"
         "compute: {type: systolic, rows: " +
         rows + ", cols: " + cols + ", dataflow: " + config.dataflow +
         ", clock_mhz: 1000, operand_bits: 8, vector_ops_per_cycle: " + cols +
         "}\n"
         "accumulators: {capacity_kib: " +
         std::to_string(config.ofmap_sram_kib) +
         ", bits: 32}\n"
         "sram:\n"
         "  clock_mhz: 1000\n"
         "  buffers:\n" +
         buffer("ifmap", config.ifmap_sram_kib, "inputs") + buffer("filter", config.filter_sram_kib, "weights") +
         buffer("ofmap", config.ofmap_sram_kib, "outputs") + "dram: {ideal: " + dram + "}\n";
}

}  // namespace reusesim::import
