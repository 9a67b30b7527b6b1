#include "hw/sram_buffer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace reusesim::hw {

namespace {

// Runs before sc_module's constructor, so a bad spec throws before the module enters the hierarchy.
const sc_core::sc_module_name& checked_spec(const sc_core::sc_module_name& name, const spec::SramBufferSpec& spec,
                                            double clock_mhz) {
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("SRAM buffer \"" + std::string(static_cast<const char*>(name)) + "\": " + what);
  };
  if (spec.capacity_bytes <= 0) fail("capacity_bytes must be positive, got " + std::to_string(spec.capacity_bytes));
  if (spec.banks <= 0) fail("banks must be positive, got " + std::to_string(spec.banks));
  if (spec.bank_width_bytes <= 0) fail("bank_width_bytes must be positive, got " + std::to_string(spec.bank_width_bytes));
  if (spec.read_ports <= 0) fail("read_ports must be positive, got " + std::to_string(spec.read_ports));
  if (spec.write_ports <= 0) fail("write_ports must be positive, got " + std::to_string(spec.write_ports));
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz)) fail("clock_mhz must be positive, got " + std::to_string(clock_mhz));
  return name;
}

std::string describe(const SramAccess& access) {
  std::string text = std::string(access.is_write ? "write" : "read") + " at address " + std::to_string(access.address) +
                     " of " + std::to_string(access.row_bytes) + " B";
  if (access.rows != 1) {
    text += " x " + std::to_string(access.rows) + " rows, stride " + std::to_string(access.row_stride_bytes) + " B";
  }
  return text;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

SramBuffer::SramBuffer(sc_core::sc_module_name name, const spec::SramBufferSpec& spec, double clock_mhz)
    : sc_core::sc_module(checked_spec(name, spec, clock_mhz)),
      spec_(spec),
      clock_mhz_(clock_mhz),
      width_(static_cast<std::uint64_t>(spec.bank_width_bytes)),
      banks_(static_cast<std::uint64_t>(spec.banks)),
      capacity_(static_cast<std::uint64_t>(spec.capacity_bytes)),
      read_port_free_(static_cast<std::size_t>(spec.read_ports), 0),
      write_port_free_(static_cast<std::size_t>(spec.write_ports), 0) {}

std::string SramBuffer::problem(const SramAccess& access) const {
  const auto fail = [&](const std::string& what) {
    return std::string("SRAM buffer \"") + name() + "\": " + describe(access) + ": " + what;
  };
  if (access.row_bytes == 0 || access.rows == 0 || access.passes == 0) return fail("empty access (0 bytes)");
  if (access.rows > 1 && access.row_stride_bytes < access.row_bytes) {
    return fail("rows overlap (row stride smaller than the row)");
  }
  if (access.tail_bytes >= access.row_bytes) return fail("a tail of a whole row or more (add a pass)");
  // Total bytes first, without overflow: rows * row_bytes > capacity.
  if (access.row_bytes > capacity_ || access.rows > capacity_ / access.row_bytes) {
    return fail("larger than the buffer capacity of " + std::to_string(capacity_) + " B");
  }
  // Extent (rows - 1) * stride + row_bytes, then address + extent, both <= capacity, without overflow.
  const std::uint64_t rest = capacity_ - access.row_bytes;
  if (access.rows > 1 && access.row_stride_bytes > rest / (access.rows - 1)) {
    return fail("spans more than the buffer capacity of " + std::to_string(capacity_) + " B");
  }
  const std::uint64_t extent = (access.rows - 1) * (access.rows > 1 ? access.row_stride_bytes : 0) + access.row_bytes;
  if (access.address > capacity_ - extent) {
    return fail("ends at byte " + std::to_string(access.address) + " + " + std::to_string(extent) +
         ", beyond the buffer capacity of " + std::to_string(capacity_) + " B");
  }
  return "";
}

SramBuffer::Cost SramBuffer::cost(const SramAccess& access) const {
  const std::uint64_t n = access.row_bytes;
  // Row starting at byte `start`: words first..last, banks interleaved word by word.
  const auto words_of = [&](std::uint64_t start) { return (start + n - 1) / width_ - start / width_ + 1; };

  if (access.rows == 1) {
    const std::uint64_t words = words_of(access.address);
    return {static_cast<std::int64_t>(ceil_div(words, banks_)), static_cast<std::int64_t>(words)};
  }

  // A row's bank pattern depends only on its start modulo one sweep of all banks (sweep bytes),
  // so row r repeats row r - period. Visit each distinct row once with its multiplicity.
  const std::uint64_t sweep = width_ * banks_;
  const std::uint64_t stride = access.row_stride_bytes;
  const std::uint64_t period = sweep / std::gcd(stride % sweep, sweep);  // gcd(0, s) = s: period 1
  const std::uint64_t distinct = std::min(access.rows, period);
  const std::uint64_t full_laps = access.rows / period;
  const std::uint64_t extra_rows = access.rows % period;  // rows < extra_rows get one more repeat

  // Per bank: `base` words for every bank plus a circular difference array for the partial laps.
  std::uint64_t base = 0;
  std::uint64_t total_words = 0;
  std::vector<std::int64_t> diff(banks_ + 1, 0);
  for (std::uint64_t r = 0; r < distinct; ++r) {
    const std::uint64_t mult = full_laps + (r < extra_rows ? 1 : 0);
    const std::uint64_t start = access.address + r * stride;
    const std::uint64_t words = words_of(start);
    total_words += mult * words;
    base += mult * (words / banks_);
    const std::uint64_t rem = words % banks_;
    if (rem == 0) continue;
    const std::uint64_t first_bank = (start / width_) % banks_;
    const auto m = static_cast<std::int64_t>(mult);
    diff[first_bank] += m;
    if (first_bank + rem <= banks_) {
      diff[first_bank + rem] -= m;
    } else {
      diff[banks_] -= m;
      diff[0] += m;
      diff[first_bank + rem - banks_] -= m;
    }
  }
  std::int64_t running = 0;
  std::int64_t busiest = 0;
  for (std::uint64_t b = 0; b < banks_; ++b) {
    running += diff[b];
    busiest = std::max(busiest, running);
  }
  return {static_cast<std::int64_t>(base) + busiest, static_cast<std::int64_t>(total_words)};
}

std::int64_t SramBuffer::access_cycles(const SramAccess& access) const {
  const std::string invalid = problem(access);
  if (!invalid.empty()) throw std::invalid_argument(invalid);
  return cost(access).cycles;
}

void SramBuffer::restart() {
  std::fill(read_port_free_.begin(), read_port_free_.end(), 0);
  std::fill(write_port_free_.begin(), write_port_free_.end(), 0);
  epoch_ = sc_core::sc_time_stamp();
}

sc_core::sc_time SramBuffer::cycle_time(std::int64_t cycle) const {
  return epoch_ + sc_core::sc_time(static_cast<double>(cycle) * 1000.0 / clock_mhz_, sc_core::SC_NS);
}

std::int64_t SramBuffer::first_cycle_at_or_after(const sc_core::sc_time& time) const {
  // Estimate in floating point, then settle against cycle_time() so the two conversions agree.
  const sc_core::sc_time since = time > epoch_ ? time - epoch_ : sc_core::SC_ZERO_TIME;
  auto cycle = static_cast<std::int64_t>(std::floor(since.to_seconds() * clock_mhz_ * 1e6));
  cycle = std::max<std::int64_t>(cycle, 0);
  while (cycle_time(cycle) < time) ++cycle;
  while (cycle > 0 && cycle_time(cycle - 1) >= time) --cycle;
  return cycle;
}

sc_core::sc_time SramBuffer::reserve(const SramAccess& access) {
  // Reported, not thrown: reserve runs inside SC_THREADs, and an exception escaping a coroutine
  // loses the message (and trips GCC's ASan). The CLI stops the simulation on SC_ERROR.
  const std::string invalid = problem(access);
  if (!invalid.empty()) {
    SC_REPORT_ERROR("reusesim/sram", invalid.c_str());
    return sc_core::sc_time_stamp();
  }
  Cost c = cost(access);
  const auto passes = static_cast<std::int64_t>(access.passes);
  c.cycles *= passes;
  c.words *= passes;
  if (access.tail_bytes > 0) {
    SramAccess tail = access;
    tail.row_bytes = access.tail_bytes;
    tail.passes = 1;
    tail.tail_bytes = 0;
    const Cost tail_cost = cost(tail);
    c.cycles += tail_cost.cycles;
    c.words += tail_cost.words;
  }
  const std::int64_t now = first_cycle_at_or_after(sc_core::sc_time_stamp());
  std::vector<std::int64_t>& ports = access.is_write ? write_port_free_ : read_port_free_;
  // The port free earliest starts earliest (all start at max(now, free)); min_element takes the lowest index.
  const auto port = std::min_element(ports.begin(), ports.end());
  const std::int64_t start = std::max(now, *port);
  const std::int64_t end = start + c.cycles;
  *port = end;

  const auto bytes = static_cast<std::int64_t>(access.rows * access.row_bytes) * passes +
                     static_cast<std::int64_t>(access.rows * access.tail_bytes);
  (access.is_write ? stats_.write_bytes : stats_.read_bytes) += bytes;
  (access.is_write ? stats_.write_words : stats_.read_words) += c.words;
  return cycle_time(end);
}

}  // namespace reusesim::hw
