#pragma once
// The accelerator top, the chip: its DRAM/HBM system and its core (hw/core.h: the DMA engines,
// SRAM buffers and compute array, and the engines that replay a program on them). The chip owns
// its children by value and binds every socket in its constructor.
//
// Replay: the chip hands the core the layers' programs unit by unit (a layer's pass; see
// replay_order), restarts the memory and the core's buffers where a batch starts, and turns each
// layer's counters (the core's, and the memory's over the layer's time) into its LayerResult.

#include <systemc>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "hw/core.h"
#include "hw/memory.h"
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
    sc_core::sc_time first_start;
    CoreUnitTotals core;
    results::DramChannelStats dram;
    std::vector<results::DramChannelStats> channels;
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

  timing::DramAddressMapper mapper_;  // the memory's address map, for the DMA engines and burst extents
  std::unique_ptr<Memory> memory_;  // a DRAM system, or an ideal memory (DramSpec::ideal)
  Core core_;
  std::vector<program::LayerRun> runs_;
  std::vector<results::LayerResult> results_;
  // The memory's counters when the current batch started.
  results::DramChannelStats batch_dram_before_;
  std::vector<results::DramChannelStats> batch_channels_before_;
  results::TimelineRecorder* timeline_;
};

}  // namespace reusesim::hw
