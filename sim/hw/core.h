#pragma once
// One core of the chip: a load and a store DMA engine on the chip's memory, SRAM buffers, the
// compute array, and the engines that replay a unit of a data-movement program (a layer's pass)
// on them. The chip (hw/accelerator.h) hands each core its unit, waits until every core is done,
// and collects the unit's counters.
//
// Replay: three engine threads walk the unit's steps in order, each taking its own kind of step
// (loads, compute/vector, stores) as soon as the steps it depends on have finished. Loads run
// ahead of compute as far as the double-buffer slots allow; stores drain behind. Once a unit's
// loads are all issued, the next unit's leading weight loads follow them into the weight buffer's
// free room (docs/mapping-and-replay.md, "Weight prefetch across layers"), never across a batch.
// Every cycle the array waits is attributed to the bottleneck: while it waits, to the tensors the
// load path was moving then (see docs/mapping-and-replay.md, "Stall causes").

#include <systemc>

#include <array>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "hw/compute_array.h"
#include "hw/dma_engine.h"
#include "hw/memory.h"
#include "hw/sram_buffer.h"
#include "program/program.h"
#include "results/layer_result.h"
#include "results/timeline_recorder.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_address.h"

namespace reusesim::hw {

// A core's counters over one unit, or (added up) over a layer's units.
struct CoreUnitTotals {
  // Time: the core's own, from the unit's start to its last step (dram_span: with its prefetch's,
  // LayerResult::dram_span_seconds), and after it, waiting for the chip's other cores (sync).
  sc_core::sc_time elapsed, compute, dram_span, sync;
  sc_core::sc_time stalls[results::kStallCauses];
  // Work: what it moved and computed.
  std::array<std::int64_t, program::kTensorRoles> read_bytes{};
  // Of read_bytes, what the chip's shared memory served and what came as copies of another core's
  // read (noc.multicast): the DRAM read the rest.
  std::array<std::int64_t, program::kTensorRoles> shared_read_bytes{}, multicast_read_bytes{};
  std::int64_t write_bytes = 0, prefetched_bytes = 0, macs = 0, skipped_macs = 0, vector_ops = 0,
               accumulator_updates = 0;
  std::vector<SramStats> sram;  // per buffer, in the spec's order
  CoreUnitTotals& operator+=(const CoreUnitTotals& unit);
  // Adds `unit`'s work only.
  void add_work(const CoreUnitTotals& unit);
};

// A chip's unit from its cores': the time of the core that finished last (the first of them on a
// tie) and where it went, every core's work, and a DRAM span from the earliest core's prefetch.
CoreUnitTotals chip_unit(const std::vector<CoreUnitTotals>& cores);

class Core : public sc_core::sc_module {
 public:
  // The unit after the running one in the same batch, whose leading weight loads may be prefetched.
  struct NextUnit {
    const program::LayerProgram* program = nullptr;
    std::size_t first_step = 0, end_step = 0;
  };

  // Binds both DMA engines to `memory` as core `index`'s. With `chunk_bytes` > 0 they split each
  // transfer into chunks of that many bytes (the fast memory's); `timeline` (if any) records the
  // core's activity on tracks of its own, added now (so the chip's cores are its cores in
  // construction order).
  Core(sc_core::sc_module_name name, std::int64_t index, const spec::AcceleratorSpec& spec,
       const timing::DramAddressMapper& mapper, Memory& memory, results::TimelineRecorder* timeline,
       std::uint64_t chunk_bytes);

  // Starts the steps [first, end) of `program` now (those before `first` are done); `next` (none at
  // a batch's end) is the unit to prefetch weights for. Returns busy().
  bool begin_unit(const program::LayerProgram& program, std::size_t first, std::size_t end, const NextUnit* next);
  // Whether the unit has steps left; unit_done() fires when its last one finishes.
  bool busy() const { return remaining_ > 0; }
  const sc_core::sc_event& unit_done() const { return unit_done_; }
  // After the unit, which the chip started at `start` and ends now: the array's time not yet
  // attributed up to the unit's last step is output drain, and from there to now sync (both on
  // the timeline too); returns the unit's counters.
  CoreUnitTotals end_unit(const sc_core::sc_time& start);
  // Restarts the SRAM buffers (at a batch's start, with the memory).
  void restart();
  sc_core::sc_time clock_period() const { return array_.clock_period(); }

 private:
  // The engine threads start after the chip's own (see core.cpp).
  void before_end_of_elaboration() override;
  void load_engine();
  void store_engine();
  void transfer_engine(program::StepKind kind);
  void compute_engine();
  // Finishes the compute steps handed to the output path, in order, when their outputs are through.
  void output_path_engine();
  // The compute engine waits until `until` for the output path (accumulators or vector units busy).
  void wait_for_output_path(const sc_core::sc_time& until);
  // Waits until a unit newer than `seen` starts and records it in `seen`.
  void wait_for_unit(std::uint64_t& seen);
  // Waits until every step `step` depends on has finished; returns the one that finished last.
  std::int32_t wait_for_dependencies(const program::Step& step);
  void finish(std::int32_t index);
  // Load engine, after the unit's last load: the next unit's weight loads that wait for nothing,
  // in order, as long as they fit prefetch_room_bytes_.
  void prefetch_next_weights();
  // At a unit's start: its loads prefetched during the unit before count as its own.
  void adopt_prefetched_loads();
  // The weight buffer's capacity less what `program` keeps in it: its two largest transfers into
  // that buffer (a tile in use and the next one).
  std::int64_t weight_room_bytes(const program::LayerProgram& program);
  // The DRAM bytes a load or store step moves: its burst-widened extent.
  std::int64_t dram_bytes(const program::Step& step) const;
  // Records a finished load or store to the timeline, when there is one.
  void record_transfer(results::DmaTrack track, const program::Step& step, const sc_core::sc_time& submitted);
  // Adds `from` to `to` to the stall of `cause` (and the timeline).
  void charge(results::StallCause cause, const sc_core::sc_time& from, const sc_core::sc_time& to);
  // Bytes the memory has delivered so far: to the load DMA by role, and from the store DMA.
  struct MemoryProgress {
    std::int64_t weight_bytes, input_bytes, output_bytes;
  };
  MemoryProgress memory_progress() const;
  // Charges the array's wait from `ready` to now: see docs/mapping-and-replay.md, "Stall causes".
  void charge_wait(const sc_core::sc_time& ready, const MemoryProgress& before, std::int32_t last);
  // Its part from `ready` to `end` that the memory took, by the bytes it delivered meanwhile.
  void charge_memory_wait(const sc_core::sc_time& ready, const sc_core::sc_time& end, const MemoryProgress& before,
                          program::TensorRole last_tensor);
  SramBuffer& buffer_for(spec::TensorKind kind);
  std::int64_t& read_bytes(program::TensorRole role) { return read_bytes_by_role_[static_cast<std::size_t>(role)]; }
  // Counts what of a load of `role` the DRAM did not read (`done`).
  void count_on_chip(program::TensorRole role, const DmaEngine::Done& done);
  sc_core::sc_time sram_access(spec::TensorKind kind, std::uint64_t bytes, bool is_write);

  spec::AcceleratorSpec spec_;
  const timing::DramAddressMapper& mapper_;  // the memory's address map, for burst extents
  DmaEngine load_dma_;
  DmaEngine store_dma_;
  ComputeArray array_;
  sc_core::sc_vector<SramBuffer> buffers_;
  results::TimelineRecorder* timeline_;
  std::size_t timeline_core_;  // this core's tracks in timeline_

  // The unit being replayed: its program and steps, and the counters when it started.
  const program::LayerProgram* program_ = nullptr;
  std::size_t first_step_ = 0, end_step_ = 0;
  std::uint64_t generation_ = 0;
  ComputeStats compute_before_;
  std::vector<SramStats> sram_before_;
  std::vector<bool> done_;
  // Compute steps whose operands the array has read (their outputs may still be in the output path).
  std::vector<bool> operands_read_;
  // The output path: when the tiles handed to it last and before that leave it, and the steps in it.
  sc_core::sc_time path_latest_end_;
  sc_core::sc_time path_older_end_;
  std::deque<std::pair<std::int32_t, sc_core::sc_time>> path_queue_;
  sc_core::sc_event path_handed_;
  std::vector<sc_core::sc_time> finished_at_;
  // A load's: what the request that completed it last spent crossing the network-on-chip.
  std::vector<sc_core::sc_time> network_tail_;
  std::int64_t remaining_ = 0;
  sc_core::sc_time unit_end_;  // when the unit's last step finished
  sc_core::sc_time compute_busy_;
  sc_core::sc_time stall_by_cause_[results::kStallCauses];
  std::array<std::int64_t, program::kTensorRoles> read_bytes_by_role_{};
  std::array<std::int64_t, program::kTensorRoles> shared_read_bytes_by_role_{}, multicast_read_bytes_by_role_{};
  std::int64_t write_bytes_ = 0;
  // Weight prefetch: the next unit's program (none at a batch's end), the room for it, and per
  // step of it 0 (not prefetched), 1 (in flight) or 2 (done at prefetch_done_at_); the generation
  // the next unit will run as.
  const program::LayerProgram* next_program_ = nullptr;
  std::size_t next_first_step_ = 0, next_end_step_ = 0;
  std::int64_t prefetch_room_bytes_ = 0;
  std::vector<std::int8_t> prefetch_state_;
  std::vector<sc_core::sc_time> prefetch_done_at_;
  std::vector<DmaEngine::Done> prefetch_outcome_;  // per done step
  std::uint64_t prefetch_owner_ = 0;
  std::vector<bool> prefetched_;  // the running unit's steps that were prefetched
  std::int64_t prefetched_bytes_ = 0;
  // When the last prefetch began; for the running unit, how long its prefetched loads took (from
  // that start to the last one's arrival, or to the unit's start if one was still arriving then).
  sc_core::sc_time prefetch_started_at_;
  sc_core::sc_time prefetch_span_;
  sc_core::sc_event start_;
  sc_core::sc_event step_done_;
  sc_core::sc_event unit_done_;
};

}  // namespace reusesim::hw
