#pragma once
// The accelerator top, the chip: its DRAM/HBM system and its cores (hw/core.h: the DMA engines,
// SRAM buffers and compute array, and the engines that replay a program on them). The chip owns
// its children by value and binds every socket in its constructor.
//
// Replay: the chip hands each core its program of the layers unit by unit (a layer's pass; see
// replay_order), waits until every core has finished the unit, restarts the memory and the cores'
// buffers where a batch starts, and turns each layer's counters (the cores', and the memory's over
// the layer's time) into its LayerResult.

#include <systemc>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hw/core.h"
#include "hw/memory.h"
#include "hw/network_on_chip.h"
#include "hw/shared_memory.h"
#include "program/program.h"
#include "results/layer_result.h"
#include "results/timeline_recorder.h"
#include "spec/fidelity.h"
#include "timing/dram_address.h"

namespace reusesim::hw {

// Who replays the runs: the chip's own thread, all of them and then sc_stop (a run of one chip),
// or another module's thread, a range at a time (replay_runs: a chip of a system, between
// collectives).
enum class Driver { own_thread, caller };

class Accelerator : public sc_core::sc_module {
 public:
  // With a `timeline`, every module records its activity there (see hw/timeline_recorder.h). With
  // `fidelity` fast, a timed DRAM is the fast memory (hw/dram_flow_memory.h).
  Accelerator(sc_core::sc_module_name name, const spec::AcceleratorSpec& spec, std::vector<program::LayerRun> runs,
              results::TimelineRecorder* timeline = nullptr, spec::Fidelity fidelity = spec::Fidelity::exact,
              Driver driver = Driver::own_thread);

  // From a thread (Driver::caller): replays runs [first, end), which follow those replayed before.
  void replay_runs(std::size_t first, std::size_t end);

  const std::vector<results::LayerResult>& results() const { return results_; }
  // The memory's counters over the whole run.
  results::DramChannelStats memory_stats() const { return memory_->total_stats(); }
  bool finished() const { return results_.size() == runs_.size(); }

 private:
  // A layer's pass (its whole program when it has one), or of a GEMM split over K the cores' sums
  // (pass 0) and their reduction (pass 1): what the engines replay at a time, the cores together.
  struct Unit {
    std::size_t run = 0;
    std::int64_t pass = 0;
    bool last_pass = true;
  };
  // A layer's counters over its passes, turned into its LayerResult after the last one.
  struct RunTotals {
    sc_core::sc_time first_start;
    CoreUnitTotals core;  // the chip's (chip_unit), and on a chip of several cores each core's
    std::vector<CoreUnitTotals> cores;
    results::DramChannelStats dram;
    std::vector<results::DramChannelStats> channels;
    std::vector<timing::NocLinks::LinkStats> noc_links;  // by link, with a network-on-chip
    std::int64_t shared_bank_read_bytes = 0, shared_bank_write_bytes = 0;  // with a shared memory
  };
  // The order the passes run in: layer after layer, except that consecutive layers of a batch with
  // the same sub-batches (program::LayerProgram::passes) run pass by pass.
  static std::vector<Unit> replay_order(const std::vector<program::LayerRun>& runs, std::size_t first, std::size_t end);
  // Core `core`'s program of a layer (an empty one for a core without samples).
  const program::LayerProgram& program_of(const program::LayerRun& run, std::size_t core) const;
  // The steps [first, end) of `unit` in a core's `program`: its pass's, but all it has left on the
  // layer's last pass (a core with fewer samples may run fewer passes) and none after its own last.
  static std::pair<std::size_t, std::size_t> step_range(const Unit& unit, const program::LayerProgram& program);
  results::LayerResult layer_result(const program::LayerRun& run, const RunTotals& total) const;
  // Each link's counters so far (none without a network-on-chip).
  std::vector<timing::NocLinks::LinkStats> link_stats() const;
  // Driver::own_thread: replays every run, then stops the simulation.
  void drive();
  // Waits for the next DRAM clock edge and restarts the DRAM and SRAM there (program::LayerRun::starts_batch).
  void restart_machine();

  timing::DramAddressMapper mapper_;  // the memory's address map, for the DMA engines and burst extents
  // The decorators in memory_, when the chip has them (set by make_memory, so declared before memory_).
  const SharedMemory* shared_ = nullptr;
  const NetworkOnChip* noc_ = nullptr;
  // A DRAM system, the fast mode's memory or an ideal memory (DramSpec::ideal), perhaps behind a
  // shared memory and a network-on-chip.
  std::unique_ptr<Memory> memory_;
  sc_core::sc_vector<Core> cores_;  // "core", then "core_1", "core_2", ...
  program::LayerProgram no_program_;  // a core's share of a layer it has no samples of
  std::vector<program::LayerRun> runs_;
  std::vector<RunTotals> totals_;  // by run
  std::vector<results::LayerResult> results_;
  // The memory's counters when the current batch started.
  results::DramChannelStats batch_dram_before_;
  std::vector<results::DramChannelStats> batch_channels_before_;
  results::TimelineRecorder* timeline_;
};

}  // namespace reusesim::hw
