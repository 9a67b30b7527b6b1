#pragma once
// `reusesim analyze`: per-layer analytic counts and compulsory traffic of a network at one batch
// size, optionally with the time and bandwidths an ideal device of a given peak would need; for a
// sequence model the MACs per token and the bytes a token adds to the KV cache.

#include <cstdint>
#include <optional>
#include <string>

#include "report/table.h"
#include "workload/network.h"

namespace reusesim::report {

struct AnalyzeOptions {
  std::int64_t batch = 1;
  std::optional<double> peak_tops;  // ideal device: tera-ops per second (1 MAC = 2 ops)
};

// The per-layer rows plus a TOTAL row.
Table analyze_table(const workload::Network& network, const AnalyzeOptions& options);
std::string render_analysis(const workload::Network& network, const AnalyzeOptions& options, Format format);

}  // namespace reusesim::report
