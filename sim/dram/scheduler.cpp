#include "dram/scheduler.h"

#include <algorithm>

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
  touched_banks_.assign(banks_.banks(), 0);
  pass_generation_ = 0;
  candidates_.clear();
  candidates_valid_ = false;
  candidates_valid_until_ = 0;
  last_column_bank_ = 0;
  column_floors_.assign(static_cast<std::size_t>(banks_.ranks() * banks_.bank_groups() * 2), {0, 0});
  floor_generation_ = 0;
}

Candidate FrFcfsScheduler::next_command(RequestRef ref, std::int64_t now) const {
  const Request& request = queues_.at(ref);
  const auto hits_in = [&](const std::vector<Request>& requests) {
    return std::count_if(requests.begin(), requests.end(), [&](const Request& other) {
      return other.flat_bank == request.flat_bank && timing_.open_row(other.flat_bank) == other.row;
    });
  };
  Candidate candidate = plan(ref, static_cast<int>(hits_in(queues_.reads()) + hits_in(queues_.writes())));
  if (candidate.planned) {
    candidate.cycle = timing_.earliest(candidate.command, candidate.bank, std::max(now, request.ready_cycle));
  }
  return candidate;
}

void FrFcfsScheduler::find_candidates(std::int64_t now, bool serve_writes) {
  candidates_.clear();
  // One pass over both queues finds, per bank, the oldest request that may go, its oldest row hit,
  // and the oldest row hit of the other kind; only those can win (younger ones to the same bank
  // need the same command at the same cycle, or wait behind the hits), so each bank is timed once.
  const std::uint64_t pass = ++pass_generation_;
  std::size_t touched = 0;
  for (const bool writes : {false, true}) {
    const std::vector<Request>& queue = writes ? queues_.writes() : queues_.reads();
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const Request& request = queue[i];
      const RequestRef ref = static_cast<RequestRef>(i) | (writes ? kWriteRef : 0);
      BankPick& pick = bank_picks_[request.flat_bank];
      if (pick.generation != pass) {
        pick = BankPick{pass, kNoRef, kNoRef, kNoRef, 0};
        touched_banks_[touched++] = request.flat_bank;
      }
      const bool may_go = command_queues_ ? request.in_command_queue : request.is_write == serve_writes;
      const bool hit = timing_.open_row(request.flat_bank) == request.row;
      // Queued hits keep a row open: a conflicting request waits for them rather than close it
      // (with command queues, only the hits already in the bank's command queue).
      if (hit && (may_go || !command_queues_)) ++pick.hits;
      if (refresh_.blocks(request.bank, request.flat_bank, now)) continue;
      if (may_go) {
        keep_older(pick.oldest, ref);
        if (hit) keep_older(pick.oldest_hit, ref);
      } else if (hit && !command_queues_) {
        keep_older(pick.other_hit, ref);
      }
    }
  }
  for (std::size_t i = 0; i < touched; ++i) {
    const std::size_t flat = touched_banks_[i];
    const BankPick& pick = bank_picks_[flat];
    const RequestRef chosen = pick.oldest_hit != kNoRef ? pick.oldest_hit : pick.oldest;
    if (chosen == kNoRef) continue;
    Candidate candidate = plan(chosen, pick.hits);
    // The served request needs the bank's row closed, but queued requests of the other kind hit
    // it: they go first, so a drain does not close a row that waiting reads are about to use.
    if (!candidate.planned && pick.other_hit != kNoRef) candidate = plan(pick.other_hit, pick.hits);
    if (!candidate.planned) continue;
    candidate.flat_bank = flat;
    candidate.floor_slot = static_cast<std::size_t>(
        (candidate.bank.rank * banks_.bank_groups() + candidate.bank.bank_group) * 2 +
        (candidate.command == timing::DramCommand::write ? 1 : 0));
    candidates_.push_back(candidate);  // cycle kNever: computed when first considered
  }
  candidates_valid_ = true;
  candidates_valid_until_ = refresh_.next_due();
}

void FrFcfsScheduler::choose(Candidate& best, std::int64_t now) {
  // Between full passes only column commands were issued: the same commands. A column command
  // moves the bus constraints of every column command and the precharge of its own bank; the
  // other commands' earliest cycles stand (earliest() is the later of `now` and its constraints).
  ++floor_generation_;
  const Candidate* winner = nullptr;
  for (Candidate& candidate : candidates_) {
    if (candidate.is_column) {
      auto& [generation, floor] = column_floors_[candidate.floor_slot];
      if (generation != floor_generation_) {
        generation = floor_generation_;
        floor = timing_.column_floor(candidate.command == timing::DramCommand::write, candidate.bank, now);
      }
      candidate.cycle = std::max({floor, timing_.column_ready(candidate.flat_bank), candidate.not_before});
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
