#pragma once
// The refresh schedule (docs/dram-model.md, "Refresh"): per rank (all-bank refresh) or per bank
// (per-bank refresh) the cycle its next refresh falls due, every tREFI, staggered across the
// units so they do not all stop at once; none when refresh is off. A due unit takes no request
// commands until refreshed. Its refresh is issued on schedule: first a precharge of each open
// bank, then REF, each proposed as a candidate and weighed against the requests' by the same rule.
// Never postponed or pulled in.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dram/banks.h"
#include "dram/candidate.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

class RefreshSchedule {
 public:
  explicit RefreshSchedule(const spec::DramSpec& spec);

  // The first refreshes fall due again, counting from cycle 0.
  void restart();
  // Ranks (all-bank), banks (per-bank) or none (off).
  std::size_t units() const { return due_.size(); }
  // The earliest cycle a refresh falls due (kNever when off).
  std::int64_t next_due() const { return next_due_; }
  // The unit whose refresh covers `bank` (flat index `flat_bank`).
  std::size_t unit_of(const timing::BankTarget& bank, std::size_t flat_bank) const {
    return all_bank_ ? static_cast<std::size_t>(bank.rank) : flat_bank;
  }
  // A request to `bank` must wait: its unit's refresh is due at `now` and not yet issued.
  bool blocks(const timing::BankTarget& bank, std::size_t flat_bank, std::int64_t now) const {
    return !due_.empty() && due_[unit_of(bank, flat_bank)] <= now;
  }
  // Weighs into `best` the next command of every refresh due at `now`: a precharge of each bank
  // of the unit still open, or once all are closed the refresh itself.
  void choose(Candidate& best, const timing::DramTimingState& timing, std::int64_t now) const {
    if (next_due_ <= now) choose_due(best, timing, now);  // mostly none is: no call
  }
  // The unit's refresh was issued: it falls due again tREFI after it last fell due.
  void refreshed(std::size_t unit);

 private:
  void choose_due(Candidate& best, const timing::DramTimingState& timing, std::int64_t now) const;

  BankNumbering banks_;
  bool all_bank_;
  std::int64_t interval_cycles_;
  std::vector<std::int64_t> due_;  // per unit
  std::int64_t next_due_ = timing::DramTimingState::kNever;  // the earliest of due_
};

}  // namespace reusesim::dram
