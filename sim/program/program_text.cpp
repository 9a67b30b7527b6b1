#include "program/program_text.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <tuple>

#include "spec/energy_spec.h"
#include "timing/array_timing.h"
#include "util/diagnostics.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace reusesim::program {

namespace {

constexpr const char* kHeader = "# reusesim data-movement program, version ";
constexpr std::size_t kMaxReported = 20;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// --- Writing ---------------------------------------------------------------------------------

std::string quote(const std::string& text) {
  static const char* const kHex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (is_control(c)) {
          const auto u = static_cast<unsigned char>(c);
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// A name or type: bare when it is one plain word, else quoted.
std::string word(const std::string& text) {
  const bool plain = !text.empty() && std::none_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || is_control(c) || c == '"' || c == '#' || c == '\\';
  });
  return plain ? text : quote(text);
}

// Mapping text: literal to the end of the line unless reading it back would change it.
std::string mapping_text(const std::string& text) {
  const bool literal = text.empty() || (text.front() != ' ' && text.front() != '"' && text.back() != ' ' &&
                                        std::none_of(text.begin(), text.end(), is_control));
  return literal ? text : quote(text);
}

std::string hex(std::uint64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string after_list(const std::vector<std::int32_t>& after) {
  if (after.empty()) return "-";
  std::string text;
  for (std::size_t i = 0; i < after.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(after[i]);
  return text;
}

// --- Reading ---------------------------------------------------------------------------------

struct Token {
  std::string text;  // a string's text after its escapes
  int column = 0;    // 1-based
  int end_column = 0;  // the column just after the token
  bool quoted = false;
};

int column_of(std::size_t index) { return static_cast<int>(index) + 1; }

std::size_t skip_blanks(const std::string& text, std::size_t i) {
  while (i < text.size() && is_blank(text[i])) ++i;
  return i;
}

std::string trim(const std::string& text) {
  std::size_t begin = skip_blanks(text, 0);
  std::size_t end = text.size();
  while (end > begin && is_blank(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// Decimal digits only (no sign); nullopt when not a number or beyond 64 bits.
std::optional<std::uint64_t> parse_decimal(const std::string& text) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const std::uint64_t value = std::strtoull(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

enum class Directive { layer, mapping, load, store, compute, vector, end, unknown };

Directive directive_of(const std::string& keyword) {
  if (keyword == "layer") return Directive::layer;
  if (keyword == "mapping") return Directive::mapping;
  if (keyword == "load") return Directive::load;
  if (keyword == "store") return Directive::store;
  if (keyword == "compute") return Directive::compute;
  if (keyword == "vector") return Directive::vector;
  if (keyword == "end") return Directive::end;
  return Directive::unknown;
}

const char* syntax_of(Directive directive) {
  switch (directive) {
    case Directive::layer:
      return "a layer line is: layer <name> type <type> batch <n> [onchip_inputs <bytes>] [onchip_outputs <bytes>] "
             "[passes <n>] [mac_format <format>]";
    case Directive::mapping: return "a mapping line is: mapping <text>";
    case Directive::load: return "a load line is: load <tensor> addr 0x<hex> bytes <n> after <steps>";
    case Directive::store: return "a store line is: store outputs addr 0x<hex> bytes <n> after <steps>";
    case Directive::compute:
      return "a compute line is: compute m <m> n <n> k <k> [groups <g>] [k_row <r>] [stationary inputs] [streamed "
             "weights] [unit vector] [mac_rate <r>] [kept_k <k>] vector_ops <ops> [stage_ops <ops>] bytes <n> "
             "[psum_read <n>] "
             "[psum_write <n>] after <steps>";
    case Directive::vector:
      return "a vector line is: vector ops <ops> [reads weights] bytes <n> after <steps>";
    case Directive::end: return "an end line is: end";
    default: return "";
  }
}

// The layer being read. At namespace scope: clang cannot yet use the default member initializers
// of a class nested in Reader for Reader's own std::optional member.
struct OpenLayer {
  ProgramRecord record;
  int line = 0;
  int mapping_line = 0;  // 0: no mapping line yet
  int passes_column = 1;
};

class Reader {
 public:
  Reader(std::string origin, std::uint64_t burst_bytes, const StepLimits& limits)
      : origin_(std::move(origin)), burst_bytes_(burst_bytes), limits_(limits) {}

  std::vector<ProgramRecord> read(const std::string& text) {
    int number = 0;
    for (std::size_t start = 0; start < text.size() && !too_long_;) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      read_line(text.substr(start, end - start), ++number);
      start = end + 1;
    }
    if (too_long_) throw ProgramFormatError(messages());
    if (open_) {
      error(open_->line, 1, "layer \"" + open_->record.program.layer + "\" has no \"end\"");
      close_layer(number);
    }
    if (records_.empty() && diagnostics_.empty()) error(0, 0, "the program has no layers");
    if (!diagnostics_.empty()) throw ProgramFormatError(messages());
    return std::move(records_);
  }

 private:
  // The fields of one line, taken in order; the first missing or misplaced one stops the line.
  class Fields {
   public:
    Fields(Reader& reader, int line, const std::vector<Token>& tokens, Directive directive)
        : reader_(reader), line_(line), tokens_(tokens), syntax_(syntax_of(directive)) {}

    // The next token, the value called `what` (e.g. "the layer name").
    const Token* positional(const std::string& what, bool may_quote = false) {
      return take("missing " + what, may_quote);
    }
    // `key` and the token after it.
    const Token* keyed(const std::string& key, bool may_quote = false) {
      const Token* name = take("missing \"" + key + "\"", false);
      if (name == nullptr) return nullptr;
      if (name->text != key) {
        fail(name->column, "expected \"" + key + "\", got \"" + name->text + "\"");
        return nullptr;
      }
      return take("missing a value after \"" + key + "\"", may_quote);
    }
    // `key` and the token after it when `key` comes next (an optional field), else nothing.
    const Token* optional_keyed(const std::string& key) {
      if (failed_ || next_ >= tokens_.size() || tokens_[next_].text != key) return nullptr;
      return keyed(key);
    }
    // Nothing may follow the last field.
    void finish() {
      if (!failed_ && next_ < tokens_.size()) fail(tokens_[next_].column, "unexpected \"" + tokens_[next_].text + "\"");
    }

   private:
    const Token* take(const std::string& missing, bool may_quote) {
      if (failed_) return nullptr;
      if (next_ >= tokens_.size()) {
        fail(tokens_.back().end_column, missing);
        return nullptr;
      }
      const Token& token = tokens_[next_++];
      if (token.quoted && !may_quote) {
        fail(token.column, "only layer names and types may be quoted");
        return nullptr;
      }
      return &token;
    }
    void fail(int column, const std::string& message) {
      reader_.error(line_, column, message + " (" + syntax_ + ")");
      failed_ = true;
    }

    Reader& reader_;
    int line_;
    const std::vector<Token>& tokens_;
    std::string syntax_;
    std::size_t next_ = 1;  // tokens_[0] is the keyword
    bool failed_ = false;
  };

  void error(int line, int column, const std::string& message) {
    // Enough to sort and keep the first kMaxReported by line; a broken file cannot flood memory.
    if (diagnostics_.size() < 100 * kMaxReported) diagnostics_.error(util::SourceLocation{origin_, line, column}, "", message);
  }

  // The first kMaxReported problems in reading order.
  std::vector<std::string> messages() const {
    std::vector<std::string> result;
    for (const util::Diagnostic& diagnostic : diagnostics_.in_reading_order()) {
      if (result.size() == kMaxReported) break;
      result.push_back(util::format_diagnostic(diagnostic));
    }
    return result;
  }

  // Splits text[i..] into tokens up to a comment or the end. False (reported) on a malformed string.
  bool tokenize(const std::string& text, std::size_t i, int line, std::vector<Token>& tokens) {
    while (true) {
      i = skip_blanks(text, i);
      if (i >= text.size() || text[i] == '#') return true;
      Token token;
      token.column = column_of(i);
      if (text[i] != '"') {
        std::size_t j = i;
        while (j < text.size() && !is_blank(text[j]) && text[j] != '#') ++j;
        token.text = text.substr(i, j - i);
        token.end_column = column_of(j);
        tokens.push_back(token);
        i = j;
        continue;
      }
      token.quoted = true;
      std::size_t j = i + 1;
      bool closed = false;
      while (j < text.size()) {
        const char c = text[j];
        if (c == '"') {
          closed = true;
          ++j;
          break;
        }
        if (c != '\\') {
          token.text += c;
          ++j;
          continue;
        }
        if (j + 1 >= text.size()) break;
        const char escape = text[j + 1];
        switch (escape) {
          case '"': token.text += '"'; break;
          case '\\': token.text += '\\'; break;
          case 't': token.text += '\t'; break;
          case 'n': token.text += '\n'; break;
          case 'r': token.text += '\r'; break;
          case 'x': {
            const int high = j + 2 < text.size() ? hex_digit(text[j + 2]) : -1;
            const int low = j + 3 < text.size() ? hex_digit(text[j + 3]) : -1;
            if (high < 0 || low < 0) {
              error(line, column_of(j), "\\x in a string needs two hexadecimal digits");
              return false;
            }
            token.text += static_cast<char>(high * 16 + low);
            j += 2;
            break;
          }
          default:
            error(line, column_of(j),
                  std::string("unknown escape \"\\") + escape + "\" in a string (known: \\\" \\\\ \\t \\n \\r \\xHH)");
            return false;
        }
        j += 2;
      }
      if (!closed) {
        error(line, token.column, "the string has no closing quote");
        return false;
      }
      if (j < text.size() && !is_blank(text[j]) && text[j] != '#') {
        error(line, column_of(j), "expected a space after the closing quote");
        return false;
      }
      token.end_column = column_of(j);
      tokens.push_back(token);
      i = j;
    }
  }

  void read_line(const std::string& text, int line) {
    const std::size_t start = skip_blanks(text, 0);
    if (start >= text.size()) return;
    if (text[start] == '#') {
      check_header(text, start, line);
      return;
    }
    if (text[start] == '"') {
      error(line, column_of(start), "expected a keyword, got a string");
      return;
    }
    std::size_t keyword_end = start;
    while (keyword_end < text.size() && !is_blank(text[keyword_end]) && text[keyword_end] != '#') ++keyword_end;
    const std::string keyword = text.substr(start, keyword_end - start);
    const Directive directive = directive_of(keyword);
    if (directive == Directive::unknown) {
      error(line, column_of(start),
            "unknown keyword \"" + keyword + "\" (a line is layer, mapping, load, store, compute, vector or end)");
      return;
    }
    if (directive == Directive::layer) {
      if (open_) {
        error(open_->line, 1, "layer \"" + open_->record.program.layer + "\" has no \"end\" (the next layer starts on line " +
                                  std::to_string(line) + ")");
        close_layer(line);
      }
    } else if (!open_) {
      error(line, column_of(start),
            directive == Directive::end
                ? std::string("\"end\" without a layer")
                : "\"" + keyword + "\" outside a layer: mapping and step lines go between \"layer\" and \"end\"");
      return;
    }
    if (directive == Directive::mapping) {
      read_mapping(text, start, keyword_end, line);
      return;
    }
    if (directive != Directive::layer && open_->mapping_line == 0) {
      error(line, column_of(start), "expected \"mapping <text>\" after the layer line, got \"" + keyword + "\"");
      open_->mapping_line = -1;  // reported once
    }
    std::vector<Token> tokens;
    const bool tokenized = tokenize(text, start, line, tokens);
    switch (directive) {
      case Directive::layer: read_layer(tokens, tokenized, line); break;
      case Directive::end:
        if (tokenized) Fields(*this, line, tokens, directive).finish();
        close_layer(line);
        break;
      default: {
        // A step line takes its index even when it is malformed, so later indices stay as written.
        Step step;
        if (tokenized) step = read_step(directive, tokens, line);
        open_->record.program.steps.push_back(std::move(step));
        open_->record.step_lines.push_back(line);
        check_step_limits(line);
      }
    }
  }

  // By default the limits of run (program/program.h), so that a replay stays within the memory
  // and time of one: the first step beyond them stops the reading.
  void check_step_limits(int line) {
    ++steps_;
    if (open_->record.program.steps.size() > limits_.layer_steps) {
      error(line, 1, "layer \"" + open_->record.program.layer + "\" has more than " +
                         std::to_string(limits_.layer_steps) +
                         " steps, the limit of one layer (as in reusesim run); split it into several layers");
      too_long_ = true;
    } else if (steps_ > limits_.total_steps) {
      error(line, 1, "the program has more than " + std::to_string(limits_.total_steps) +
                         " steps, the limit of one replay (as of one reusesim run); split it into several files");
      too_long_ = true;
    }
  }

  void check_header(const std::string& text, std::size_t hash, int line) {
    if (text.compare(hash, std::strlen(kHeader), kHeader) != 0) return;
    const std::size_t at = skip_blanks(text, hash + std::strlen(kHeader));
    const std::string version = trim(text.substr(at));
    if (version != std::to_string(kProgramFormatVersion)) {
      error(line, column_of(at), "unsupported format version \"" + version + "\" (this reader knows version " +
                                     std::to_string(kProgramFormatVersion) + ")");
    }
  }

  void read_layer(const std::vector<Token>& tokens, bool tokenized, int line) {
    open_.emplace();
    open_->line = line;
    open_->record.layer_line = line;
    if (!tokenized) return;
    Fields fields(*this, line, tokens, Directive::layer);
    if (const Token* name = fields.positional("the layer name", true)) {
      open_->record.program.layer = utf8_text(name->text, "the layer name", line, name->column);
    }
    if (const Token* type = fields.keyed("type", true)) {
      open_->record.program.type = utf8_text(type->text, "the layer type", line, type->column);
    }
    if (const Token* batch = fields.keyed("batch")) {
      const auto value = parse_decimal(batch->text);
      if (!value || *value < 1 || *value > static_cast<std::uint64_t>(kMaxProgramBatch)) {
        error(line, batch->column, "expected a batch size from 1 to " + std::to_string(kMaxProgramBatch) + ", got \"" +
                                       batch->text + "\"");
      } else {
        open_->record.batch = static_cast<std::int64_t>(*value);
      }
    }
    // Residency across layers: bytes read from and kept in on-chip data (0 when absent).
    LayerProgram& program = open_->record.program;
    if (const Token* bytes = fields.optional_keyed("onchip_inputs")) program.onchip_input_bytes = read_total(bytes, line);
    if (const Token* bytes = fields.optional_keyed("onchip_outputs")) program.onchip_output_bytes = read_total(bytes, line);
    // Sub-batches: the steps in that many equal parts (1 when absent).
    if (const Token* passes = fields.optional_keyed("passes")) {
      program.passes = std::max<std::int64_t>(1, read_count(passes, "passes", 1, line));
      open_->passes_column = passes->column;
    }
    // The native format its GEMM's tiles multiply the weights in (absent: the operand type).
    if (const Token* format = fields.optional_keyed("mac_format")) {
      const std::vector<std::string> formats = spec::operand_types();
      if (std::find(formats.begin(), formats.end(), format->text) == formats.end()) {
        error(line, format->column,
              "expected a number format (" + util::join(formats, ", ") + "), got \"" + format->text + "\"");
      } else {
        program.mac_format = format->text;
      }
    }
    fields.finish();
  }

  void read_mapping(const std::string& text, std::size_t start, std::size_t keyword_end, int line) {
    if (open_->mapping_line > 0) {
      error(line, column_of(start),
            "a layer has one mapping line; the first is on line " + std::to_string(open_->mapping_line));
      return;
    }
    // mapping_line -1: a step came first, which was reported there; take the text all the same.
    open_->mapping_line = line;
    const std::size_t at = skip_blanks(text, keyword_end);
    if (at < text.size() && text[at] == '"') {
      std::vector<Token> tokens{Token{"mapping", column_of(start), column_of(keyword_end), false}};
      if (!tokenize(text, at, line, tokens)) return;
      open_->record.program.mapping = utf8_text(tokens[1].text, "the mapping text", line, tokens[1].column);
      if (tokens.size() > 2) {
        error(line, tokens[2].column,
              "unexpected \"" + tokens[2].text + "\" after the quoted mapping text (" + syntax_of(Directive::mapping) + ")");
      }
      return;
    }
    open_->record.program.mapping = utf8_text(trim(text.substr(at)), "the mapping text", line, column_of(at));
  }

  // Text that reaches the reports, whose JSON must be UTF-8: reported where it is written if not.
  const std::string& utf8_text(const std::string& text, const std::string& what, int line, int column) {
    if (const auto offset = util::invalid_utf8_offset(text)) {
      error(line, column, "expected UTF-8 text in " + what + ", got " + util::describe_byte(text[*offset]));
    }
    return text;
  }

  // Numbers -----------------------------------------------------------------------------------

  std::uint64_t read_address(const Token* token, int line) {
    if (token == nullptr) return 0;
    const std::string& text = token->text;
    std::uint64_t value = 0;
    bool ok = text.size() > 2 && text.size() <= 18 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    for (std::size_t i = 2; ok && i < text.size(); ++i) {
      const int digit = hex_digit(text[i]);
      ok = digit >= 0;
      value = value * 16 + static_cast<std::uint64_t>(std::max(digit, 0));
    }
    if (!ok || value > kMaxProgramAddress) {
      error(line, token->column, "expected an address 0x<hex> below 2^48, got \"" + text + "\"");
      return 0;
    }
    return value;
  }

  std::uint64_t read_bytes(const Token* token, int line) {
    if (token == nullptr) return 0;
    const auto value = parse_decimal(token->text);
    if (value && *value == 0) {
      error(line, token->column, "bytes is 0: every step moves or reads at least one byte");
    } else if (!value || *value > kMaxStepBytes) {
      error(line, token->column, "expected a byte count from 1 to 2^40, got \"" + token->text + "\"");
    } else {
      return *value;
    }
    return 0;
  }

  // A layer's byte total, from 0 to 2^62; 0 when wrong (reported).
  std::int64_t read_total(const Token* token, int line) {
    const auto value = parse_decimal(token->text);
    if (!value || *value > static_cast<std::uint64_t>(kMaxLayerTotal)) {
      error(line, token->column, "expected a byte count from 0 to 2^62, got \"" + token->text + "\"");
      return 0;
    }
    return static_cast<std::int64_t>(*value);
  }

  // A count from `low` (0 or 1) to 2^50; -1 when wrong (reported).
  std::int64_t read_count(const Token* token, const std::string& name, std::int64_t low, int line) {
    if (token == nullptr) return -1;
    const auto value = parse_decimal(token->text);
    if (!value || *value < static_cast<std::uint64_t>(low) || *value > static_cast<std::uint64_t>(kMaxStepCount)) {
      error(line, token->column,
            "expected " + name + " from " + std::to_string(low) + " to 2^50, got \"" + token->text + "\"");
      return -1;
    }
    return static_cast<std::int64_t>(*value);
  }

  // Which buffer a compute step reads an operand from: `weights` or `inputs`, the one other than
  // `usual` giving true; absent: the usual one (false).
  bool read_buffer(const Token* token, const std::string& name, const std::string& usual, int line) {
    if (token == nullptr || token->text == usual) return false;
    if (token->text == "weights" || token->text == "inputs") return true;
    error(line, token->column, name + ": expected weights or inputs, got \"" + token->text + "\"");
    return false;
  }

  std::vector<std::int32_t> read_after(const Token* token, std::size_t index, int line) {
    std::vector<std::int32_t> after;
    if (token == nullptr || token->text == "-") return after;
    const std::string& text = token->text;
    const bool well_formed = text.front() != ',' && text.back() != ',' && text.find(",,") == std::string::npos &&
                             text.find_first_not_of("0123456789,") == std::string::npos;
    if (!well_formed) {
      error(line, token->column, "expected earlier step numbers separated by commas, or \"-\", got \"" + text + "\"");
      return after;
    }
    std::size_t begin = 0;
    while (begin <= text.size()) {
      std::size_t end = text.find(',', begin);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(begin, end - begin);
      const int column = token->column + static_cast<int>(begin);
      const auto value = parse_decimal(item);
      if (!value || *value >= index) {
        error(line, column, "step " + std::to_string(index) + " cannot wait for step " + item +
                                ": only earlier steps can be listed");
      } else if (std::find(after.begin(), after.end(), static_cast<std::int32_t>(*value)) != after.end()) {
        error(line, column, "step " + item + " is listed twice");
      } else {
        after.push_back(static_cast<std::int32_t>(*value));
      }
      begin = end + 1;
    }
    return after;
  }

  Step read_step(Directive directive, const std::vector<Token>& tokens, int line) {
    const std::size_t index = open_->record.program.steps.size();
    Fields fields(*this, line, tokens, directive);
    Step step;
    switch (directive) {
      case Directive::load:
      case Directive::store: {
        step.kind = directive == Directive::load ? StepKind::load : StepKind::store;
        if (const Token* tensor = fields.positional("the tensor")) {
          const std::vector<std::pair<std::string, TensorRole>> roles{{"weights", TensorRole::weights},
                                                                      {"inputs", TensorRole::inputs},
                                                                      {"outputs", TensorRole::outputs},
                                                                      {"state", TensorRole::state},
                                                                      {"kv_cache", TensorRole::kv_cache}};
          const auto role = std::find_if(roles.begin(), roles.end(), [&](const auto& r) { return r.first == tensor->text; });
          if (directive == Directive::store && tensor->text != "outputs") {
            error(line, tensor->column, "a store writes outputs, got \"" + tensor->text + "\"");
          } else if (role == roles.end()) {
            error(line, tensor->column,
                  "unknown tensor \"" + tensor->text + "\" (expected weights, inputs, outputs, state or kv_cache)");
          } else {
            step.tensor = role->second;
          }
        }
        step.address = read_address(fields.keyed("addr"), line);
        step.bytes = read_bytes(fields.keyed("bytes"), line);
        break;
      }
      case Directive::compute: {
        step.kind = StepKind::compute;
        const Token* m = fields.keyed("m");
        const std::int64_t m_value = read_count(m, "m", 1, line);
        const std::int64_t n_value = read_count(fields.keyed("n"), "n", 1, line);
        const std::int64_t k_value = read_count(fields.keyed("k"), "k", 1, line);
        const Token* groups = fields.optional_keyed("groups");
        const std::int64_t groups_value = groups == nullptr ? 1 : read_count(groups, "groups", 1, line);
        // A kernel row shorter than k (vector-MAC lanes along kernel_row); absent: all of k.
        const Token* k_row = fields.optional_keyed("k_row");
        const std::int64_t k_row_value = k_row == nullptr ? 0 : read_count(k_row, "k_row", 1, line);
        if (m_value > 0 && n_value > 0 && k_value > 0 && groups_value > 0) {
          if (m_value > kMaxStepCount / n_value || m_value * n_value > kMaxStepCount / k_value ||
              m_value * n_value * k_value > kMaxStepCount / groups_value) {
            error(line, m->column, std::string(groups == nullptr ? "" : "groups x ") + "m x n x k is more than 2^50 MACs");
          } else {
            step.gemm = timing::GemmShape{m_value, n_value, k_value, groups_value, std::max<std::int64_t>(0, k_row_value)};
            step.macs = step.gemm.macs();
          }
        }
        step.stationary_in_inputs = read_buffer(fields.optional_keyed("stationary"), "stationary", "weights", line);
        step.streamed_in_weights = read_buffer(fields.optional_keyed("streamed"), "streamed", "inputs", line);
        if (const Token* unit = fields.optional_keyed("unit")) {
          if (const auto value = util::from_name<timing::GemmUnit>(unit->text)) {
            step.unit = *value;
          } else {
            error(line, unit->column, "unit: expected array or vector, got \"" + unit->text + "\"");
          }
        }
        // Weights in a format the array multiplies natively, at this MAC rate (absent: 1).
        if (const Token* rate = fields.optional_keyed("mac_rate")) {
          step.mac_rate = std::max<std::int64_t>(1, read_count(rate, "mac_rate", 1, line));
        }
        // N:M sparse weights whose zeros the array skips: the K it sums over (absent: all of k).
        if (const Token* kept = fields.optional_keyed("kept_k")) {
          step.kept_k = std::max<std::int64_t>(0, read_count(kept, "kept_k", 1, line));
          if (step.kept_k > k_value) {
            error(line, kept->column,
                  "kept_k " + kept->text + " is more than the step's k (" + std::to_string(k_value) + ")");
          }
        }
        step.vector_ops = std::max<std::int64_t>(0, read_count(fields.keyed("vector_ops"), "vector_ops", 0, line));
        // The output path's busiest stage (absent: all of vector_ops in one stage).
        if (const Token* stage = fields.optional_keyed("stage_ops")) {
          step.stage_ops = std::max<std::int64_t>(0, read_count(stage, "stage_ops", 1, line));
          if (step.stage_ops > step.vector_ops) {
            error(line, stage->column,
                  "stage_ops " + stage->text + " is more than the step's vector_ops (" +
                      std::to_string(step.vector_ops) + ")");
          }
        }
        step.bytes = read_bytes(fields.keyed("bytes"), line);
        // Partial sums the accumulators spilled to the output buffer (absent: none).
        if (const Token* psum = fields.optional_keyed("psum_read")) step.psum_read_bytes = read_bytes(psum, line);
        if (const Token* psum = fields.optional_keyed("psum_write")) step.psum_write_bytes = read_bytes(psum, line);
        break;
      }
      default: {
        step.kind = StepKind::vector;
        step.vector_ops = std::max<std::int64_t>(0, read_count(fields.keyed("ops"), "ops", 0, line));
        // A dequantization reads the weight buffer (absent: the input buffer).
        step.streamed_in_weights = read_buffer(fields.optional_keyed("reads"), "reads", "inputs", line);
        step.bytes = read_bytes(fields.keyed("bytes"), line);
        break;
      }
    }
    step.after = read_after(fields.keyed("after"), index, line);
    fields.finish();
    return step;
  }

  // Ends the open layer at `line`: its totals, as the mapper's ProgramBuilder keeps them.
  void close_layer(int line) {
    LayerProgram& program = open_->record.program;
    bool overflow[4] = {false, false, false, false};
    const auto add = [&](std::int64_t& total, std::int64_t value, int which) {
      if (overflow[which]) return;
      total += value;
      if (total > kMaxLayerTotal) overflow[which] = true;
    };
    for (const Step& step : program.steps) {
      const auto extent = static_cast<std::int64_t>(burst_extent(step.address, step.bytes, burst_bytes_));
      if (step.kind == StepKind::load) add(program.dram_read_bytes, extent, 2);
      if (step.kind == StepKind::store) add(program.dram_write_bytes, extent, 3);
      add(program.macs, step.macs, 0);
      add(program.vector_ops, step.vector_ops, 1);
      // A dequantization's ops are within vector_ops: summed while it has not overflowed.
      if (step.kind == StepKind::vector && step.streamed_in_weights && !overflow[1]) {
        program.dequant_vector_ops += step.vector_ops;
      }
      if (step.kind == StepKind::compute) program.mac_rate = std::max(program.mac_rate, step.mac_rate);
    }
    const char* const names[4] = {"MACs", "vector ops", "DRAM read bytes", "DRAM write bytes"};
    for (int i = 0; i < 4; ++i) {
      if (overflow[i]) error(line, 1, std::string("the layer's ") + names[i] + " add up to more than 2^62");
    }
    if (program.steps.size() % static_cast<std::size_t>(program.passes) != 0) {
      error(open_->line, open_->passes_column,
            "passes " + std::to_string(program.passes) + " does not divide the layer's " +
                std::to_string(program.steps.size()) + " steps into equal parts");
    }
    records_.push_back(std::move(open_->record));
    open_.reset();
  }

  std::string origin_;
  std::uint64_t burst_bytes_;
  StepLimits limits_;
  util::Diagnostics diagnostics_;
  std::vector<ProgramRecord> records_;
  std::optional<OpenLayer> open_;
  std::size_t steps_ = 0;   // in every layer so far
  bool too_long_ = false;   // a step limit was passed: stop reading
};

}  // namespace

ProgramFormatError::ProgramFormatError(std::vector<std::string> messages)
    : std::runtime_error(messages.empty() ? "" : util::join(messages, "\n") + "\n"), messages_(std::move(messages)) {}

std::string write_programs(const std::vector<ProgramRecord>& programs) {
  std::string text = std::string(kHeader) + std::to_string(kProgramFormatVersion) + "\n";
  text += "# steps are numbered from 0 within each layer; \"after\" lists the earlier steps a step waits for\n";
  for (const ProgramRecord& record : programs) {
    const LayerProgram& program = record.program;
    const auto invalid = [&](std::size_t index, const std::string& what) {
      throw std::invalid_argument("write_programs: layer " + program.layer + ", step " + std::to_string(index) + ": " +
                                  what);
    };
    if (program.passes < 1 || program.steps.size() % static_cast<std::size_t>(program.passes) != 0) {
      throw std::invalid_argument("write_programs: layer " + program.layer + ": passes " +
                                  std::to_string(program.passes) + " does not divide its " +
                                  std::to_string(program.steps.size()) + " steps");
    }
    text += "\nlayer " + word(program.layer) + " type " + word(program.type) + " batch " + std::to_string(record.batch);
    if (program.onchip_input_bytes > 0) text += " onchip_inputs " + std::to_string(program.onchip_input_bytes);
    if (program.onchip_output_bytes > 0) text += " onchip_outputs " + std::to_string(program.onchip_output_bytes);
    if (program.passes > 1) text += " passes " + std::to_string(program.passes);
    if (!program.mac_format.empty()) text += " mac_format " + program.mac_format;
    text += "\n";
    const std::string mapping = mapping_text(program.mapping);
    text += mapping.empty() ? "mapping\n" : "mapping " + mapping + "\n";
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const Step& step = program.steps[i];
      if (step.kind != StepKind::compute &&
          (step.stage_ops != 0 || step.psum_read_bytes != 0 || step.psum_write_bytes != 0)) {
        invalid(i, "only a compute step has stage ops or partial sums");
      }
      switch (step.kind) {
        case StepKind::load:
        case StepKind::store:
          if (step.macs != 0 || step.vector_ops != 0) invalid(i, "a load or store has no MACs or vector ops");
          if (step.kind == StepKind::store && step.tensor != TensorRole::outputs) invalid(i, "a store writes outputs");
          text += step_kind_name(step.kind) + " " + role_name(step.tensor) + " addr " + hex(step.address) + " bytes " +
                  std::to_string(step.bytes);
          break;
        case StepKind::compute:
          if (step.macs != step.gemm.macs()) invalid(i, "macs is not m x n x k");
          if (step.stage_ops > step.vector_ops) invalid(i, "stage_ops is more than vector_ops");
          if (step.kept_k > step.gemm.k) invalid(i, "kept_k is more than k");
          text += "compute m " + std::to_string(step.gemm.m) + " n " + std::to_string(step.gemm.n) + " k " +
                  std::to_string(step.gemm.k) +
                  (step.gemm.groups > 1 ? " groups " + std::to_string(step.gemm.groups) : std::string()) +
                  (step.gemm.k_row > 0 && step.gemm.k_row < step.gemm.k ? " k_row " + std::to_string(step.gemm.k_row)
                                                                        : std::string()) +
                  (step.stationary_in_inputs ? " stationary inputs" : "") +
                  (step.streamed_in_weights ? " streamed weights" : "") +
                  (step.unit == timing::GemmUnit::vector ? " unit vector" : "") +
                  (step.mac_rate > 1 ? " mac_rate " + std::to_string(step.mac_rate) : std::string()) +
                  (step.kept_k > 0 ? " kept_k " + std::to_string(step.kept_k) : std::string()) + " vector_ops " +
                  std::to_string(step.vector_ops) +
                  (step.stage_ops > 0 ? " stage_ops " + std::to_string(step.stage_ops) : std::string()) + " bytes " +
                  std::to_string(step.bytes) +
                  (step.psum_read_bytes > 0 ? " psum_read " + std::to_string(step.psum_read_bytes) : std::string()) +
                  (step.psum_write_bytes > 0 ? " psum_write " + std::to_string(step.psum_write_bytes) : std::string());
          break;
        default:
          if (step.macs != 0) invalid(i, "a vector step has no MACs");
          text += "vector ops " + std::to_string(step.vector_ops) + (step.streamed_in_weights ? " reads weights" : "") +
                  " bytes " + std::to_string(step.bytes);
          break;
      }
      text += " after " + after_list(step.after) + "\n";
    }
    text += "end\n";
  }
  return text;
}

std::vector<ProgramRecord> read_programs(const std::string& text, const std::string& origin,
                                         std::uint64_t burst_bytes, const StepLimits& limits) {
  if (burst_bytes == 0) throw std::invalid_argument("read_programs: burst_bytes must be positive");
  return Reader(origin, burst_bytes, limits).read(text);
}

void check_programs_on(const std::vector<ProgramRecord>& programs, const spec::AcceleratorSpec& accelerator,
                       const std::string& origin) {
  std::vector<std::string> messages;
  const std::int64_t bytes_per_element = accelerator.element_bytes();
  const std::vector<spec::SramBufferSpec>& buffers = accelerator.sram.buffers;
  for (const ProgramRecord& record : programs) {
    const LayerProgram& program = record.program;
    // The layer's MACs are priced at its format: the technology must have its multiply and the add
    // it accumulates in (what the loader requires of every compute.native_formats entry).
    if (const std::optional<spec::TechnologySpec>& technology = accelerator.technology;
        technology && !program.mac_format.empty() && messages.size() < kMaxReported) {
      const std::string accumulator = spec::accumulator_type(program.mac_format, accelerator.accumulators.bits);
      const bool priced =
          technology->multiply_pj.count(program.mac_format) > 0 && technology->add_pj.count(accumulator) > 0;
      if (!priced) {
        messages.push_back(origin + (record.layer_line > 0 ? ":" + std::to_string(record.layer_line) : std::string()) +
                           ": error: layer " + program.layer + " (batch " + std::to_string(record.batch) +
                           "): mac_format " + program.mac_format + ": technology " + technology->name + " of " +
                           accelerator.name + " has no multiply_pj entry for " + program.mac_format +
                           " or no add_pj entry for " + accumulator + ", its accumulator type");
      }
    }
    for (std::size_t i = 0; i < program.steps.size() && messages.size() < kMaxReported; ++i) {
      const Step& step = program.steps[i];
      const auto error = [&](const std::string& message) {
        const std::string where = i < record.step_lines.size() ? origin + ":" + std::to_string(record.step_lines[i]) : origin;
        messages.push_back(where + ": error: layer " + program.layer + " (batch " + std::to_string(record.batch) +
                           "), step " + std::to_string(i) + ": " + message);
      };
      try {
        if (step.kind == StepKind::compute) timing::gemm_cycles_on(accelerator.compute, step.gemm, step.unit);
        timing::vector_cycles(accelerator.compute, step.vector_ops);
      } catch (const std::exception&) {
        error("its cycles on " + accelerator.name + " do not fit in 64 bits");
        continue;
      }
      // The array reads the whole k x n weight tile (of every group) out of SRAM; the rest of `bytes` are inputs.
      const auto weight_bytes = static_cast<std::uint64_t>(step.gemm.weight_elements() * bytes_per_element);
      if (step.kind == StepKind::compute && weight_bytes > step.bytes) {
        const std::string groups = step.gemm.groups > 1 ? " x " + std::to_string(step.gemm.groups) + " groups" : "";
        error("compute reads " + std::to_string(step.bytes) + " SRAM bytes, fewer than its k x n weight tile (" +
              std::to_string(step.gemm.k) + " x " + std::to_string(step.gemm.n) + " x " + std::to_string(bytes_per_element) +
              " bytes" + groups + " on " + accelerator.name + ")");
        continue;
      }
      const auto fits = [&](spec::TensorKind kind, std::uint64_t bytes, const std::string& what) {
        const spec::SramBufferSpec& buffer = buffers[accelerator.sram.buffer_index(kind)];
        if (bytes <= static_cast<std::uint64_t>(buffer.capacity_bytes)) return;
        error(what + " " + std::to_string(bytes) + " bytes, more than SRAM buffer " + buffer.name + " holds (" +
              std::to_string(buffer.capacity_bytes) + " bytes on " + accelerator.name + ")");
      };
      // What a buffer must hold at once: a loaded tile, a stored one, a compute step's weight tile.
      // Reads of inputs may exceed their buffer (they re-read it: an im2col expansion).
      if (step.kind == StepKind::load) {
        fits(step.tensor == TensorRole::weights  ? spec::TensorKind::weights
             : step.tensor == TensorRole::outputs ? spec::TensorKind::outputs
                                                  : spec::TensorKind::inputs,
             step.bytes, "load " + role_name(step.tensor) + " writes");
      } else if (step.kind == StepKind::store) {
        fits(spec::TensorKind::outputs, step.bytes, "store reads");
      } else if (step.kind == StepKind::compute) {
        fits(step.stationary_in_inputs ? spec::TensorKind::inputs : spec::TensorKind::weights, weight_bytes,
             "compute reads a weight tile of");
        fits(spec::TensorKind::outputs, std::max(step.psum_read_bytes, step.psum_write_bytes),
             "compute keeps partial sums of");
      }
    }
  }
  if (!messages.empty()) throw ProgramFormatError(messages);
}

}  // namespace reusesim::program
