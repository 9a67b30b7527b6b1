#include "hw/sram_buffer.h"

#include <algorithm>
#include <cmath>
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
  return std::string(access.is_write ? "write" : "read") + " of " + std::to_string(access.bytes) + " B";
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
  if (access.bytes == 0 || access.passes == 0) return fail("empty access (0 bytes)");
  if (access.tail_bytes >= access.bytes) return fail("a tail of a whole pass or more (add a pass)");
  if (access.bytes > capacity_) return fail("larger than the buffer capacity of " + std::to_string(capacity_) + " B");
  return "";
}

SramBuffer::Cost SramBuffer::cost(std::uint64_t bytes) const {
  const std::uint64_t words = ceil_div(bytes, width_);
  return {static_cast<std::int64_t>(ceil_div(words, banks_)), static_cast<std::int64_t>(words)};
}

std::int64_t SramBuffer::access_cycles(const SramAccess& access) const {
  const std::string invalid = problem(access);
  if (!invalid.empty()) throw std::invalid_argument(invalid);
  return cost(access.bytes).cycles;
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
  Cost c = cost(access.bytes);
  const auto passes = static_cast<std::int64_t>(access.passes);
  c.cycles *= passes;
  c.words *= passes;
  if (access.tail_bytes > 0) {
    const Cost tail_cost = cost(access.tail_bytes);
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

  const auto bytes = static_cast<std::int64_t>(access.bytes) * passes + static_cast<std::int64_t>(access.tail_bytes);
  (access.is_write ? stats_.write_bytes : stats_.read_bytes) += bytes;
  (access.is_write ? stats_.write_words : stats_.read_words) += c.words;
  return cycle_time(end);
}

}  // namespace reusesim::hw
