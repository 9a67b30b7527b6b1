#pragma once
// FR-FCFS over both request queues (docs/dram-model.md, "Controller"). Among the requests that may
// go (with command queues, those in them; else those of the kind being served), per bank a row hit
// goes first, then the oldest; across banks the earliest legal command, at equal cycles column
// commands first, then the oldest (candidate.h). A row stays open while queued requests hit it: a
// request that needs it closed waits, and when those hits are of the kind not being served they
// go first. A bank whose refresh is due takes no request commands.
//
// A full pass over the queues finds, per bank, the one request that can win and its next command.
// The candidates it leaves stay valid until the queues change, a row opens or closes, or a refresh
// falls due; column commands between passes only move their cycles, recomputed cheaply.

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
  // The queues changed, or a row opened or closed: the next choice makes a full pass.
  void invalidate() { candidates_valid_ = false; }
  bool needs_pass(std::int64_t now) const { return !candidates_valid_ || now >= candidates_valid_until_; }
  // The full pass at `now`: `serve_writes` says which kind may go (without command queues).
  void find_candidates(std::int64_t now, bool serve_writes);
  // Weighs into `best` the request command that goes first at `now` or later, from the last pass.
  void choose(Candidate& best, std::int64_t now);
  // A column command was issued to `flat_bank`: its bank's precharge moves, not only the bus.
  void column_issued(std::size_t flat_bank) { last_column_bank_ = flat_bank; }
  // Queued requests hit `flat_bank`'s open row, as the last full pass counted them.
  bool keeps_open(std::size_t flat_bank) const {
    const BankPick& pick = bank_picks_[flat_bank];
    return pick.generation == pass_generation_ && pick.hits > 0;
  }
  // The next command the queued request `ref` needs, and its earliest cycle at `now` (kNever when
  // it must wait for the hits to its bank's open row): whether it could go before a planned wake.
  Candidate next_command(RequestRef ref, std::int64_t now) const;

 private:
  // Per bank, within one pass: its oldest request that may go, its oldest row hit, the oldest row
  // hit of the kind not being served, and how many queued requests hit its open row and so keep it
  // open (valid when `generation` is the current pass).
  struct BankPick {
    std::uint64_t generation = 0;
    RequestRef oldest = kNoRef;
    RequestRef oldest_hit = kNoRef;
    RequestRef other_hit = kNoRef;
    std::int32_t hits = 0;
  };
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
  // One slot per bank: a pass writes the banks it sees into the first ones by index, not
  // push_back, which would make the compiler reload every vector's data in the pass's loop (6 %).
  std::vector<std::size_t> touched_banks_;
  std::uint64_t pass_generation_ = 0;
  std::vector<Candidate> candidates_;  // per bank, of the last full pass
  bool candidates_valid_ = false;
  std::int64_t candidates_valid_until_ = 0;
  std::size_t last_column_bank_ = 0;
  // Per (rank, bank group, read/write): the column floor within one choice.
  std::vector<std::pair<std::uint64_t, std::int64_t>> column_floors_;
  std::uint64_t floor_generation_ = 0;
};

}  // namespace reusesim::dram
