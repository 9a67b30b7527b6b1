#pragma once
// A YAML document as a plain tree that remembers where every value came from (file, line,
// column), rejects duplicate keys, and can take `--set key.path=value` overrides.
// yaml-cpp is used only to parse; nothing outside sim/config sees a YAML node.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/diagnostics.h"

namespace reusesim::config {

struct ConfigEntry;

class ConfigNode {
 public:
  enum class Kind { null, scalar, sequence, map };

  Kind kind = Kind::null;
  std::string scalar;                 // Kind::scalar
  std::vector<ConfigNode> items;      // Kind::sequence
  std::vector<ConfigEntry> entries;   // Kind::map, in file order
  util::SourceLocation location;

  bool is_map() const { return kind == Kind::map; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_scalar() const { return kind == Kind::scalar; }
  // The value under `key`, or nullptr.
  const ConfigNode* find(const std::string& key) const;
  ConfigNode* find(const std::string& key);
  // A short description for messages: the scalar in quotes, "a mapping", "a list" or "nothing".
  std::string describe() const;
};

struct ConfigEntry {
  std::string key;
  util::SourceLocation key_location;
  ConfigNode value;
};

// "" when `path` is a regular file (or does not exist), else what it is instead ("is a FIFO (named
// pipe), not a regular file; ..."): a FIFO without a writer or a device would block or never end.
std::string not_a_regular_file(const std::string& path);
// A whole input file, or nullopt with the problem recorded: missing, not a regular file,
// unreadable, or longer than `max_bytes` (a file may grow while it is read).
std::optional<std::string> read_input_file(const std::string& path, std::size_t max_bytes, util::Diagnostics& diagnostics);

// Collects the path (as given) and the text of every file read_input_file reads while it lives:
// the files a result depends on, as they were when read, which `trace` records. One log at a
// time; a nested one stands in for the outer.
class InputFileLog {
 public:
  InputFileLog();
  ~InputFileLog();
  InputFileLog(const InputFileLog&) = delete;
  InputFileLog& operator=(const InputFileLog&) = delete;
  const std::vector<std::pair<std::string, std::string>>& files() const { return files_; }

 private:
  friend std::optional<std::string> read_input_file(const std::string&, std::size_t, util::Diagnostics&);
  std::vector<std::pair<std::string, std::string>> files_;  // (path, text)
  InputFileLog* outer_;
};

// Parses a whole file (at most 64 MiB). Problems (missing file, syntax error, duplicate key,
// several documents) are recorded in `diagnostics`; the returned tree is then null.
ConfigNode load_yaml_file(const std::string& path, util::Diagnostics& diagnostics);
// Parses text as if it were the file `origin` (used by tests and for --set values).
ConfigNode load_yaml_text(const std::string& text, const std::string& origin, util::Diagnostics& diagnostics);

// Where a document comes from: the file `origin`, or `text` standing for it (tests, fuzzing).
struct DocumentSource {
  std::string origin;
  std::optional<std::string> text;
};

// The kinds of input file, told apart by their top-level keys: a model has `layers`, an
// accelerator `compute`, a DRAM file `standard` or `preset`, a run file `models` or `accelerators`,
// a system `chips`.
enum class FileKind { model, accelerator, dram, run, technology, system };
std::string file_kind_name(FileKind kind);
// The first kind whose keys `root` has, or nullopt.
std::optional<FileKind> file_kind_of(const ConfigNode& root);
// Records "this is an accelerator file ..., not a model file" when `root` has none of `expected`'s
// keys but another kind's: a file given in the wrong place otherwise reports a list of missing keys.
void expect_file_kind(const ConfigNode& root, FileKind expected, util::Diagnostics& diagnostics);

// The front half of every loader: parse the document, check it is of the `expected` kind and
// apply `--set` overrides. Throws InputError when anything is wrong so far.
ConfigNode load_document(const DocumentSource& source, FileKind expected, const std::vector<std::string>& overrides,
                         util::Diagnostics& diagnostics);

// A file another names: `path` as written in `origin`, relative to origin's directory unless absolute.
std::string relative_to(const std::string& origin, const std::string& path);

// Overrides routed by their first key: those under `prefix` ("model.", "chip.") with it taken off,
// for the file that key names, and the rest.
struct SplitOverrides {
  std::vector<std::string> under_prefix;
  std::vector<std::string> rest;
};
SplitOverrides split_overrides(const std::vector<std::string>& overrides, const std::string& prefix);
// Where an override's problems are reported: "--set key.path=value".
std::string override_origin(const std::string& assignment);

// Applies one `key.path=value` override. Path segments select map keys; on a list they select
// the element whose `name` is the segment, or the element at a numeric index. A segment in
// brackets is taken whole, dots and all: `sweep[dram.channels]=[1,2]`. A missing last
// map key is added, so validation then judges it like any key written in the file.
void apply_override(ConfigNode& root, const std::string& assignment, util::Diagnostics& diagnostics);

}  // namespace reusesim::config
