#pragma once
// Energy and area as table columns (docs/energy-model.md): `run` rows (per layer and TOTAL), the
// accelerator summary's area, and `memtest`'s DRAM energy. Everything is computed here, from the
// counters the simulation kept, when the report is written.

#include <optional>
#include <string>
#include <vector>

#include "energy/energy_model.h"
#include "report/columns.h"
#include "results/dram_stats.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"

namespace reusesim::report {

// A layer's (or TOTAL's) energy; the context is the layer's result.
using LayerEnergyColumn = ResultColumn<energy::EnergyBreakdown, results::LayerResult>;
// run: energy_total_uj ... power_w, with their legend lines. The DRAM's cells are empty for an
// ideal memory (which issues no DRAM commands). energy_shared_uj only on a chip with a shared
// memory, energy_noc_uj only on one with a network-on-chip.
std::vector<LayerEnergyColumn> layer_energy_columns(bool shared_memory, bool noc);
// The energy of `layer`; none when the accelerator names no technology.
std::optional<energy::EnergyBreakdown> layer_energy_of(const spec::AcceleratorSpec& spec,
                                                       const results::LayerResult& layer);

// A DRAM's energy; the context is the counters it is of.
using DramEnergyColumn = ResultColumn<energy::DramEnergy, results::DramChannelStats>;
// memtest: dram_energy_uj, its parts, and dram_pj_per_bit.
const std::vector<DramEnergyColumn>& dram_energy_columns();
// The DRAM energy of `counters` (`channels` scheduled channels' worth) over `seconds`; none when
// the DRAM has no power block.
std::optional<energy::DramEnergy> dram_energy_of(const spec::DramSpec& dram, const results::DramChannelStats& counters,
                                                 double seconds, std::int64_t channels);

// The accelerator's area in mm^2 by component, as JSON ({} without a technology).
nlohmann::ordered_json area_json(const spec::AcceleratorSpec& spec);
// "area 1.234 mm^2 (45nm: array 0.1, SRAM 1.1, accumulators 0.034)", or "" without a technology.
std::string area_summary(const spec::AcceleratorSpec& spec);

}  // namespace reusesim::report
