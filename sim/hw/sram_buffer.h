#pragma once
// One on-chip SRAM buffer: word-interleaved banks behind independent read and write ports.
//
// A passive SystemC module with no processes: other modules' threads call reserve(), which books
// the earliest free port of the right kind at or after the current simulation time (rounded up to
// the SRAM clock) and returns the absolute time the access completes; the caller waits until then.
// Port bookkeeping is in integer SRAM cycles; sc_time appears only at the edges.
//
// Bank model: an access of n bytes is a run of ceil(n / bank_width_bytes) words interleaved word by
// word over the banks, and each bank delivers one word per cycle per port, so it occupies its port
// for ceil(words / banks) cycles. Programs carry no SRAM addresses, so the replay places every
// access at the buffer's start: tile layouts, and the bank conflicts they would bring, are not
// modelled.

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "spec/accelerator_spec.h"

namespace reusesim::hw {

// `bytes` contiguous bytes from the buffer's start.
struct SramAccess {
  std::uint64_t bytes = 0;
  bool is_write = false;
  // The whole access repeated back to back on one port (a read of more than the buffer holds
  // re-reads it: an im2col expansion, overlapping windows), then `tail_bytes` more (less than
  // `bytes`) on the same port: what is left of such a read after its whole passes.
  std::uint64_t passes = 1;
  std::uint64_t tail_bytes = 0;
};

// What the reports use: bytes (sram_*_bytes) and bank words (SRAM energy).
struct SramStats {
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  // Bank words read and written (each access touches whole words of bank_width_bytes).
  std::int64_t read_words = 0;
  std::int64_t write_words = 0;
};

class SramBuffer : public sc_core::sc_module {
 public:
  // Throws std::invalid_argument unless capacity, banks, bank width, both port counts and the
  // clock are positive.
  SramBuffer(sc_core::sc_module_name name, const spec::SramBufferSpec& spec, double clock_mhz);

  // Cycles one pass of the access occupies its port. Pure. Throws std::invalid_argument for an
  // empty access, one larger than the capacity, or a tail of `bytes` or more.
  std::int64_t access_cycles(const SramAccess& access) const;

  // Books the access on the port of its kind that can start it earliest (lowest index on ties),
  // no earlier than sc_time_stamp() rounded up to the SRAM clock; updates the counters and returns
  // the absolute time the access completes. An invalid access (as for access_cycles()) is
  // reported with SC_REPORT_ERROR("reusesim/sram") instead, books nothing and returns now.
  sc_core::sc_time reserve(const SramAccess& access);

  const SramStats& stats() const { return stats_; }
  const spec::SramBufferSpec& spec() const { return spec_; }
  // Every port free, with SRAM cycle 0 now. Counters keep counting.
  void restart();
  double clock_mhz() const { return clock_mhz_; }
  // The absolute time of SRAM clock edge `cycle` (cycle 0 is time 0, or the last restart).
  sc_core::sc_time cycle_time(std::int64_t cycle) const;

 private:
  struct Cost {
    std::int64_t cycles = 0;
    std::int64_t words = 0;  // bank words touched
  };
  Cost cost(std::uint64_t bytes) const;  // of a valid access's pass of `bytes`
  std::string problem(const SramAccess& access) const;  // what makes the access invalid, or ""

  // The first SRAM clock edge at or after `time`.
  std::int64_t first_cycle_at_or_after(const sc_core::sc_time& time) const;

  spec::SramBufferSpec spec_;
  double clock_mhz_;
  std::uint64_t width_;     // bank_width_bytes
  std::uint64_t banks_;
  std::uint64_t capacity_;
  std::vector<std::int64_t> read_port_free_;   // per port: first cycle it is free
  std::vector<std::int64_t> write_port_free_;
  sc_core::sc_time epoch_;  // the time of cycle 0
  SramStats stats_;
};

}  // namespace reusesim::hw
