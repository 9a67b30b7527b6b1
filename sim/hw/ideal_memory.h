#pragma once
// An ideal memory (docs/dram-model.md, "Ideal memory"): one SystemC module bound to the DMA
// engines in place of the DRAM system. Requests are served in arrival order at a fixed bandwidth,
// each answered a fixed latency after its last byte; unlimited, each is answered at once. No
// banks, rows, refresh or queues: it bounds a design, or matches a stall-free simulator.

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include "hw/memory.h"
#include "hw/memory_responses.h"
#include "spec/accelerator_spec.h"

namespace reusesim::hw {

class IdealMemory : public sc_core::sc_module, public Memory {
 public:
  tlm_utils::multi_passthrough_target_socket<IdealMemory> socket;

  // `spec.ideal` must be set.
  IdealMemory(sc_core::sc_module_name name, const spec::DramSpec& spec);

  void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) override;
  results::DramChannelStats total_stats() const override { return stats_; }
  std::vector<results::DramChannelStats> channel_stats() const override { return {}; }
  sc_core::sc_time next_clock_edge() const override { return sc_core::sc_time_stamp(); }
  bool restart() override;
  // Every request is answered when served: idle whenever the requesters have their answers.
  void wait_until_idle() override {}
  void record_to(results::TimelineRecorder&) override {}

 private:
  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void respond();

  spec::IdealMemorySpec spec_;
  sc_core::sc_time free_at_;  // when the data path has moved every request so far
  MemoryResponses<tlm_utils::multi_passthrough_target_socket<IdealMemory>> responses_;
  results::DramChannelStats stats_;
};

}  // namespace reusesim::hw
