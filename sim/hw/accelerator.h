#pragma once
// The accelerator top: DRAM/HBM system, a load and a store DMA engine, SRAM buffers, the compute
// array, and the controller that replays data-movement programs layer after layer. The top owns
// its children by value and binds every socket in its constructor.
//
// Replay: three engine threads walk a layer's program in order, each taking its own kind of step
// (loads, compute/vector, stores) as soon as the steps it depends on have finished. Loads run
// ahead of compute as far as the double-buffer slots allow; stores drain behind. Once a layer's
// loads are all issued, the next layer's leading weight loads follow them into the weight buffer's
// free room (docs/mapping-and-replay.md, "Weight prefetch across layers"), never across a batch. Every cycle the
// array waits is attributed to the bottleneck: while it waits, to the tensors the load path was
// moving then (see docs/mapping-and-replay.md, "Stall causes").

#include <systemc>

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hw/compute_array.h"
#include "hw/dma_engine.h"
#include "hw/memory.h"
#include "hw/sram_buffer.h"
#include "program/program.h"
#include "results/layer_result.h"
#include "results/timeline_recorder.h"
#include "spec/fidelity.h"
#include "timing/dram_address.h"

namespace reusesim::hw {

class Accelerator : public sc_core::sc_module {
 public:
  // With a `timeline`, every module records its activity there (see hw/timeline_recorder.h). With
  // `fidelity` fast, a timed DRAM is the fast memory (hw/dram_flow_memory.h).
  Accelerator(sc_core::sc_module_name name, const spec::AcceleratorSpec& spec, std::vector<program::LayerRun> runs,
              results::TimelineRecorder* timeline = nullptr, spec::Fidelity fidelity = spec::Fidelity::exact);

  const std::vector<results::LayerResult>& results() const { return results_; }
  // The memory's counters over the whole run.
  results::DramChannelStats memory_stats() const { return memory_->total_stats(); }
  bool finished() const { return results_.size() == runs_.size(); }

 private:
  // A layer's pass (its whole program when it has one): what the engines replay at a time.
  struct Unit {
    std::size_t run = 0;
    std::int64_t pass = 0;
    bool last_pass = true;
  };
  // A layer's counters over its passes, turned into its LayerResult after the last one.
  struct RunTotals {
    // dram_span: the passes' times, each with its prefetch's (LayerResult::dram_span_seconds).
    sc_core::sc_time first_start, elapsed, compute, dram_span;
    sc_core::sc_time stalls[results::kStallCauses];
    std::array<std::int64_t, program::kTensorRoles> read_bytes{};
    std::int64_t write_bytes = 0, prefetched_bytes = 0, macs = 0, vector_ops = 0, accumulator_updates = 0;
    results::DramChannelStats dram;
    std::vector<results::DramChannelStats> channels;
    std::vector<SramStats> sram;
  };
  // The order the passes run in: layer after layer, except that consecutive layers of a batch with
  // the same sub-batches (program::LayerProgram::passes) run pass by pass.
  static std::vector<Unit> replay_order(const std::vector<program::LayerRun>& runs);
  // The steps [first, end) of a unit.
  std::pair<std::size_t, std::size_t> step_range(const Unit& unit) const;
  results::LayerResult layer_result(const program::LayerRun& run, const RunTotals& total) const;
  void drive();
  // Waits for the next DRAM clock edge and restarts the DRAM and SRAM there (program::LayerRun::starts_batch).
  void restart_machine();
  void load_engine();
  void store_engine();
  void transfer_engine(program::StepKind kind);
  void compute_engine();
  // Finishes the compute steps handed to the output path, in order, when their outputs are through.
  void output_path_engine();
  // The compute engine waits until `until` for the output path (accumulators or vector units busy).
  void wait_for_output_path(const sc_core::sc_time& until);
  // Waits until a layer newer than `seen` starts and records it in `seen`.
  void wait_for_layer(std::uint64_t& seen);
  // Waits until every step `step` depends on has finished; returns the one that finished last.
  std::int32_t wait_for_dependencies(const program::Step& step);
  void finish(std::int32_t index);
  // Load engine, after the layer's last load: the next layer's weight loads that wait for nothing,
  // in order, as long as they fit prefetch_room_bytes_.
  void prefetch_next_weights();
  // At a layer's start: its loads prefetched during the layer before count as its own.
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
  void charge_wait(const sc_core::sc_time& ready, const MemoryProgress& before, const program::Step& last_arrived);
  SramBuffer& buffer_for(spec::TensorKind kind);
  std::int64_t& read_bytes(program::TensorRole role) { return read_bytes_by_role_[static_cast<std::size_t>(role)]; }
  sc_core::sc_time sram_access(spec::TensorKind kind, std::uint64_t bytes, bool is_write);

  spec::AcceleratorSpec spec_;
  timing::DramAddressMapper mapper_;  // the memory's address map, for the DMA engines and burst extents
  std::unique_ptr<Memory> memory_;  // a DRAM system, or an ideal memory (DramSpec::ideal)
  DmaEngine load_dma_;
  DmaEngine store_dma_;
  ComputeArray array_;
  sc_core::sc_vector<SramBuffer> buffers_;
  std::vector<program::LayerRun> runs_;
  std::vector<results::LayerResult> results_;
  // The memory's counters when the current batch started.
  results::DramChannelStats batch_dram_before_;
  std::vector<results::DramChannelStats> batch_channels_before_;
  results::TimelineRecorder* timeline_;

  // The layer being replayed, and the steps of its pass.
  const program::LayerProgram* program_ = nullptr;
  std::size_t first_step_ = 0, end_step_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<bool> done_;
  // Compute steps whose operands the array has read (their outputs may still be in the output path).
  std::vector<bool> operands_read_;
  // The output path: when the tiles handed to it last and before that leave it, and the steps in it.
  sc_core::sc_time path_latest_end_;
  sc_core::sc_time path_older_end_;
  std::deque<std::pair<std::int32_t, sc_core::sc_time>> path_queue_;
  sc_core::sc_event path_handed_;
  std::vector<sc_core::sc_time> finished_at_;
  std::int64_t remaining_ = 0;
  sc_core::sc_time compute_busy_;
  sc_core::sc_time stall_by_cause_[results::kStallCauses];
  std::array<std::int64_t, program::kTensorRoles> read_bytes_by_role_{};
  std::int64_t write_bytes_ = 0;
  // Weight prefetch: the next layer's program (none at a batch's end), the room for it, and per
  // step of it 0 (not prefetched), 1 (in flight) or 2 (done at prefetch_done_at_); the generation
  // the next layer will run as.
  const program::LayerProgram* next_program_ = nullptr;
  std::size_t next_first_step_ = 0, next_end_step_ = 0;
  std::int64_t prefetch_room_bytes_ = 0;
  std::vector<std::int8_t> prefetch_state_;
  std::vector<sc_core::sc_time> prefetch_done_at_;
  std::uint64_t prefetch_owner_ = 0;
  std::vector<bool> prefetched_;  // the running layer's steps that were prefetched
  std::int64_t prefetched_bytes_ = 0;
  // When the last prefetch began; for the running layer, how long its prefetched loads took (from
  // that start to the last one's arrival, or to the layer's start if one was still arriving then).
  sc_core::sc_time prefetch_started_at_;
  sc_core::sc_time prefetch_span_;
  sc_core::sc_event start_;
  sc_core::sc_event step_done_;
  sc_core::sc_event layer_done_;
};

}  // namespace reusesim::hw
