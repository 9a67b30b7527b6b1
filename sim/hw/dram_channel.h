#pragma once
// One DRAM channel (one pseudo-channel for HBM), reached through a TLM-2.0 target socket with the
// approximately-timed protocol (BEGIN_REQ / END_REQ / BEGIN_RESP). Inside: the controller the
// DRAM file's `controller` block describes (bounded read and write queues, optional per-bank command
// queues, FR-FCFS over reads and writes, a write-drain policy, posted writes, a front-end latency,
// open- or closed-page policy, refresh on schedule) and the JEDEC timing state. One scheduler thread
// computes the next legal command and sleeps until then: events per command, never per clock.
// Responses are sent when the last burst is scheduled, with the delay to its end annotated (TLM
// timing annotation), so completions cost the channel no wake-up of its own.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "results/timeline_recorder.h"
#include "results/dram_stats.h"
#include "timing/dram_address.h"
#include "timing/dram_timing.h"

namespace reusesim::hw {

class DramChannel : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramChannel> socket;

  DramChannel(sc_core::sc_module_name name, const spec::DramSpec& spec);

  // The counters so far; a rank with a row open still counts its active standby up to now.
  results::DramChannelStats stats() const;
  sc_core::sc_time clock_period() const { return period_; }
  // Back to the state at construction, with cycle 0 now: banks precharged, queues empty, refresh
  // timers restarted. The channel must be idle (no request queued or waiting) and `now` on one of
  // its clock edges. Counters keep counting.
  void restart();
  // No request queued or waiting for room (refreshes may still be going on).
  bool idle() const { return reads_.empty() && writes_.empty() && waiting_.empty(); }
  // Notified when the channel becomes idle.
  const sc_core::sc_event& idle_event() const { return idle_event_; }
  // When the last data burst scheduled so far ends (commands are committed ahead of time).
  sc_core::sc_time data_end_time() const { return epoch_ + period_ * static_cast<double>(last_data_end_); }
  // Records every request to a track of its own in `timeline` from now on.
  void record_to(results::TimelineRecorder& timeline);

 private:
  struct Request {
    tlm::tlm_generic_payload* payload = nullptr;  // nullptr once a posted write was answered
    std::int64_t bytes = 0;
    std::int64_t row = 0;
    timing::BankTarget bank;
    std::size_t flat_bank = 0;  // bank_index(bank), kept for the scheduler's scans
    bool is_write = false;
    std::int64_t arrival_cycle = 0;
    std::int64_t ready_cycle = 0;  // arrival plus the front-end latency: the scheduler may pick it
    std::int64_t bursts_left = 0;
    std::uint64_t sequence = 0;
    bool in_command_queue = false;  // moved into its bank's command queue (command queues only)
    // An activate was issued for it: its next column command is a miss, or a conflict when the
    // bank's other row was closed for it.
    bool column_after_activate = false;
    bool activated_after_conflict = false;
  };
  // The next command the scheduler would issue, and when.
  struct Choice {
    timing::DramCommand command = timing::DramCommand::activate;
    std::int64_t cycle = timing::DramTimingState::kNever;
    timing::BankTarget bank;
    std::int64_t row = 0;
    std::vector<Request>* queue = nullptr;
    std::size_t index = 0;  // in *queue, for request commands
    bool is_column = false;
    bool planned = false;  // a request command was found (else the request must wait)
    std::uint64_t sequence = 0;
    std::int64_t not_before = 0;  // the request's ready cycle
    std::size_t flat_bank = 0;   // kept candidates: bank_index(bank)
    std::size_t floor_slot = 0;  // kept column candidates: their (rank, bank group, read/write)
  };
  static bool earlier(const Choice& a, const Choice& b);

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void run();
  std::int64_t now_cycle() const;
  bool admit(tlm::tlm_generic_payload& payload, std::int64_t arrival_cycle);
  // Requests in the read (or write) queue proper: not yet moved into a command queue.
  std::int64_t transaction_queue_size(bool is_write) const;
  // Takes refused requests of one kind while their queue has room, oldest first, answering each.
  void admit_waiting(bool is_write);
  // Command queues: moves requests of the kind being served into their banks' queues, oldest first.
  void fill_command_queues();
  bool serving_writes() const { return draining_writes_ || reads_.empty(); }
  void update_write_drain();
  void consider(Choice& best, const Choice& candidate) const;
  Choice choose(std::int64_t now);
  // The full pass over reads and writes: per bank, the one request that can win, and its next command.
  void find_candidates(std::int64_t now);
  void choose_refresh(Choice& best, std::int64_t now);
  // The next command a queued request needs (not planned while it must wait for the
  // `open_row_hits` queued requests to its bank's open row).
  Choice plan(std::vector<Request>& queue, std::size_t index, int open_row_hits) const;
  // The same with its earliest cycle.
  Choice next_command(std::vector<Request>& queue, std::size_t index, std::int64_t now) const;
  // Applies a command; returns the end of its data burst (column commands) or its cycle.
  std::int64_t issue(const Choice& choice);
  void run_ahead(Choice choice);
  void finish_column(const Choice& choice, std::int64_t data_end);
  std::int64_t earliest_refresh_due() const;
  std::size_t bank_index(const timing::BankTarget& bank) const;
  // Requests are queued, yet the refreshes have left them no room through several rounds: the
  // timings can never serve them (the loader refuses such timings; this stops any that slip by).
  void check_progress();

  spec::DramSpec spec_;
  timing::DramAddressMapper mapper_;
  timing::DramTimingState timing_;
  sc_core::sc_time period_;
  std::vector<Request> reads_;
  std::vector<Request> writes_;
  std::deque<std::pair<tlm::tlm_generic_payload*, std::int64_t>> waiting_;  // refused while full
  std::vector<timing::BankTarget> banks_to_close_;  // closed-page policy
  // Per bank, within one choice: its oldest request that may go, its oldest row hit, the oldest
  // row hit of the kind not being served, and how many queued requests hit its open row and so
  // keep it open (valid when `generation` is the current pass).
  // A queued request as the scan sees it: its index in reads_, or in writes_ with kWriteRef set;
  // kNoRef for none. Small, so that a bank's pick is cheap to reset on every pass.
  static constexpr std::uint32_t kWriteRef = 1U << 31;
  static constexpr std::uint32_t kNoRef = ~std::uint32_t{0};
  struct BankPick {
    std::uint64_t generation = 0;
    std::uint32_t oldest = kNoRef;
    std::uint32_t oldest_hit = kNoRef;
    std::uint32_t other_hit = kNoRef;
    std::int32_t hits = 0;
  };
  // Keeps in `slot` the older of what it holds and `ref`. The scan sees reads, then writes, each
  // oldest first: only a write against a read needs their sequence numbers compared.
  void keep_older(std::uint32_t& slot, std::uint32_t ref) const {
    if (slot == kNoRef || ((ref & kWriteRef) != 0 && (slot & kWriteRef) == 0 &&
                           writes_[ref & ~kWriteRef].sequence < reads_[slot].sequence)) {
      slot = ref;
    }
  }
  // plan() for a referenced request.
  Choice plan_ref(std::uint32_t ref, int open_row_hits) {
    return ref & kWriteRef ? plan(writes_, ref & ~kWriteRef, open_row_hits) : plan(reads_, ref, open_row_hits);
  }
  std::vector<BankPick> bank_picks_;
  std::vector<std::size_t> touched_banks_;
  std::uint64_t pass_generation_ = 0;
  // The per-bank candidates of the last full pass; column commands that leave the queue as it
  // was do not change them, only their cycles.
  std::vector<Choice> candidates_;
  bool candidates_valid_ = false;
  std::size_t last_column_bank_ = 0;
  // Per (rank, bank group, read/write): the column floor within one choice.
  std::vector<std::pair<std::uint64_t, std::int64_t>> column_floors_;
  std::uint64_t floor_generation_ = 0;
  std::int64_t candidates_valid_until_ = 0;
  std::vector<std::int64_t> refresh_due_;   // per rank (all-bank) or per bank (per-bank); none when off
  std::int64_t refresh_interval_ = 0;
  std::int64_t next_refresh_due_ = 0;  // the earliest of refresh_due_
  std::int64_t command_bus_free_ = 0;
  std::int64_t last_data_end_ = 0;
  std::int64_t planned_wake_ = 0;  // when the scheduler next wakes unless a request comes sooner
  std::uint64_t next_sequence_ = 0;
  bool draining_writes_ = false;
  std::vector<std::int64_t> command_queue_sizes_;  // per bank (command queues only)
  std::int64_t commanded_reads_ = 0;   // requests in command queues, by kind
  std::int64_t commanded_writes_ = 0;
  std::vector<bool> closed_for_conflict_;  // per bank: its last row was closed for another row's request
  int last_column_direction_ = -1;  // 0 read, 1 write, -1 none yet: for turnarounds
  sc_core::sc_event wake_;
  sc_core::sc_event idle_event_;
  sc_core::sc_time epoch_;  // the time of cycle 0
  std::int64_t epoch_cycle_ = 0;  // the same in cycles since time 0, for the timeline
  std::int64_t refreshes_without_progress_ = 0;  // refreshes with requests queued since the last column command
  bool stuck_ = false;  // check_progress() reported that no request can ever be served
  // Active standby: per rank, its banks with a row open and since when (a cycle, maybe ahead of
  // now: commands are committed ahead of time).
  void open_row_in_rank(std::int64_t rank, std::int64_t cycle);
  void close_row_in_rank(std::int64_t rank, std::int64_t cycle);
  std::vector<std::int64_t> open_banks_in_rank_;
  std::vector<std::int64_t> rank_active_since_;
  results::DramChannelStats stats_;
  results::TimelineRecorder* timeline_ = nullptr;
  std::size_t timeline_track_ = 0;
};

}  // namespace reusesim::hw
