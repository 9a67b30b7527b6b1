#pragma once
// `reusesim memtest`: what a request stream achieved on a memory.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/energy_model.h"
#include "report/columns.h"
#include "report/table.h"
#include "results/dram_stats.h"
#include "spec/accelerator_spec.h"

namespace reusesim::report {

struct MemtestResult {
  std::string pattern;  // pattern name or trace file
  std::string memory;   // preset or file
  spec::DramSpec spec;
  results::DramChannelStats dram;  // all channels
  std::vector<results::DramChannelStats> channels;  // each channel's (each pseudo-channel's)
  std::int64_t requests = 0;  // as issued by the test (before DMA splitting)
  std::int64_t request_bytes = 0;
  std::int64_t outstanding = 0;
  double simulated_seconds = 0;  // until the last response
  std::optional<double> wall_seconds;  // set only when asked for (--wall-time): it varies run to run
};

// A row's place: the whole memory (channel "all") or one channel's share, and what its cells read.
struct MemtestRow {
  const MemtestResult& test;
  std::string channel;
  double peak_share;  // of the memory's peak bandwidth
  results::DramFigures figures;
  std::optional<energy::DramEnergy> energy;  // with the DRAM's power block
};
using MemtestColumn = ResultColumn<results::DramChannelStats, MemtestRow>;
// The columns in order; wall_time_s and requests_per_wall_second last with `wall_time`.
std::vector<MemtestColumn> memtest_columns(bool wall_time);

// One row for the whole memory (channel "all"), then, with `per_channel`, one per channel.
Table memtest_table(const MemtestResult& result, bool per_channel);
// JSON always holds the channels, in an array "channels".
std::string render_memtest(const MemtestResult& result, Format format, bool per_channel);

}  // namespace reusesim::report
