#pragma once
// A chip's end of the links between chips: it runs the chip's steps of a link program
// (program::LinkProgram) from the calling thread: sends through hw::ChipLinks, receives (waiting
// for the bytes to arrive), and reductions on the chip's vector units (every core's, the elements
// split evenly: one op an element a cycle per vector_ops_per_cycle lane).

#include <systemc>

#include <cstdint>
#include <vector>

#include "hw/chip_links.h"
#include "program/link_program.h"
#include "spec/accelerator_spec.h"

namespace reusesim::hw {

class LinkEngine {
 public:
  LinkEngine(std::int64_t chip, const spec::AcceleratorSpec& spec, ChipLinks& links);

  // Blocks the calling thread until the steps are done. `tag` tells this program's bytes from
  // those of others running at the same time.
  void run(const std::vector<program::LinkStep>& steps, std::int64_t tag);

  struct Stats {
    std::int64_t sent_bytes = 0;
    std::int64_t reduced_elements = 0;
    std::int64_t reduce_cycles = 0;     // chip clocks the vector units spent on reductions
    std::uint64_t receive_wait_ps = 0;  // time spent waiting for bytes to arrive
  };
  const Stats& stats() const { return stats_; }
  // Chip clocks a reduction of `elements` takes.
  std::int64_t reduce_cycles(std::int64_t elements) const;

 private:
  std::int64_t chip_;
  std::int64_t ops_per_cycle_;
  sc_core::sc_time period_;
  ChipLinks& links_;
  Stats stats_;
};

}  // namespace reusesim::hw
