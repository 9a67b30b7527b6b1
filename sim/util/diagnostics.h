#pragma once
// Error reporting for every input file: each problem is collected with its origin so that all
// of them can be shown at once, as `file:line:col: error: key.path: message`.

#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace reusesim::util {

// Where a value came from. line/column are 1-based; line 0 means "no line", e.g. a value
// given on the command line with --set (then `file` holds the whole `--set ...` argument).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

struct Diagnostic {
  SourceLocation location;
  std::string key_path;  // e.g. "layers.conv1.kernel"; empty when the whole file is at fault
  std::string message;
};

// "file:line:col", or just the file (the --set argument) when there is no line.
std::string format_location(const SourceLocation& location);
std::string format_diagnostic(const Diagnostic& diagnostic);

class Diagnostics {
 public:
  void error(const SourceLocation& location, const std::string& key_path, const std::string& message);
  bool empty() const { return errors_.empty(); }
  std::size_t size() const { return errors_.size(); }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  // All messages, one per line, in the order they were found.
  std::string to_string() const;
  // The errors as a reader meets them: files in the order first met, then by line and column.
  std::vector<Diagnostic> in_reading_order() const;
  // Throws InputError carrying every message when any error was recorded.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> errors_;
  std::unordered_set<std::string> reported_;  // errors_ formatted
};

// Bad input (exit code 2): what() holds every formatted diagnostic, one per line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// The candidate `word` was probably meant to be, or "" when nothing is close: one that differs only
// in case, else the closest within a small edit distance, else one with the same name before a
// unit suffix ("bank_width" -> "bank_width_bytes", "capacity_bytes" -> "capacity_kib").
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// " (did you mean \"x\"?)", " (did you mean \"x\"? names are case-sensitive)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace reusesim::util
