#include "report/energy_report.h"

#include <cstdio>
#include <functional>

namespace reusesim::report {

namespace {

constexpr double kPjPerUj = 1e6;

using energy::DramEnergy;
using energy::EnergyBreakdown;
using results::LayerResult;

// The DRAM's energy by kind, in µJ: in run after the components', in memtest after its total.
const std::vector<DramEnergyColumn>& dram_part_columns() {
  const auto part = [](const char* name, const char* description, double (*pj)(const DramEnergy&)) {
    return DramEnergyColumn{name, "uJ", description, Total::none, 3,
                            [pj](const DramEnergy& e, const results::DramChannelStats&) { return Cell(pj(e) / kPjPerUj); },
                            {}, {}};
  };
  static const std::vector<DramEnergyColumn> parts{
      part("activate_uj", "activates and precharges", [](const DramEnergy& e) { return e.activate_pj + e.precharge_pj; }),
      part("read_write_uj", "read and write bursts in the array", [](const DramEnergy& e) { return e.read_pj + e.write_pj; }),
      part("refresh_uj", "refreshes", [](const DramEnergy& e) { return e.refresh_pj; }),
      part("background_uj", "active and precharged standby",
           [](const DramEnergy& e) { return e.active_standby_pj + e.precharged_standby_pj; }),
      part("io_uj", "driving and terminating the data bus", [](const DramEnergy& e) { return e.io_pj; }),
  };
  return parts;
}

LayerEnergyColumn layer_column(const char* name, const char* unit, const char* description, int decimals,
                               std::function<Cell(const EnergyBreakdown&, const LayerResult&)> value,
                               Legend legend = {}) {
  return {name, unit, description, Total::none, decimals, std::move(value), {}, std::move(legend)};
}

// A component's energy in µJ.
LayerEnergyColumn component(const char* name, const char* description, double EnergyBreakdown::*pj) {
  return layer_column(name, "uJ", description, 3,
                      [pj](const EnergyBreakdown& e, const LayerResult&) { return Cell(e.*pj / kPjPerUj); });
}

double ops_of(const LayerResult& layer) { return 2.0 * static_cast<double>(layer.macs); }

std::vector<LayerEnergyColumn> make_layer_energy_columns() {
  std::vector<LayerEnergyColumn> columns{
      layer_column("energy_total_uj", "uJ", "the sum of the components'", 3,
                   [](const EnergyBreakdown& e, const LayerResult&) { return Cell(e.total_pj() / kPjPerUj); }),
      layer_column("energy_dram_uj", "uJ", "the DRAM's (empty for an ideal memory)", 3,
                   [](const EnergyBreakdown& e, const LayerResult&) {
                     return e.dram ? Cell(e.dram->total_pj() / kPjPerUj) : Cell();
                   }),
      component("energy_sram_uj", "SRAM bank words read and written", &EnergyBreakdown::sram_pj),
      component("energy_array_uj", "MACs and accumulator reads and writes", &EnergyBreakdown::array_pj),
      component("energy_vector_uj", "element operations on the vector unit", &EnergyBreakdown::vector_pj),
      component("energy_dma_uj", "bytes between the DRAM interface and the buffers", &EnergyBreakdown::dma_pj),
      component("energy_static_uj", "SRAM and array leakage", &EnergyBreakdown::static_pj),
      component("energy_shared_uj",
                "the shared memory's bank bytes read (hits) and written (fills and stores), at its bank's word "
                "energy (a chip with a shared memory: after energy_static_uj)",
                &EnergyBreakdown::shared_pj),
      component("energy_noc_uj",
                "bits over the network-on-chip's hops, at the technology's noc_pj_per_bit_per_hop (a chip with a "
                "network-on-chip: after energy_static_uj, or energy_shared_uj)",
                &EnergyBreakdown::noc_pj)};
  columns = under_one_line(std::move(columns),
                           {Legend::line, "energy_*_uj (with a technology, docs/energy-model.md)",
                            "microjoules over the layer's time, by component: dram (commands, background and I/O, "
                            "from the DRAM's power block, its IDD currents or its energies per access; empty for an ideal "
                            "memory), sram (bank words read and "
                            "written), array (MACs and accumulator reads and writes), vector (element operations), "
                            "dma (bytes between the DRAM interface and the buffers), static (SRAM and array "
                            "leakage); total is their sum",
                            {}});
  // Each chip-level component has a line of its own: the group's line is the same on every chip.
  for (LayerEnergyColumn& column : columns) {
    if (column.name == "energy_shared_uj" || column.name == "energy_noc_uj") column.legend = {};
  }
  append(columns, under_one_line(nested<EnergyBreakdown, LayerResult>(
                                     dram_part_columns(), "energy_dram_", std::nullopt,
                                     [](const DramEnergyColumn& part, const EnergyBreakdown& e, const LayerResult& layer) {
                                       return e.dram ? part.value(*e.dram, layer.dram.counters) : Cell();
                                     }),
                                 {Legend::line, "energy_dram_*_uj",
                                  "the DRAM's part by kind: activate (activates and precharges), read_write (bursts "
                                  "in the array), refresh, background (active and precharged standby), io (driving "
                                  "and terminating the data bus)",
                                  {}}));
  // TOPS/W = 1e12 ops / J = ops per pJ.
  append(columns, {layer_column("pj_per_op", "pJ/op", "picojoules per op (1 MAC = 2 ops)", 3,
                                [](const EnergyBreakdown& e, const LayerResult& layer) {
                                  const double ops = ops_of(layer);
                                  return ops > 0 && e.total_pj() > 0 ? Cell(e.total_pj() / ops) : Cell();
                                }),
                   layer_column("tops_per_w", "TOPS/W", "1e12 ops per joule", 4,
                                [](const EnergyBreakdown& e, const LayerResult& layer) {
                                  const double ops = ops_of(layer);
                                  return ops > 0 && e.total_pj() > 0 ? Cell(ops / e.total_pj()) : Cell();
                                },
                                {Legend::joined, "", "", {}}),
                   layer_column("power_w", "W", "average watts over the layer's time", 4,
                                [](const EnergyBreakdown& e, const LayerResult& layer) {
                                  return layer.seconds > 0 ? Cell(e.total_pj() * 1e-12 / layer.seconds) : Cell();
                                },
                                {Legend::joined, "", "", {}})});
  return columns;
}

}  // namespace

std::vector<LayerEnergyColumn> layer_energy_columns(bool shared_memory, bool noc) {
  static const std::vector<LayerEnergyColumn> all = make_layer_energy_columns();
  std::vector<std::string> absent;
  if (!shared_memory) absent.emplace_back("energy_shared_uj");
  if (!noc) absent.emplace_back("energy_noc_uj");
  return all_but(all, absent);
}

std::optional<energy::EnergyBreakdown> layer_energy_of(const spec::AcceleratorSpec& spec, const LayerResult& layer) {
  if (!spec.technology) return std::nullopt;
  return energy::layer_energy(spec, layer);
}

const std::vector<DramEnergyColumn>& dram_energy_columns() {
  static const std::vector<DramEnergyColumn> columns = [] {
    std::vector<DramEnergyColumn> all{{"dram_energy_uj", "uJ", "the DRAM's energy over the simulated time", Total::none,
                                       3,
                                       [](const DramEnergy& e, const results::DramChannelStats&) {
                                         return Cell(e.total_pj() / kPjPerUj);
                                       },
                                       {}, {}}};
    append(all, nested<DramEnergy, results::DramChannelStats>(
                    dram_part_columns(), "dram_energy_", std::nullopt,
                    [](const DramEnergyColumn& part, const DramEnergy& e, const results::DramChannelStats& counters) {
                      return part.value(e, counters);
                    }));
    all.push_back({"dram_pj_per_bit", "pJ/bit", "picojoules per bit of data moved", Total::none, 3,
                   [](const DramEnergy& e, const results::DramChannelStats& counters) {
                     const double bits = 8.0 * static_cast<double>(counters.read_bytes + counters.write_bytes);
                     return bits > 0 ? Cell(e.total_pj() / bits) : Cell();
                   },
                   {}, {}});
    return all;
  }();
  return columns;
}

std::optional<energy::DramEnergy> dram_energy_of(const spec::DramSpec& dram, const results::DramChannelStats& counters,
                                                 double seconds, std::int64_t channels) {
  if (!dram.power) return std::nullopt;
  return energy::dram_energy(dram, counters, seconds / (dram.timing.tck_ns * 1e-9), channels);
}

nlohmann::ordered_json area_json(const spec::AcceleratorSpec& spec) {
  if (!spec.technology) return nlohmann::ordered_json::object();
  const energy::AreaBreakdown a = energy::area(spec);
  nlohmann::ordered_json area{{"technology", spec.technology->name},
                              {"array_mm2", a.array_um2 / 1e6},
                              {"sram_mm2", a.sram_um2 / 1e6},
                              {"accumulators_mm2", a.accumulator_um2 / 1e6},
                              {"total_mm2", a.total_mm2()}};
  if (spec.shared_memory) area["shared_memory_mm2"] = a.shared_um2 / 1e6;
  return area;
}

std::string area_summary(const spec::AcceleratorSpec& spec) {
  if (!spec.technology) return "";
  const energy::AreaBreakdown a = energy::area(spec);
  char text[200];
  std::snprintf(text, sizeof text, "area %.3f mm^2 (%s: array %.3f, SRAM %.3f, accumulators %.3f", a.total_mm2(),
                spec.technology->name.c_str(), a.array_um2 / 1e6, a.sram_um2 / 1e6, a.accumulator_um2 / 1e6);
  std::string summary = text;
  if (spec.shared_memory) {
    std::snprintf(text, sizeof text, ", shared memory %.3f", a.shared_um2 / 1e6);
    summary += text;
  }
  return summary + ")";
}

}  // namespace reusesim::report
