#pragma once
// Energy and area as table columns (docs/energy-model.md): `run` rows (per layer and TOTAL), the
// accelerator summary's area, and `memtest`'s DRAM energy. Everything is computed here, from the
// counters the simulation kept, when the report is written.

#include <string>
#include <vector>

#include "report/table.h"
#include "results/dram_stats.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"

namespace reusesim::report {

// run: energy_total_uj ... power_w.
std::vector<Column> layer_energy_columns();
// A layer's (or TOTAL's) cells; all empty when the accelerator names no technology, the DRAM
// cells empty for an ideal memory (which issues no DRAM commands).
std::vector<Cell> layer_energy_cells(const spec::AcceleratorSpec& spec, const results::LayerResult& layer);

// memtest: dram_energy_uj, its parts, and dram_pj_per_bit.
std::vector<Column> dram_energy_columns();
// The DRAM energy of `counters` (`channels` scheduled channels' worth) over `seconds`; empty cells
// when the DRAM has no power block.
std::vector<Cell> dram_energy_cells(const spec::DramSpec& dram, const results::DramChannelStats& counters, double seconds,
                                    std::int64_t channels);

// The accelerator's area in mm^2 by component, as JSON ({} without a technology).
nlohmann::ordered_json area_json(const spec::AcceleratorSpec& spec);
// "area 1.234 mm^2 (45nm: array 0.1, SRAM 1.1, accumulators 0.034)", or "" without a technology.
std::string area_summary(const spec::AcceleratorSpec& spec);

// Units and conventions of the energy columns, for run's legend.
std::string energy_legend();

}  // namespace reusesim::report
