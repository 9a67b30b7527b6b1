#pragma once
// What the accelerator needs of the memory behind its DMA engines: a DRAM system
// (hw/dram_system.h) or an ideal memory (hw/ideal_memory.h). Both are TLM-2.0 targets that take
// requests of whole bursts and answer each with BEGIN_RESP.

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include <vector>

#include "hw/dram_channel.h"
#include "results/timeline_recorder.h"

namespace reusesim::hw {

class DmaEngine;

class Memory {
 public:
  virtual ~Memory() = default;
  // Binds a DMA engine's initiator socket to the memory's target socket.
  virtual void bind(tlm_utils::simple_initiator_socket<DmaEngine>& initiator) = 0;
  // All counters added up; an ideal memory counts requests and bytes only.
  virtual results::DramChannelStats total_stats() const = 0;
  // Each channel's counters (each pseudo-channel's); none for an ideal memory, which has no channels.
  virtual std::vector<results::DramChannelStats> channel_stats() const = 0;
  // The first clock edge at or after now (an ideal memory has no clock: now).
  virtual sc_core::sc_time next_clock_edge() const = 0;
  // Waits (in a SystemC thread) until the memory has finished every request it took: posted writes
  // may still be queued after the requester had its answers.
  virtual void wait_until_idle() = 0;
  // Back to the state at construction, with time 0 now; false (nothing changed) if it is busy.
  virtual bool restart() = 0;
  // Records each request to `timeline` (a DRAM system only: an ideal memory has no tracks).
  virtual void record_to(results::TimelineRecorder& timeline) = 0;
};

}  // namespace reusesim::hw
