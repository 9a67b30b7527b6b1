#include "report/memtest_report.h"

#include <algorithm>

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "GB/s = 1e9 bytes/s of data moved (reads + writes) over the simulated time to the last response; "
    "efficiency = achieved / peak; read latency from request to the end of its data burst; row_hit_rate "
    "is per column command (burst): the first column after an activate misses, every other hits; wall_time_s and requests_per_wall_second (with "
    "--wall-time only) are the only figures that vary run to run";

}  // namespace

Table memtest_table(const MemtestResult& result) {
  std::vector<Column> columns{{"pattern"}, {"memory"}, {"requests"}, {"request_bytes"}, {"outstanding"}, {"read_bytes"},
               {"write_bytes"}, {"simulated_time_us", 3}, {"achieved_gbps", 3}, {"peak_gbps", 3},
               {"efficiency", 4}, {"read_latency_mean_ns", 2}, {"read_latency_p50_ns", 2},
               {"read_latency_p99_ns", 2}, {"row_hit_rate", 4}, {"activates"}, {"refreshes"}};
  if (result.wall_seconds) columns.insert(columns.end(), {{"wall_time_s", 3}, {"requests_per_wall_second", 0}});
  Table table(columns);
  const hw::DramChannelStats& dram = result.dram;
  const double tck_ns = result.spec.timing.tck_ns;
  const double bytes = static_cast<double>(dram.read_bytes + dram.write_bytes);
  const double achieved = result.simulated_seconds > 0 ? bytes / result.simulated_seconds / 1e9 : 0;
  const double peak = result.spec.peak_bytes_per_second() / 1e9;
  const auto latency_ns = [&](double cycles) { return dram.reads > 0 ? Cell(cycles * tck_ns) : Cell(); };
  std::vector<Cell> row{result.pattern, result.memory, result.requests, result.request_bytes, result.outstanding,
                        dram.read_bytes, dram.write_bytes, result.simulated_seconds * 1e6, achieved, peak,
                        peak > 0 ? achieved / peak : 0.0,
                        latency_ns(dram.read_latency.mean_cycles()),
                        latency_ns(static_cast<double>(dram.read_latency.percentile_cycles(0.5))),
                        latency_ns(static_cast<double>(dram.read_latency.percentile_cycles(0.99))),
                        dram.columns() > 0 ? Cell(static_cast<double>(dram.row_hits) / static_cast<double>(dram.columns())) : Cell(),
                        dram.activates, dram.refreshes};
  if (const auto wall = result.wall_seconds) {
    row.emplace_back(*wall);
    row.emplace_back(static_cast<double>(result.requests) / std::max(*wall, 1e-9));
  }
  table.add_row(std::move(row));
  return table;
}

std::string render_memtest(const MemtestResult& result, Format format) {
  const Table table = memtest_table(result);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document = table.to_json().front();
    document["conventions"] = kConventions;
    return json_document_text(document);
  }
  return std::string(kConventions) + "\n\n" + table.to_text();
}

}  // namespace reusesim::report
