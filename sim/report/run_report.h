#pragma once
// `reusesim run`: per layer and per network, for each batch size, what the replay measured.

#include <string>
#include <vector>

#include "hw/accelerator.h"
#include "report/table.h"

namespace reusesim::report {

struct RunReport {
  std::string accelerator;
  std::string model;
  hw::AcceleratorSpec spec;
  std::vector<std::vector<hw::LayerResult>> batches;  // per batch size, the layers in order
};

// Layer rows, and after each batch's layers a row with layer = TOTAL.
Table run_table(const RunReport& report);
std::string render_run(const RunReport& report, Format format);
// Each batch's layers' (and TOTAL's) DRAM statistics per channel, as CSV: batch, layer, channel, ...
std::string render_dram_channels(const RunReport& report);
// The accelerator as the run used it (presets and --set overrides applied), as JSON.
std::string resolved_accelerator_json(const hw::AcceleratorSpec& spec);
// Units and conventions of every column, one per line ("column: unit, meaning").
std::string run_stats_legend();

}  // namespace reusesim::report
