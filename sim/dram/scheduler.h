#pragma once
// FR-FCFS over both request queues (docs/dram-model.md, "Controller"). Among the requests that may
// go (with command queues, those in them; else those of the kind being served), per bank a row hit
// goes first, then the oldest; across banks the earliest legal command, at equal cycles column
// commands first, then the oldest (candidate.h). A row stays open while queued requests hit it: a
// request that needs it closed waits, and when those hits are of the kind not being served they
// go first. A bank whose refresh is due takes no request commands.
//
// A pass over the queues finds, per bank, the one request that can win and its next command.
// The candidates it leaves stay valid until the queues change, a row opens or closes, or a refresh
// falls due; column commands between passes only move their cycles, recomputed cheaply. A pass
// revisits only the banks whose requests or row changed since the last (a request in, a request
// out, an ACT or PRE), unless what every bank's pick depends on changed: the kind being served,
// a refresh falling due or issued, or command queues (with them, every pass is a full one). The
// other banks keep their candidates and the earliest cycles found for them, which only a command
// can move: a PRE only its own bank's, an ACT also every ACT's in its rank (tRRD, tFAW; the pass
// finds every ACT's again, of every rank).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "dram/banks.h"
#include "dram/candidate.h"
#include "dram/refresh.h"
#include "dram/request_queue.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

class FrFcfsScheduler {
 public:
  // Reads the queues, the timing state and the refresh schedule it is given, never changes them.
  FrFcfsScheduler(const spec::DramSpec& spec, const RequestQueues& queues, const timing::DramTimingState& timing,
                  const RefreshSchedule& refresh);

  void restart();
  // Every bank's pick may have changed (a refresh was issued): the next choice makes a full pass.
  void invalidate() {
    candidates_valid_ = false;
    all_dirty_ = true;
  }
  // A request to `flat_bank` came in, or its row closed: the next choice makes a pass.
  void invalidate_bank(std::size_t flat_bank) {
    candidates_valid_ = false;
    if (!bank_dirty_[flat_bank]) {
      bank_dirty_[flat_bank] = true;
      dirty_banks_.push_back(flat_bank);
    }
  }
  // An ACT opened `flat_bank`'s row, and spaced every other ACT of its rank.
  void activated(std::size_t flat_bank) {
    invalidate_bank(flat_bank);
    activated_since_pass_ = true;
  }
  // The request `ref` to `flat_bank` left its queue (the refs after it moved down by one).
  void request_erased(RequestRef ref, std::size_t flat_bank) {
    invalidate_bank(flat_bank);
    erased_since_pass_.push_back(ref);
  }
  bool needs_pass(std::int64_t now) const { return !candidates_valid_ || now >= candidates_valid_until_; }
  // The pass at `now`: `serve_writes` says which kind may go (without command queues).
  void find_candidates(std::int64_t now, bool serve_writes);
  // Weighs into `best` the request command that goes first at `now` or later, from the last pass.
  void choose(Candidate& best, std::int64_t now);
  // A column command was issued to `flat_bank`: its bank's precharge moves, not only the bus.
  void column_issued(std::size_t flat_bank) {
    last_column_bank_ = flat_bank;
    ++floor_generation_;  // the bus moved: every column floor is found again
  }
  // Queued requests hit `flat_bank`'s open row, as the last pass counted them.
  bool keeps_open(std::size_t flat_bank) const {
    const BankPick& pick = bank_picks_[flat_bank];
    return pick.generation == pick_generation_ && pick.hits > 0;
  }
  // The next command the queued request `ref` needs, and its earliest cycle at `now` (kNever when
  // it must wait for the hits to its bank's open row): whether it could go before a planned wake.
  Candidate next_command(RequestRef ref, std::int64_t now) const;

 private:
  // Per bank, as of the last pass: its oldest request that may go, its oldest row hit, the oldest
  // row hit of the kind not being served (these three refs hold only in the pass that found them),
  // and how many queued requests hit its open row and so keep it open.
  struct BankPick {
    std::uint64_t generation = 0;  // the pick counts only when it is pick_generation_
    RequestRef oldest = kNoRef;
    RequestRef oldest_hit = kNoRef;
    RequestRef other_hit = kNoRef;
    std::int32_t hits = 0;
  };
  // Counts `request` (at `ref`) into its bank's pick.
  void visit(const Request& request, RequestRef ref, bool serve_writes, std::int64_t now) {
    BankPick& pick = bank_picks_[request.flat_bank];
    if (pick.generation != pick_generation_) {
      pick = BankPick{pick_generation_, kNoRef, kNoRef, kNoRef, 0};
      touched_banks_[touched_++] = request.flat_bank;
    }
    const bool may_go = command_queues_ ? request.in_command_queue : request.is_write == serve_writes;
    const bool hit = timing_.open_row(request.flat_bank) == request.row;
    // Queued hits keep a row open: a conflicting request waits for them rather than close it
    // (with command queues, only the hits already in the bank's command queue).
    if (hit && (may_go || !command_queues_)) ++pick.hits;
    if (refresh_.blocks(request.bank, request.flat_bank, now)) return;
    if (may_go) {
      keep_older(pick.oldest, ref);
      if (hit) keep_older(pick.oldest_hit, ref);
    } else if (hit && !command_queues_) {
      keep_older(pick.other_hit, ref);
    }
  }
  // The candidate of `flat_bank` from its pick (none planned if it has no request that may go).
  void plan_bank(std::size_t flat_bank);
  // Brings the candidates kept from the last pass up to date (refs moved by erasures, the ACTs'
  // cycles after an ACT).
  void keep_candidates();
  // Keeps in `slot` the older of what it holds and `ref`. The pass sees reads, then writes, each
  // oldest first: only a write against a read needs their sequence numbers compared.
  void keep_older(RequestRef& slot, RequestRef ref) const {
    if (slot == kNoRef || ((ref & kWriteRef) != 0 && (slot & kWriteRef) == 0 &&
                           queues_.writes()[ref & ~kWriteRef].sequence < queues_.reads()[slot].sequence)) {
      slot = ref;
    }
  }
  // The next command of `ref` (not planned while it must wait for the `open_row_hits` queued
  // requests to its bank's open row); its cycle is left to the caller. Here, so that the full pass
  // inlines it.
  Candidate plan(RequestRef ref, int open_row_hits) const {
    const Request& request = queues_.at(ref);
    Candidate candidate;
    candidate.request = ref;
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

  const RequestQueues& queues_;
  const timing::DramTimingState& timing_;
  const RefreshSchedule& refresh_;
  BankNumbering banks_;
  bool command_queues_;
  std::vector<BankPick> bank_picks_;
  std::uint64_t pick_generation_ = 0;  // a full pass starts a new one: every pick is empty
  // The banks a pass gave a pick. One slot per bank: a pass writes them into the first ones by
  // index, not push_back, which would make the compiler reload every vector's data in its loop.
  std::vector<std::size_t> touched_banks_;
  std::size_t touched_ = 0;
  std::vector<Candidate> bank_candidates_;     // per bank, of the last pass: planned or not
  std::vector<std::size_t> planned_banks_;     // the banks whose candidate is planned
  std::vector<std::size_t> planned_position_;  // per planned bank: where it is in planned_banks_
  std::vector<std::uint8_t> bank_dirty_;       // per bank: its pick must be found again
  std::vector<std::size_t> dirty_banks_;       // the banks marked in bank_dirty_
  bool all_dirty_ = true;                      // every bank's pick must be found again
  bool activated_since_pass_ = false;
  std::vector<RequestRef> erased_since_pass_;  // in the order they left
  bool last_serve_writes_ = false;             // of the last pass
  std::size_t last_pass_requests_ = 0;         // the requests the last pass saw
  bool candidates_valid_ = false;
  std::int64_t candidates_valid_until_ = 0;
  std::size_t last_column_bank_ = 0;
  // Per (rank, bank group, read/write): the column floor (without `now`) since the last column
  // command, the only command that moves it; valid when its generation is floor_generation_.
  std::vector<std::pair<std::uint64_t, std::int64_t>> column_floors_;
  std::uint64_t floor_generation_ = 0;
};

}  // namespace reusesim::dram
