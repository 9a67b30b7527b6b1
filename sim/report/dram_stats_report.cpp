#include "report/dram_stats_report.h"

#include <algorithm>
#include <functional>

namespace reusesim::report {

namespace {

struct DramStat {
  const char* name;
  int text_decimals;
  std::function<Cell(const results::DramFigures&, double tck_ns)> cell;
};

Cell count(std::int64_t value) { return value; }

// A latency figure in ns; empty when no request was timed.
Cell latency_ns(const results::LatencyFigures& latency, double cycles, double tck_ns) {
  return latency.count > 0 ? Cell(cycles * tck_ns) : Cell();
}

const std::vector<DramStat>& dram_stats() {
  using S = results::DramFigures;
  static const std::vector<DramStat> stats{
      {"activates", 0, [](const S& s, double) { return count(s.counters.activates); }},
      {"precharges", 0, [](const S& s, double) { return count(s.counters.precharges); }},
      {"refreshes", 0, [](const S& s, double) { return count(s.counters.refreshes); }},
      {"read_commands", 0, [](const S& s, double) { return count(s.counters.read_commands); }},
      {"write_commands", 0, [](const S& s, double) { return count(s.counters.write_commands); }},
      {"row_hits", 0, [](const S& s, double) { return count(s.counters.row_hits); }},
      {"row_misses", 0, [](const S& s, double) { return count(s.counters.row_misses); }},
      {"row_conflicts", 0, [](const S& s, double) { return count(s.counters.row_conflicts); }},
      {"row_hit_rate", 4,
       [](const S& s, double) {
         const std::int64_t columns = s.counters.columns();
         return columns > 0 ? Cell(static_cast<double>(s.counters.row_hits) / static_cast<double>(columns)) : Cell();
       }},
      {"turnarounds", 0, [](const S& s, double) { return count(s.counters.turnarounds); }},
      {"write_drains", 0, [](const S& s, double) { return count(s.counters.write_drains); }},
      {"read_latency_mean_ns", 2, [](const S& s, double t) { return latency_ns(s.read_latency, s.read_latency.mean_cycles(), t); }},
      {"read_latency_p50_ns", 2, [](const S& s, double t) { return latency_ns(s.read_latency, static_cast<double>(s.read_latency.p50_cycles), t); }},
      {"read_latency_p99_ns", 2, [](const S& s, double t) { return latency_ns(s.read_latency, static_cast<double>(s.read_latency.p99_cycles), t); }},
      {"write_latency_mean_ns", 2, [](const S& s, double t) { return latency_ns(s.write_latency, s.write_latency.mean_cycles(), t); }},
      {"write_latency_p50_ns", 2, [](const S& s, double t) { return latency_ns(s.write_latency, static_cast<double>(s.write_latency.p50_cycles), t); }},
      {"write_latency_p99_ns", 2, [](const S& s, double t) { return latency_ns(s.write_latency, static_cast<double>(s.write_latency.p99_cycles), t); }},
  };
  return stats;
}

const DramStat& named(const std::string& name) {
  const std::vector<DramStat>& stats = dram_stats();
  return *std::find_if(stats.begin(), stats.end(), [&](const DramStat& stat) { return stat.name == name; });
}

}  // namespace

std::vector<std::string> dram_stat_names() {
  std::vector<std::string> names;
  for (const DramStat& stat : dram_stats()) names.emplace_back(stat.name);
  return names;
}

std::vector<std::string> names_except(const std::vector<std::string>& all, const std::vector<std::string>& others) {
  std::vector<std::string> kept;
  for (const std::string& name : all) {
    if (std::find(others.begin(), others.end(), name) == others.end()) kept.push_back(name);
  }
  return kept;
}

std::vector<Column> dram_stat_columns(const std::vector<std::string>& names, const std::string& prefix) {
  std::vector<Column> columns;
  for (const std::string& name : names) columns.push_back(Column{prefix + name, named(name).text_decimals});
  return columns;
}

std::vector<Cell> dram_stat_cells(const std::vector<std::string>& names, const results::DramFigures* stats,
                                  double tck_ns) {
  std::vector<Cell> cells;
  for (const std::string& name : names) cells.push_back(stats != nullptr ? named(name).cell(*stats, tck_ns) : Cell());
  return cells;
}

}  // namespace reusesim::report
