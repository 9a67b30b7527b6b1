#include "config/config_node.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "util/utf8.h"

namespace reusesim::config {

namespace {

// Aliases can make a tiny file expand exponentially ("billion laughs"); no real config is near this.
constexpr std::size_t kMaxNodes = 1'000'000;
constexpr int kMaxDepth = 64;

std::string too_large_message() {
  return "document too large or too deeply nested (limits: " + std::to_string(kMaxNodes) + " values, depth " +
         std::to_string(kMaxDepth) + ")";
}

util::SourceLocation location_of(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return util::SourceLocation{file, 0, 0};
  return util::SourceLocation{file, mark.line + 1, mark.column + 1};
}

// Records where each document starts and ignores the rest.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where the documents of `text` start. yaml-cpp 0.7's LoadAll never returns on a token that no
// document can take (a "," after a complete list, as in `[1, 2],`): each call "parses" one more
// empty document at the same place, and memory grows until the process dies. Here a document
// that starts where the previous one did is that syntax error (YAML::ParserException).
std::vector<YAML::Mark> document_starts(const std::string& text) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts handler;
  while (parser.HandleNextDocument(handler)) {
    const std::vector<YAML::Mark>& starts = handler.starts;
    if (starts.size() >= 2 && starts.back().pos == starts[starts.size() - 2].pos) {
      const auto at = static_cast<std::size_t>(starts.back().pos);
      std::size_t end = at + 1;  // the whole character (the text is UTF-8)
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) ++end;
      throw YAML::ParserException(starts.back(), "unexpected \"" + text.substr(at, end - at) + "\"");
    }
  }
  return handler.starts;
}

// Line and column (1-based, in bytes) of text[offset].
util::SourceLocation location_of_offset(const std::string& file, const std::string& text, std::size_t offset) {
  const std::size_t line_start = offset == 0 ? 0 : text.rfind('\n', offset - 1) + 1;
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n') + 1;
  return util::SourceLocation{file, static_cast<int>(line), static_cast<int>(offset - line_start) + 1};
}

// Key paths are prefixed onto nested problems; the entry's path is its parent's plus its key.
std::string join_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// A --set key path split into segments: `a.b` is two, and `a[b.c]` is `a` then the key `b.c`
// taken whole (a key that contains dots, such as a run file's sweep axis `dram.channels`).
struct KeyPath {
  std::vector<std::string> segments;
  std::size_t length = 0;  // where the path ends: the first `=` outside brackets, or the end
  std::string error;       // why the path is malformed ("" when it is not)
};

KeyPath split_key_path(const std::string& assignment) {
  KeyPath path;
  std::size_t i = 0;
  const auto at = [&](char c) { return i < assignment.size() && assignment[i] == c; };
  while (true) {
    if (at('[')) {
      const std::size_t close = assignment.find_first_of("]=", i);
      if (close == std::string::npos || assignment[close] == '=') {
        path.error = "a [ is not closed by ] before the =";
        return path;
      }
      path.segments.push_back(assignment.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      const std::size_t end = std::min(assignment.find_first_of(".[]=", i), assignment.size());
      path.segments.push_back(assignment.substr(i, end - i));
      i = end;
      if (at(']')) {
        path.error = "a ] without a [ before it";
        return path;
      }
    }
    if (at('.')) {
      ++i;
    } else if (!at('[')) {
      break;
    }
  }
  if (i < assignment.size() && assignment[i] != '=') path.error = "expected ., [ or = after ]";
  path.length = i;
  return path;
}

// The key path of an empty mapping in `value` (itself, or under its keys), or nullopt. A mapping
// given over a preset's merges into it key by key, so `power={}` would change nothing there and
// empty the block elsewhere: an override names the fields it changes. (Lists are set whole:
// `output_path=[]` empties one.)
std::optional<std::string> empty_mapping_in(const ConfigNode& value, const std::string& path) {
  if (!value.is_map()) return std::nullopt;
  if (value.entries.empty()) return path;
  for (const ConfigEntry& entry : value.entries) {
    if (auto found = empty_mapping_in(entry.value, join_path(path, entry.key))) return found;
  }
  return std::nullopt;
}

bool is_index(const std::string& text) {
  return !text.empty() && text.size() < 10 && text.find_first_not_of("0123456789") == std::string::npos;
}

// A list element is named by its `name` key when it has one (as --set addresses it), else by index.
std::string item_segment(const YAML::Node& item, std::size_t index) {
  if (item.IsMap()) {
    const YAML::Node name = item["name"];
    if (name && name.IsScalar()) return name.Scalar();
  }
  return std::to_string(index);
}

class Converter {
 public:
  Converter(std::string file, util::Diagnostics& diagnostics) : file_(std::move(file)), diagnostics_(diagnostics) {}

  ConfigNode convert(const YAML::Node& node, int depth, const std::string& path) {
    ConfigNode result;
    result.location = location_of(node.Mark());
    if (++node_count_ > kMaxNodes || depth > kMaxDepth) {
      if (!too_large_reported_) {
        diagnostics_.error(result.location, "", too_large_message());
        too_large_reported_ = true;
      }
      return result;
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        result.kind = ConfigNode::Kind::scalar;
        result.scalar = node.Scalar();
        break;
      case YAML::NodeType::Sequence:
        result.kind = ConfigNode::Kind::sequence;
        for (const YAML::Node& item : node) {
          result.items.push_back(convert(item, depth + 1, join_path(path, item_segment(item, result.items.size()))));
        }
        break;
      case YAML::NodeType::Map: {
        result.kind = ConfigNode::Kind::map;
        // Where each key was first given: found by hash, as a map may have a million keys.
        std::unordered_map<std::string, int> first_lines;
        for (auto it = node.begin(); it != node.end(); ++it) {
          add_entry(result, it->first, it->second, depth, path, first_lines);
        }
        break;
      }
      default:
        break;
    }
    return result;
  }

 private:
  void add_entry(ConfigNode& map, const YAML::Node& key, const YAML::Node& value, int depth, const std::string& path,
                 std::unordered_map<std::string, int>& first_lines) {
    const util::SourceLocation key_location = location_of(key.Mark());
    if (!key.IsScalar()) {
      diagnostics_.error(key_location, "", "a key must be a plain word, not a list or mapping");
      return;
    }
    const std::string& name = key.Scalar();
    // yaml-cpp keeps a merge key as a plain key named "<<" and merges nothing, so the values it
    // names would be lost without a word.
    if (name == "<<" && key.Tag() != "!") {
      diagnostics_.error(key_location, join_path(path, name),
                         "YAML merge keys (<<) are not supported: write the keys out (a model can share layers through blocks)");
      return;
    }
    const auto [first, is_new] = first_lines.emplace(name, key_location.line);
    if (!is_new) {
      diagnostics_.error(key_location, join_path(path, name),
                         "duplicate key (first given at line " + std::to_string(first->second) + ")");
      return;
    }
    map.entries.push_back(ConfigEntry{name, key_location, convert(value, depth + 1, join_path(path, name))});
  }

  util::SourceLocation location_of(const YAML::Mark& mark) const { return config::location_of(file_, mark); }

  std::string file_;
  util::Diagnostics& diagnostics_;
  std::size_t node_count_ = 0;
  bool too_large_reported_ = false;
};

}  // namespace

const ConfigNode* ConfigNode::find(const std::string& key) const {
  for (const ConfigEntry& entry : entries) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(const std::string& key) {
  return const_cast<ConfigNode*>(static_cast<const ConfigNode*>(this)->find(key));
}

std::string ConfigNode::describe() const {
  switch (kind) {
    case Kind::scalar: return "\"" + scalar + "\"";
    case Kind::sequence: return items.empty() ? "an empty list" : "a list";
    case Kind::map: return "a mapping";
    default: return "nothing";
  }
}

ConfigNode load_yaml_text(const std::string& text, const std::string& origin, util::Diagnostics& diagnostics) {
  // YAML is Unicode text, and what is read from it ends up in JSON reports.
  if (const auto offset = util::invalid_utf8_offset(text)) {
    diagnostics.error(location_of_offset(origin, text, *offset), "",
                      "expected UTF-8 text, got " + util::describe_byte(text[*offset]));
    return ConfigNode{};
  }
  // YAML allows no control characters but tab, line feed and carriage return (YAML 1.2, 5.1), and
  // yaml-cpp garbles what follows a NUL into bytes that are not UTF-8 (found by fuzzing: a name
  // "big<04><00>_linear" came out as "big<04><a0>linear" and the JSON report threw).
  const auto control = std::find_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
  });
  if (control != text.end()) {
    diagnostics.error(location_of_offset(origin, text, static_cast<std::size_t>(control - text.begin())), "",
                      "expected YAML text, got " + util::describe_byte(*control) +
                          ", a control character (YAML allows only tab, line feed and carriage return)");
    return ConfigNode{};
  }
  std::vector<YAML::Mark> starts;
  YAML::Node document;
  try {
    starts = document_starts(text);
    if (starts.size() == 1) document = YAML::Load(text);
  } catch (const YAML::DeepRecursion& error) {
    diagnostics.error(location_of(origin, error.mark), "", too_large_message());
    return ConfigNode{};
  } catch (const YAML::Exception& error) {
    diagnostics.error(location_of(origin, error.mark), "", "YAML syntax error: " + error.msg);
    return ConfigNode{};
  }
  if (starts.size() > 1) {
    diagnostics.error(util::SourceLocation{origin, starts[1].line + 1, 1}, "",
                      "expected one YAML document, found " + std::to_string(starts.size()));
    return ConfigNode{};
  }
  if (starts.empty()) {
    ConfigNode empty;
    empty.location = util::SourceLocation{origin, 1, 1};
    return empty;
  }
  const std::size_t errors_before = diagnostics.size();
  Converter converter(origin, diagnostics);
  ConfigNode root = converter.convert(document, 0, "");
  if (diagnostics.size() != errors_before) return ConfigNode{};
  if (root.location.line == 0) root.location = util::SourceLocation{origin, 1, 1};
  return root;
}

std::string not_a_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  // A path that does not exist is left for opening to report.
  if (error || fs::is_regular_file(status)) return "";
  // Reading a FIFO waits for a writer that may never come, and a device may never end: inputs are
  // files, so nothing a user names can make ReuseSim hang.
  const std::string kind = fs::is_directory(status)        ? "a directory"
                           : fs::is_fifo(status)           ? "a FIFO (named pipe)"
                           : fs::is_character_file(status) ? "a character device"
                           : fs::is_block_file(status)     ? "a block device"
                           : fs::is_socket(status)         ? "a socket"
                                                           : "of an unknown kind";
  return "is " + kind + ", not a regular file; inputs are read from regular files";
}

namespace {
InputFileLog* active_log = nullptr;
}  // namespace

InputFileLog::InputFileLog() : outer_(active_log) { active_log = this; }
InputFileLog::~InputFileLog() { active_log = outer_; }

std::optional<std::string> read_input_file(const std::string& path, std::size_t max_bytes, util::Diagnostics& diagnostics) {
  const util::SourceLocation location{path, 0, 0};
  const auto too_large = [&] {
    diagnostics.error(location, "", "larger than " + std::to_string(max_bytes >> 20) +
                                        " MiB, the most an input file of its kind may have");
    return std::nullopt;
  };
  if (const std::string kind = not_a_regular_file(path); !kind.empty()) {
    diagnostics.error(location, "", kind);
    return std::nullopt;
  }
  std::error_code error;
  if (std::filesystem::file_size(path, error) > max_bytes && !error) return too_large();
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    diagnostics.error(location, "", "cannot open file");
    return std::nullopt;
  }
  std::string text;
  std::vector<char> chunk(std::size_t{1} << 16);
  while (stream.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || stream.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(stream.gcount()));
    if (text.size() > max_bytes) return too_large();
  }
  if (stream.bad()) {
    diagnostics.error(location, "", "cannot read file");
    return std::nullopt;
  }
  if (active_log != nullptr) active_log->files_.emplace_back(path, text);
  return text;
}

ConfigNode load_yaml_file(const std::string& path, util::Diagnostics& diagnostics) {
  // 600 times the largest shipped model; a million values (kMaxNodes) fit.
  constexpr std::size_t kMaxYamlBytes = std::size_t{64} << 20;
  const std::optional<std::string> text = read_input_file(path, kMaxYamlBytes, diagnostics);
  return text ? load_yaml_text(*text, path, diagnostics) : ConfigNode{};
}

namespace {

const std::vector<std::string>& kind_keys(FileKind kind) {
  static const std::vector<std::string> model{"layers"}, accelerator{"compute"}, dram{"standard", "preset"},
      run{"models", "accelerators"}, technology{"node_nm", "preset"}, system{"chips"};
  switch (kind) {
    case FileKind::model: return model;
    case FileKind::accelerator: return accelerator;
    case FileKind::dram: return dram;
    case FileKind::technology: return technology;
    case FileKind::system:
      return system;
    default: return run;
  }
}

const std::string* first_key_of(const ConfigNode& root, FileKind kind) {
  for (const std::string& key : kind_keys(kind)) {
    if (root.find(key) != nullptr) return &key;
  }
  return nullptr;
}

constexpr FileKind kFileKinds[] = {FileKind::model, FileKind::accelerator, FileKind::run,
                                   FileKind::dram,  FileKind::technology,  FileKind::system};

}  // namespace

std::string file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::model: return "model";
    case FileKind::accelerator: return "accelerator";
    case FileKind::dram: return "DRAM";
    case FileKind::technology: return "technology";
    case FileKind::system:
      return "system";
    default: return "run";
  }
}

std::optional<FileKind> file_kind_of(const ConfigNode& root) {
  for (FileKind kind : kFileKinds) {
    if (first_key_of(root, kind) != nullptr) return kind;
  }
  return std::nullopt;
}

void expect_file_kind(const ConfigNode& root, FileKind expected, util::Diagnostics& diagnostics) {
  if (!root.is_map() || first_key_of(root, expected) != nullptr) return;
  const std::optional<FileKind> kind = file_kind_of(root);
  if (!kind) return;
  diagnostics.error(root.location, "",
                    "this is " + std::string(*kind == FileKind::accelerator ? "an " : "a ") + file_kind_name(*kind) +
                        " file (it has `" + *first_key_of(root, *kind) + ":`), not " +
                        (expected == FileKind::accelerator ? "an " : "a ") + file_kind_name(expected) + " file");
}

ConfigNode load_document(const DocumentSource& source, FileKind expected, const std::vector<std::string>& overrides,
                         util::Diagnostics& diagnostics) {
  ConfigNode root = source.text ? load_yaml_text(*source.text, source.origin, diagnostics)
                                : load_yaml_file(source.origin, diagnostics);
  diagnostics.throw_if_any();
  expect_file_kind(root, expected, diagnostics);
  diagnostics.throw_if_any();
  for (const std::string& assignment : overrides) apply_override(root, assignment, diagnostics);
  diagnostics.throw_if_any();
  return root;
}

std::string relative_to(const std::string& origin, const std::string& path) {
  if (std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(origin).parent_path() / path).lexically_normal().string();
}

SplitOverrides split_overrides(const std::vector<std::string>& overrides, const std::string& prefix) {
  SplitOverrides split;
  for (const std::string& assignment : overrides) {
    if (assignment.rfind(prefix, 0) == 0) {
      split.under_prefix.push_back(assignment.substr(prefix.size()));
    } else {
      split.rest.push_back(assignment);
    }
  }
  return split;
}

std::string override_origin(const std::string& assignment) { return "--set " + assignment; }

void apply_override(ConfigNode& root, const std::string& assignment, util::Diagnostics& diagnostics) {
  const util::SourceLocation origin{override_origin(assignment), 0, 0};
  const KeyPath key_path = split_key_path(assignment);
  const std::size_t equals = key_path.length;
  if (!key_path.error.empty() || equals == assignment.size() || equals == 0) {
    diagnostics.error(origin, "", key_path.error.empty() ? "expected key.path=value"
                                                         : key_path.error + " (expected key.path=value; a key that "
                                                                            "contains dots goes in brackets: "
                                                                            "sweep[dram.channels]=[1,2])");
    return;
  }
  const std::string path = assignment.substr(0, equals);
  const std::vector<std::string>& segments = key_path.segments;
  util::Diagnostics value_problems;
  ConfigNode value = load_yaml_text(assignment.substr(equals + 1), origin.file, value_problems);
  for (const util::Diagnostic& problem : value_problems.errors()) diagnostics.error(origin, path, problem.message);
  if (!value_problems.empty()) return;
  if (value.kind == ConfigNode::Kind::null) {
    diagnostics.error(origin, path,
                      "the override sets nothing: expected a value after the = (an override changes a "
                      "field; it cannot remove one)");
    return;
  }
  if (const std::optional<std::string> empty = empty_mapping_in(value, path)) {
    diagnostics.error(origin, *empty,
                      "{} (an empty mapping) sets nothing: an override changes the fields it names, "
                      "as " +
                          *empty +
                          ".<key>=value, and cannot empty a mapping (one given over a "
                          "preset's merges into it)");
    return;
  }
  // Every value that came from the command line reports the --set argument as its origin.
  struct Relocate {
    static void apply(ConfigNode& node, const util::SourceLocation& location) {
      node.location = location;
      for (ConfigNode& item : node.items) apply(item, location);
      for (ConfigEntry& entry : node.entries) {
        entry.key_location = location;
        apply(entry.value, location);
      }
    }
  };
  Relocate::apply(value, origin);

  ConfigNode* node = &root;
  std::string walked;
  for (const std::string& segment : segments) {
    if (segment.empty()) {
      diagnostics.error(origin, path, "empty segment in key path");
      return;
    }
    if (node->kind == ConfigNode::Kind::null) node->kind = ConfigNode::Kind::map;
    if (node->is_map()) {
      ConfigNode* child = node->find(segment);
      if (child == nullptr) {
        node->entries.push_back(ConfigEntry{segment, origin, ConfigNode{}});
        child = &node->entries.back().value;
        child->location = origin;
      }
      node = child;
    } else if (node->is_sequence()) {
      ConfigNode* child = nullptr;
      std::vector<std::string> names;
      for (ConfigNode& item : node->items) {
        const ConfigNode* name = item.find("name");
        if (name != nullptr && name->is_scalar()) {
          names.push_back(name->scalar);
          if (name->scalar == segment && child == nullptr) child = &item;
        }
      }
      if (child == nullptr && is_index(segment)) {
        const std::size_t index = std::stoul(segment);
        if (index < node->items.size()) child = &node->items[index];
      }
      if (child == nullptr) {
        diagnostics.error(origin, join_path(walked, segment),
                          "no list element named or numbered \"" + segment + "\"" + util::did_you_mean(segment, names));
        return;
      }
      node = child;
    } else {
      diagnostics.error(origin, walked, "cannot descend into " + node->describe() + " to set " + path);
      return;
    }
    walked = join_path(walked, segment);
  }
  *node = std::move(value);
}

}  // namespace reusesim::config
