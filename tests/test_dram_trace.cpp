#include <catch2/catch.hpp>
#include "input_error_text.h"

#include <cstdint>
#include <string>
#include <vector>

#include "config/dram_trace_loader.h"
#include "util/diagnostics.h"

// DRAM request traces (config::load_dram_trace_text): one request per line,
// `<hex address> <R|W> [earliest issue cycle]`, `#` comments. Valid files load into the expected
// requests; every malformed line gives exactly the message a user sees, `t.trace:line:col: error: ...`.
//
// Columns are 1-based byte offsets into the line (a tab counts as one column). Each error case
// below spells out its column under the line, e.g. for "0x40 X":
//   0 x 4 0 _ X
//   1 2 3 4 5 6   -> the op "X" starts in column 6.

using reusesim::util::InputError;
using reusesim::config::load_dram_trace_text;
using reusesim::spec::MemoryRequest;

namespace {

// The full error text of loading `text` as t.trace; fails the test when it loads.
std::string trace_error(const std::string& text, std::uint64_t alignment = 64) {
  return input_error_text([&] { load_dram_trace_text(text, "t.trace", alignment); });
}

void check_request(const MemoryRequest& request, std::uint64_t address, bool is_write, std::int64_t earliest_cycle) {
  CHECK(request.address == address);
  CHECK(request.is_write == is_write);
  CHECK(request.earliest_cycle == earliest_cycle);
}

}  // namespace

TEST_CASE("a valid trace loads every request in file order", "[dram-trace]") {
  const std::string text =
      "# a trace: address R|W [cycle]\n"                     // 1  comment line
      "0x0 R\n"                                              // 2  0x prefix, no cycle -> 0
      "40 W\n"                                               // 3  no prefix: still hexadecimal, 0x40
      "0X80 r 10\n"                                          // 4  upper-case prefix, lower-case op, a cycle
      "\n"                                                   // 5  blank
      "   \t  \n"                                            // 6  only whitespace
      "\tc0\tw\t1099511627776   # 2^40, the largest cycle\n"     // 7  tabs, trailing comment
      "  0xFFC0 R 0#no space before the comment\n"          // 8  indented, upper-case digits, cycle 0
      "0x100 W 7\r\n"                                        // 9  a CRLF line ending
      "0x140 R# the comment ends the op field\n";            // 10
  const std::vector<MemoryRequest> requests = load_dram_trace_text(text, "t.trace", 64);
  REQUIRE(requests.size() == 7);
  check_request(requests[0], 0x0, false, 0);
  check_request(requests[1], 0x40, true, 0);
  check_request(requests[2], 0x80, false, 10);
  check_request(requests[3], 0xc0, true, std::int64_t{1} << 40);
  check_request(requests[4], 0xffc0, false, 0);
  check_request(requests[5], 0x100, true, 7);
  check_request(requests[6], 0x140, false, 0);
}

TEST_CASE("a trace without a final newline and with a larger request size loads", "[dram-trace]") {
  const std::vector<MemoryRequest> requests = load_dram_trace_text("0x0 W\n0x80 R 3", "t.trace", 128);
  REQUIRE(requests.size() == 2);
  check_request(requests[0], 0x0, true, 0);
  check_request(requests[1], 0x80, false, 3);
}

TEST_CASE("an address that is not hexadecimal is an error at the address", "[dram-trace]") {
  // "0xg0 R": the address starts in column 1.
  CHECK(trace_error("0xg0 R\n") == "t.trace:1:1: error: expected a hexadecimal address, got \"0xg0\"\n");
  // "\tzz R": tab = column 1, "zz" starts in column 2.
  CHECK(trace_error("\tzz R\n") == "t.trace:1:2: error: expected a hexadecimal address, got \"zz\"\n");
  // A bare prefix and a signed number are not addresses either; line 2 after a valid line 1.
  CHECK(trace_error("0x0 R\n0x W\n") == "t.trace:2:1: error: expected a hexadecimal address, got \"0x\"\n");
  CHECK(trace_error("-40 R\n") == "t.trace:1:1: error: expected a hexadecimal address, got \"-40\"\n");
  // 17 hex digits do not fit in 64 bits.
  CHECK(trace_error("0x10000000000000000 R\n") ==
        "t.trace:1:1: error: expected a hexadecimal address, got \"0x10000000000000000\"\n");
}

TEST_CASE("a misaligned address is an error at the address", "[dram-trace]") {
  // "  0x41 R": two spaces, then the address in column 3. 0x41 = 65 is not a multiple of 64.
  CHECK(trace_error("  0x41 R\n") == "t.trace:1:3: error: address 0x41 is not a multiple of the 64-byte request size\n");
  // 0x40 = 64 is aligned for 64-byte requests but not for 128-byte ones; the text is quoted as written.
  CHECK(trace_error("0x0 R\n40 W\n", 128) ==
        "t.trace:2:1: error: address 40 is not a multiple of the 128-byte request size\n");
  // The rest of a misaligned line is still checked: "0x41" then no op, reported after the address
  // (column 5 = one past the 4-character line).
  CHECK(trace_error("0x41\n") ==
        "t.trace:1:1: error: address 0x41 is not a multiple of the 64-byte request size\n"
        "t.trace:1:5: error: expected R or W after the address\n");
}

TEST_CASE("a line without R or W is an error just past the address", "[dram-trace]") {
  // "0x40": 4 characters, the missing op is reported at column 5.
  CHECK(trace_error("0x40\n") == "t.trace:1:5: error: expected R or W after the address\n");
  // "  0x80" on line 3: 6 characters -> column 7.
  CHECK(trace_error("0x0 R\n# two\n  0x80\n") == "t.trace:3:7: error: expected R or W after the address\n");
}

TEST_CASE("an op other than R, W, r or w is an error at the op", "[dram-trace]") {
  // "0x40 X": 0 x 4 0 _ X -> column 6.
  CHECK(trace_error("0x40 X\n") == "t.trace:1:6: error: expected R or W, got \"X\"\n");
  // "0x40  read": two spaces, "read" starts in column 7.
  CHECK(trace_error("0x40  read\n") == "t.trace:1:7: error: expected R or W, got \"read\"\n");
  // "0x40 RW" -> column 6.
  CHECK(trace_error("0x40 RW\n") == "t.trace:1:6: error: expected R or W, got \"RW\"\n");
}

TEST_CASE("a cycle that is not a non-negative integer up to 2^40 is an error at the cycle", "[dram-trace]") {
  const std::string message = "error: expected an earliest issue cycle (a non-negative integer up to 2^40), got ";
  // "0x40 R -5": 0 x 4 0 _ R _ - -> the cycle starts in column 8.
  CHECK(trace_error("0x40 R -5\n") == "t.trace:1:8: " + message + "\"-5\"\n");
  CHECK(trace_error("0x40 R soon\n") == "t.trace:1:8: " + message + "\"soon\"\n");
  CHECK(trace_error("0x40 R +5\n") == "t.trace:1:8: " + message + "\"+5\"\n");
  // The cycle is decimal: a hex cycle and a fraction are rejected.
  CHECK(trace_error("0x40 R 0x10\n") == "t.trace:1:8: " + message + "\"0x10\"\n");
  CHECK(trace_error("0x40 R 1.5\n") == "t.trace:1:8: " + message + "\"1.5\"\n");
  // 2^40 + 1 is one too many (2^40 itself loads, see the valid trace above). 2^50 was allowed, and
  // at tCK 1000 ns memtest then reported 2^63 ps instead of 2^50 cycles: SystemC time had wrapped.
  CHECK(trace_error("0x40 R 1099511627777\n") == "t.trace:1:8: " + message + "\"1099511627777\"\n");
  CHECK(trace_error("0x40 R 1125899906842624\n") == "t.trace:1:8: " + message + "\"1125899906842624\"\n");
  // "0x40\tw\t-1": tabs count as one column each -> column 8 again.
  CHECK(trace_error("0x40\tw\t-1\n") == "t.trace:1:8: " + message + "\"-1\"\n");
}

TEST_CASE("a fourth field is an error at that field", "[dram-trace]") {
  // "0x40 R 3 extra": 0 x 4 0 _ R _ 3 _ e -> column 10.
  CHECK(trace_error("0x40 R 3 extra\n") ==
        "t.trace:1:10: error: unexpected \"extra\" (a line is: address R|W [cycle])\n");
  // "0x40 W 3 4 # c" -> "4" in column 10; the comment is not a field.
  CHECK(trace_error("0x40 W 3 4 # c\n") == "t.trace:1:10: error: unexpected \"4\" (a line is: address R|W [cycle])\n");
}

TEST_CASE("a trace with no requests is an error without a line", "[dram-trace]") {
  CHECK(trace_error("") == "t.trace: error: the trace has no requests\n");
  CHECK(trace_error("# only a comment\n\n   \n") == "t.trace: error: the trace has no requests\n");
}

TEST_CASE("every bad line is reported, in order, and valid lines do not hide them", "[dram-trace]") {
  const std::string text =
      "0x0 R\n"           // 1  valid
      "0xg0 R\n"          // 2  bad address, column 1
      "0x40 X\n"          // 3  bad op, column 6
      "0x80 R\n"          // 4  valid
      "0xc0 W -1\n"       // 5  bad cycle, column 8
      "0x100 R 1 2\n";    // 6  extra field: 0 x 1 0 0 _ R _ 1 _ 2 -> column 11
  CHECK(trace_error(text) ==
        "t.trace:2:1: error: expected a hexadecimal address, got \"0xg0\"\n"
        "t.trace:3:6: error: expected R or W, got \"X\"\n"
        "t.trace:5:8: error: expected an earliest issue cycle (a non-negative integer up to 2^40), got \"-1\"\n"
        "t.trace:6:11: error: unexpected \"2\" (a line is: address R|W [cycle])\n");
}

TEST_CASE("a file full of bad lines reports at most 20 errors, the first 20", "[dram-trace]") {
  std::string text;
  for (int line = 1; line <= 1000; ++line) text += "zz R\n";
  std::string expected;
  for (int line = 1; line <= 20; ++line) {
    expected += "t.trace:" + std::to_string(line) + ":1: error: expected a hexadecimal address, got \"zz\"\n";
  }
  try {
    load_dram_trace_text(text, "t.trace", 64);
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK(error.diagnostics().size() == 20);
    CHECK(std::string(error.what()) == expected);
  }
}

// Reading stops at a line longer than 4,096 bytes (a file of one endless line filled memory
// before), and at the 20th error. Devices such as /dev/zero are not read at all.
TEST_CASE("a line longer than 4096 bytes stops the reading", "[dram-trace]") {
  CHECK(trace_error("0x0 R\n" + std::string(5000, '0') + " R\n0x40 Q\n") ==
        "t.trace:2:1: error: line longer than 4096 bytes (a line is: address R|W [cycle])\n");
  CHECK(input_error_text([] { reusesim::config::load_dram_trace_file("/dev/zero", 64); }) ==
        "/dev/zero: error: is a character device, not a regular file; inputs are read from regular files\n");
}
