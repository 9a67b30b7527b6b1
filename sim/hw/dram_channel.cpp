#include "hw/dram_channel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "hw/systemc_compat.h"

namespace reusesim::hw {

DramChannel::DramChannel(sc_core::sc_module_name name, const spec::DramSpec& spec)
    : sc_core::sc_module(name),
      socket("socket"),
      spec_(spec),
      mapper_(spec),
      timing_(spec),
      period_(spec.timing.tck_ns, sc_core::SC_NS) {
  REUSESIM_HAS_PROCESS(DramChannel);
  socket.register_nb_transport_fw(this, &DramChannel::nb_transport_fw);
  SC_THREAD(run);
  restart();
}

results::DramChannelStats DramChannel::stats() const {
  results::DramChannelStats now = stats_;
  const std::int64_t cycle = now_cycle();
  for (std::size_t rank = 0; rank < open_banks_in_rank_.size(); ++rank) {
    if (open_banks_in_rank_[rank] > 0) now.active_rank_cycles += std::max<std::int64_t>(0, cycle - rank_active_since_[rank]);
  }
  return now;
}

void DramChannel::open_row_in_rank(std::int64_t rank, std::int64_t cycle) {
  if (open_banks_in_rank_[rank]++ == 0) rank_active_since_[rank] = cycle;
}

void DramChannel::close_row_in_rank(std::int64_t rank, std::int64_t cycle) {
  if (--open_banks_in_rank_[rank] == 0) stats_.active_rank_cycles += cycle - rank_active_since_[rank];
}

void DramChannel::restart() {
  // Rows open until now close with the restart (its banks start precharged).
  for (std::size_t rank = 0; rank < open_banks_in_rank_.size(); ++rank) {
    if (open_banks_in_rank_[rank] > 0) {
      stats_.active_rank_cycles += std::max<std::int64_t>(0, now_cycle() - rank_active_since_[rank]);
    }
  }
  open_banks_in_rank_.assign(static_cast<std::size_t>(spec_.ranks), 0);
  rank_active_since_.assign(static_cast<std::size_t>(spec_.ranks), 0);
  epoch_ = sc_core::sc_time_stamp();
  epoch_cycle_ = static_cast<std::int64_t>(std::llround(epoch_ / period_));
  timing_ = timing::DramTimingState(spec_);
  reads_.clear();
  writes_.clear();
  waiting_.clear();
  banks_to_close_.clear();
  const std::int64_t banks_per_rank = spec_.bank_groups * spec_.banks_per_group;
  bank_picks_.assign(static_cast<std::size_t>(spec_.ranks * banks_per_rank), BankPick{});
  touched_banks_.clear();
  pass_generation_ = 0;
  candidates_.clear();
  candidates_valid_ = false;
  last_column_bank_ = 0;
  column_floors_.assign(static_cast<std::size_t>(spec_.ranks * spec_.bank_groups * 2), {0, 0});
  floor_generation_ = 0;
  candidates_valid_until_ = 0;
  // Refreshes are staggered so that ranks (or banks) do not all stop at once.
  const spec::RefreshMode refresh = spec_.controller.refresh;
  const std::int64_t refreshed_units =
      refresh == spec::RefreshMode::off ? 0 : refresh == spec::RefreshMode::all_bank ? spec_.ranks : spec_.ranks * banks_per_rank;
  refresh_interval_ = spec_.timing.trefi;
  refresh_due_.clear();
  for (std::int64_t unit = 0; unit < refreshed_units; ++unit) {
    refresh_due_.push_back(spec_.timing.trefi * (unit + 1) / refreshed_units);
  }
  next_refresh_due_ = earliest_refresh_due();
  command_bus_free_ = 0;
  last_data_end_ = 0;
  next_sequence_ = 0;
  draining_writes_ = false;
  command_queue_sizes_.assign(bank_picks_.size(), 0);
  commanded_reads_ = 0;
  commanded_writes_ = 0;
  closed_for_conflict_.assign(bank_picks_.size(), false);
  last_column_direction_ = -1;
  refreshes_without_progress_ = 0;
  // The scheduler may be asleep on a plan made for the old epoch: it replans now.
  planned_wake_ = timing::DramTimingState::kNever;
  if (sc_core::sc_is_running()) wake_.notify(sc_core::SC_ZERO_TIME);
}

std::int64_t DramChannel::earliest_refresh_due() const {
  return refresh_due_.empty() ? timing::DramTimingState::kNever : *std::min_element(refresh_due_.begin(), refresh_due_.end());
}

void DramChannel::record_to(results::TimelineRecorder& timeline) {
  timeline_ = &timeline;
  timeline_track_ = timeline.add_dram_channel(picoseconds(period_));
}

std::int64_t DramChannel::now_cycle() const {
  // Requests may arrive between clock edges: they are seen at the next edge.
  const sc_core::sc_time now = sc_core::sc_time_stamp() - epoch_;
  const auto cycles = static_cast<std::int64_t>(now / period_);
  return period_ * static_cast<double>(cycles) < now ? cycles + 1 : cycles;
}

std::size_t DramChannel::bank_index(const timing::BankTarget& bank) const {
  return static_cast<std::size_t>((bank.rank * spec_.bank_groups + bank.bank_group) * spec_.banks_per_group + bank.bank);
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                sc_core::sc_time&) {
  if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  const std::uint64_t address = payload.get_address();
  const std::uint64_t bytes = payload.get_data_length();
  // A request covers whole bursts of one bank and row; the DMA engine splits transfers so.
  if (bytes == 0 || bytes % mapper_.burst_bytes() != 0 || address % mapper_.burst_bytes() != 0 ||
      bytes > mapper_.bytes_to_run_end(address)) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  const std::int64_t arrival = now_cycle();
  if (!admit(payload, arrival)) {
    waiting_.emplace_back(&payload, arrival);
    return tlm::TLM_ACCEPTED;  // END_REQ follows when the queue has room
  }
  if (payload.is_write() && spec_.controller.posted_writes) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);  // posted: done as far as the requester goes
    return tlm::TLM_COMPLETED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

bool DramChannel::admit(tlm::tlm_generic_payload& payload, std::int64_t arrival_cycle) {
  const bool is_write = payload.is_write();
  const spec::DramControllerSpec& controller = spec_.controller;
  const std::int64_t depth = is_write ? controller.write_queue_depth : controller.read_queue_depth;
  if (transaction_queue_size(is_write) >= depth) return false;
  std::vector<Request>& queue = is_write ? writes_ : reads_;
  Request request;
  request.payload = &payload;
  request.bytes = static_cast<std::int64_t>(payload.get_data_length());
  const timing::DramCoordinates where = mapper_.decode(payload.get_address());
  request.row = where.row;
  request.bank = timing::BankTarget{where.rank, where.bank_group, where.bank};
  request.flat_bank = bank_index(request.bank);
  request.is_write = is_write;
  request.arrival_cycle = arrival_cycle;
  request.ready_cycle = arrival_cycle + controller.frontend_latency_cycles;
  request.bursts_left = request.bytes / static_cast<std::int64_t>(mapper_.burst_bytes());
  request.sequence = next_sequence_++;
  // A posted write is answered now; the channel keeps only what it needs of it.
  if (is_write && controller.posted_writes) request.payload = nullptr;
  queue.push_back(request);
  candidates_valid_ = false;
  // Wake the scheduler only if this request could go before what it is already waiting for.
  const std::int64_t now = now_cycle();
  if (next_command(queue, queue.size() - 1, std::max(now, command_bus_free_)).cycle < planned_wake_) wake_.notify();
  return true;
}

std::int64_t DramChannel::transaction_queue_size(bool is_write) const {
  const auto queued = static_cast<std::int64_t>((is_write ? writes_ : reads_).size());
  return queued - (is_write ? commanded_writes_ : commanded_reads_);
}

void DramChannel::admit_waiting(bool is_write) {
  for (auto waiting = waiting_.begin(); waiting != waiting_.end();) {
    if (waiting->first->is_write() != is_write) {
      ++waiting;
      continue;
    }
    tlm::tlm_generic_payload* payload = waiting->first;
    if (!admit(*payload, waiting->second)) return;
    waiting = waiting_.erase(waiting);
    // END_REQ; a posted write gets its response instead, which also ends the request phase.
    const bool posted = is_write && spec_.controller.posted_writes;
    if (posted) payload->set_response_status(tlm::TLM_OK_RESPONSE);
    tlm::tlm_phase phase = posted ? tlm::BEGIN_RESP : tlm::END_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->nb_transport_bw(*payload, phase, delay);
  }
}

void DramChannel::fill_command_queues() {
  const bool is_write = serving_writes();
  std::vector<Request>& queue = is_write ? writes_ : reads_;
  const std::int64_t depth = spec_.controller.command_queue_depth;
  bool moved = false;
  for (Request& request : queue) {
    std::int64_t& bank_size = command_queue_sizes_[request.flat_bank];
    if (request.in_command_queue || bank_size >= depth) continue;
    request.in_command_queue = true;
    ++bank_size;
    ++(is_write ? commanded_writes_ : commanded_reads_);
    moved = true;
  }
  // Room in the transaction queue: refused requests come in (they join the command queues at the
  // next pass, behind the ones already there).
  if (moved) admit_waiting(is_write);
}

void DramChannel::update_write_drain() {
  // Watermarks: drain from `high` queued writes down to `low`. drain_all: drain when the write
  // queue is full, until it is empty. With command queues, queued means still in the write queue.
  const spec::DramControllerSpec& controller = spec_.controller;
  const std::int64_t queued = transaction_queue_size(true);
  const bool watermarks = controller.write_drain == spec::WriteDrainPolicy::watermarks;
  const bool start = queued >= (watermarks ? controller.write_drain_high : controller.write_queue_depth);
  const bool stop = watermarks ? queued <= controller.write_drain_low : queued == 0;
  if (!draining_writes_ && start) {
    draining_writes_ = true;
    ++stats_.write_drains;
  } else if (draining_writes_ && stop) {
    draining_writes_ = false;
  }
}

bool DramChannel::earlier(const Choice& a, const Choice& b) {
  // Earliest first; at equal times column commands (row hits) first, then the oldest.
  if (a.cycle != b.cycle) return a.cycle < b.cycle;
  if (a.is_column != b.is_column) return a.is_column;
  return a.sequence < b.sequence;
}

void DramChannel::consider(Choice& best, const Choice& candidate) const {
  if (candidate.cycle == timing::DramTimingState::kNever) return;
  if (best.cycle == timing::DramTimingState::kNever || earlier(candidate, best)) best = candidate;
}

void DramChannel::choose_refresh(Choice& best, std::int64_t now) {
  if (next_refresh_due_ > now) return;
  const std::int64_t banks_per_rank = spec_.bank_groups * spec_.banks_per_group;
  for (std::size_t unit = 0; unit < refresh_due_.size(); ++unit) {
    if (refresh_due_[unit] > now) continue;
    // A due refresh first closes what it needs closed, then refreshes; it goes before requests.
    const auto index = static_cast<std::int64_t>(unit);
    const bool all_bank = spec_.controller.refresh == spec::RefreshMode::all_bank;
    const std::int64_t first = all_bank ? index * banks_per_rank : index;
    const std::int64_t count = all_bank ? banks_per_rank : 1;
    bool all_closed = true;
    for (std::int64_t flat = first; flat < first + count; ++flat) {
      const timing::BankTarget bank{flat / banks_per_rank, (flat % banks_per_rank) / spec_.banks_per_group,
                            flat % spec_.banks_per_group};
      if (timing_.open_row(bank) == timing::DramTimingState::kClosed) continue;
      all_closed = false;
      Choice close;
      close.command = timing::DramCommand::precharge;
      close.bank = bank;
      close.cycle = timing_.earliest(timing::DramCommand::precharge, bank, now);
      consider(best, close);
    }
    if (all_closed) {
      Choice refresh;
      refresh.command = timing::DramCommand::refresh;
      refresh.bank = timing::BankTarget{first / banks_per_rank, (first % banks_per_rank) / spec_.banks_per_group,
                                first % spec_.banks_per_group};
      refresh.cycle = timing_.earliest(timing::DramCommand::refresh, refresh.bank, now);
      refresh.index = unit;
      consider(best, refresh);
    }
  }
}

DramChannel::Choice DramChannel::next_command(std::vector<Request>& queue, std::size_t index, std::int64_t now) const {
  const Request& request = queue[index];
  const auto hits_in = [&](const std::vector<Request>& requests) {
    return std::count_if(requests.begin(), requests.end(), [&](const Request& other) {
      return other.flat_bank == request.flat_bank && timing_.open_row(other.flat_bank) == other.row;
    });
  };
  Choice candidate = plan(queue, index, static_cast<int>(hits_in(reads_) + hits_in(writes_)));
  if (candidate.planned) {
    candidate.cycle = timing_.earliest(candidate.command, candidate.bank, std::max(now, request.ready_cycle));
  }
  return candidate;
}

DramChannel::Choice DramChannel::plan(std::vector<Request>& queue, std::size_t index, int open_row_hits) const {
  const Request& request = queue[index];
  Choice candidate;
  candidate.queue = &queue;
  candidate.index = index;
  candidate.bank = request.bank;
  candidate.row = request.row;
  candidate.sequence = request.sequence;
  candidate.not_before = request.ready_cycle;
  const std::int64_t open_row = timing_.open_row(request.flat_bank);
  if (open_row == request.row) {
    candidate.command = request.is_write ? timing::DramCommand::write : timing::DramCommand::read;
    candidate.is_column = true;
  } else if (open_row == timing::DramTimingState::kClosed) {
    candidate.command = timing::DramCommand::activate;
  } else if (open_row_hits == 0) {
    candidate.command = timing::DramCommand::precharge;  // a conflict: close the row nobody queued wants
  } else {
    return candidate;  // not planned: the queued hits to the open row go first
  }
  candidate.planned = true;
  return candidate;
}

DramChannel::Choice DramChannel::choose(std::int64_t now) {
  Choice best;
  choose_refresh(best, now);
  if (!candidates_valid_ || now >= candidates_valid_until_) find_candidates(now);
  // Between full passes only column commands were issued: the same commands. A column command
  // moves the bus constraints of every column command and the precharge of its own bank; the
  // other commands' earliest cycles stand (earliest() is the later of `now` and its constraints).
  ++floor_generation_;
  const Choice* winner = nullptr;
  for (Choice& candidate : candidates_) {
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
  if (spec_.controller.page_policy == spec::PagePolicy::closed) {
    for (const timing::BankTarget& bank : banks_to_close_) {
      const BankPick& pick = bank_picks_[bank_index(bank)];
      if ((pick.generation == pass_generation_ && pick.hits > 0) || timing_.open_row(bank) == timing::DramTimingState::kClosed) {
        continue;
      }
      Choice close;
      close.command = timing::DramCommand::precharge;
      close.bank = bank;
      close.cycle = timing_.earliest(timing::DramCommand::precharge, bank, now);
      consider(best, close);
    }
  }
  return best;
}

void DramChannel::find_candidates(std::int64_t now) {
  update_write_drain();
  const bool command_queues = spec_.controller.command_queue_depth > 0;
  if (command_queues) fill_command_queues();
  const bool serve_writes = serving_writes();
  candidates_.clear();
  // One pass over both queues finds, per bank, the oldest request that may go, its oldest row hit,
  // and the oldest row hit of the other kind; only those can win (younger ones to the same bank
  // need the same command at the same cycle, or wait behind the hits), so each bank is timed once.
  // May go: with command queues, the requests in them (reads and writes alike); without, the
  // requests of the kind being served (writes while draining or when no read waits, else reads).
  const std::uint64_t pass = ++pass_generation_;
  touched_banks_.clear();
  for (const bool writes : {false, true}) {
    const std::vector<Request>& queue = writes ? writes_ : reads_;
    for (std::size_t i = 0; i < queue.size(); ++i) {
      const Request& request = queue[i];
      const std::uint32_t ref = static_cast<std::uint32_t>(i) | (writes ? kWriteRef : 0);
      BankPick& pick = bank_picks_[request.flat_bank];
      if (pick.generation != pass) {
        pick = BankPick{pass, kNoRef, kNoRef, kNoRef, 0};
        touched_banks_.push_back(request.flat_bank);
      }
      const bool may_go = command_queues ? request.in_command_queue : request.is_write == serve_writes;
      const bool hit = timing_.open_row(request.flat_bank) == request.row;
      // Queued hits keep a row open: a conflicting request waits for them rather than close it
      // (with command queues, only the hits already in the bank's command queue).
      if (hit && (may_go || !command_queues)) ++pick.hits;
      // A bank (or rank) waiting for its refresh takes no request commands.
      if (!refresh_due_.empty()) {
        const std::size_t refresh_unit = spec_.controller.refresh == spec::RefreshMode::all_bank
                                             ? static_cast<std::size_t>(request.bank.rank)
                                             : request.flat_bank;
        if (refresh_due_[refresh_unit] <= now) continue;
      }
      if (may_go) {
        keep_older(pick.oldest, ref);
        if (hit) keep_older(pick.oldest_hit, ref);
      } else if (hit && !command_queues) {
        keep_older(pick.other_hit, ref);
      }
    }
  }
  for (std::size_t flat : touched_banks_) {
    const BankPick& pick = bank_picks_[flat];
    const std::uint32_t chosen = pick.oldest_hit != kNoRef ? pick.oldest_hit : pick.oldest;
    if (chosen == kNoRef) continue;
    Choice candidate = plan_ref(chosen, pick.hits);
    // The served request needs the bank's row closed, but queued requests of the other kind hit
    // it: they go first, so a drain does not close a row that waiting reads are about to use.
    if (!candidate.planned && pick.other_hit != kNoRef) candidate = plan_ref(pick.other_hit, pick.hits);
    if (!candidate.planned) continue;
    candidate.flat_bank = flat;
    candidate.floor_slot = static_cast<std::size_t>(
        (candidate.bank.rank * spec_.bank_groups + candidate.bank.bank_group) * 2 +
        (candidate.command == timing::DramCommand::write ? 1 : 0));
    candidates_.push_back(candidate);  // cycle kNever: computed when first considered
  }
  // Valid until the queue changes, a row opens or closes, or a refresh falls due.
  candidates_valid_ = true;
  candidates_valid_until_ = next_refresh_due_;
}

std::int64_t DramChannel::issue(const Choice& choice) {
  const std::int64_t cycle = choice.cycle;
  command_bus_free_ = cycle + 1;  // one command per clock
  if (!choice.is_column) candidates_valid_ = false;  // rows open or close: the plans change
  if (choice.is_column) {
    last_column_bank_ = bank_index(choice.bank);
    refreshes_without_progress_ = 0;
  }
  const std::int64_t data_end = timing_.issue(choice.command, choice.bank, choice.row, cycle);
  switch (choice.command) {
    case timing::DramCommand::activate: {
      ++stats_.activates;
      open_row_in_rank(choice.bank.rank, cycle);
      Request& request = (*choice.queue)[choice.index];
      request.column_after_activate = true;
      request.activated_after_conflict = closed_for_conflict_[request.flat_bank];
      closed_for_conflict_[request.flat_bank] = false;
      break;
    }
    case timing::DramCommand::precharge:
      ++stats_.precharges;
      close_row_in_rank(choice.bank.rank, cycle);
      // A request's own precharge closes another row for it (a conflict); a refresh's or the
      // closed-page policy's leaves the bank idle.
      closed_for_conflict_[bank_index(choice.bank)] = choice.queue != nullptr;
      banks_to_close_.erase(std::remove_if(banks_to_close_.begin(), banks_to_close_.end(),
                                           [&](const timing::BankTarget& b) { return bank_index(b) == bank_index(choice.bank); }),
                            banks_to_close_.end());
      break;
    case timing::DramCommand::refresh:
      ++stats_.refreshes;
      refresh_due_[choice.index] += refresh_interval_;
      next_refresh_due_ = earliest_refresh_due();
      check_progress();
      break;
    default:
      finish_column(choice, data_end);
      break;
  }
  return data_end;
}

void DramChannel::finish_column(const Choice& choice, std::int64_t data_end) {
  last_data_end_ = data_end;
  std::vector<Request>& queue = *choice.queue;
  Request& request = queue[choice.index];
  ++(request.is_write ? stats_.write_commands : stats_.read_commands);
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
  const bool is_write = request.is_write;
  const std::int64_t bytes = request.bytes;
  const std::int64_t latency = data_end - request.arrival_cycle;
  if (is_write) {
    ++stats_.writes;
    stats_.write_bytes += bytes;
    stats_.write_latency.add(latency);
  } else {
    ++stats_.reads;
    stats_.read_bytes += bytes;
    stats_.read_latency.add(latency);
  }
  if (timeline_ != nullptr) {
    timeline_->dram_request(timeline_track_, epoch_cycle_ + request.arrival_cycle, epoch_cycle_ + data_end, bytes, is_write);
  }
  tlm::tlm_generic_payload* payload = request.payload;
  if (spec_.controller.page_policy == spec::PagePolicy::closed) banks_to_close_.push_back(request.bank);
  if (request.in_command_queue) {
    --command_queue_sizes_[request.flat_bank];
    --(is_write ? commanded_writes_ : commanded_reads_);
  }
  queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(choice.index));  // `request` is gone now
  candidates_valid_ = false;
  admit_waiting(is_write);  // room in the queue: the oldest refused requests come in
  if (payload != nullptr) {
    // The response, annotated with the time until the data burst ends.
    payload->set_response_status(tlm::TLM_OK_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = period_ * static_cast<double>(data_end - now_cycle());
    socket->nb_transport_bw(*payload, phase, delay);
  }
  if (idle()) idle_event_.notify();
}

void DramChannel::check_progress() {
  if (reads_.empty() && writes_.empty()) {
    refreshes_without_progress_ = 0;
    return;
  }
  // Refreshes run on schedule, at most `slip` late (DramSpec::refresh_bound); with timings the
  // loader accepts, a request is served between two of them. A refresh that ran late leaves the
  // next one due sooner, and each round it is gap = tREFI - busy less late, so after tREFI / gap
  // rounds, with a margin, no request ever will be served.
  const std::int64_t busy = spec_.refresh_cycles();
  const std::int64_t gap = std::max<std::int64_t>(1, spec_.timing.trefi - busy);
  const auto rounds = static_cast<std::int64_t>(refresh_due_.size()) * (spec_.timing.trefi / gap + 4);
  if (++refreshes_without_progress_ <= rounds) return;
  const std::string message =
      std::string(name()) + ": " + std::to_string(rounds) +
      " refreshes went by without a read or write while requests waited: tREFI " +
      std::to_string(spec_.timing.trefi) + " leaves too little time between refreshes (docs/dram-model.md)";
  SC_REPORT_ERROR("reusesim/dram", message.c_str());
  stuck_ = true;
}

void DramChannel::run_ahead(Choice choice) {
  // New requests come when responses reach their initiators (or when an initiator starts new
  // work): until the first data burst issued here ends, the queue is what the scheduler knows.
  // Commands due before then are committed now, at their legal cycles, without a wake-up each;
  // a request arriving inside that window waits at most until its end.
  std::int64_t horizon = next_refresh_due_;
  while (true) {
    const std::int64_t data_end = issue(choice);
    if (stuck_) return;
    if (choice.is_column) horizon = std::min(horizon, data_end);
    choice = choose(command_bus_free_);
    if (choice.cycle >= horizon) return;
  }
}

void DramChannel::run() {
  while (true) {
    if (stuck_) {
      sc_core::wait(wake_);  // reported: never issue another command
      continue;
    }
    const std::int64_t now = now_cycle();
    const Choice choice = choose(std::max(now, command_bus_free_));
    if (choice.cycle <= now) {
      run_ahead(choice);
      continue;
    }
    // Sleep until the next command, the next refresh to fall due (idle or not: refreshes run on
    // schedule), or a request that could go sooner. A refresh already due is among the commands
    // choose() weighed: its cycle is the choice's, not the next clock.
    const std::int64_t wake_at = std::min(choice.cycle, next_refresh_due_ > now ? next_refresh_due_ : timing::DramTimingState::kNever);
    if (wake_at == timing::DramTimingState::kNever) {
      planned_wake_ = timing::DramTimingState::kNever;
      sc_core::wait(wake_);
      continue;
    }
    planned_wake_ = std::max(wake_at, now + 1);
    sc_core::wait(period_ * static_cast<double>(planned_wake_ - now), wake_);
  }
}

}  // namespace reusesim::hw
