#include "dram/flow_model.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <queue>
#include <utility>

#include "dram/controller.h"
#include "spec/fields_equal.h"
#include "timing/dram_address.h"

namespace reusesim::dram {

namespace {

// The bursts a calibration stream serves: long enough for several refresh intervals and row
// switches to average out, short enough to cost milliseconds.
constexpr std::int64_t kMinStreamBursts = 16384;
constexpr std::int64_t kRefreshIntervals = 8;
constexpr std::int64_t kMaxStreamCycles = std::int64_t{1} << 40;

// Drives one channel's controller as hw::DramChannel and a DMA engine would, without SystemC:
// each direction keeps `window` requests outstanding, a new one sent as soon as one is answered.
class StreamDriver : public FrontEnd {
 public:
  StreamDriver(const spec::DramSpec& spec, std::int64_t window)
      : spec_(spec), controller_(spec, *this), window_(window) {}

  struct Outcome {
    std::int64_t bursts = 0;
    std::int64_t first_data_end = 0, last_data_end = 0;
    std::int64_t first_bursts = 0;  // of the request whose data ended first
    results::DramChannelStats stats;
  };

  // Serves `addresses[d]` (requests of `request_bytes`) in both directions at once.
  Outcome run(const std::vector<std::uint64_t> (&addresses)[2], std::int64_t request_bytes) {
    std::size_t next[2] = {0, 0};
    std::int64_t now = 0, wake = 0;
    while (true) {
      while (!answers_.empty() && answers_.top().first <= now) {
        --in_flight_[answers_.top().second];
        answers_.pop();
      }
      for (int d = 0; d < 2; ++d) {
        while (in_flight_[d] < window_ && next[d] < addresses[d].size()) {
          ++in_flight_[d];
          const bool taken = controller_.submit(&tags_[d], addresses[d][next[d]++], request_bytes, d == 1, now);
          if (taken && d == 1 && spec_.controller.posted_writes) --in_flight_[d];  // answered on arrival
        }
      }
      if (woken_ || now >= wake) {
        woken_ = false;
        wake = controller_.advance(now);
      }
      const bool done = next[0] == addresses[0].size() && next[1] == addresses[1].size() && controller_.idle();
      // The watchdog ends a stream that cannot progress; the cap, one that would never end.
      if (done || controller_.stuck() || now > kMaxStreamCycles) break;
      const std::int64_t answer = answers_.empty() ? timing::DramTimingState::kNever : answers_.top().first;
      const std::int64_t soonest = std::min(wake, answer);
      now = woken_ || soonest == timing::DramTimingState::kNever ? now + 1 : std::max(now + 1, soonest);
    }
    outcome_.stats = controller_.stats(outcome_.last_data_end);
    outcome_.bursts = outcome_.stats.columns();
    return outcome_;
  }

 private:
  void request_accepted(RequestTag tag) override {
    if (tag == &tags_[1] && spec_.controller.posted_writes) --in_flight_[1];
  }
  void request_completed(const Completion& done) override {
    const std::int64_t bursts = done.bytes / spec_.burst_bytes();
    if (outcome_.first_bursts == 0 || done.data_end_cycle < outcome_.first_data_end) {
      outcome_.first_data_end = done.data_end_cycle;
      outcome_.first_bursts = bursts;
    }
    outcome_.last_data_end = std::max(outcome_.last_data_end, done.data_end_cycle);
    if (done.tag != nullptr) answers_.emplace(done.data_end_cycle, done.tag == &tags_[1] ? 1 : 0);
  }
  void wake_controller() override { woken_ = true; }
  void controller_idle() override {}
  void controller_stuck(const std::string&) override {}

  const spec::DramSpec& spec_;
  Controller controller_;
  std::int64_t window_;
  char tags_[2] = {0, 0};  // one tag per direction: the requests of a direction are alike
  std::int64_t in_flight_[2] = {0, 0};
  bool woken_ = false;
  using Answer = std::pair<std::int64_t, int>;  // (data end, direction)
  std::priority_queue<Answer, std::vector<Answer>, std::greater<Answer>> answers_;
  Outcome outcome_;
};

// The first `count` row runs of scheduled channel 0 at or after `base`, in address order: the
// requests an exact DMA engine sends that channel while streaming from `base`.
std::vector<std::uint64_t> channel_zero_runs(const spec::DramSpec& spec, std::uint64_t base, std::int64_t count) {
  const timing::DramAddressMapper mapper(spec);
  std::vector<std::uint64_t> runs;
  for (std::uint64_t address = base; static_cast<std::int64_t>(runs.size()) < count;
       address += mapper.bytes_to_run_end(address)) {
    if (mapper.channel_index(mapper.decode(address)) == 0) runs.push_back(address);
  }
  return runs;
}

FlowCounterRates rates_of(const StreamDriver::Outcome& outcome) {
  const auto per_burst = [&](std::int64_t count) {
    return outcome.bursts > 0 ? static_cast<double>(count) / static_cast<double>(outcome.bursts) : 0.0;
  };
  const results::DramChannelStats& s = outcome.stats;
  FlowCounterRates rates;
  rates.activates = per_burst(s.activates);
  rates.precharges = per_burst(s.precharges);
  rates.row_misses = per_burst(s.row_misses);
  rates.row_conflicts = per_burst(s.row_conflicts);
  rates.turnarounds = per_burst(s.turnarounds);
  rates.write_drains = per_burst(s.write_drains);
  rates.active_rank_cycles = per_burst(s.active_rank_cycles);
  results::LatencyHistogram latency = s.read_latency;
  latency += s.write_latency;
  rates.latency_cycles = latency.mean_cycles();
  return rates;
}

FlowCalibration measure(const spec::DramSpec& spec, std::int64_t window) {
  const timing::DramAddressMapper mapper(spec);
  const std::int64_t run_bytes = static_cast<std::int64_t>(mapper.bytes_to_run_end(0));
  const std::int64_t run_bursts = run_bytes / spec.burst_bytes();
  const std::int64_t burst_cycles = spec.timing.burst_length / 2;
  const std::int64_t refresh_bursts = kRefreshIntervals * spec.timing.trefi / std::max<std::int64_t>(1, burst_cycles);
  const std::int64_t requests = std::max(kMinStreamBursts, refresh_bursts) / run_bursts + 1;
  // Reads from the bottom of the address space, writes far above (other rows, as outputs are).
  const std::uint64_t write_base = std::uint64_t{1} << 32;
  const std::vector<std::uint64_t> reads = channel_zero_runs(spec, 0, requests);
  const std::vector<std::uint64_t> writes = channel_zero_runs(spec, write_base, requests);
  FlowCalibration calibration;
  const std::vector<std::uint64_t> streams[3][2] = {{reads, {}}, {{}, writes}, {reads, writes}};
  for (int kind = 0; kind < 3; ++kind) {
    const StreamDriver::Outcome outcome = StreamDriver(spec, window).run(streams[kind], run_bytes);
    const std::int64_t steady = outcome.bursts - outcome.first_bursts;
    calibration.cycles_per_burst[kind] =
        steady > 0 ? static_cast<double>(outcome.last_data_end - outcome.first_data_end) / static_cast<double>(steady)
                   : static_cast<double>(burst_cycles);
    calibration.rates[kind] = rates_of(outcome);
    if (kind == kFlowMixed && outcome.last_data_end > 0) {
      calibration.refreshes_per_cycle =
          static_cast<double>(outcome.stats.refreshes) / static_cast<double>(outcome.last_data_end);
      calibration.active_rank_fraction = static_cast<double>(outcome.stats.active_rank_cycles) /
                                         static_cast<double>(outcome.last_data_end * spec.ranks);
    }
  }
  for (int d = 0; d < 2; ++d) {
    const std::vector<std::uint64_t> lone[2] = {
        d == 0 ? std::vector<std::uint64_t>{0} : std::vector<std::uint64_t>{},
        d == 1 ? std::vector<std::uint64_t>{write_base} : std::vector<std::uint64_t>{}};
    const StreamDriver::Outcome outcome = StreamDriver(spec, 1).run(lone, run_bytes);
    calibration.latency_cycles[d] = static_cast<double>(outcome.last_data_end - run_bursts * burst_cycles);
  }
  return calibration;
}

}  // namespace

const FlowCalibration& calibrate(const spec::DramSpec& spec, std::int64_t window) {
  // Kept for the process: a sweep's jobs in one process share it. Few entries: scanned.
  static std::vector<std::pair<std::pair<spec::DramSpec, std::int64_t>, std::unique_ptr<FlowCalibration>>> cache;
  for (const auto& [key, calibration] : cache) {
    if (key.second == window && key.first == spec) return *calibration;
  }
  cache.emplace_back(std::make_pair(spec, window), std::make_unique<FlowCalibration>(measure(spec, window)));
  return *cache.back().second;
}

FlowChannels::FlowChannels(std::int64_t channels, const FlowCalibration& calibration, std::int64_t drain_at_requests)
    : channels_(static_cast<std::size_t>(channels)),
      calibration_(calibration),
      drain_at_requests_(std::max<std::int64_t>(1, drain_at_requests)) {}

double FlowChannels::serve_on(Channel& channel, double arrival, std::int64_t bursts, int direction, bool& queued,
                              bool may_mix) {
  const int other = direction == kFlowWrite ? kFlowRead : kFlowWrite;
  const int kind = may_mix && channel.direction_until[other] > arrival ? kFlowMixed : direction;
  if (channel.busy_until > arrival) queued = true;
  const double start = std::max(arrival, channel.busy_until);
  channel.busy_until = start + static_cast<double>(bursts) * calibration_.cycles_per_burst[kind];
  channel.direction_until[direction] = channel.busy_until;
  channel.bursts[kind] += bursts;
  return channel.busy_until;
}

FlowChannels::Served FlowChannels::serve(double arrival, const std::vector<timing::ChannelShare>& shares,
                                         bool is_write) {
  const int direction = is_write ? kFlowWrite : kFlowRead;
  Served served;
  served.data_end = arrival;
  for (std::size_t c = 0; c < channels_.size() && c < shares.size(); ++c) {
    if (shares[c].bursts == 0) continue;
    served.data_end =
        std::max(served.data_end, serve_on(channels_[c], arrival, shares[c].bursts, direction, served.queued, true));
  }
  served.answer = served.data_end + calibration_.latency_cycles[direction];
  return served;
}

std::uint64_t FlowChannels::submit_write(double arrival, const std::vector<timing::ChannelShare>& shares) {
  const std::uint64_t id = next_write_id_++;
  OpenWrite open{id, 0, Served{arrival, arrival, false}};
  for (std::size_t c = 0; c < channels_.size() && c < shares.size(); ++c) {
    if (shares[c].bursts > 0) ++open.channels_left;
  }
  if (open.channels_left == 0) {
    open.served.answer = arrival + calibration_.latency_cycles[kFlowWrite];
    finished_.push_back(FinishedWrite{id, open.served});
    return id;
  }
  open_writes_.push_back(open);
  for (std::size_t c = 0; c < channels_.size() && c < shares.size(); ++c) {
    if (shares[c].bursts == 0) continue;
    Channel& channel = channels_[c];
    channel.waiting.push_back(WaitingWrite{id, arrival, shares[c]});
    channel.waiting_requests += shares[c].requests;
    // No reads to serve: the writes go now. At the watermark: they go after what is being served,
    // interleaved with the reads as a drain is (the mixed rate).
    if (channel.busy_until <= arrival) {
      serve_waiting(channel, arrival, false);
    } else if (channel.waiting_requests >= drain_at_requests_) {
      serve_waiting(channel, arrival, true);
    }
  }
  return id;
}

void FlowChannels::serve_waiting(Channel& channel, double now, bool may_mix) {
  while (!channel.waiting.empty()) {
    const WaitingWrite write = channel.waiting.front();
    channel.waiting.pop_front();
    channel.waiting_requests -= write.share.requests;
    bool queued = now > write.arrival;
    const double data_end =
        serve_on(channel, std::max(now, write.arrival), write.share.bursts, kFlowWrite, queued, may_mix);
    write_served(write.id, data_end, queued);
  }
}

void FlowChannels::write_served(std::uint64_t id, double data_end, bool queued) {
  const auto open = std::lower_bound(open_writes_.begin(), open_writes_.end(), id,
                                     [](const OpenWrite& entry, std::uint64_t wanted) { return entry.id < wanted; });
  open->served.data_end = std::max(open->served.data_end, data_end);
  open->served.queued = open->served.queued || queued;
  if (--open->channels_left > 0) return;
  open->served.answer = open->served.data_end + calibration_.latency_cycles[kFlowWrite];
  finished_.push_back(FinishedWrite{open->id, open->served});
  open_writes_.erase(open);
}

double FlowChannels::next_drain() const {
  double next = kNoDrain;
  for (const Channel& channel : channels_) {
    if (!channel.waiting.empty()) next = std::min(next, channel.busy_until);
  }
  return next;
}

void FlowChannels::drain(double now) {
  for (Channel& channel : channels_) {
    // The reads have run out: one turnaround, then the writes at their own rate.
    if (!channel.waiting.empty() && channel.busy_until <= now) serve_waiting(channel, now, false);
  }
}

std::vector<FlowChannels::FinishedWrite> FlowChannels::finished_writes() {
  std::vector<FinishedWrite> finished;
  finished.swap(finished_);
  return finished;
}

double FlowChannels::busy_until() const {
  double until = 0;
  for (const Channel& channel : channels_) until = std::max(until, channel.busy_until);
  return until;
}

void FlowChannels::restart() {
  for (Channel& channel : channels_) {
    channel.busy_until = 0;
    channel.direction_until[0] = channel.direction_until[1] = 0;
  }
}

}  // namespace reusesim::dram
