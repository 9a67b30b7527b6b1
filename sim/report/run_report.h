#pragma once
// `reusesim run`: per layer and per network, for each batch size, what the replay measured.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/energy_model.h"
#include "report/columns.h"
#include "report/table.h"
#include "results/dram_stats.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"
#include "spec/fidelity.h"
#include "workload/block_reuse.h"
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
  // The replay's memory timing (docs/performance.md, "Fast mode"): a fast run's outputs say so.
  spec::Fidelity fidelity = spec::Fidelity::exact;
  // Bytes per element of the KV cache when the model's precision block puts it at another width
  // than the operands' (docs/model-format.md, "Precision per tensor").
  std::optional<std::int64_t> kv_cache_element_bytes = std::nullopt;
  // Tokens each sample runs in a transformer's phase (1 in a decode step, the sequence in a
  // prefill), 0 for other models: with a technology, TOTAL rows report uj_per_token and
  // tokens_per_joule.
  std::int64_t tokens_per_sample = 0;
  // Blocks whose later copies repeat the second's figures (run --reuse-blocks,
  // docs/performance.md "Block reuse"); the outputs say so.
  std::vector<workload::ReusedBlock> reused_blocks = {};
};

// Where a row of the run table stands, and what its cells read besides its LayerResult.
struct RunRow {
  const RunReport& report;
  std::size_t batch;     // in report.batches
  std::size_t position;  // in the batch; the batch's size on its TOTAL row
  std::optional<energy::EnergyBreakdown> energy;  // with a technology, on the run table's rows
  bool total() const { return position == report.batches[batch].size(); }
};
using RunColumn = ResultColumn<results::LayerResult, RunRow>;
// The run table's columns in order. A training step's table has a phase column after layer
// (TOTAL's phase is "step") and, last, peak_memory_bytes on TOTAL rows. A fast-fidelity run's
// table ends with a fidelity column ("fast" on every row); an exact run's has none. A chip with a
// shared memory has shared_read_bytes after dram_read_kv_cache_bytes and energy_shared_uj after
// energy_static_uj; a chip with a network-on-chip, energy_noc_uj after those and stall_noc_cycles
// near the end; a run whose array skipped the zero weights of a sparse layer (`skipped_zeros`)
// effective_macs after macs; with `tokens` (a transformer's phase with a technology), uj_per_token
// and tokens_per_joule after power_w, or for a training step (a training step with a technology)
// uj_per_sample there.
const std::vector<RunColumn>& run_columns(bool training, spec::Fidelity fidelity = spec::Fidelity::exact,
                                          bool shared_memory = false, bool noc = false, bool skipped_zeros = false,
                                          bool tokens = false);
// Whether some layer of `report` skipped MACs of zero weights (results::LayerResult::skipped_macs).
bool skipped_zeros(const RunReport& report);
// Whether `report`'s table has the energy per unit of work: per token (a transformer's phase) or
// per sample (a training step), with energy.
bool has_token_columns(const RunReport& report);

// A row of dram_channels.csv: one DRAM channel's share of a row of the run table.
struct ChannelRow {
  const results::LayerResult& layer;
  const RunRow& run;
  std::int64_t channel;
};
using ChannelColumn = ResultColumn<results::DramFigures, ChannelRow>;
// dram_channels.csv's columns; a fast run's end with its fidelity column.
std::vector<ChannelColumn> channel_columns(bool training, spec::Fidelity fidelity = spec::Fidelity::exact);

// A row of cores.csv: one core's share of a layer's row on a chip of several cores.
struct CoreRow {
  const RunRow& run;
  std::int64_t core;
};
using CoreColumn = ResultColumn<results::CoreFigures, CoreRow>;
// cores.csv's columns: batch, layer, core, samples, its cycles by where they went (its stalls by
// cause, stall_noc_cycles with a network-on-chip, `noc`), its work.
std::vector<CoreColumn> core_columns(bool noc);

// A row of noc_links.csv: one link's share of a row of the run table.
struct LinkRow {
  const results::LayerResult& layer;  // the run row's
  const RunRow& run;
};
using LinkColumn = ResultColumn<results::NocLinkFigures, LinkRow>;
// noc_links.csv's columns: batch, layer, link, what it moved and how busy it was.
std::vector<LinkColumn> link_columns();

// Layer rows, and after each batch's layers a row with layer = TOTAL.
Table run_table(const RunReport& report);
std::string render_run(const RunReport& report, Format format);
// Each batch's layers' (and TOTAL's) DRAM statistics per channel, as CSV: batch, layer, channel, ...
std::string render_dram_channels(const RunReport& report);
// On a chip of several cores, each layer's row per core, as CSV (empty: one core has no table).
std::string render_cores(const RunReport& report);
// On a chip with a network-on-chip, each layer's (and each TOTAL's) links that moved data, as CSV
// (empty: no network has no table).
std::string render_noc_links(const RunReport& report);
// The conventions, then the legend lines of the run table's columns and of dram_channels.csv, one
// per line ("column: meaning"); with `training` a training step's columns too.
// With fidelity fast, the fidelity column's line too.
// With `cores`, cores.csv's columns too; with `shared_memory`, shared_read_bytes; with `noc`,
// noc_links.csv's columns (and the energy columns of each); with `skipped_zeros`, effective_macs;
// with `tokens`, the energy per token (or per sample of a training step).
std::string run_stats_legend(bool training, spec::Fidelity fidelity = spec::Fidelity::exact, bool cores = false,
                             bool shared_memory = false, bool noc = false, bool skipped_zeros = false,
                             bool tokens = false);

}  // namespace reusesim::report
