#include "dram/controller.h"

#include <algorithm>

namespace reusesim::dram {

Controller::Controller(const spec::DramSpec& spec, FrontEnd& front_end)
    : spec_(spec),
      front_end_(front_end),
      banks_(spec),
      mapper_(spec),
      timing_(spec),
      queues_(spec.controller, banks_.banks()),
      drain_(spec.controller),
      refresh_(spec),
      scheduler_(spec, queues_, timing_, refresh_),
      rows_(spec),
      standby_(spec.ranks),
      watchdog_(spec, refresh_.units()),
      closed_for_conflict_(banks_.banks(), false),
      conflict_cycles_(spec.timing.trp + spec.timing.trcd + spec.timing.cl + spec.timing.burst_length / 2) {}

void Controller::restart(std::int64_t now) {
  standby_.restart(now);
  timing_ = timing::DramTimingState(spec_);
  queues_.clear();
  drain_.restart();
  refresh_.restart();
  scheduler_.restart();
  rows_.restart();
  watchdog_.restart();
  command_bus_free_ = 0;
  last_data_end_ = 0;
  answers_due_.clear();
  queued_bursts_ = 0;
  closed_for_conflict_.assign(closed_for_conflict_.size(), false);
  last_column_direction_ = -1;
  // The driver may be asleep on a plan made for the old epoch: it must call advance() again.
  planned_wake_ = timing::DramTimingState::kNever;
}

results::DramChannelStats Controller::stats(std::int64_t now) const {
  results::DramChannelStats counters = stats_;
  counters.active_rank_cycles = standby_.active_rank_cycles(now);
  return counters;
}

bool Controller::well_formed(std::uint64_t address, std::uint64_t bytes) const {
  const std::uint64_t within_burst = mapper_.burst_bytes() - 1;  // bursts are a power of two
  return bytes != 0 && (bytes & within_burst) == 0 && (address & within_burst) == 0 &&
         bytes <= mapper_.bytes_to_run_end(address);
}

bool Controller::submit(RequestTag tag, std::uint64_t address, std::int64_t bytes, bool is_write, std::int64_t now) {
  if (admit(tag, address, bytes, is_write, now, now)) return true;
  queues_.waiting().push_back(WaitingRequest{tag, address, bytes, is_write, now});
  return false;
}

bool Controller::admit(RequestTag tag, std::uint64_t address, std::int64_t bytes, bool is_write,
                       std::int64_t arrival_cycle, std::int64_t now) {
  if (!queues_.has_room(is_write)) return false;
  Request request;
  // A posted write is answered on arrival: nobody waits for its completion.
  request.tag = is_write && spec_.controller.posted_writes ? nullptr : tag;
  request.bytes = bytes;
  const timing::DramCoordinates where = mapper_.decode(address);
  request.row = where.row;
  request.bank = timing::BankTarget{where.rank, where.bank_group, where.bank};
  request.flat_bank = banks_.index(request.bank);
  request.is_write = is_write;
  request.arrival_cycle = arrival_cycle;
  request.ready_cycle = arrival_cycle + spec_.controller.frontend_latency_cycles;
  request.bursts_left = bytes / static_cast<std::int64_t>(mapper_.burst_bytes());
  queued_bursts_ += request.bursts_left;
  const RequestRef ref = queues_.push(request);
  scheduler_.invalidate_bank(request.flat_bank);
  // Wake the driver only if this request could go before what it is already waiting for.
  if (scheduler_.next_command(ref, std::max(now, command_bus_free_)).cycle < planned_wake_) front_end_.wake_controller();
  return true;
}

void Controller::admit_waiting(bool is_write) {
  std::deque<WaitingRequest>& waiting = queues_.waiting();
  for (auto next = waiting.begin(); next != waiting.end();) {
    if (next->is_write != is_write) {
      ++next;
      continue;
    }
    const WaitingRequest request = *next;
    if (!admit(request.tag, request.address, request.bytes, request.is_write, request.arrival_cycle, now_)) return;
    next = waiting.erase(next);
    front_end_.request_accepted(request.tag);
  }
}

void Controller::fill_command_queues() {
  const bool is_write = serving_writes();
  // Room in the read or write queue: refused requests come in (they join the command queues at
  // the next pass, behind the ones already there).
  if (queues_.fill_command_queues(is_write)) admit_waiting(is_write);
}

Candidate Controller::choose(std::int64_t now) {
  Candidate best;
  refresh_.choose(best, timing_, now);
  if (scheduler_.needs_pass(now)) {
    if (drain_.update(queues_.transaction_queue_size(true))) ++stats_.write_drains;
    if (spec_.controller.command_queue_depth > 0) fill_command_queues();
    scheduler_.find_candidates(now, serving_writes());
  }
  scheduler_.choose(best, now);
  rows_.choose(best, timing_, scheduler_, now);
  return best;
}

std::int64_t Controller::advance(std::int64_t now) {
  now_ = now;
  while (!watchdog_.fired()) {
    const Candidate choice = choose(std::max(now, command_bus_free_));
    if (choice.cycle <= now) {
      run_ahead(choice);
      continue;
    }
    // Sleep until the next command, the next refresh to fall due (idle or not: refreshes run on
    // schedule), or a request that could go sooner. A refresh already due is among the commands
    // choose() weighed: its cycle is the choice's, not the next clock.
    const std::int64_t refresh_due = refresh_.next_due();
    const std::int64_t wake_at = std::min(choice.cycle, refresh_due > now ? refresh_due : timing::DramTimingState::kNever);
    planned_wake_ = wake_at == timing::DramTimingState::kNever ? wake_at : std::max(wake_at, now + 1);
    return planned_wake_;
  }
  return timing::DramTimingState::kNever;  // stuck: never another command
}

void Controller::run_ahead(Candidate choice) {
  // New requests come when answers reach their requesters (or when one starts new work): until the
  // next answer, the queues are what the controller knows. Commands due before the first data end
  // of this pass are committed now, at their legal cycles, without a call each. The answers of
  // requests scheduled earlier fall inside that window. A request one brings has its data after
  // the bursts already scheduled and queued; if those keep the data bus busy for less than a row
  // conflict takes from arrival (tRP + tRCD + CL + BL/2), its PRE or ACT must not wait for the
  // window's end, so the window ends at that answer. (Streams with fewer requests in flight per
  // channel lost up to CL + BL/2 clocks at every row switch; deeper queues keep the long window.)
  while (!answers_due_.empty() && answers_due_.front() <= now_) answers_due_.pop_front();
  std::int64_t horizon = refresh_.next_due();
  if (!answers_due_.empty()) {
    const std::int64_t answer = answers_due_.front();
    const std::int64_t bus_work = std::max<std::int64_t>(0, last_data_end_ - answer) + queued_bursts_ * timing_.burst_cycles();
    if (bus_work < conflict_cycles_) horizon = std::min(horizon, answer);
  }
  while (true) {
    const std::int64_t data_end = issue(choice);
    if (watchdog_.fired()) return;
    if (choice.is_column) horizon = std::min(horizon, data_end);
    choice = choose(command_bus_free_);
    if (choice.cycle >= horizon) return;
  }
}

std::int64_t Controller::issue(const Candidate& choice) {
  const std::int64_t cycle = choice.cycle;
  command_bus_free_ = cycle + 1;  // one command per clock
  if (choice.is_column) {
    scheduler_.column_issued(banks_.index(choice.bank));
    watchdog_.column_issued();
  } else if (choice.command == timing::DramCommand::refresh) {
    scheduler_.invalidate();  // the banks it blocked take requests again
  } else if (choice.command == timing::DramCommand::activate) {
    scheduler_.activated(banks_.index(choice.bank));
  } else {
    scheduler_.invalidate_bank(banks_.index(choice.bank));  // its row closes
  }
  const std::int64_t data_end = timing_.issue(choice.command, choice.bank, choice.row, cycle);
  front_end_.command_issued(IssuedCommand{choice.command, choice.bank, choice.row, cycle});
  switch (choice.command) {
    case timing::DramCommand::activate: {
      ++stats_.activates;
      standby_.row_opened(choice.bank.rank, cycle);
      Request& request = queues_.at(choice.request);
      request.column_after_activate = true;
      request.activated_after_conflict = closed_for_conflict_[request.flat_bank];
      closed_for_conflict_[request.flat_bank] = false;
      break;
    }
    case timing::DramCommand::precharge:
      ++stats_.precharges;
      standby_.row_closed(choice.bank.rank, cycle);
      // A request's own precharge closes another row for it (a conflict); a refresh's or the
      // closed-page policy's leaves the bank idle.
      closed_for_conflict_[banks_.index(choice.bank)] = choice.request != kNoRef;
      rows_.precharged(choice.bank);
      break;
    case timing::DramCommand::refresh:
      ++stats_.refreshes;
      refresh_.refreshed(refresh_.unit_of(choice.bank, choice.flat_bank));
      if (watchdog_.refresh_issued(!queues_.empty())) front_end_.controller_stuck(watchdog_.message());
      break;
    default:
      finish_column(choice, data_end);
      break;
  }
  return data_end;
}

void Controller::finish_column(const Candidate& choice, std::int64_t data_end) {
  last_data_end_ = data_end;
  Request& request = queues_.at(choice.request);
  ++(request.is_write ? stats_.write_commands : stats_.read_commands);
  --queued_bursts_;
  if (!request.column_after_activate) {
    ++stats_.row_hits;
  } else {
    ++(request.activated_after_conflict ? stats_.row_conflicts : stats_.row_misses);
  }
  request.column_after_activate = false;
  const int direction = request.is_write ? 1 : 0;
  if (last_column_direction_ >= 0 && last_column_direction_ != direction) ++stats_.turnarounds;
  last_column_direction_ = direction;
  if (--request.bursts_left > 0) return;
  const Completion done{request.tag, request.arrival_cycle, data_end, request.bytes, request.is_write};
  if (done.tag != nullptr) answers_due_.push_back(data_end);
  const std::int64_t latency = data_end - request.arrival_cycle;
  if (done.is_write) {
    ++stats_.writes;
    stats_.write_bytes += done.bytes;
    stats_.write_latency.add(latency);
  } else {
    ++stats_.reads;
    stats_.read_bytes += done.bytes;
    stats_.read_latency.add(latency);
  }
  rows_.request_done(request.bank);
  const std::size_t flat_bank = request.flat_bank;
  queues_.erase(choice.request);  // `request` is gone now
  scheduler_.request_erased(choice.request, flat_bank);
  admit_waiting(done.is_write);  // room in the queue: the oldest refused requests come in
  front_end_.request_completed(done);
  if (idle()) front_end_.controller_idle();
}

}  // namespace reusesim::dram
