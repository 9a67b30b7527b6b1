#pragma once
// One DRAM channel (one pseudo-channel for HBM), reached through a TLM-2.0 target socket with the
// approximately-timed protocol (BEGIN_REQ / END_REQ / BEGIN_RESP). The controller itself is
// dram::Controller (sim/dram/controller.h), plain C++ in memory clocks; this module only turns
// transactions into its requests and simulated time into its cycles, and its answers back. One
// thread calls the controller and sleeps until the cycle it names: events per command, never per
// clock. Responses are sent when the last burst is scheduled, with the delay to its end annotated
// (TLM timing annotation), so completions cost the channel no wake-up of its own.

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>

#include "dram/controller.h"
#include "results/timeline_recorder.h"
#include "results/dram_stats.h"

namespace reusesim::hw {

class DramChannel : public sc_core::sc_module, private dram::FrontEnd {
 public:
  tlm_utils::simple_target_socket<DramChannel> socket;

  DramChannel(sc_core::sc_module_name name, const spec::DramSpec& spec);

  // The counters so far; a rank with a row open still counts its active standby up to now.
  results::DramChannelStats stats() const { return controller_.stats(now_cycle()); }
  sc_core::sc_time clock_period() const { return period_; }
  // Back to the state at construction, with cycle 0 now: banks precharged, queues empty, refresh
  // timers restarted. The channel must be idle (no request queued or waiting) and `now` on one of
  // its clock edges. Counters keep counting.
  void restart();
  // No request queued or waiting for room (refreshes may still be going on).
  bool idle() const { return controller_.idle(); }
  // Notified when the channel becomes idle.
  const sc_core::sc_event& idle_event() const { return idle_event_; }
  // When the last data burst scheduled so far ends (commands are committed ahead of time).
  sc_core::sc_time data_end_time() const { return epoch_ + cycles_time(controller_.last_data_end()); }
  // Records every request to a track of its own in `timeline` from now on.
  void record_to(results::TimelineRecorder& timeline);

 private:
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void run();
  std::int64_t now_cycle() const;
  // `cycles` clocks as simulated time.
  sc_core::sc_time cycles_time(std::int64_t cycles) const {
    return sc_core::sc_time::from_value(period_.value() * static_cast<std::uint64_t>(cycles));
  }

  // dram::FrontEnd
  void request_accepted(dram::RequestTag tag) override;
  void request_completed(const dram::Completion& done) override;
  void wake_controller() override { wake_.notify(); }
  void controller_idle() override { idle_event_.notify(); }
  void controller_stuck(const std::string& message) override;

  sc_core::sc_time period_;
  dram::Controller controller_;
  sc_core::sc_event wake_;
  sc_core::sc_event idle_event_;
  sc_core::sc_time epoch_;  // the time of cycle 0
  std::int64_t epoch_cycle_ = 0;  // the same in cycles since time 0, for the timeline
  results::TimelineRecorder* timeline_ = nullptr;
  std::size_t timeline_track_ = 0;
};

}  // namespace reusesim::hw
