#include "report/dram_stats_report.h"

#include <string>

namespace reusesim::report {

namespace {

using results::DramFigures;

DramStatColumn count(const char* name, const char* unit, const char* description,
                     std::int64_t results::DramChannelStats::*counter) {
  return {name, unit, description, Total::none, 0,
          [counter](const DramFigures& figures, double) { return Cell(figures.counters.*counter); }, {}, {}};
}

constexpr const char* kLatency = "from a request's arrival at its channel to the end of its data";

// A latency figure in ns; empty when no request was timed.
DramStatColumn latency(const char* name, const char* description, results::LatencyFigures DramFigures::*latency_of,
                       double (*cycles_of)(const results::LatencyFigures&)) {
  return {name, "ns", std::string(description) + " " + kLatency, Total::none, 2,
          [latency_of, cycles_of](const DramFigures& figures, double tck_ns) {
            const results::LatencyFigures& figure = figures.*latency_of;
            return figure.count > 0 ? Cell(cycles_of(figure) * tck_ns) : Cell();
          },
          {}, {}};
}

double mean(const results::LatencyFigures& figure) { return figure.mean_cycles(); }
double p50(const results::LatencyFigures& figure) { return static_cast<double>(figure.p50_cycles); }
double p99(const results::LatencyFigures& figure) { return static_cast<double>(figure.p99_cycles); }

}  // namespace

const std::vector<DramStatColumn>& dram_stat_columns() {
  using S = results::DramChannelStats;
  static const std::vector<DramStatColumn> columns{
      count("activates", "commands", "activate commands", &S::activates),
      count("precharges", "commands", "precharge commands", &S::precharges),
      count("refreshes", "commands", "refresh commands", &S::refreshes),
      count("read_commands", "commands", "read column commands, one burst each", &S::read_commands),
      count("write_commands", "commands", "write column commands, one burst each", &S::write_commands),
      count("row_hits", "commands", "column commands whose row was open without an activate of their own",
            &S::row_hits),
      count("row_misses", "commands", "first column commands after an activate to a closed bank", &S::row_misses),
      count("row_conflicts", "commands",
            "first column commands after an activate that had to close the bank's other row", &S::row_conflicts),
      {"row_hit_rate", "fraction", "row_hits per column command", Total::none, 4,
       [](const DramFigures& figures, double) {
         const std::int64_t commands = figures.counters.columns();
         return commands > 0 ? Cell(static_cast<double>(figures.counters.row_hits) / static_cast<double>(commands))
                             : Cell();
       },
       {}, {}},
      count("turnarounds", "commands",
            "column commands whose direction differs from the one before (each pays a bus turnaround)",
            &S::turnarounds),
      count("write_drains", "drains", "drains the write-drain policy started", &S::write_drains),
      latency("read_latency_mean_ns", "mean read latency", &DramFigures::read_latency, mean),
      latency("read_latency_p50_ns", "median read latency", &DramFigures::read_latency, p50),
      latency("read_latency_p99_ns", "99th percentile read latency", &DramFigures::read_latency, p99),
      latency("write_latency_mean_ns", "mean write latency", &DramFigures::write_latency, mean),
      latency("write_latency_p50_ns", "median write latency", &DramFigures::write_latency, p50),
      latency("write_latency_p99_ns", "99th percentile write latency", &DramFigures::write_latency, p99),
  };
  return columns;
}

}  // namespace reusesim::report
