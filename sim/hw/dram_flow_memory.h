#pragma once
// The fast memory (`--fidelity fast`, docs/performance.md "Fast mode"): one SystemC module bound
// to the DMA engines in place of the DRAM system, timing whole transfers (or large chunks of
// them) rather than bursts. Each request's bytes are spread over the channels as the address
// mapping interleaves them (counted in closed form), and each channel serves them at the rate
// calibrated on the exact controller (dram/flow_model.h). Bytes, requests and bursts are counted
// exactly; the commands, standby and latencies are estimated from the calibration's rates.

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "dram/flow_model.h"
#include "hw/memory.h"
#include "hw/memory_responses.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_interleave.h"

namespace reusesim::hw {

class DramFlowMemory : public sc_core::sc_module, public Memory {
 public:
  tlm_utils::multi_passthrough_target_socket<DramFlowMemory> socket;

  // `window`: requests of one row run each that a DMA engine keeps outstanding per channel, as
  // the exact model would see them (the calibration streams keep as many).
  DramFlowMemory(sc_core::sc_module_name name, const spec::DramSpec& spec, std::int64_t window);

  void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) override;
  results::DramChannelStats total_stats() const override;
  std::vector<results::DramChannelStats> channel_stats() const override;
  sc_core::sc_time next_clock_edge() const override;
  void wait_until_idle() override;
  bool restart() override;
  // The fast memory has no per-request tracks: the timeline shows the DMA engines only.
  void record_to(results::TimelineRecorder&) override {}

 private:
  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void respond();
  // Serves the writes waiting on channels whose reads have run out, as they run out.
  void drain_writes();
  // Answers the writes the channels have finished serving.
  void answer_finished_writes();
  sc_core::sc_time at_cycle(double cycle) const;
  double cycles_since_epoch(const sc_core::sc_time& time) const;

  spec::DramSpec spec_;
  sc_core::sc_time period_;
  timing::ChannelInterleave interleave_;
  const dram::FlowCalibration& calibration_;
  dram::FlowChannels channels_;
  std::vector<timing::ChannelShare> shares_;  // scratch, per request
  sc_core::sc_time epoch_;                    // the time of cycle 0 of the channel servers
  sc_core::sc_time last_answer_;
  struct WriteInFlight {
    tlm::tlm_generic_payload* payload = nullptr;  // nullptr: posted, answered on arrival
    int initiator = 0;
  };
  std::unordered_map<std::uint64_t, WriteInFlight> writes_;  // by FlowChannels' write number
  sc_core::sc_event write_waiting_;                          // a write was left waiting on a channel
  sc_core::sc_event write_finished_;                         // a write was served on all its channels
  MemoryResponses<tlm_utils::multi_passthrough_target_socket<DramFlowMemory>> responses_;
  // What is counted exactly, per channel: requests, bytes and bursts (commands); the latencies
  // (estimated, one calibrated figure per request).
  std::vector<results::DramChannelStats> counted_;
  // Per channel, the column commands and their misses and conflicts at the last channel_stats():
  // the split only grows from there (the samples are taken at the same points in every run).
  struct RowSplit {
    std::int64_t columns = 0, misses = 0, conflicts = 0;
  };
  mutable std::vector<RowSplit> row_splits_;
};

}  // namespace reusesim::hw
