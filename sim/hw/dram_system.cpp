#include "hw/dram_system.h"

#include <algorithm>

#include "hw/dma_engine.h"

namespace reusesim::hw {

DramSystem::DramSystem(sc_core::sc_module_name name, const spec::DramSpec& spec)
    : sc_core::sc_module(name),
      socket("socket"),
      spec_(spec),
      mapper_(spec),
      channels_("channel", static_cast<std::size_t>(spec.scheduled_channels()),
                [&](const char* channel_name, std::size_t) { return new DramChannel(channel_name, spec); }),
      channel_sockets_("channel_socket", static_cast<std::size_t>(spec.scheduled_channels())) {
  socket.register_nb_transport_fw(this, &DramSystem::nb_transport_fw);
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    channel_sockets_[i].register_nb_transport_bw(this, &DramSystem::nb_transport_bw, static_cast<int>(i));
    channel_sockets_[i].bind(channels_[i].socket);
  }
}

void DramSystem::bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t) { initiator.bind(socket); }

tlm::tlm_sync_enum DramSystem::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                               tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  const bool request = phase == tlm::BEGIN_REQ;
  if (request) {
    payload.get_extension<DmaRoute>()->memory_port = initiator;
    ++requests_in_flight_;
  }
  const auto channel = static_cast<std::size_t>(mapper_.channel_index(payload.get_address()));
  const tlm::tlm_sync_enum status = channel_sockets_[channel]->nb_transport_fw(payload, phase, delay);
  if (request && status == tlm::TLM_COMPLETED) --requests_in_flight_;
  return status;
}

tlm::tlm_sync_enum DramSystem::nb_transport_bw(int, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                               sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_RESP) --requests_in_flight_;
  return socket[payload.get_extension<DmaRoute>()->memory_port]->nb_transport_bw(payload, phase, delay);
}

sc_core::sc_time DramSystem::next_clock_edge() const {
  // All channels share one clock; whole periods since time 0, rounded up.
  const sc_core::sc_time period = channels_[0].clock_period();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const auto edges = static_cast<std::uint64_t>(now / period);
  const sc_core::sc_time edge = period * static_cast<double>(edges);
  return edge < now ? edge + period : edge;
}

bool DramSystem::restart() {
  if (requests_in_flight_ != 0) return false;
  for (const DramChannel& channel : channels_) {
    if (!channel.idle()) return false;
  }
  for (DramChannel& channel : channels_) channel.restart();
  return true;
}

void DramSystem::wait_until_idle() {
  for (const DramChannel& channel : channels_) {
    while (!channel.idle()) sc_core::wait(channel.idle_event());
    const sc_core::sc_time end = channel.data_end_time();
    if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
  }
}

void DramSystem::record_to(results::TimelineRecorder& timeline) {
  for (DramChannel& channel : channels_) channel.record_to(timeline);
}

std::vector<results::DramChannelStats> DramSystem::channel_stats() const {
  std::vector<results::DramChannelStats> stats;
  for (const DramChannel& channel : channels_) stats.push_back(channel.stats());
  return stats;
}

results::DramChannelStats DramSystem::total_stats() const {
  results::DramChannelStats total;
  for (const DramChannel& channel : channels_) total += channel.stats();
  return total;
}

}  // namespace reusesim::hw
