#pragma once
// The DRAM counters of docs/dram-model.md, "Statistics", as table columns: one list, so that
// memtest and run name and derive them alike. Latencies are reported in ns (cycles x tCK).

#include <string>
#include <vector>

#include "report/table.h"
#include "results/dram_stats.h"

namespace reusesim::report {

// Every statistic's name, in report order: activates, precharges, ..., write_latency_p99_ns.
std::vector<std::string> dram_stat_names();
// The names of `all` that are not in `others`, in order.
std::vector<std::string> names_except(const std::vector<std::string>& all, const std::vector<std::string>& others);
// The columns of the statistics `names`, each given `prefix` ("" for memtest, "dram_" for run).
std::vector<Column> dram_stat_columns(const std::vector<std::string>& names, const std::string& prefix);
// Their cells for `stats`; `tck_ns` converts cycles to ns. Without `stats` (an ideal memory, which
// issues no DRAM commands) every cell is empty.
std::vector<Cell> dram_stat_cells(const std::vector<std::string>& names, const results::DramFigures* stats,
                                  double tck_ns);

}  // namespace reusesim::report
