#pragma once
// The DRAM counters of docs/dram-model.md, "Statistics", as columns: declared once, so that
// memtest, run and dram_channels.csv name and derive them alike. Latencies are reported in ns
// (cycles x tCK).

#include <vector>

#include "report/columns.h"
#include "results/dram_stats.h"

namespace reusesim::report {

// A statistic of the figures of one memory (or channel) over some time; the context is tCK in ns.
using DramStatColumn = ResultColumn<results::DramFigures, double>;

// Every statistic, in report order: activates, precharges, ..., write_latency_p99_ns.
const std::vector<DramStatColumn>& dram_stat_columns();

}  // namespace reusesim::report
