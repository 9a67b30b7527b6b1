#pragma once
// Typed, strict reading of ConfigNode trees. Every problem is recorded in Diagnostics with its
// origin and key path; reading goes on so that one run reports every error in a file.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "util/enum_names.h"

namespace reusesim::config {

// Named integers a value may use as "$name" (model parameters, block arguments).
class ParameterScope {
 public:
  explicit ParameterScope(const ParameterScope* parent = nullptr) : parent_(parent) {}
  void define(const std::string& name, std::int64_t value) { values_[name] = value; }
  // A name whose value was itself invalid (already reported): uses of it report nothing more.
  void define_invalid(const std::string& name) { invalid_.push_back(name); }
  bool is_invalid(const std::string& name) const;
  const std::int64_t* find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  const ParameterScope* parent_;
  std::map<std::string, std::int64_t> values_;
  std::vector<std::string> invalid_;
};

struct IntegerRange {
  std::int64_t min;
  std::int64_t max;
  static IntegerRange positive() { return {1, INT64_MAX}; }
  static IntegerRange non_negative() { return {0, INT64_MAX}; }
};

// Both bounds included.
struct NumberRange {
  double min;
  double max;
};

// Reads one mapping. Keys read through it (present or not) are the allowed keys; finish()
// reports every other key as unknown, with a "did you mean" hint from the allowed ones.
class MapReader {
 public:
  MapReader(const ConfigNode& node, std::string path, util::Diagnostics& diagnostics);

  bool valid() const { return valid_; }
  const std::string& path() const { return path_; }
  const util::SourceLocation& location() const { return node_.location; }
  util::Diagnostics& diagnostics() const { return diagnostics_; }
  std::string child_path(const std::string& key) const;

  // The value under key, or nullptr (after reporting "missing required key" for required()).
  const ConfigNode* optional(const std::string& key);
  const ConfigNode* required(const std::string& key);
  bool has(const std::string& key);

  std::optional<std::int64_t> required_integer(const std::string& key, IntegerRange range,
                                               const ParameterScope* scope = nullptr);
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, IntegerRange range,
                          const ParameterScope* scope = nullptr);
  std::optional<std::int64_t> optional_integer(const std::string& key, IntegerRange range,
                                               const ParameterScope* scope = nullptr);
  std::optional<double> required_number(const std::string& key, NumberRange range);
  bool boolean_or(const std::string& key, bool fallback);
  std::optional<std::string> required_string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  // A string that names something in reports: also one line, without control characters.
  std::optional<std::string> required_name(const std::string& key);
  std::string name_or(const std::string& key, const std::string& fallback);
  // One of `choices`; an unknown word is reported with the list and a "did you mean" hint.
  std::optional<std::string> required_choice(const std::string& key, const std::vector<std::string>& choices);
  std::string choice_or(const std::string& key, const std::string& fallback, const std::vector<std::string>& choices);
  // The same over an enum's names (util/enum_names.h).
  template <typename Enum>
  std::optional<Enum> required_enum(const std::string& key) {
    const std::optional<std::string> word = required_choice(key, util::names<Enum>());
    return word ? util::from_name<Enum>(*word) : std::nullopt;
  }
  template <typename Enum>
  Enum enum_or(const std::string& key, Enum fallback) {
    return util::from_name<Enum>(choice_or(key, util::name(fallback), util::names<Enum>())).value_or(fallback);
  }

  // Reports keys that were never read. Call once, after reading everything.
  void finish();
  // Names an unknown key may be a typo of that belong elsewhere (run's --set model.<path>): hinted,
  // never accepted.
  void hint_also(const std::vector<std::string>& names) { hints_ = names; }

 private:
  const ConfigNode& node_;
  std::string path_;
  util::Diagnostics& diagnostics_;
  bool valid_;
  std::vector<std::string> allowed_;
  std::vector<std::string> hints_;
};

// Scalar conversions for values that are not directly under a MapReader (list items).
std::optional<std::int64_t> read_integer(const ConfigNode& node, const std::string& path, IntegerRange range,
                                         const ParameterScope* scope, util::Diagnostics& diagnostics);
std::optional<std::string> read_string(const ConfigNode& node, const std::string& path, util::Diagnostics& diagnostics);
std::optional<std::string> read_choice(const ConfigNode& node, const std::string& path,
                                       const std::vector<std::string>& choices, util::Diagnostics& diagnostics);
// A list of strings; a single scalar counts as a list of one.
std::vector<std::string> read_string_list(const ConfigNode& node, const std::string& path, util::Diagnostics& diagnostics);
// A list of integers; a single scalar counts as a list of one. Empty lists are an error.
std::vector<std::int64_t> read_integer_list(const ConfigNode& node, const std::string& path, IntegerRange range,
                                            const ParameterScope* scope, util::Diagnostics& diagnostics);

std::string join_key_path(const std::string& parent, const std::string& key);

}  // namespace reusesim::config
