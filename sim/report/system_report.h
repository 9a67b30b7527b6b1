#pragma once
// A system's run (docs/systems.md, "Outputs"): per batch the system's time, tokens a second and
// the share in collectives; each chip's part of each collective; each link between chips. Chip
// 0's layers are a run report of their own (report/run_report.h).

#include <cstdint>
#include <string>
#include <vector>

#include "report/table.h"
#include "results/system_result.h"
#include "spec/system_spec.h"

namespace reusesim::report {

struct SystemReport {
  std::string system;
  std::string model;
  std::int64_t chips = 1;
  spec::ParallelPlan plan;
  // Each stage's ranks 1, 2, ... replayed as its rank 0's twins (the same result as replaying each).
  bool twins = false;
  std::vector<std::int64_t> batches;
  std::int64_t tokens_per_sample = 0;  // 0: not a transformer's tokens (no tokens_per_s)
  std::vector<results::SystemBatch> batch_spans;
  std::vector<results::CollectiveResult> collectives;
  std::vector<results::ChipLinkFigures> links;
};

Table system_table(const SystemReport& report);
Table collective_table(const SystemReport& report);
Table chip_link_table(const SystemReport& report);
// The system table in `format`; as text, with a header line and chip 0's part of each collective.
std::string render_system(const SystemReport& report, Format format);
// What the system tables' columns mean, a line each (for stats.txt).
std::string system_stats_legend();

}  // namespace reusesim::report
