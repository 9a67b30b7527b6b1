#include "util/diagnostics.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace reusesim::util {

std::string format_location(const SourceLocation& location) {
  if (location.line == 0) return location.file;
  return location.file + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
}

namespace {

// A key path holds names from the file; one with a line break would split the message in two.
std::string printable(const std::string& text) {
  std::string shown;
  for (char c : text) {
    if (c == '\n') {
      shown += "\\n";
    } else if (c == '\t') {
      shown += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      const char* const hex = "0123456789abcdef";
      shown += std::string("\\x") + hex[(c >> 4) & 0xf] + hex[c & 0xf];
    } else {
      shown += c;
    }
  }
  return shown;
}

}  // namespace

std::string format_diagnostic(const Diagnostic& diagnostic) {
  std::string text = format_location(diagnostic.location) + ": error: ";
  if (!diagnostic.key_path.empty()) text += printable(diagnostic.key_path) + ": ";
  return text + diagnostic.message;
}

namespace {

std::string format_all(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) text += format_diagnostic(diagnostic) + "\n";
  return text;
}

}  // namespace

void Diagnostics::error(const SourceLocation& location, const std::string& key_path, const std::string& message) {
  Diagnostic diagnostic{location, key_path, message};
  // A block template instantiated many times would repeat the same problem once per instance.
  // A set, not a scan of every earlier message: a file with thousands of errors took seconds.
  if (!reported_.insert(format_diagnostic(diagnostic)).second) return;
  errors_.push_back(std::move(diagnostic));
}

std::string Diagnostics::to_string() const { return format_all(errors_); }

std::vector<Diagnostic> Diagnostics::in_reading_order() const {
  std::vector<std::string> files;
  for (const Diagnostic& diagnostic : errors_) {
    if (std::find(files.begin(), files.end(), diagnostic.location.file) == files.end()) {
      files.push_back(diagnostic.location.file);
    }
  }
  const auto rank = [&](const Diagnostic& diagnostic) {
    const auto file = std::find(files.begin(), files.end(), diagnostic.location.file) - files.begin();
    return std::make_tuple(file, diagnostic.location.line, diagnostic.location.column);
  };
  std::vector<Diagnostic> ordered = errors_;
  std::stable_sort(ordered.begin(), ordered.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return rank(a) < rank(b); });
  return ordered;
}

void Diagnostics::throw_if_any() const {
  if (!errors_.empty()) throw InputError(in_reading_order());
}


InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(format_all(diagnostics)), diagnostics_(std::move(diagnostics)) {}

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitution});
      diagonal = above;
    }
  }
  return row[b.size()];
}

bool same_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// "bank_width" of "bank_width_bytes": the name before its last "_" when that leaves at least three
// characters (so "t_x" has no stem); "" otherwise.
std::string unit_stem(const std::string& name) {
  const std::size_t underscore = name.rfind('_');
  return underscore != std::string::npos && underscore >= 3 ? name.substr(0, underscore) : std::string();
}

}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // Names are case-sensitive: "tCCD_L" is "tccd_l" as a datasheet writes it.
  for (const std::string& candidate : candidates) {
    if (same_ignoring_case(word, candidate)) return candidate;
  }
  // Allow about one typo per three characters (two for a swapped pair in a five-letter word), so
  // "chanels" finds "channels" and "widht" finds "width", but "x" finds nothing.
  const std::size_t limit = std::max<std::size_t>(1, (word.size() + 1) / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (!best.empty()) return best;
  // A key without its unit ("bank_width" for "bank_width_bytes"), then one with a unit the key does
  // not take ("clock_mhz" for "clock"), then one with another unit ("capacity_bytes" for
  // "capacity_kib"): the same name before the last "_". Of several, the first.
  const std::string word_stem = unit_stem(word);
  for (int relation = 0; relation < 3; ++relation) {
    for (const std::string& candidate : candidates) {
      const std::string candidate_stem = unit_stem(candidate);
      const bool related = relation == 0   ? candidate_stem == word
                           : relation == 1 ? !word_stem.empty() && word_stem == candidate
                                           : !word_stem.empty() && word_stem == candidate_stem;
      if (related) return candidate;
    }
  }
  return "";
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string match = closest_match(word, candidates);
  if (match.empty()) return std::string();
  const bool case_only = same_ignoring_case(word, match);
  return " (did you mean \"" + match + "\"?" + (case_only ? " names are case-sensitive" : "") + ")";
}

}  // namespace reusesim::util
