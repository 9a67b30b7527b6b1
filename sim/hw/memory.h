#pragma once
// What the accelerator needs of the memory behind its DMA engines: a DRAM system
// (hw/dram_system.h), the fast mode's (hw/dram_flow_memory.h) or an ideal memory (hw/ideal_memory.h),
// perhaps behind a shared on-chip memory (hw/shared_memory.h). All are TLM-2.0 targets that take
// requests of whole bursts, each carrying a DmaRoute, and answer each with BEGIN_RESP.

#include <systemc>
#include <tlm>

#include <vector>

#include "hw/dram_channel.h"
#include "results/timeline_recorder.h"
#include "timing/shared_lines.h"

namespace reusesim::hw {

// What a shared memory in front of the DRAM holds (hw/shared_memory.h), for the DMA engines: a run
// of bursts it holds goes to it as one request of up to `request_bytes`.
struct SharedReads {
  const timing::SharedLines* lines = nullptr;  // none: no shared memory
  std::uint64_t request_bytes = 0;
};

class Memory {
 public:
  virtual ~Memory() = default;
  // Binds an initiator socket (a DMA engine's of core `core`, or a shared memory's or a network's in
  // front, core 0) to the memory's target socket. Only a network tells the cores apart (their nodes).
  virtual void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) = 0;
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
  virtual SharedReads shared_reads() const { return {}; }
};

}  // namespace reusesim::hw
