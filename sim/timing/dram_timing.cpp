#include "timing/dram_timing.h"

#include <algorithm>

namespace reusesim::timing {

namespace {

constexpr std::int64_t kLongAgo = std::numeric_limits<std::int64_t>::min() / 4;

}  // namespace

std::string command_name(DramCommand command) {
  switch (command) {
    case DramCommand::activate: return "ACT";
    case DramCommand::precharge: return "PRE";
    case DramCommand::read: return "RD";
    case DramCommand::write: return "WR";
    default: return "REF";
  }
}

DramTimingState::DramTimingState(const spec::DramSpec& spec)
    : timing_(spec.timing),
      refresh_mode_(spec.controller.refresh),
      trfc_per_bank_(spec.timing.trfc_pb),
      bank_groups_(spec.bank_groups),
      banks_per_group_(spec.banks_per_group),
      banks_(static_cast<std::size_t>(spec.ranks * spec.bank_groups * spec.banks_per_group)) {
  Rank rank;
  rank.recent_activates.fill(kLongAgo);
  rank.last_activate = kLongAgo;
  rank.last_activate_in_group.assign(static_cast<std::size_t>(spec.bank_groups), kLongAgo);
  rank.write_data_end = kLongAgo;
  rank.write_data_end_in_group.assign(static_cast<std::size_t>(spec.bank_groups), kLongAgo);
  ranks_.assign(static_cast<std::size_t>(spec.ranks), rank);
}

const DramTimingState::Bank& DramTimingState::bank(const BankTarget& target) const {
  return banks_[static_cast<std::size_t>((target.rank * bank_groups_ + target.bank_group) * banks_per_group_ + target.bank)];
}

DramTimingState::Bank& DramTimingState::bank(const BankTarget& target) {
  return const_cast<Bank&>(static_cast<const DramTimingState*>(this)->bank(target));
}

bool DramTimingState::rank_precharged(std::int64_t rank) const {
  const std::size_t per_rank = static_cast<std::size_t>(bank_groups_ * banks_per_group_);
  const auto first = banks_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rank) * per_rank);
  return std::all_of(first, first + static_cast<std::ptrdiff_t>(per_rank),
                     [](const Bank& b) { return b.open_row == kClosed; });
}

std::int64_t DramTimingState::column_earliest(bool is_write, const BankTarget& target, std::int64_t now) const {
  return std::max(column_floor(is_write, target, now), bank(target).next_column);  // tRCD
}

std::int64_t DramTimingState::column_floor(bool is_write, const BankTarget& target, std::int64_t now) const {
  const Rank& rank = ranks_[static_cast<std::size_t>(target.rank)];
  const auto group = static_cast<std::size_t>(target.bank_group);
  std::int64_t earliest = now;
  // Column-to-column: tCCD_L within a bank group, tCCD_S across groups (or ranks).
  const bool same_group = target.rank == last_column_rank_ && target.bank_group == last_column_group_;
  earliest = std::max(earliest, last_column_cycle_ + (same_group ? timing_.tccd_l : timing_.tccd_s));
  // The data bus: this burst may start once the last one ended (one idle clock to switch ranks).
  const std::int64_t latency = is_write ? timing_.cwl : timing_.cl;
  const std::int64_t rank_switch = last_column_rank_ >= 0 && last_column_rank_ != target.rank ? 1 : 0;
  earliest = std::max(earliest, bus_free_ + rank_switch - latency);
  if (is_write) {
    // Read-to-write turnaround: the write burst starts two clocks after the read burst ends.
    earliest = std::max(earliest, last_read_cycle_ + timing_.cl + burst_cycles() + 2 - timing_.cwl);
  } else {
    // Write-to-read in the same rank: tWTR_L within a bank group, tWTR_S across, after write data.
    earliest = std::max({earliest, rank.write_data_end + timing_.twtr_s,
                         rank.write_data_end_in_group[group] + timing_.twtr_l});
  }
  return earliest;
}

std::int64_t DramTimingState::activate_spacing(const BankTarget& target, std::int64_t not_before) const {
  const Rank& rank = ranks_[static_cast<std::size_t>(target.rank)];
  const std::int64_t oldest_of_four = rank.recent_activates[rank.next_slot];
  return std::max({not_before, rank.last_activate + timing_.trrd_s,
                   rank.last_activate_in_group[static_cast<std::size_t>(target.bank_group)] + timing_.trrd_l,
                   oldest_of_four + timing_.tfaw});
}

void DramTimingState::record_activate(Rank& rank, std::size_t group, std::int64_t cycle) {
  rank.last_activate = cycle;
  rank.last_activate_in_group[group] = cycle;
  rank.recent_activates[rank.next_slot] = cycle;
  rank.next_slot = (rank.next_slot + 1) % rank.recent_activates.size();
}

std::int64_t DramTimingState::earliest(DramCommand command, const BankTarget& target, std::int64_t now) const {
  const Bank& b = bank(target);
  const Rank& rank = ranks_[static_cast<std::size_t>(target.rank)];
  switch (command) {
    case DramCommand::activate:
      if (b.open_row != kClosed) return kNever;
      return activate_spacing(target, std::max({now, b.next_activate, rank.refresh_until}));
    case DramCommand::precharge:
      if (b.open_row == kClosed) return kNever;
      return std::max(now, b.next_precharge);
    case DramCommand::read:
    case DramCommand::write:
      if (b.open_row == kClosed) return kNever;
      return column_earliest(command == DramCommand::write, target, now);
    default: {
      if (refresh_mode_ == spec::RefreshMode::per_bank) {
        // A per-bank refresh activates rows internally: it is spaced like an ACT (tRRD, tFAW).
        if (b.open_row != kClosed) return kNever;
        return activate_spacing(target, std::max({now, b.next_activate, rank.refresh_until}));
      }
      if (!rank_precharged(target.rank)) return kNever;
      std::int64_t earliest = std::max(now, rank.refresh_until);
      for (std::int64_t group = 0; group < bank_groups_; ++group) {
        for (std::int64_t index = 0; index < banks_per_group_; ++index) {
          earliest = std::max(earliest, bank(BankTarget{target.rank, group, index}).next_activate);  // tRP
        }
      }
      return earliest;
    }
  }
}

std::int64_t DramTimingState::issue(DramCommand command, const BankTarget& target, std::int64_t row,
                                    std::int64_t cycle) {
  Bank& b = bank(target);
  Rank& rank = ranks_[static_cast<std::size_t>(target.rank)];
  const auto group = static_cast<std::size_t>(target.bank_group);
  switch (command) {
    case DramCommand::activate:
      b.open_row = row;
      b.next_column = cycle + timing_.trcd;
      b.next_precharge = cycle + timing_.tras;
      b.next_activate = cycle + timing_.trc;
      record_activate(rank, group, cycle);
      return cycle;
    case DramCommand::precharge:
      b.open_row = kClosed;
      b.next_activate = std::max(b.next_activate, cycle + timing_.trp);
      return cycle;
    case DramCommand::read:
    case DramCommand::write: {
      const bool is_write = command == DramCommand::write;
      const std::int64_t data_end = cycle + (is_write ? timing_.cwl : timing_.cl) + burst_cycles();
      bus_free_ = data_end;
      last_column_cycle_ = cycle;
      last_column_rank_ = target.rank;
      last_column_group_ = target.bank_group;
      if (is_write) {
        rank.write_data_end = data_end;
        rank.write_data_end_in_group[group] = data_end;
        b.next_precharge = std::max(b.next_precharge, data_end + timing_.twr);
      } else {
        last_read_cycle_ = cycle;
        b.next_precharge = std::max(b.next_precharge, cycle + timing_.trtp);
      }
      return data_end;
    }
    default:
      if (refresh_mode_ == spec::RefreshMode::per_bank) {
        b.next_activate = std::max(b.next_activate, cycle + trfc_per_bank_);
        record_activate(rank, group, cycle);
      } else {
        rank.refresh_until = cycle + timing_.trfc;
      }
      return cycle;
  }
}

}  // namespace reusesim::timing
