#include "dram/scheduler.h"

#include <algorithm>
#include <limits>

namespace reusesim::dram {

FrFcfsScheduler::FrFcfsScheduler(const spec::DramSpec& spec, const RequestQueues& queues,
                                 const timing::DramTimingState& timing, const RefreshSchedule& refresh)
    : queues_(queues),
      timing_(timing),
      refresh_(refresh),
      banks_(spec),
      command_queues_(spec.controller.command_queue_depth > 0) {
  restart();
}

void FrFcfsScheduler::restart() {
  bank_picks_.assign(banks_.banks(), BankPick{});
  pick_generation_ = 1;
  touched_banks_.assign(banks_.banks(), 0);
  bank_candidates_.assign(banks_.banks(), Candidate{});
  planned_banks_.clear();
  planned_position_.assign(banks_.banks(), 0);
  bank_dirty_.assign(banks_.banks(), 0);
  dirty_banks_.clear();
  all_dirty_ = true;
  activated_since_pass_ = false;
  erased_since_pass_.clear();
  last_serve_writes_ = false;
  last_pass_requests_ = 0;
  candidates_valid_ = false;
  candidates_valid_until_ = 0;
  last_column_bank_ = 0;
  column_floors_.assign(static_cast<std::size_t>(banks_.ranks() * banks_.bank_groups() * 2), {0, 0});
  floor_generation_ = 1;
}

Candidate FrFcfsScheduler::next_command(RequestRef ref, std::int64_t now) const {
  const Request& request = queues_.at(ref);
  const auto hits_in = [&](const std::vector<Request>& requests) {
    return std::count_if(requests.begin(), requests.end(), [&](const Request& other) {
      return other.flat_bank == request.flat_bank && timing_.open_row(other.flat_bank) == other.row;
    });
  };
  // Only a request to another row than the open one needs the hits counted (plan() asks then).
  const std::int64_t open_row = timing_.open_row(request.flat_bank);
  const bool conflict = open_row != request.row && open_row != timing::DramTimingState::kClosed;
  const auto hits = conflict ? hits_in(queues_.reads()) + hits_in(queues_.writes()) : 0;
  Candidate candidate = plan(ref, static_cast<int>(hits));
  if (candidate.planned) {
    candidate.cycle = timing_.earliest(candidate.command, candidate.bank, std::max(now, request.ready_cycle));
  }
  return candidate;
}

void FrFcfsScheduler::find_candidates(std::int64_t now, bool serve_writes) {
  // Only those picks can win (younger requests to the same bank need the same command at the same
  // cycle, or wait behind the hits), so each bank is timed once. What every pick depends on: the
  // kind served, which refreshes are due (they change when one falls due, at
  // candidates_valid_until_, or is issued, which calls invalidate()) and command queues.
  // (When the last pass saw no request, no bank kept a pick from it: the dirty ones are all.)
  const bool all = all_dirty_ || command_queues_ ||
                   (last_pass_requests_ > 0 && (serve_writes != last_serve_writes_ || now >= candidates_valid_until_));
  touched_ = 0;
  if (all) ++pick_generation_;
  for (const std::size_t flat : dirty_banks_) bank_picks_[flat].generation = 0;  // found again
  for (const bool writes : {false, true}) {
    const std::vector<Request>& queue = writes ? queues_.writes() : queues_.reads();
    for (std::size_t i = 0; i < queue.size(); ++i) {
      if (!all && !bank_dirty_[queue[i].flat_bank]) continue;
      visit(queue[i], static_cast<RequestRef>(i) | (writes ? kWriteRef : 0), serve_writes, now);
    }
  }
  // The candidates kept: refs after an erased one move down, and after an ACT the ACTs' cycles
  // are found again.
  if (!erased_since_pass_.empty() || activated_since_pass_) {
    keep_candidates();
  }
  // Banks with a pick now, then banks planned before that have none any more.
  for (std::size_t i = 0; i < touched_; ++i) plan_bank(touched_banks_[i]);
  if (all) {
    for (std::size_t i = planned_banks_.size(); i-- > 0;) {
      if (bank_picks_[planned_banks_[i]].generation != pick_generation_) plan_bank(planned_banks_[i]);
    }
  } else {
    for (const std::size_t flat : dirty_banks_) {
      if (bank_picks_[flat].generation != pick_generation_) plan_bank(flat);
    }
  }
  for (const std::size_t flat : dirty_banks_) bank_dirty_[flat] = 0;
  dirty_banks_.clear();
  all_dirty_ = false;
  last_serve_writes_ = serve_writes;
  last_pass_requests_ = queues_.reads().size() + queues_.writes().size();
  candidates_valid_ = true;
  candidates_valid_until_ = refresh_.next_due();
}

void FrFcfsScheduler::keep_candidates() {
  for (const std::size_t flat : planned_banks_) {
    Candidate& candidate = bank_candidates_[flat];
    for (const RequestRef erased : erased_since_pass_) {
      const bool same_queue = (candidate.request & kWriteRef) == (erased & kWriteRef);
      if (same_queue && candidate.request > erased) --candidate.request;
    }
    if (activated_since_pass_ && candidate.command == timing::DramCommand::activate) {
      candidate.cycle = timing::DramTimingState::kNever;
    }
  }
  erased_since_pass_.clear();
  activated_since_pass_ = false;
}

void FrFcfsScheduler::plan_bank(std::size_t flat_bank) {
  const BankPick& pick = bank_picks_[flat_bank];
  Candidate& candidate = bank_candidates_[flat_bank];
  const bool was_planned = candidate.planned;
  candidate = Candidate{};
  const RequestRef chosen = pick.oldest_hit != kNoRef ? pick.oldest_hit : pick.oldest;
  if (pick.generation == pick_generation_ && chosen != kNoRef) {
    candidate = plan(chosen, pick.hits);
    // The served request needs the bank's row closed, but queued requests of the other kind hit
    // it: they go first, so a drain does not close a row that waiting reads are about to use.
    if (!candidate.planned && pick.other_hit != kNoRef) candidate = plan(pick.other_hit, pick.hits);
  }
  if (candidate.planned) {
    candidate.flat_bank = flat_bank;
    candidate.floor_slot =
        static_cast<std::size_t>((candidate.bank.rank * banks_.bank_groups() + candidate.bank.bank_group) * 2 +
                                 (candidate.command == timing::DramCommand::write ? 1 : 0));
  }
  if (candidate.planned == was_planned) return;
  // planned_banks_ in any order: the winner is the same (earlier() orders every two candidates).
  if (candidate.planned) {
    planned_position_[flat_bank] = planned_banks_.size();
    planned_banks_.push_back(flat_bank);
  } else {
    const std::size_t position = planned_position_[flat_bank];
    planned_banks_[position] = planned_banks_.back();
    planned_position_[planned_banks_[position]] = position;
    planned_banks_.pop_back();
  }
}

void FrFcfsScheduler::choose(Candidate& best, std::int64_t now) {
  // Since the last pass only column commands were issued: the same commands. A column command
  // moves the bus constraints of every column command and the precharge of its own bank; the
  // other commands' earliest cycles stand (earliest() is the later of `now` and its constraints).
  const Candidate* winner = nullptr;
  for (const std::size_t flat : planned_banks_) {
    Candidate& candidate = bank_candidates_[flat];
    if (candidate.is_column) {
      auto& [generation, floor] = column_floors_[candidate.floor_slot];
      if (generation != floor_generation_) {
        generation = floor_generation_;
        floor = timing_.column_floor(candidate.command == timing::DramCommand::write, candidate.bank,
                                     std::numeric_limits<std::int64_t>::min());
      }
      candidate.cycle = std::max({floor, now, timing_.column_ready(candidate.flat_bank), candidate.not_before});
    } else if (candidate.cycle == timing::DramTimingState::kNever ||
               (candidate.command == timing::DramCommand::precharge && last_column_bank_ == candidate.flat_bank)) {
      candidate.cycle = std::max(timing_.earliest(candidate.command, candidate.bank, now), candidate.not_before);
    } else if (candidate.cycle < now) {
      candidate.cycle = now;
    }
    if (winner == nullptr || earlier(candidate, *winner)) winner = &candidate;
  }
  if (winner != nullptr) consider(best, *winner);
}

}  // namespace reusesim::dram
