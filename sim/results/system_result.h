#pragma once
// What a system's replay produced besides each chip's layers (docs/systems.md, "Outputs"): each
// chip's part of each collective, each link's counters, each batch's time. Times are picoseconds
// of simulated time.

#include <cstdint>
#include <string>

namespace reusesim::results {

// One chip's part of a link program (a collective or a transfer).
struct CollectiveResult {
  std::string name;  // the link program's (program::LinkProgram::name)
  std::int64_t chip = 0;
  std::size_t batch = 0;  // its place in the run's batch sizes
  std::uint64_t start_ps = 0, end_ps = 0;
  std::uint64_t receive_wait_ps = 0;  // waiting for bytes to arrive (links busy, or peers behind)
  std::int64_t reduce_cycles = 0;     // chip clocks its vector units spent adding
  std::int64_t sent_bytes = 0;
};

// A link between chips (one direction of a bundle) over the whole run.
struct ChipLinkFigures {
  std::string name;  // "chip0 -> chip1", "chip2 -> switch"
  std::int64_t transfers = 0, bytes = 0;
  std::int64_t busy_ps = 0;    // time it moved bytes
  std::int64_t waited_ps = 0;  // time transfers' heads waited for it, summed over them
};

// One batch on the system: from the first chip's start to the last chip's end, and chip 0's time
// on its layers and in collectives.
struct SystemBatch {
  std::uint64_t start_ps = 0, end_ps = 0;
  std::uint64_t layers_ps = 0, collectives_ps = 0;
};

}  // namespace reusesim::results
