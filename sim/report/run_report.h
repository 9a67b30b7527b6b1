#pragma once
// `reusesim run`: per layer and per network, for each batch size, what the replay measured.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/table.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"
#include "workload/training.h"

namespace reusesim::report {

struct RunReport {
  std::string accelerator;
  std::string model;
  spec::AcceleratorSpec spec;
  std::vector<std::vector<results::LayerResult>> batches;  // per batch size, the layers in order
  // A training step (docs/training.md): what it runs with, each row's phase (forward, recompute,
  // dgrad, wgrad, update; the same for every batch) and per batch the memory the step needs at its
  // peak. All empty for inference.
  std::optional<workload::TrainingOptions> training;
  std::vector<std::string> phases;
  std::vector<std::int64_t> peak_memory_bytes;
};

// Layer rows, and after each batch's layers a row with layer = TOTAL. A training step's table has
// a phase column after layer (TOTAL's phase is "step") and, last, peak_memory_bytes on TOTAL rows.
Table run_table(const RunReport& report);
std::string render_run(const RunReport& report, Format format);
// Each batch's layers' (and TOTAL's) DRAM statistics per channel, as CSV: batch, layer, channel, ...
std::string render_dram_channels(const RunReport& report);
// Units and conventions of every column, one per line ("column: unit, meaning"); with `training`
// a training step's columns too.
std::string run_stats_legend(bool training);

}  // namespace reusesim::report
