#include "dram/refresh.h"

#include <algorithm>

namespace reusesim::dram {

RefreshSchedule::RefreshSchedule(const spec::DramSpec& spec)
    : banks_(spec),
      all_bank_(spec.controller.refresh == spec::RefreshMode::all_bank),
      interval_cycles_(spec.timing.trefi) {
  const spec::RefreshMode mode = spec.controller.refresh;
  const std::int64_t units = mode == spec::RefreshMode::off        ? 0
                             : mode == spec::RefreshMode::all_bank ? banks_.ranks()
                                                                   : static_cast<std::int64_t>(banks_.banks());
  due_.resize(static_cast<std::size_t>(units));
  restart();
}

void RefreshSchedule::restart() {
  const auto units = static_cast<std::int64_t>(due_.size());
  for (std::int64_t unit = 0; unit < units; ++unit) {
    due_[static_cast<std::size_t>(unit)] = interval_cycles_ * (unit + 1) / units;
  }
  next_due_ = due_.empty() ? timing::DramTimingState::kNever : *std::min_element(due_.begin(), due_.end());
}

void RefreshSchedule::choose_due(Candidate& best, const timing::DramTimingState& timing, std::int64_t now) const {
  const std::int64_t banks_per_unit = all_bank_ ? banks_.banks_per_rank() : 1;
  for (std::size_t unit = 0; unit < due_.size(); ++unit) {
    if (due_[unit] > now) continue;
    const std::int64_t first = static_cast<std::int64_t>(unit) * banks_per_unit;
    bool all_closed = true;
    for (std::int64_t flat = first; flat < first + banks_per_unit; ++flat) {
      if (timing.open_row(static_cast<std::size_t>(flat)) == timing::DramTimingState::kClosed) continue;
      const timing::BankTarget bank = banks_.target(flat);
      all_closed = false;
      Candidate close;
      close.command = timing::DramCommand::precharge;
      close.bank = bank;
      close.cycle = timing.earliest(timing::DramCommand::precharge, bank, now);
      consider(best, close);
    }
    if (all_closed) {
      Candidate refresh;
      refresh.command = timing::DramCommand::refresh;
      refresh.bank = banks_.target(first);
      refresh.flat_bank = static_cast<std::size_t>(first);
      refresh.cycle = timing.earliest(timing::DramCommand::refresh, refresh.bank, now);
      consider(best, refresh);
    }
  }
}

void RefreshSchedule::refreshed(std::size_t unit) {
  due_[unit] += interval_cycles_;
  next_due_ = *std::min_element(due_.begin(), due_.end());
}

}  // namespace reusesim::dram
