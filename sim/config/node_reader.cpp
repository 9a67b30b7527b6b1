#include "config/node_reader.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "util/strings.h"
#include "util/utf8.h"

namespace reusesim::config {

namespace {

// The kind of integer expected; the upper bound is only named when a value exceeds it.
std::string describe_range(IntegerRange range) {
  if (range.min == 1) return "a positive integer";
  if (range.min == 0) return "a non-negative integer";
  return "an integer >= " + std::to_string(range.min);
}

bool is_decimal(const std::string& text) {
  const std::size_t digits_from = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return digits_from < text.size() && text.find_first_not_of("0123456789", digits_from) == std::string::npos;
}

// Strict decimal integer: optional sign, digits only (no "1e3", "0x10", "12abc"); nullopt also
// when it does not fit 64 bits (is_decimal tells the two apart).
std::optional<std::int64_t> parse_decimal(const std::string& text) {
  if (!is_decimal(text)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

}  // namespace

std::string join_key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

const std::int64_t* ParameterScope::find(const std::string& name) const {
  const auto it = values_.find(name);
  if (it != values_.end()) return &it->second;
  return parent_ != nullptr ? parent_->find(name) : nullptr;
}

bool ParameterScope::is_invalid(const std::string& name) const {
  if (std::find(invalid_.begin(), invalid_.end(), name) != invalid_.end()) return true;
  return parent_ != nullptr && parent_->is_invalid(name);
}

std::vector<std::string> ParameterScope::names() const {
  std::vector<std::string> all = parent_ != nullptr ? parent_->names() : std::vector<std::string>{};
  for (const auto& [name, value] : values_) all.push_back(name);
  return all;
}

std::optional<std::int64_t> read_integer(const ConfigNode& node, const std::string& path, IntegerRange range,
                                         const ParameterScope* scope, util::Diagnostics& diagnostics) {
  if (!node.is_scalar()) {
    diagnostics.error(node.location, path, "expected " + describe_range(range) + ", got " + node.describe());
    return std::nullopt;
  }
  std::optional<std::int64_t> value;
  std::string origin;
  if (!node.scalar.empty() && node.scalar[0] == '$') {
    const std::string name = node.scalar.substr(1);
    const std::int64_t* found = scope != nullptr ? scope->find(name) : nullptr;
    if (found == nullptr && scope != nullptr && scope->is_invalid(name)) return std::nullopt;
    if (found == nullptr) {
      const std::vector<std::string> known = scope != nullptr ? scope->names() : std::vector<std::string>{};
      std::string hint = util::did_you_mean(name, known);
      if (!hint.empty()) hint = " (did you mean \"$" + util::closest_match(name, known) + "\"?)";
      diagnostics.error(node.location, path, "unknown parameter \"" + node.scalar + "\"" + hint);
      return std::nullopt;
    }
    value = *found;
    origin = " (from " + node.scalar + ")";
  } else {
    value = parse_decimal(node.scalar);
    if (!value && is_decimal(node.scalar)) {
      const bool negative = node.scalar[0] == '-';
      diagnostics.error(node.location, path,
                        "expected " + (negative ? describe_range(range) : "at most " + std::to_string(range.max)) +
                            ", got " + node.scalar + (negative ? " (too small" : " (too large") +
                            " for a 64-bit integer)");
      return std::nullopt;
    }
    if (!value) {
      diagnostics.error(node.location, path, "expected " + describe_range(range) + ", got " + node.describe());
      return std::nullopt;
    }
  }
  if (*value < range.min) {
    diagnostics.error(node.location, path,
                      "expected " + describe_range(range) + ", got " + std::to_string(*value) + origin);
    return std::nullopt;
  }
  if (*value > range.max) {
    diagnostics.error(node.location, path,
                      "expected at most " + std::to_string(range.max) + ", got " + std::to_string(*value) + origin);
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> read_string(const ConfigNode& node, const std::string& path, util::Diagnostics& diagnostics) {
  if (!node.is_scalar() || node.scalar.empty()) {
    diagnostics.error(node.location, path, "expected a non-empty string, got " + node.describe());
    return std::nullopt;
  }
  return node.scalar;
}

std::optional<std::string> read_choice(const ConfigNode& node, const std::string& path,
                                       const std::vector<std::string>& choices, util::Diagnostics& diagnostics) {
  if (node.is_scalar() && std::find(choices.begin(), choices.end(), node.scalar) != choices.end()) {
    return node.scalar;
  }
  const std::string hint = node.is_scalar() ? util::did_you_mean(node.scalar, choices) : "";
  diagnostics.error(node.location, path,
                    "expected one of " + util::join(choices, ", ") + ", got " + node.describe() + hint);
  return std::nullopt;
}

std::vector<std::string> read_string_list(const ConfigNode& node, const std::string& path, util::Diagnostics& diagnostics) {
  std::vector<std::string> values;
  if (node.is_scalar()) {
    if (auto value = read_string(node, path, diagnostics)) values.push_back(*value);
    return values;
  }
  if (!node.is_sequence() || node.items.empty()) {
    diagnostics.error(node.location, path, "expected a string or a non-empty list of strings, got " + node.describe());
    return values;
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    if (auto value = read_string(node.items[i], join_key_path(path, std::to_string(i)), diagnostics)) {
      values.push_back(*value);
    }
  }
  return values;
}

std::vector<std::int64_t> read_integer_list(const ConfigNode& node, const std::string& path, IntegerRange range,
                                            const ParameterScope* scope, util::Diagnostics& diagnostics) {
  std::vector<std::int64_t> values;
  if (node.is_scalar()) {
    if (auto value = read_integer(node, path, range, scope, diagnostics)) values.push_back(*value);
    return values;
  }
  if (!node.is_sequence() || node.items.empty()) {
    diagnostics.error(node.location, path,
                      "expected " + describe_range(range) + " or a non-empty list of them, got " + node.describe());
    return values;
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    if (auto value = read_integer(node.items[i], join_key_path(path, std::to_string(i)), range, scope, diagnostics)) {
      values.push_back(*value);
    }
  }
  return values;
}

MapReader::MapReader(const ConfigNode& node, std::string path, util::Diagnostics& diagnostics)
    : node_(node), path_(std::move(path)), diagnostics_(diagnostics), valid_(node.is_map()) {
  if (!valid_) diagnostics_.error(node.location, path_, "expected a mapping (key: value lines), got " + node.describe());
}

std::string MapReader::child_path(const std::string& key) const { return join_key_path(path_, key); }

const ConfigNode* MapReader::optional(const std::string& key) {
  if (std::find(allowed_.begin(), allowed_.end(), key) == allowed_.end()) allowed_.push_back(key);
  return valid_ ? node_.find(key) : nullptr;
}

const ConfigNode* MapReader::required(const std::string& key) {
  const ConfigNode* value = optional(key);
  if (value == nullptr && valid_) diagnostics_.error(node_.location, child_path(key), "missing required key");
  return value;
}

bool MapReader::has(const std::string& key) { return optional(key) != nullptr; }

std::optional<std::int64_t> MapReader::required_integer(const std::string& key, IntegerRange range,
                                                        const ParameterScope* scope) {
  const ConfigNode* value = required(key);
  return value != nullptr ? read_integer(*value, child_path(key), range, scope, diagnostics_) : std::nullopt;
}

std::optional<std::int64_t> MapReader::optional_integer(const std::string& key, IntegerRange range,
                                                        const ParameterScope* scope) {
  const ConfigNode* value = optional(key);
  return value != nullptr ? read_integer(*value, child_path(key), range, scope, diagnostics_) : std::nullopt;
}

std::int64_t MapReader::integer_or(const std::string& key, std::int64_t fallback, IntegerRange range,
                                   const ParameterScope* scope) {
  const ConfigNode* value = optional(key);
  if (value == nullptr) return fallback;
  return read_integer(*value, child_path(key), range, scope, diagnostics_).value_or(fallback);
}

std::optional<double> MapReader::required_number(const std::string& key, NumberRange range) {
  const ConfigNode* value = required(key);
  if (value == nullptr) return std::nullopt;
  const auto format = [](double number) {
    std::ostringstream text;
    text << number;
    return text.str();
  };
  const std::string expected = "expected a number from " + format(range.min) + " to " + format(range.max);
  if (!value->is_scalar() || value->scalar.empty()) {
    diagnostics_.error(value->location, child_path(key), expected + ", got " + value->describe());
    return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(value->scalar.c_str(), &end);
  if (*end != '\0' || errno == ERANGE || !std::isfinite(number)) {
    diagnostics_.error(value->location, child_path(key), expected + ", got " + value->describe());
    return std::nullopt;
  }
  if (!(number >= range.min && number <= range.max)) {
    diagnostics_.error(value->location, child_path(key), expected + ", got " + value->scalar);
    return std::nullopt;
  }
  return number;
}

bool MapReader::boolean_or(const std::string& key, bool fallback) {
  const ConfigNode* value = optional(key);
  if (value == nullptr) return fallback;
  if (value->is_scalar() && (value->scalar == "true" || value->scalar == "false")) return value->scalar == "true";
  diagnostics_.error(value->location, child_path(key), "expected true or false, got " + value->describe());
  return fallback;
}

std::optional<std::string> MapReader::required_string(const std::string& key) {
  const ConfigNode* value = required(key);
  return value != nullptr ? read_string(*value, child_path(key), diagnostics_) : std::nullopt;
}

std::string MapReader::string_or(const std::string& key, const std::string& fallback) {
  const ConfigNode* value = optional(key);
  if (value == nullptr) return fallback;
  return read_string(*value, child_path(key), diagnostics_).value_or(fallback);
}

namespace {

// Names head table rows and CSV cells, one line each: a line break or tab in one splits a row.
std::optional<std::string> checked_name(std::optional<std::string> name, const ConfigNode& node, const std::string& path,
                                        util::Diagnostics& diagnostics) {
  if (!name) return name;
  const auto control = std::find_if(name->begin(), name->end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (control == name->end()) return name;
  diagnostics.error(node.location, path,
                    "a name is one line of printable text; this one holds " + util::describe_byte(*control) +
                        ", a control character");
  return std::nullopt;
}

}  // namespace

std::optional<std::string> MapReader::required_name(const std::string& key) {
  const ConfigNode* value = required(key);
  if (value == nullptr) return std::nullopt;
  return checked_name(read_string(*value, child_path(key), diagnostics_), *value, child_path(key), diagnostics_);
}

std::string MapReader::name_or(const std::string& key, const std::string& fallback) {
  const ConfigNode* value = optional(key);
  if (value == nullptr) return fallback;
  return checked_name(read_string(*value, child_path(key), diagnostics_), *value, child_path(key), diagnostics_)
      .value_or(fallback);
}

std::optional<std::string> MapReader::required_choice(const std::string& key, const std::vector<std::string>& choices) {
  const ConfigNode* value = required(key);
  return value != nullptr ? read_choice(*value, child_path(key), choices, diagnostics_) : std::nullopt;
}

std::string MapReader::choice_or(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& choices) {
  const ConfigNode* value = optional(key);
  if (value == nullptr) return fallback;
  return read_choice(*value, child_path(key), choices, diagnostics_).value_or(fallback);
}

void MapReader::finish() {
  if (!valid_) return;
  for (const ConfigEntry& entry : node_.entries) {
    if (std::find(allowed_.begin(), allowed_.end(), entry.key) != allowed_.end()) continue;
    std::vector<std::string> candidates = allowed_;
    candidates.insert(candidates.end(), hints_.begin(), hints_.end());
    diagnostics_.error(entry.key_location, child_path(entry.key),
                       "unknown key" + util::did_you_mean(entry.key, candidates));
  }
}

}  // namespace reusesim::config
