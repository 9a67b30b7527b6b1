#include "config/dram_trace_loader.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <sstream>
#include <stdexcept>

#include "config/config_node.h"
#include "util/diagnostics.h"

namespace reusesim::config {

namespace {

// A request waits until its cycle in SystemC time, integer picoseconds below 2^64: at the slowest
// clock (tCK 1000 ns) 2^40 cycles are 1.1e18 ps, while 2^50 wrapped to a wrong simulated time.
constexpr std::int64_t kMaxCycle = std::int64_t{1} << 40;
constexpr std::size_t kMaxLineBytes = 4096;
constexpr std::size_t kMaxRequests = 100'000'000;  // memtest --requests takes as many

struct Field {
  std::string text;
  int column;  // 1-based
};

std::vector<Field> split_fields(const std::string& line) {
  std::vector<Field> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#') ++i;
    fields.push_back(Field{line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return fields;
}

// The next line without its newline, read up to one byte past kMaxLineBytes; false at the end.
bool read_line(std::istream& stream, std::string& line) {
  using traits = std::char_traits<char>;
  line.clear();
  std::streambuf& buffer = *stream.rdbuf();
  for (traits::int_type c = buffer.sbumpc(); !traits::eq_int_type(c, traits::eof()); c = buffer.sbumpc()) {
    if (traits::to_char_type(c) == '\n') return true;
    line += traits::to_char_type(c);
    if (line.size() > kMaxLineBytes) return true;
  }
  return !line.empty();
}

bool parse_unsigned(const std::string& text, int base, std::uint64_t& value) {
  const char* digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
  if (text.empty() || text.find_first_not_of(digits) != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtoull(text.c_str(), &end, base);
  return *end == '\0' && errno != ERANGE;
}

std::vector<spec::MemoryRequest> parse_trace(std::istream& stream, const std::string& origin, std::uint64_t alignment) {
  if (alignment == 0) throw std::invalid_argument("DRAM trace alignment must be positive");
  util::Diagnostics diagnostics;
  std::vector<spec::MemoryRequest> requests;
  std::string line;
  int line_number = 0;
  constexpr std::size_t kMaxReported = 20;  // a wrong file should not print a million lines
  const auto error = [&](int column, const std::string& message) {
    if (diagnostics.size() < kMaxReported) diagnostics.error(util::SourceLocation{origin, line_number, column}, "", message);
  };
  // Reading stops at the 20th error and at the limits, so that a device such as /dev/zero or
  // /dev/urandom ends in an error rather than filling memory or reading forever.
  while (diagnostics.size() < kMaxReported && read_line(stream, line)) {
    ++line_number;
    if (line.size() > kMaxLineBytes) {
      error(1, "line longer than " + std::to_string(kMaxLineBytes) + " bytes (a line is: address R|W [cycle])");
      break;
    }
    if (requests.size() == kMaxRequests) {
      error(1, "more than " + std::to_string(kMaxRequests) + " requests, the most a trace may have (as --requests)");
      break;
    }
    const std::vector<Field> fields = split_fields(line);
    if (fields.empty()) continue;
    spec::MemoryRequest request;
    std::string address = fields[0].text;
    if (address.size() > 2 && address[0] == '0' && (address[1] == 'x' || address[1] == 'X')) address = address.substr(2);
    if (!parse_unsigned(address, 16, request.address)) {
      error(fields[0].column, "expected a hexadecimal address, got \"" + fields[0].text + "\"");
      continue;
    }
    if (request.address % alignment != 0) {
      error(fields[0].column, "address " + fields[0].text + " is not a multiple of the " + std::to_string(alignment) +
                                  "-byte request size");
    }
    if (fields.size() < 2) {
      error(fields[0].column + static_cast<int>(fields[0].text.size()), "expected R or W after the address");
      continue;
    }
    if (fields[1].text != "R" && fields[1].text != "W" && fields[1].text != "r" && fields[1].text != "w") {
      error(fields[1].column, "expected R or W, got \"" + fields[1].text + "\"");
      continue;
    }
    request.is_write = fields[1].text == "W" || fields[1].text == "w";
    if (fields.size() >= 3) {
      std::uint64_t cycle = 0;
      if (!parse_unsigned(fields[2].text, 10, cycle) || cycle > static_cast<std::uint64_t>(kMaxCycle)) {
        error(fields[2].column, "expected an earliest issue cycle (a non-negative integer up to 2^40), got \"" +
                                    fields[2].text + "\"");
        continue;
      }
      request.earliest_cycle = static_cast<std::int64_t>(cycle);
    }
    if (fields.size() > 3) {
      error(fields[3].column, "unexpected \"" + fields[3].text + "\" (a line is: address R|W [cycle])");
      continue;
    }
    requests.push_back(request);
  }
  if (requests.empty() && diagnostics.empty()) diagnostics.error(util::SourceLocation{origin, 0, 0}, "", "the trace has no requests");
  diagnostics.throw_if_any();
  return requests;
}

}  // namespace

std::vector<spec::MemoryRequest> load_dram_trace_file(const std::string& path, std::uint64_t alignment_bytes) {
  const std::string not_regular = not_a_regular_file(path);
  std::ifstream stream;
  if (not_regular.empty()) stream.open(path);
  if (!not_regular.empty() || !stream) {
    util::Diagnostics diagnostics;
    diagnostics.error(util::SourceLocation{path, 0, 0}, "", not_regular.empty() ? "cannot open file" : not_regular);
    diagnostics.throw_if_any();
  }
  return parse_trace(stream, path, alignment_bytes);
}

std::vector<spec::MemoryRequest> load_dram_trace_text(const std::string& text, const std::string& origin,
                                                    std::uint64_t alignment_bytes) {
  std::istringstream stream(text);
  return parse_trace(stream, origin, alignment_bytes);
}

}  // namespace reusesim::config
