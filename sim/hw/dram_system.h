#pragma once
// All channels of one memory: a TLM-2.0 target that routes each request to its channel by the
// address mapping, and passes responses back to the initiator that sent it (several DMA engines
// may bind). Channels interleave as the mapping says.

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "hw/dram_channel.h"
#include "hw/memory.h"
#include "results/timeline_recorder.h"

namespace reusesim::hw {

class DramSystem : public sc_core::sc_module, public Memory {
 public:
  tlm_utils::multi_passthrough_target_socket<DramSystem> socket;

  DramSystem(sc_core::sc_module_name name, const spec::DramSpec& spec);

  void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) override;
  const spec::DramSpec& spec() const { return spec_; }
  const timing::DramAddressMapper& mapper() const { return mapper_; }
  const sc_core::sc_vector<DramChannel>& channels() const { return channels_; }
  // All channels' counters added up (latency histograms merged).
  results::DramChannelStats total_stats() const override;
  std::vector<results::DramChannelStats> channel_stats() const override;
  // The first clock edge of the channels at or after now.
  sc_core::sc_time next_clock_edge() const override;
  // Every channel back to its state at construction, with cycle 0 now (DramChannel::restart):
  // every channel must be idle and now a clock edge. False (nothing changed) if one is busy.
  bool restart() override;
  void wait_until_idle() override;
  // Every channel records its requests to `timeline`, one track each.
  void record_to(results::TimelineRecorder& timeline) override;

 private:
  using ChannelSocket = tlm_utils::simple_initiator_socket_tagged<DramSystem>;

  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int channel, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  spec::DramSpec spec_;
  timing::DramAddressMapper mapper_;
  sc_core::sc_vector<DramChannel> channels_;
  sc_core::sc_vector<ChannelSocket> channel_sockets_;
  std::int64_t requests_in_flight_ = 0;  // taken and not yet answered
};

}  // namespace reusesim::hw
