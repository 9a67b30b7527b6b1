#pragma once
// A chip's network-on-chip (spec::NocSpec), one SystemC module between every core's DMA engines and
// the memory (a shared memory, the DRAM), itself a Memory to them. Core c sits on node c; a request
// goes to the node of its DRAM channel (noc.memory_nodes), where the channel and its slice of a
// shared memory are. The links are timing::NocLinks' servers:
// - a read's data comes back over the route from the memory's node to the core's, leaving when the
//   memory answers; the core has it when its last flit arrives, plus the request's own trip there
//   (its head, a flit that is taken to hold no link: router_latency_cycles a hop);
// - a store's data holds the links from the core's node to the memory's, leaving when it is sent:
//   the memory takes it at once (posted), so a store costs the network's links, not its latency.
// Requests reach the memory as they are sent, so the memory's flow control is the DMA engines' as
// without a network.
// With noc.multicast, a read of the same bytes (address and length) as a read the memory has not
// answered yet joins it instead of reaching the memory: the memory's one answer goes down the union
// of the routes to every core that asked (timing::NocLinks::multicast), and the joined reads are
// marked DmaRoute::multicast.

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "hw/memory.h"
#include "hw/memory_responses.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_address.h"
#include "timing/noc_links.h"

namespace reusesim::hw {

class NetworkOnChip : public sc_core::sc_module, public Memory {
 public:
  tlm_utils::multi_passthrough_target_socket<NetworkOnChip> socket;  // the cores' DMA engines
  tlm_utils::simple_initiator_socket<NetworkOnChip> memory_socket;   // to `memory`

  // `mapper` gives a request's DRAM channel, hence its memory node.
  NetworkOnChip(sc_core::sc_module_name name, const spec::NocSpec& spec, const timing::DramAddressMapper& mapper,
                std::unique_ptr<Memory> memory);

  void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) override;
  results::DramChannelStats total_stats() const override { return memory_->total_stats(); }
  std::vector<results::DramChannelStats> channel_stats() const override { return memory_->channel_stats(); }
  sc_core::sc_time next_clock_edge() const override { return memory_->next_clock_edge(); }
  // Its answers reach the DMA engines before they are idle: only the memory may still be busy.
  void wait_until_idle() override { memory_->wait_until_idle(); }
  // Every link free from now, and the memory restarted; false if a response is still on its way or a
  // read waits for one.
  bool restart() override;
  // The memory's tracks, and a track per link.
  void record_to(results::TimelineRecorder& timeline) override;
  SharedReads shared_reads() const override { return memory_->shared_reads(); }
  const timing::NocLinks& links() const { return links_; }

 private:
  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  std::int64_t memory_node(std::uint64_t address) const;
  std::int64_t node_of(const tlm::tlm_generic_payload& payload) const;
  // Puts what the links' last carry or multicast held on their timeline tracks.
  void record_links(std::uint64_t bytes, bool is_store);
  void respond();

  // A read on its way to the memory, and the reads of the same bytes that joined it.
  struct Multicast {
    const tlm::tlm_generic_payload* first;
    std::vector<tlm::tlm_generic_payload*> joined;
  };

  spec::NocSpec spec_;
  timing::DramAddressMapper mapper_;
  std::unique_ptr<Memory> memory_;
  sc_core::sc_time period_;
  timing::NocLinks links_;
  std::vector<std::int64_t> node_of_port_;  // by target port: the node of the core whose engine it is
  std::unordered_map<std::uint64_t, Multicast> unanswered_;  // with noc.multicast: by address
  results::TimelineRecorder* timeline_ = nullptr;
  std::size_t first_link_track_ = 0;
  MemoryResponses<tlm_utils::multi_passthrough_target_socket<NetworkOnChip>> responses_;
};

}  // namespace reusesim::hw
