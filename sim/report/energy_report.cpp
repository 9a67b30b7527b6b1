#include "report/energy_report.h"

#include <cstdio>

#include "energy/energy_model.h"

namespace reusesim::report {

namespace {

constexpr double kPjPerUj = 1e6;

// DRAM parts as reported: activate + precharge, read and write bursts, refresh, background
// (active and precharged standby), I/O.
std::vector<Cell> dram_part_cells(const energy::DramEnergy& e) {
  return {(e.activate_pj + e.precharge_pj) / kPjPerUj, (e.read_pj + e.write_pj) / kPjPerUj, e.refresh_pj / kPjPerUj,
          (e.active_standby_pj + e.precharged_standby_pj) / kPjPerUj, e.io_pj / kPjPerUj};
}

const std::vector<std::string> kDramParts{"activate", "read_write", "refresh", "background", "io"};

}  // namespace

std::vector<Column> layer_energy_columns() {
  std::vector<Column> columns{{"energy_total_uj", 3}, {"energy_dram_uj", 3},   {"energy_sram_uj", 3},
                              {"energy_array_uj", 3}, {"energy_vector_uj", 3}, {"energy_dma_uj", 3},
                              {"energy_static_uj", 3}};
  for (const std::string& part : kDramParts) columns.push_back({"energy_dram_" + part + "_uj", 3});
  columns.insert(columns.end(), {{"pj_per_op", 3}, {"tops_per_w", 4}, {"power_w", 4}});
  return columns;
}

std::vector<Cell> layer_energy_cells(const spec::AcceleratorSpec& spec, const results::LayerResult& layer) {
  std::vector<Cell> cells(layer_energy_columns().size());
  if (!spec.technology) return cells;
  const energy::EnergyBreakdown e = energy::layer_energy(spec, layer);
  const double total_pj = e.total_pj();
  const double ops = 2.0 * static_cast<double>(layer.macs);
  std::vector<Cell> row{total_pj / kPjPerUj};
  row.push_back(e.dram ? Cell(e.dram->total_pj() / kPjPerUj) : Cell());
  for (double pj : {e.sram_pj, e.array_pj, e.vector_pj, e.dma_pj, e.static_pj}) row.emplace_back(pj / kPjPerUj);
  if (e.dram) {
    for (Cell& cell : dram_part_cells(*e.dram)) row.push_back(std::move(cell));
  } else {
    row.resize(row.size() + kDramParts.size());
  }
  // TOPS/W = 1e12 ops / J = ops per pJ.
  row.push_back(ops > 0 && total_pj > 0 ? Cell(total_pj / ops) : Cell());
  row.push_back(ops > 0 && total_pj > 0 ? Cell(ops / total_pj) : Cell());
  row.push_back(layer.seconds > 0 ? Cell(total_pj * 1e-12 / layer.seconds) : Cell());
  return row;
}

std::vector<Column> dram_energy_columns() {
  std::vector<Column> columns{{"dram_energy_uj", 3}};
  for (const std::string& part : kDramParts) columns.push_back({"dram_energy_" + part + "_uj", 3});
  columns.push_back({"dram_pj_per_bit", 3});
  return columns;
}

std::vector<Cell> dram_energy_cells(const spec::DramSpec& dram, const results::DramChannelStats& counters, double seconds,
                                    std::int64_t channels) {
  if (!dram.power) return std::vector<Cell>(dram_energy_columns().size());
  const energy::DramEnergy e = energy::dram_energy(dram, counters, seconds / (dram.timing.tck_ns * 1e-9), channels);
  std::vector<Cell> row{e.total_pj() / kPjPerUj};
  for (Cell& cell : dram_part_cells(e)) row.push_back(std::move(cell));
  const double bits = 8.0 * static_cast<double>(counters.read_bytes + counters.write_bytes);
  row.push_back(bits > 0 ? Cell(e.total_pj() / bits) : Cell());
  return row;
}

nlohmann::ordered_json area_json(const spec::AcceleratorSpec& spec) {
  if (!spec.technology) return nlohmann::ordered_json::object();
  const energy::AreaBreakdown a = energy::area(spec);
  return {{"technology", spec.technology->name},
          {"array_mm2", a.array_um2 / 1e6},
          {"sram_mm2", a.sram_um2 / 1e6},
          {"accumulators_mm2", a.accumulator_um2 / 1e6},
          {"total_mm2", a.total_mm2()}};
}

std::string area_summary(const spec::AcceleratorSpec& spec) {
  if (!spec.technology) return "";
  const energy::AreaBreakdown a = energy::area(spec);
  char text[200];
  std::snprintf(text, sizeof text, "area %.3f mm^2 (%s: array %.3f, SRAM %.3f, accumulators %.3f)", a.total_mm2(),
                spec.technology->name.c_str(), a.array_um2 / 1e6, a.sram_um2 / 1e6, a.accumulator_um2 / 1e6);
  return text;
}

std::string energy_legend() {
  return "energy_*_uj (with a technology, docs/energy-model.md): microjoules over the layer's time, by component: "
         "dram (commands, background and I/O, from the DRAM's IDD currents; empty for an ideal memory), sram "
         "(bank words read and written), array (MACs and accumulator reads and writes), vector (element "
         "operations), dma (bytes between the DRAM interface and the buffers), static (SRAM and array leakage); "
         "total is their sum\n"
         "energy_dram_*_uj: the DRAM's part by kind: activate (activates and precharges), read_write (bursts in the "
         "array), refresh, background (active and precharged standby), io (driving and terminating the data bus)\n"
         "pj_per_op: picojoules per op (1 MAC = 2 ops); tops_per_w: 1e12 ops per joule; power_w: average watts over "
         "the layer's time\n";
}

}  // namespace reusesim::report
