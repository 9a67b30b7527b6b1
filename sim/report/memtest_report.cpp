#include "report/memtest_report.h"

#include <algorithm>
#include <functional>
#include <optional>

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
    "simulated time from the DRAM's power block, IDD currents or energies per access (docs/energy-model.md), by "
    "kind, and per bit of data moved; "
    "wall_time_s and requests_per_wall_second (with --wall-time only) are the only figures that "
    "vary run to run";

double achieved_gbps(const results::DramChannelStats& dram, const MemtestRow& row) {
  const double bytes = static_cast<double>(dram.read_bytes + dram.write_bytes);
  return row.test.simulated_seconds > 0 ? bytes / row.test.simulated_seconds / 1e9 : 0;
}

double peak_gbps(const MemtestRow& row) { return row.test.spec.peak_bytes_per_second() / 1e9 * row.peak_share; }

// A column read from the test, the same on every row.
template <typename T>
MemtestColumn of_test(const char* name, const char* unit, const char* description, T MemtestResult::*field) {
  return {name, unit, description, Total::none, 0,
          [field](const results::DramChannelStats&, const MemtestRow& row) { return Cell(row.test.*field); }, {}, {}};
}

// A column read from the row's counters.
MemtestColumn of_row(const char* name, const char* unit, const char* description,
                     std::int64_t results::DramChannelStats::*counter) {
  return {name, unit, description, Total::none, 0,
          [counter](const results::DramChannelStats& dram, const MemtestRow&) { return Cell(dram.*counter); }, {}, {}};
}

MemtestColumn derived(const char* name, const char* unit, const char* description, int decimals,
                      std::function<Cell(const results::DramChannelStats&, const MemtestRow&)> value) {
  return {name, unit, description, Total::none, decimals, std::move(value), {}, {}};
}

// One channel's row is that channel's energy; "all" is every scheduled channel's.
MemtestRow row_of(const MemtestResult& result, const results::DramChannelStats& dram, std::string channel,
                  double peak_share, std::int64_t channels) {
  return {result, std::move(channel), peak_share, results::figures_of(dram),
          dram_energy_of(result.spec, dram, result.simulated_seconds, channels)};
}

}  // namespace

std::vector<MemtestColumn> memtest_columns(bool wall_time) {
  std::vector<MemtestColumn> columns{
      of_test("pattern", "name", "the request stream: a pattern's name or a trace file", &MemtestResult::pattern),
      of_test("memory", "name", "the DRAM: a preset or a file", &MemtestResult::memory),
      of_test("requests", "requests", "requests the test issued (before the DMA engine split them)",
              &MemtestResult::requests),
      of_test("request_bytes", "bytes", "bytes of each request", &MemtestResult::request_bytes),
      of_test("outstanding", "requests", "requests the DMA engine keeps in flight", &MemtestResult::outstanding),
      of_row("read_bytes", "bytes", "bytes read", &results::DramChannelStats::read_bytes),
      of_row("write_bytes", "bytes", "bytes written", &results::DramChannelStats::write_bytes),
      derived("simulated_time_us", "us", "until the last response and the last posted write", 3,
              [](const results::DramChannelStats&, const MemtestRow& row) {
                return Cell(row.test.simulated_seconds * 1e6);
              }),
      derived("achieved_gbps", "GB/s", "1e9 bytes/s of data moved (reads + writes) over the simulated time", 3,
              [](const results::DramChannelStats& dram, const MemtestRow& row) { return Cell(achieved_gbps(dram, row)); }),
      derived("peak_gbps", "GB/s", "the memory's peak, or a channel's share of it", 3,
              [](const results::DramChannelStats&, const MemtestRow& row) { return Cell(peak_gbps(row)); }),
      derived("efficiency", "fraction", "achieved / peak", 4,
              [](const results::DramChannelStats& dram, const MemtestRow& row) {
                const double peak = peak_gbps(row);
                return Cell(peak > 0 ? achieved_gbps(dram, row) / peak : 0.0);
              })};
  // The statistics among the first columns (where they have always been), and the rest after them.
  const std::vector<std::string> leading{"read_latency_mean_ns", "read_latency_p50_ns", "read_latency_p99_ns",
                                         "row_hit_rate", "activates", "refreshes"};
  const auto stat = [](const DramStatColumn& column, const results::DramChannelStats&, const MemtestRow& row) {
    return column.value(row.figures, row.test.spec.timing.tck_ns);
  };
  append(columns, nested<results::DramChannelStats, MemtestRow>(named(dram_stat_columns(), leading), "", std::nullopt, stat));
  append(columns,
         nested<results::DramChannelStats, MemtestRow>(all_but(dram_stat_columns(), leading), "", std::nullopt, stat));
  append(columns, nested<results::DramChannelStats, MemtestRow>(
                      dram_energy_columns(), "", std::nullopt,
                      [](const DramEnergyColumn& column, const results::DramChannelStats& dram, const MemtestRow& row) {
                        return row.energy ? column.value(*row.energy, dram) : Cell();
                      }));
  columns.push_back(derived("channel", "name", "all, or the channel whose share the row is (--per-channel)", 0,
                            [](const results::DramChannelStats&, const MemtestRow& row) { return Cell(row.channel); }));
  if (wall_time) {
    // Set only when asked for (--wall-time): they vary run to run.
    columns.push_back(derived("wall_time_s", "s", "seconds the simulation took", 3,
                              [](const results::DramChannelStats&, const MemtestRow& row) {
                                return Cell(*row.test.wall_seconds);
                              }));
    columns.push_back(derived("requests_per_wall_second", "requests/s", "requests simulated per second taken", 0,
                              [](const results::DramChannelStats&, const MemtestRow& row) {
                                return Cell(static_cast<double>(row.test.requests) / std::max(*row.test.wall_seconds, 1e-9));
                              }));
  }
  return columns;
}

Table memtest_table(const MemtestResult& result, bool per_channel) {
  const std::vector<MemtestColumn> columns = memtest_columns(result.wall_seconds.has_value());
  Table table = table_of(columns);
  table.add_row(cells_of(columns, result.dram, row_of(result, result.dram, "all", 1.0, result.spec.scheduled_channels())));
  if (per_channel) {
    // A channel's peak is its share of the memory's.
    const double share = 1.0 / static_cast<double>(std::max<std::size_t>(result.channels.size(), 1));
    for (std::size_t i = 0; i < result.channels.size(); ++i) {
      table.add_row(cells_of(columns, result.channels[i], row_of(result, result.channels[i], std::to_string(i), share, 1)));
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
