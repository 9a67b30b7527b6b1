#pragma once
// One channel's controller (docs/dram-model.md, "Controller"), plain C++ in memory clocks: the
// parts below composed over the JEDEC timing state, driven by a front end that hands it requests
// and the current cycle and hears back through `FrontEnd`. hw::DramChannel is that front end in
// SystemC; tests/test_dram_controller.cpp drives it directly.
//
//   request_queue.h  RequestQueues     read and write queues, refused requests, command queues
//   write_drain.h    WriteDrain        when writes are served instead of reads
//   scheduler.h      FrFcfsScheduler   which request command goes next (with its candidate cache)
//   row_policy.h     RowPolicy         open or closed page
//   refresh.h        RefreshSchedule   when each rank or bank refreshes (all-bank, per-bank, off)
//   standby.h        StandbyAccounting active and precharged standby per rank
//   watchdog.h       Watchdog          requests starved by refreshes: give up rather than hang
//
// Commands are committed ahead of the current cycle, up to the end of the first data burst issued
// or the next refresh (requests come when answers reach their requesters, so until then the
// queues are mostly what the controller knows), and only up to the next answer while the queued
// bursts would keep the data bus busy for less than a row conflict takes (a request that answer
// brings must get its PRE or ACT in time); the driver sleeps until advance() says.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "dram/banks.h"
#include "dram/candidate.h"
#include "dram/refresh.h"
#include "dram/request_queue.h"
#include "dram/row_policy.h"
#include "dram/scheduler.h"
#include "dram/standby.h"
#include "dram/watchdog.h"
#include "dram/write_drain.h"
#include "results/dram_stats.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_address.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

// A request whose last data burst is scheduled.
struct Completion {
  RequestTag tag = nullptr;  // nullptr: a posted write, answered on arrival
  std::int64_t arrival_cycle = 0;
  std::int64_t data_end_cycle = 0;
  std::int64_t bytes = 0;
  bool is_write = false;
};

// A command as issued.
struct IssuedCommand {
  timing::DramCommand command = timing::DramCommand::activate;
  timing::BankTarget bank;
  std::int64_t row = 0;
  std::int64_t cycle = 0;
};

// What the controller tells the front end that drives it, as it happens.
class FrontEnd {
 public:
  virtual ~FrontEnd() = default;
  // A request refused while its queue was full is now queued (a posted write: and answered).
  virtual void request_accepted(RequestTag tag) = 0;
  // A request's last burst is scheduled; its data ends at `done.data_end_cycle`.
  virtual void request_completed(const Completion& done) = 0;
  // A new request could go before the cycle the last advance() returned: call advance() now.
  virtual void wake_controller() = 0;
  // No request is queued or waiting any more.
  virtual void controller_idle() = 0;
  // The watchdog fired (`message` says why): the controller issues no more commands.
  virtual void controller_stuck(const std::string& message) = 0;
  // Every command, in the order issued (cycles ascending).
  virtual void command_issued(const IssuedCommand&) {}
};

class Controller {
 public:
  // `front_end` must outlive the controller; it hears nothing during construction.
  Controller(const spec::DramSpec& spec, FrontEnd& front_end);
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // A request covers whole bursts of one bank and row (the DMA engine splits transfers so).
  bool well_formed(std::uint64_t address, std::uint64_t bytes) const;
  // A well-formed request arrives at cycle `now`. False: its queue is full; it waits, and the front
  // end hears request_accepted() when it is taken.
  bool submit(RequestTag tag, std::uint64_t address, std::int64_t bytes, bool is_write, std::int64_t now);
  // Issues every command due by `now` (and, after one, those it can commit ahead); returns the cycle
  // at which to call again unless woken sooner, or kNever to wait for a request.
  std::int64_t advance(std::int64_t now);
  // Back to the state at construction with cycle 0 at the driver's cycle `now` (which ends the
  // old epoch: rows open until then count as active). Requires idle(). Counters keep counting.
  void restart(std::int64_t now);

  // No request queued or waiting for room (refreshes may still be going on).
  bool idle() const { return queues_.empty() && queues_.waiting().empty(); }
  bool stuck() const { return watchdog_.fired(); }
  bool posted_writes() const { return spec_.controller.posted_writes; }
  // When the last data burst scheduled so far ends.
  std::int64_t last_data_end() const { return last_data_end_; }
  // The counters up to `now`; a rank with a row open counts its active standby up to it.
  results::DramChannelStats stats(std::int64_t now) const;

 private:
  bool admit(RequestTag tag, std::uint64_t address, std::int64_t bytes, bool is_write, std::int64_t arrival_cycle,
             std::int64_t now);
  // Takes refused requests of one kind while their queue has room, oldest first.
  void admit_waiting(bool is_write);
  void fill_command_queues();
  bool serving_writes() const { return drain_.draining() || queues_.reads().empty(); }
  Candidate choose(std::int64_t now);
  void run_ahead(Candidate choice);
  // Applies a command; returns the end of its data burst (column commands) or its cycle.
  std::int64_t issue(const Candidate& choice);
  void finish_column(const Candidate& choice, std::int64_t data_end);

  spec::DramSpec spec_;
  FrontEnd& front_end_;
  BankNumbering banks_;
  timing::DramAddressMapper mapper_;
  timing::DramTimingState timing_;
  RequestQueues queues_;
  WriteDrain drain_;
  RefreshSchedule refresh_;
  FrFcfsScheduler scheduler_;
  RowPolicy rows_;
  StandbyAccounting standby_;
  Watchdog watchdog_;
  results::DramChannelStats stats_;
  std::int64_t now_ = 0;  // the driver's current cycle, during advance()
  std::int64_t command_bus_free_ = 0;
  std::int64_t last_data_end_ = 0;
  // When each scheduled request still to be answered has its answer (the end of its data),
  // ascending: the data bus is in order. Posted writes were answered on arrival and are not here.
  std::deque<std::int64_t> answers_due_;
  std::int64_t queued_bursts_ = 0;  // bursts of the queued requests not yet issued
  std::int64_t planned_wake_ = timing::DramTimingState::kNever;  // when the driver calls advance() next, unwoken
  std::vector<bool> closed_for_conflict_;  // per bank: its last row was closed for another row's request
  int last_column_direction_ = -1;  // 0 read, 1 write, -1 none yet: for turnarounds
  std::int64_t conflict_cycles_;  // tRP + tRCD + CL + BL/2: a request to a conflicting row, arrival to data end
};

}  // namespace reusesim::dram
