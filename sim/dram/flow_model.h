#pragma once
// The fast memory's timing core (docs/performance.md, "Fast mode"), plain C++ in memory clocks.
// Each scheduled channel is a server with a busy-until time; a transfer's bursts on a channel
// (counted in closed form, timing/dram_interleave.h) take it a calibrated number of clocks
// apiece, after whatever the channel still had to serve: concurrent transfers (weights, inputs,
// output writes, several DMA engines) contend on the channels they share.
//
// The service rates and latencies are not assumed: calibrate() measures them on this file's
// neighbour, dram::Controller, the exact model itself, by short streams of requests on one
// channel (reads, writes, both at once), so row switches, refresh, bank conflicts, read/write
// turnarounds and the DMA's window of outstanding requests enter through the measurement. The
// same streams give the command counters per burst that the fast memory reports as estimates.

#include <cstdint>
#include <deque>
#include <vector>

#include "spec/accelerator_spec.h"
#include "timing/dram_interleave.h"

namespace reusesim::dram {

// Counters per burst served in one kind of stream, measured on the exact controller.
struct FlowCounterRates {
  double activates = 0, precharges = 0, row_misses = 0, row_conflicts = 0, turnarounds = 0, write_drains = 0;
  double active_rank_cycles = 0;
  double latency_cycles = 0;  // mean arrival-to-data-end of a request in the stream
};

enum FlowDirection { kFlowRead = 0, kFlowWrite = 1, kFlowMixed = 2 };

struct FlowCalibration {
  // Steady-state memory clocks per burst of one channel kept busy by `window` outstanding
  // requests of one row run each: reads only, writes only, and both streams at once (per burst of
  // either); refreshes and row switches included.
  double cycles_per_burst[3] = {0, 0, 0};
  // An idle channel: from a lone request's arrival to its data's end, less its bursts' share of
  // the data bus (BL/2 apiece): the pipeline a transfer pays once (reads, writes).
  double latency_cycles[2] = {0, 0};
  FlowCounterRates rates[3];
  double refreshes_per_cycle = 0;
  double active_rank_fraction = 0;  // of the rank-clocks of the mixed stream, with a row open
};

// The calibration of `spec`'s channels for `window` outstanding requests per channel: measured
// once per (spec, window) in the process and kept.
const FlowCalibration& calibrate(const spec::DramSpec& spec, std::int64_t window);

// The channel servers. Times in memory clocks since the last restart (fractions: rates are averages).
// Reads go first, as the controller's scheduler serves them (docs/dram-model.md, "Controller"): a
// write waits on a channel until its reads have run out, or until `drain_at_requests` write
// requests wait there (the write drain's high watermark); reads arriving meanwhile pass it.
class FlowChannels {
 public:
  FlowChannels(std::int64_t channels, const FlowCalibration& calibration, std::int64_t drain_at_requests);

  struct Served {
    double data_end = 0;  // when the transfer's last burst ends, on the slowest of its channels
    double answer = 0;    // data_end plus the pipeline latency: when its requester hears
    bool queued = false;  // some channel was still busy when it arrived
  };
  // A read arriving at `arrival` with `shares[c]` on channel c, served after what each channel is
  // serving, ahead of the writes waiting there. A transfer arriving while a channel serves the
  // other direction is served there at the mixed rate.
  Served serve(double arrival, const std::vector<timing::ChannelShare>& shares, bool is_write);

  // A write arriving at `arrival`: served at once on channels with no reads to serve (or at the
  // watermark), else left waiting there. Returns its number for finished_writes().
  std::uint64_t submit_write(double arrival, const std::vector<timing::ChannelShare>& shares);
  // When the next channel with writes waiting runs out of reads (kNoDrain: none waits).
  double next_drain() const;
  // Serves the waiting writes of every channel whose reads have run out by `now`.
  void drain(double now);
  struct FinishedWrite {
    std::uint64_t id = 0;
    Served served;
  };
  // The writes served on every channel of theirs since the last call, in the order they finished.
  std::vector<FinishedWrite> finished_writes();
  static constexpr double kNoDrain = 1e300;
  // Bursts served so far on `channel` in each direction kind (kFlowRead, kFlowWrite, kFlowMixed).
  std::int64_t bursts(std::size_t channel, FlowDirection kind) const { return channels_[channel].bursts[kind]; }
  // When the last burst so far ends on any channel.
  double busy_until() const;
  // Time 0 now: every channel idle (counters kept). Requires busy_until() <= `now`.
  void restart();

 private:
  struct WaitingWrite {
    std::uint64_t id = 0;
    double arrival = 0;
    timing::ChannelShare share;
  };
  struct Channel {
    double busy_until = 0;
    double direction_until[2] = {0, 0};  // when the last read (write) burst ends
    std::int64_t bursts[3] = {0, 0, 0};
    std::deque<WaitingWrite> waiting;  // writes not yet served here, oldest first
    std::int64_t waiting_requests = 0;
  };
  struct OpenWrite {
    std::uint64_t id = 0;
    std::int64_t channels_left = 0;  // channels still to serve a share of it
    Served served;
  };
  // Serves `bursts` of `direction` on `channel` from `arrival` on; returns when they end. With
  // `may_mix`, at the mixed rate if the channel serves the other direction at `arrival`.
  double serve_on(Channel& channel, double arrival, std::int64_t bursts, int direction, bool& queued, bool may_mix);
  void write_served(std::uint64_t id, double data_end, bool queued);
  void serve_waiting(Channel& channel, double now, bool may_mix);

  std::vector<Channel> channels_;
  FlowCalibration calibration_;
  std::int64_t drain_at_requests_;
  std::uint64_t next_write_id_ = 0;
  std::deque<OpenWrite> open_writes_;  // by id, ascending
  std::vector<FinishedWrite> finished_;
};

}  // namespace reusesim::dram
