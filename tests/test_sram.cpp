// SRAM buffer model: cycle counts over the banks, port booking, clock conversion, counters, errors.
// SystemC rule: each TEST_CASE elaborates its own modules and calls sc_start at most once; ctest runs
// every TEST_CASE in its own process. Most cases call reserve() before sc_start, at time 0.

#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>

#include "hw/sram_buffer.h"
#include "hw/systemc_compat.h"

using reusesim::hw::SramAccess;
using reusesim::hw::SramBuffer;
using reusesim::spec::SramBufferSpec;

namespace {

// 8 banks x 16 B: one sweep of all banks is 128 B.
SramBufferSpec spec_8x16(std::int64_t read_ports = 1, std::int64_t write_ports = 1,
                         std::int64_t capacity_bytes = 64 * 1024) {
  SramBufferSpec spec;
  spec.name = "buf";
  spec.capacity_bytes = capacity_bytes;
  spec.banks = 8;
  spec.bank_width_bytes = 16;
  spec.read_ports = read_ports;
  spec.write_ports = write_ports;
  return spec;
}

SramAccess read(std::uint64_t bytes) { return {bytes, false, 1, 0}; }
SramAccess write(std::uint64_t bytes) { return {bytes, true, 1, 0}; }

sc_core::sc_time ns(double v) { return sc_core::sc_time(v, sc_core::SC_NS); }

}  // namespace

TEST_CASE("sram: an access takes ceil(words / banks) cycles", "[sram]") {
  SramBuffer sram("sram_aligned", spec_8x16(), 500);
  // 1024 B = 64 words of 16 B over 8 banks -> 8 words per bank -> 8 cycles.
  CHECK(sram.access_cycles(read(1024)) == 8);
  // 16 B = 1 word -> 1 cycle.
  CHECK(sram.access_cycles(read(16)) == 1);
  // 128 B = 8 words, one per bank -> 1 cycle.
  CHECK(sram.access_cycles(read(128)) == 1);
  // 1 B: a word touched in part is a whole word -> 1 cycle; 129 B = 9 words: bank 0 twice -> 2.
  CHECK(sram.access_cycles(read(1)) == 1);
  CHECK(sram.access_cycles(read(129)) == 2);
  // 200 B = 13 words (12.5 rounded up): banks 0-4 get 2, banks 5-7 get 1 -> 2 cycles.
  CHECK(sram.access_cycles(read(200)) == 2);
  // The whole 64 KiB buffer: 4096 words / 8 banks -> 512 cycles.
  CHECK(sram.access_cycles(read(64 * 1024)) == 512);
  // A write costs the same as a read.
  CHECK(sram.access_cycles(write(1024)) == 8);
}

TEST_CASE("sram: two reads on one read port serialize", "[sram]") {
  SramBuffer sram("sram_one_port", spec_8x16(1, 1), 500);
  // 500 MHz: 2 ns per cycle. Each read is 8 cycles. First: cycles 0-8 -> 16 ns; second waits for
  // the port: cycles 8-16 -> 32 ns.
  CHECK(sram.reserve(read(1024)) == ns(16));
  CHECK(sram.reserve(read(1024)) == ns(32));
}

TEST_CASE("sram: two read ports overlap", "[sram]") {
  SramBuffer sram("sram_two_ports", spec_8x16(2, 1), 500);
  // Two ports: both 8-cycle reads run in cycles 0-8 -> 16 ns. A third waits for the first free
  // port: cycles 8-16 -> 32 ns. A short fourth read goes to the other port: cycles 8-9 -> 18 ns.
  CHECK(sram.reserve(read(1024)) == ns(16));
  CHECK(sram.reserve(read(1024)) == ns(16));
  CHECK(sram.reserve(read(1024)) == ns(32));
  CHECK(sram.reserve(read(16)) == ns(18));
}

// A read of more than the buffer holds re-reads it: whole passes, then the rest, all on one port.
// Split into two bookings, the rest took the idle second port and ran beside the passes.
TEST_CASE("sram: the passes and the tail of an oversized read run back to back on one port", "[sram]") {
  SramBuffer sram("sram_passes", spec_8x16(2, 1, 1024), 500);
  // 1024 B buffer = 8 cycles a pass; 2.5 passes = 2 x 8 + 512 B (4 cycles) = 20 cycles -> 40 ns at
  // 500 MHz, not max(16, 4) cycles on two ports.
  SramAccess oversized = read(1024);
  oversized.passes = 2;
  oversized.tail_bytes = 512;
  CHECK(sram.reserve(oversized) == ns(40));
  CHECK(sram.stats().read_bytes == 2560);
  CHECK(sram.stats().read_words == 2 * 64 + 32);
  // The second port is still free at cycle 0.
  CHECK(sram.reserve(read(16)) == ns(2));
}

TEST_CASE("sram: a read and a write use separate ports", "[sram]") {
  SramBuffer sram("sram_read_write", spec_8x16(1, 1), 500);
  // The write does not wait for the read: both occupy cycles 0-8 -> 16 ns.
  CHECK(sram.reserve(read(1024)) == ns(16));
  CHECK(sram.reserve(write(1024)) == ns(16));
  // A second write waits for the write port only: cycles 8-16 -> 32 ns.
  CHECK(sram.reserve(write(1024)) == ns(32));
}

TEST_CASE("sram: the SRAM clock converts cycles to time", "[sram]") {
  SramBuffer sram500("sram_clock_500", spec_8x16(), 500);
  SramBuffer sram700("sram_clock_700", spec_8x16(), 700);
  SramBuffer sram1000("sram_clock_1000", spec_8x16(), 1000);
  // 500 MHz: 8 cycles x 2 ns = 16 ns.
  CHECK(sram500.reserve(read(1024)) == ns(16));
  // 1 GHz: 8 cycles x 1 ns = 8 ns.
  CHECK(sram1000.reserve(read(1024)) == ns(8));
  // 700 MHz: 1428.57 ps per cycle; 7 cycles = 10 ns exactly (rounded to the 1 ps resolution,
  // not 7 x 1428 ps = 9996 ps accumulated).
  CHECK(sram700.cycle_time(7) == ns(10));
  CHECK(sram700.cycle_time(1) == sc_core::sc_time(1429, sc_core::SC_PS));
  CHECK(sram700.cycle_time(7000000) == sc_core::sc_time(10, sc_core::SC_MS));
}

namespace {

// Issues accesses from a thread at times that are not SRAM clock edges.
struct SramDriver : sc_core::sc_module {
  SramBuffer& sram;
  std::vector<sc_core::sc_time> done;

  SramDriver(sc_core::sc_module_name name, SramBuffer& buffer) : sc_core::sc_module(name), sram(buffer) {
    REUSESIM_HAS_PROCESS(SramDriver);
    SC_THREAD(run);
  }

  void run() {
    wait(ns(5));
    // 500 MHz, now 5 ns: starts at the next edge, cycle 3 (6 ns); 8 cycles -> cycle 11 = 22 ns.
    done.push_back(sram.reserve(read(1024)));
    // Same time, same single read port: waits until cycle 11, ends at cycle 19 = 38 ns.
    done.push_back(sram.reserve(read(1024)));
    wait(done[0] - sc_core::sc_time_stamp());
    // 22 ns is an edge (cycle 11); the write port is free: 1 cycle -> cycle 12 = 24 ns.
    done.push_back(sram.reserve(write(16)));
    wait(ns(100) - sc_core::sc_time_stamp());
    // 100 ns = cycle 50, both ports long free: 8 cycles -> cycle 58 = 116 ns.
    done.push_back(sram.reserve(read(1024)));
  }
};

}  // namespace

TEST_CASE("sram: requests during simulation start at the next SRAM clock edge", "[sram]") {
  SramBuffer sram("sram_timed", spec_8x16(1, 1), 500);
  SramDriver driver("sram_timed_driver", sram);
  sc_core::sc_start();
  REQUIRE(driver.done.size() == 4);
  CHECK(driver.done[0] == ns(22));
  CHECK(driver.done[1] == ns(38));
  CHECK(driver.done[2] == ns(24));
  CHECK(driver.done[3] == ns(116));
}

namespace {

// Books an empty access from inside a thread: the error must be reported, not thrown.
struct BadAccessDriver : sc_core::sc_module {
  SramBuffer& sram;
  bool returned = false;

  BadAccessDriver(sc_core::sc_module_name name, SramBuffer& buffer) : sc_core::sc_module(name), sram(buffer) {
    REUSESIM_HAS_PROCESS(BadAccessDriver);
    SC_THREAD(run);
  }

  void run() {
    wait(ns(5));
    CHECK(sram.reserve(read(0)) == ns(5));  // nothing booked: completes now
    returned = true;
  }
};

}  // namespace

TEST_CASE("sram: an invalid access inside a thread is an SC_ERROR that stops the simulation", "[sram]") {
  // What reusesim's main sets: display SC_ERRORs and stop, never throw across a coroutine.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_STOP);
  SramBuffer sram("sram_bad", spec_8x16(1, 1), 500);
  BadAccessDriver driver("sram_bad_driver", sram);
  sc_core::sc_start();
  CHECK(driver.returned);
  CHECK(sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) == 1);
  CHECK(sram.stats().read_bytes == 0);
}

TEST_CASE("sram: counters", "[sram]") {
  SramBuffer sram("sram_counters", spec_8x16(1, 1), 500);
  sram.reserve(read(1024));         // 64 words
  sram.reserve(read(1032));         // 64.5 words: 65
  sram.reserve(write(200));         // 13 words
  sram.reserve(write(16 * 8 * 2));  // 256 B, 16 words
  const auto& s = sram.stats();
  CHECK(s.read_bytes == 1024 + 1032);
  CHECK(s.write_bytes == 200 + 256);
  CHECK(s.read_words == 64 + 65);
  CHECK(s.write_words == 13 + 16);
  // access_cycles() is pure: no counter moves.
  CHECK(sram.access_cycles(read(1024)) == 8);
  CHECK(sram.stats().read_bytes == 1024 + 1032);
}

TEST_CASE("sram: invalid accesses throw std::invalid_argument", "[sram]") {
  using Catch::Matchers::Contains;
  SramBuffer sram("sram_errors", spec_8x16(1, 1, 4096), 500);
  // Empty.
  CHECK_THROWS_AS(sram.access_cycles(read(0)), std::invalid_argument);
  CHECK_THROWS_WITH(sram.reserve(read(0)), Contains("sram_errors") && Contains("empty access"));
  SramAccess no_pass = read(16);
  no_pass.passes = 0;
  CHECK_THROWS_WITH(sram.access_cycles(no_pass), Contains("empty access"));
  // Larger than the capacity.
  CHECK_THROWS_WITH(sram.access_cycles(read(4097)), Contains("larger than the buffer capacity of 4096 B"));
  CHECK_THROWS_AS(sram.access_cycles(read(UINT64_MAX)), std::invalid_argument);
  // A tail of a whole pass.
  SramAccess whole_tail = read(1024);
  whole_tail.tail_bytes = 1024;
  CHECK_THROWS_WITH(sram.access_cycles(whole_tail), Contains("a tail of a whole pass or more"));
  // Exactly full fits.
  CHECK(sram.access_cycles(read(4096)) == 32);
  // A failed reserve changes nothing.
  CHECK(sram.stats().read_bytes == 0);
  CHECK(sram.stats().write_bytes == 0);
}

TEST_CASE("sram: invalid specs throw std::invalid_argument", "[sram]") {
  using Catch::Matchers::Contains;
  SramBufferSpec no_banks = spec_8x16();
  no_banks.banks = 0;
  CHECK_THROWS_WITH(SramBuffer("sram_bad_banks", no_banks, 500), Contains("sram_bad_banks") && Contains("banks"));
  SramBufferSpec no_width = spec_8x16();
  no_width.bank_width_bytes = 0;
  CHECK_THROWS_WITH(SramBuffer("sram_bad_width", no_width, 500), Contains("bank_width_bytes"));
  CHECK_THROWS_WITH(SramBuffer("sram_bad_capacity", spec_8x16(1, 1, 0), 500), Contains("capacity_bytes"));
  CHECK_THROWS_WITH(SramBuffer("sram_bad_read_ports", spec_8x16(0, 1), 500), Contains("read_ports"));
  CHECK_THROWS_WITH(SramBuffer("sram_bad_write_ports", spec_8x16(1, 0), 500), Contains("write_ports"));
  CHECK_THROWS_WITH(SramBuffer("sram_bad_clock", spec_8x16(), 0), Contains("clock_mhz"));
  // The failed constructions left the hierarchy usable.
  SramBuffer good("sram_good_after_errors", spec_8x16(), 500);
  CHECK(good.reserve(read(1024)) == ns(16));
}
