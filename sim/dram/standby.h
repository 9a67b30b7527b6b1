#pragma once
// Standby accounting (docs/energy-model.md): per rank, the clocks during which at least one of its
// banks has a row open (active standby); the rest are precharged standby. Commands are committed
// ahead of time, so a rank's active period may begin or end after the driver's current cycle.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace reusesim::dram {

class StandbyAccounting {
 public:
  explicit StandbyAccounting(std::int64_t ranks)
      : open_banks_(static_cast<std::size_t>(ranks), 0), active_since_(static_cast<std::size_t>(ranks), 0) {}

  void row_opened(std::int64_t rank, std::int64_t cycle) {
    const auto r = static_cast<std::size_t>(rank);
    if (open_banks_[r]++ == 0) active_since_[r] = cycle;
  }
  void row_closed(std::int64_t rank, std::int64_t cycle) {
    const auto r = static_cast<std::size_t>(rank);
    if (--open_banks_[r] == 0) closed_cycles_ += cycle - active_since_[r];
  }
  // Active rank-clocks summed over ranks, a rank with a row open counted up to `now`.
  std::int64_t active_rank_cycles(std::int64_t now) const { return closed_cycles_ + open_cycles(now); }
  // Every bank is precharged from `now` on: rows open until then count up to it.
  void restart(std::int64_t now) {
    closed_cycles_ += open_cycles(now);
    std::fill(open_banks_.begin(), open_banks_.end(), 0);
    std::fill(active_since_.begin(), active_since_.end(), 0);
  }

 private:
  std::int64_t open_cycles(std::int64_t now) const {
    std::int64_t cycles = 0;
    for (std::size_t rank = 0; rank < open_banks_.size(); ++rank) {
      if (open_banks_[rank] > 0) cycles += std::max<std::int64_t>(0, now - active_since_[rank]);
    }
    return cycles;
  }

  std::vector<std::int64_t> open_banks_;    // per rank
  std::vector<std::int64_t> active_since_;  // per rank with a row open: since when
  std::int64_t closed_cycles_ = 0;          // of active periods that have ended
};

}  // namespace reusesim::dram
