#include "hw/dram_flow_memory.h"

#include <algorithm>
#include <cmath>

#include "hw/dma_engine.h"
#include "hw/systemc_compat.h"

namespace reusesim::hw {

DramFlowMemory::DramFlowMemory(sc_core::sc_module_name name, const spec::DramSpec& spec, std::int64_t window)
    : sc_core::sc_module(name),
      socket("socket"),
      spec_(spec),
      period_(spec.timing.tck_ns, sc_core::SC_NS),
      interleave_(spec),
      calibration_(dram::calibrate(spec, window)),
      channels_(interleave_.channels(), calibration_,
                spec.controller.write_drain == spec::WriteDrainPolicy::watermarks ? spec.controller.write_drain_high
                                                                                  : spec.controller.write_queue_depth),
      epoch_(sc_core::sc_time_stamp()),
      responses_(socket),
      counted_(static_cast<std::size_t>(interleave_.channels())),
      row_splits_(static_cast<std::size_t>(interleave_.channels())) {
  REUSESIM_HAS_PROCESS(DramFlowMemory);
  socket.register_nb_transport_fw(this, &DramFlowMemory::nb_transport_fw);
  SC_THREAD(respond);
  SC_THREAD(drain_writes);
}

void DramFlowMemory::bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t) { initiator.bind(socket); }

sc_core::sc_time DramFlowMemory::at_cycle(double cycle) const {
  // In the clock period as SystemC holds it (rounded to its time resolution, as the exact
  // channels' is), the inverse of cycles_since_epoch(); never before now.
  return std::max(sc_core::sc_time_stamp(), epoch_ + period_ * cycle);
}

double DramFlowMemory::cycles_since_epoch(const sc_core::sc_time& time) const { return (time - epoch_) / period_; }

tlm::tlm_sync_enum DramFlowMemory::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                                   tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;  // END_RESP: nothing to do
  const sc_core::sc_time now = sc_core::sc_time_stamp() + delay;
  const bool is_write = payload.is_write();
  interleave_.split(payload.get_address(), payload.get_data_length(), shares_);
  const double arrival = cycles_since_epoch(now);
  bool queued = false;
  if (is_write) {
    const bool posted = spec_.controller.posted_writes;
    const std::uint64_t id = channels_.submit_write(arrival, shares_);
    writes_[id] = WriteInFlight{posted ? nullptr : &payload, initiator};
    if (posted) responses_.answer_in(payload, initiator, delay);  // answered when queued
    answer_finished_writes();
    if (channels_.next_drain() < dram::FlowChannels::kNoDrain) write_waiting_.notify(sc_core::SC_ZERO_TIME);
  } else {
    const dram::FlowChannels::Served served = channels_.serve(arrival, shares_, false);
    queued = served.queued;
    last_answer_ = std::max(last_answer_, at_cycle(served.answer));
    responses_.answer_in(payload, initiator, at_cycle(served.answer) - sc_core::sc_time_stamp());
  }
  const dram::FlowCounterRates& rates = calibration_.rates[is_write ? dram::kFlowWrite : dram::kFlowRead];
  // A read kept waiting by others' bursts waits as the calibrated streams' requests did; an idle
  // channel answers its first burst after the pipeline latency. Writes: as the streams' writes.
  const auto latency = static_cast<std::int64_t>(std::llround(
      queued || is_write ? rates.latency_cycles
                         : calibration_.latency_cycles[0] + static_cast<double>(spec_.timing.burst_length / 2)));
  for (std::size_t c = 0; c < shares_.size(); ++c) {
    const timing::ChannelShare& share = shares_[c];
    if (share.bursts == 0) continue;
    results::DramChannelStats& counted = counted_[c];
    const std::int64_t bytes = share.bursts * spec_.burst_bytes();
    (is_write ? counted.writes : counted.reads) += share.requests;
    (is_write ? counted.write_bytes : counted.read_bytes) += bytes;
    (is_write ? counted.write_commands : counted.read_commands) += share.bursts;
    (is_write ? counted.write_latency : counted.read_latency).add(latency, share.requests);
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramFlowMemory::answer_finished_writes() {
  for (const dram::FlowChannels::FinishedWrite& finished : channels_.finished_writes()) {
    const auto found = writes_.find(finished.id);
    const sc_core::sc_time answer = at_cycle(finished.served.answer);
    last_answer_ = std::max(last_answer_, answer);
    if (found->second.payload != nullptr) {
      responses_.answer_in(*found->second.payload, found->second.initiator, answer - sc_core::sc_time_stamp());
    }
    writes_.erase(found);
    write_finished_.notify(sc_core::SC_ZERO_TIME);
  }
}

void DramFlowMemory::drain_writes() {
  while (true) {
    const double next = channels_.next_drain();
    if (next >= dram::FlowChannels::kNoDrain) {
      sc_core::wait(write_waiting_);
      continue;
    }
    const sc_core::sc_time at = at_cycle(next);
    if (at > sc_core::sc_time_stamp()) {
      // Woken early by a new waiting write, or a read that came since: look again.
      sc_core::wait(at - sc_core::sc_time_stamp(), write_waiting_);
      continue;
    }
    // `at` is `next` in SystemC time, rounded: the channel's reads have run out by now.
    channels_.drain(std::max(cycles_since_epoch(sc_core::sc_time_stamp()), next));
    answer_finished_writes();
  }
}

void DramFlowMemory::respond() {
  responses_.run([](const tlm::tlm_generic_payload&) {});
}

std::vector<results::DramChannelStats> DramFlowMemory::channel_stats() const {
  // The commands, standby and refreshes in closed form from the calibration's rates per burst
  // (and per clock, for refresh): cumulative, so that a layer's share is a difference.
  const double elapsed = sc_core::sc_time_stamp() / period_;
  std::vector<results::DramChannelStats> stats = counted_;
  for (std::size_t c = 0; c < stats.size(); ++c) {
    const auto estimate = [&](double dram::FlowCounterRates::*rate) {
      double total = 0;
      for (int kind = 0; kind < 3; ++kind) {
        total += static_cast<double>(channels_.bursts(c, static_cast<dram::FlowDirection>(kind))) *
                 calibration_.rates[kind].*rate;
      }
      return static_cast<std::int64_t>(std::llround(total));
    };
    results::DramChannelStats& s = stats[c];
    s.activates = estimate(&dram::FlowCounterRates::activates);
    s.precharges = estimate(&dram::FlowCounterRates::precharges);
    // Hits, misses and conflicts split the column commands. Rounded each on its own, a miss and a
    // conflict could both round up as one more burst arrives, and the hits go down by one: a layer's
    // share (a difference of two samples) would be negative. So each only grows, by at most what
    // the columns grew, starting from the last sample's split.
    RowSplit& last = row_splits_[c];
    const std::int64_t new_columns = s.columns() - last.columns;
    s.row_misses = std::clamp(estimate(&dram::FlowCounterRates::row_misses), last.misses, last.misses + new_columns);
    const std::int64_t left = new_columns - (s.row_misses - last.misses);
    s.row_conflicts =
        std::clamp(estimate(&dram::FlowCounterRates::row_conflicts), last.conflicts, last.conflicts + left);
    s.row_hits = s.columns() - s.row_misses - s.row_conflicts;
    last = RowSplit{s.columns(), s.row_misses, s.row_conflicts};
    s.turnarounds = estimate(&dram::FlowCounterRates::turnarounds);
    s.write_drains = estimate(&dram::FlowCounterRates::write_drains);
    // Open pages stay open between transfers: active standby runs with the clock, as in the streams;
    // closed pages close after each request: it follows the bursts.
    s.active_rank_cycles = spec_.controller.page_policy == spec::PagePolicy::open
                               ? static_cast<std::int64_t>(std::llround(elapsed * calibration_.active_rank_fraction *
                                                                        static_cast<double>(spec_.ranks)))
                               : estimate(&dram::FlowCounterRates::active_rank_cycles);
    s.refreshes = static_cast<std::int64_t>(std::llround(elapsed * calibration_.refreshes_per_cycle));
  }
  return stats;
}

results::DramChannelStats DramFlowMemory::total_stats() const {
  results::DramChannelStats total;
  for (const results::DramChannelStats& channel : channel_stats()) total += channel;
  return total;
}

sc_core::sc_time DramFlowMemory::next_clock_edge() const {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const auto edges = static_cast<std::uint64_t>(now / period_);
  const sc_core::sc_time edge = period_ * static_cast<double>(edges);
  return edge < now ? edge + period_ : edge;
}

void DramFlowMemory::wait_until_idle() {
  while (!writes_.empty()) sc_core::wait(write_finished_);
  const sc_core::sc_time until = std::max(last_answer_, at_cycle(channels_.busy_until()));
  if (until > sc_core::sc_time_stamp()) sc_core::wait(until - sc_core::sc_time_stamp());
}

bool DramFlowMemory::restart() {
  if (!responses_.idle() || !writes_.empty() || at_cycle(channels_.busy_until()) > sc_core::sc_time_stamp())
    return false;
  channels_.restart();
  epoch_ = sc_core::sc_time_stamp();
  return true;
}

}  // namespace reusesim::hw
