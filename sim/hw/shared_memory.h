#pragma once
// A chip's shared on-chip memory (spec::SharedMemorySpec: an L2, TPU v4's CMEM), one SystemC
// module between every core's DMA engines and the DRAM, itself a Memory to them. It keeps the lines
// the cores read and write (timing/shared_lines.h) and answers a read whose bursts it holds from its
// banks; a read that misses goes on to the DRAM, and its data fills the lines on the way back (reads
// of a burst still filling wait for it: one DRAM read serves every core that asks meanwhile). Stores
// are written through: they reach the DRAM as before, and their lines are held.
//
// Banks: line n is in bank n mod banks; a request takes, in each bank it touches, its bytes there at
// bank_width_bytes a clock after the bank's earlier work (fills and stores take the banks too), and
// is answered latency_cycles after its last bank is done. The DRAM's counters are the memory's.
// A DMA engine sends a run of held bursts as one request (shared_reads()), not split at the DRAM's
// row runs: the shared memory has no rows.

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
#include "timing/shared_lines.h"

namespace reusesim::hw {

struct SharedMemoryStats {
  std::int64_t read_hits = 0, read_misses = 0, writes = 0;  // requests
  std::int64_t hit_bytes = 0, miss_bytes = 0, write_bytes = 0;
  std::int64_t waited_for_fill = 0;  // hits that waited for a burst on its way from the DRAM
};

class SharedMemory : public sc_core::sc_module, public Memory {
 public:
  tlm_utils::multi_passthrough_target_socket<SharedMemory> socket;  // the cores' DMA engines
  tlm_utils::simple_initiator_socket<SharedMemory> dram_socket;     // to `dram`

  // `dram`'s bursts are `burst_bytes`.
  SharedMemory(sc_core::sc_module_name name, const spec::SharedMemorySpec& spec, std::unique_ptr<Memory> dram,
               std::int64_t burst_bytes);

  void bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t) override { initiator.bind(socket); }
  results::DramChannelStats total_stats() const override { return dram_->total_stats(); }
  std::vector<results::DramChannelStats> channel_stats() const override { return dram_->channel_stats(); }
  sc_core::sc_time next_clock_edge() const override { return dram_->next_clock_edge(); }
  // Its own answers reach the DMA engines before they are idle: only the DRAM may still be busy.
  void wait_until_idle() override { dram_->wait_until_idle(); }
  // Holds nothing again, and the DRAM restarts; false if a request is still in either.
  bool restart() override;
  void record_to(results::TimelineRecorder& timeline) override { dram_->record_to(timeline); }
  // A read of held bursts asks for at most one line of each bank.
  SharedReads shared_reads() const override {
    return {&lines_, static_cast<std::uint64_t>(spec_.line_bytes * spec_.banks)};
  }
  const SharedMemoryStats& stats() const { return stats_; }

 private:
  struct Waiting {
    tlm::tlm_generic_payload* payload;
    int initiator;
  };
  tlm::tlm_sync_enum nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  // A read its lines hold (`lookup`): answered when the banks have moved it, or, while a burst of it
  // is filling, left waiting on that line.
  void answer_hit(tlm::tlm_generic_payload& payload, int initiator, const timing::SharedLines::Lookup& lookup);
  // A fill's data arrives `at`: its bursts are held, and the reads waiting on its lines look again.
  void fill_arrived(std::uint64_t address, std::uint64_t bytes, const sc_core::sc_time& at);
  // When the banks have moved [address, address + bytes), starting no earlier than `earliest`.
  sc_core::sc_time take_banks(std::uint64_t address, std::uint64_t bytes, const sc_core::sc_time& earliest);
  void respond();

  spec::SharedMemorySpec spec_;
  std::unique_ptr<Memory> dram_;
  sc_core::sc_time period_;
  timing::SharedLines lines_;
  std::vector<sc_core::sc_time> bank_free_at_;
  std::unordered_map<std::int64_t, std::vector<Waiting>> waiting_;  // by the line they wait on
  std::int64_t waiting_count_ = 0;
  MemoryResponses<tlm_utils::multi_passthrough_target_socket<SharedMemory>> responses_;
  SharedMemoryStats stats_;
};

}  // namespace reusesim::hw
