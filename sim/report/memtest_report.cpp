#include "report/memtest_report.h"

#include <algorithm>

#include "report/dram_stats_report.h"
#include "report/energy_report.h"

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "GB/s = 1e9 bytes/s of data moved (reads + writes) over the simulated time until the last response has "
    "arrived and every posted write is written; efficiency = achieved / peak; latencies from a request's arrival "
    "at its channel to the end of its data burst, in ns; counts are DRAM commands (read_commands and "
    "write_commands: one burst each); row_hits + row_misses + row_conflicts = column commands, row_hit_rate = "
    "row_hits / column commands (docs/dram-model.md, \"Statistics\"); channel: all, or one channel's share "
    "(--per-channel); dram_energy_*_uj and dram_pj_per_bit (for a DRAM with a power block): microjoules over the "
    "simulated time from the DRAM's IDD currents (docs/energy-model.md), by kind, and per bit of data moved; "
    "wall_time_s and requests_per_wall_second (with --wall-time only) are the only figures that "
    "vary run to run";

// The statistics among the first columns (where they have always been), and the rest after them.
const std::vector<std::string> kLeadingStats{"read_latency_mean_ns", "read_latency_p50_ns", "read_latency_p99_ns",
                                             "row_hit_rate", "activates", "refreshes"};

std::vector<Cell> row_cells(const MemtestResult& result, const results::DramChannelStats& dram, const std::string& channel,
                            double peak_share) {
  const results::DramFigures figures = results::figures_of(dram);
  const double bytes = static_cast<double>(dram.read_bytes + dram.write_bytes);
  const double achieved = result.simulated_seconds > 0 ? bytes / result.simulated_seconds / 1e9 : 0;
  const double peak = result.spec.peak_bytes_per_second() / 1e9 * peak_share;
  const double tck_ns = result.spec.timing.tck_ns;
  std::vector<Cell> row{result.pattern, result.memory, result.requests, result.request_bytes, result.outstanding,
                        dram.read_bytes, dram.write_bytes, result.simulated_seconds * 1e6, achieved, peak,
                        peak > 0 ? achieved / peak : 0.0};
  for (Cell& cell : dram_stat_cells(kLeadingStats, &figures, tck_ns)) row.push_back(std::move(cell));
  for (Cell& cell : dram_stat_cells(names_except(dram_stat_names(), kLeadingStats), &figures, tck_ns)) {
    row.push_back(std::move(cell));
  }
  // One channel's row is that channel's energy; "all" is every scheduled channel's.
  const std::int64_t channels = channel == "all" ? result.spec.scheduled_channels() : 1;
  for (Cell& cell : dram_energy_cells(result.spec, dram, result.simulated_seconds, channels)) {
    row.push_back(std::move(cell));
  }
  row.emplace_back(channel);
  if (const auto wall = result.wall_seconds) {
    row.emplace_back(*wall);
    row.emplace_back(static_cast<double>(result.requests) / std::max(*wall, 1e-9));
  }
  return row;
}

}  // namespace

Table memtest_table(const MemtestResult& result, bool per_channel) {
  std::vector<Column> columns{{"pattern"}, {"memory"}, {"requests"}, {"request_bytes"}, {"outstanding"},
                              {"read_bytes"}, {"write_bytes"}, {"simulated_time_us", 3}, {"achieved_gbps", 3},
                              {"peak_gbps", 3}, {"efficiency", 4}};
  for (Column& column : dram_stat_columns(kLeadingStats, "")) columns.push_back(std::move(column));
  for (Column& column : dram_stat_columns(names_except(dram_stat_names(), kLeadingStats), "")) {
    columns.push_back(std::move(column));
  }
  for (Column& column : dram_energy_columns()) columns.push_back(std::move(column));
  columns.push_back({"channel"});
  if (result.wall_seconds) columns.insert(columns.end(), {{"wall_time_s", 3}, {"requests_per_wall_second", 0}});
  Table table(columns);
  table.add_row(row_cells(result, result.dram, "all", 1.0));
  if (per_channel) {
    // A channel's peak is its share of the memory's.
    const double share = 1.0 / static_cast<double>(std::max<std::size_t>(result.channels.size(), 1));
    for (std::size_t i = 0; i < result.channels.size(); ++i) {
      table.add_row(row_cells(result, result.channels[i], std::to_string(i), share));
    }
  }
  return table;
}

std::string render_memtest(const MemtestResult& result, Format format, bool per_channel) {
  if (format == Format::json) {
    // JSON always carries the channels, under "channels".
    const nlohmann::ordered_json rows = memtest_table(result, true).to_json();
    nlohmann::ordered_json document = rows.front();
    document["channels"] = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < rows.size(); ++i) document["channels"].push_back(rows[i]);
    document["conventions"] = kConventions;
    return json_document_text(document);
  }
  const Table table = memtest_table(result, per_channel);
  if (format == Format::csv) return table.to_csv();
  return std::string(kConventions) + "\n\n" + table.to_text();
}

}  // namespace reusesim::report
