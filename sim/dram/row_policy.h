#pragma once
// The page policy (docs/dram-model.md, "Controller"). Open page: a row stays open until a
// conflict or a refresh closes it, and this part proposes nothing. Closed page: a bank is
// precharged after each request it served, unless queued requests hit its open row.

#include <vector>

#include "dram/banks.h"
#include "dram/candidate.h"
#include "dram/scheduler.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

class RowPolicy {
 public:
  explicit RowPolicy(const spec::DramSpec& spec)
      : banks_(spec), closed_page_(spec.controller.page_policy == spec::PagePolicy::closed) {}

  void restart() { banks_to_close_.clear(); }
  // A request's last column command was issued to `bank`.
  void request_done(const timing::BankTarget& bank) {
    if (closed_page_) banks_to_close_.push_back(bank);
  }
  // `bank` was precharged, for whatever reason: nothing left to close.
  void precharged(const timing::BankTarget& bank);
  // Weighs into `best` a precharge of each bank to close whose row no queued request hits (as the
  // scheduler's last full pass counted them).
  void choose(Candidate& best, const timing::DramTimingState& timing, const FrFcfsScheduler& scheduler,
              std::int64_t now) const;

 private:
  BankNumbering banks_;
  bool closed_page_;
  std::vector<timing::BankTarget> banks_to_close_;
};

}  // namespace reusesim::dram
