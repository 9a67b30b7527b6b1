#include "dram/row_policy.h"

#include <algorithm>

namespace reusesim::dram {

void RowPolicy::precharged(const timing::BankTarget& bank) {
  const std::size_t flat = banks_.index(bank);
  banks_to_close_.erase(std::remove_if(banks_to_close_.begin(), banks_to_close_.end(),
                                       [&](const timing::BankTarget& b) { return banks_.index(b) == flat; }),
                        banks_to_close_.end());
}

void RowPolicy::choose(Candidate& best, const timing::DramTimingState& timing, const FrFcfsScheduler& scheduler,
                       std::int64_t now) const {
  if (!closed_page_) return;
  for (const timing::BankTarget& bank : banks_to_close_) {
    if (scheduler.keeps_open(banks_.index(bank)) || timing.open_row(bank) == timing::DramTimingState::kClosed) continue;
    Candidate close;
    close.command = timing::DramCommand::precharge;
    close.bank = bank;
    close.cycle = timing.earliest(timing::DramCommand::precharge, bank, now);
    consider(best, close);
  }
}

}  // namespace reusesim::dram
