#pragma once
// What a DRAM channel counts (plain integers on the hot path; rates and latencies in ns are
// derived when reported). Counters of several channels, or of two moments, combine with += and
// -= (a layer's own share is the counters at its end minus those at its start).

#include <cstdint>
#include <utility>
#include <vector>

namespace reusesim::results {

// What a report shows of a latency histogram, in memory clocks: small enough to keep per layer.
struct LatencyFigures {
  std::int64_t count = 0;
  std::int64_t total_cycles = 0;
  std::int64_t p50_cycles = 0;
  std::int64_t p99_cycles = 0;
  double mean_cycles() const { return count > 0 ? static_cast<double>(total_cycles) / static_cast<double>(count) : 0.0; }
};

// Latencies in memory clocks: how many requests took each number of cycles.
class LatencyHistogram {
 public:
  // `requests` requests that each took `cycles`.
  void add(std::int64_t cycles, std::int64_t requests = 1);
  std::int64_t count() const { return count_; }
  std::int64_t total_cycles() const { return total_cycles_; }
  // The mean in cycles (0 when empty).
  double mean_cycles() const;
  // The smallest latency that at least `fraction` of the requests do not exceed (0 when empty).
  std::int64_t percentile_cycles(double fraction) const;
  LatencyFigures figures() const;

  LatencyHistogram& operator+=(const LatencyHistogram& other);
  // Removes `earlier`, a histogram this one grew from.
  LatencyHistogram& operator-=(const LatencyHistogram& earlier);

 private:
  std::int64_t count_ = 0;
  std::int64_t total_cycles_ = 0;
  // (cycles, requests) for each latency seen, by cycles: a few thousand entries at most, however
  // long the longest latency, so that copies (a run takes one per layer) stay cheap.
  std::vector<std::pair<std::int64_t, std::int64_t>> counts_;
  std::size_t last_added_ = 0;  // where add() last counted (may be stale: checked)
};

struct DramChannelStats {
  // Requests as the channel served them (the DMA engine's pieces), and their bytes.
  std::int64_t reads = 0;
  std::int64_t writes = 0;
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
  // Commands by kind. Each read or write command moves one burst.
  std::int64_t activates = 0;
  std::int64_t precharges = 0;
  std::int64_t refreshes = 0;
  std::int64_t read_commands = 0;
  std::int64_t write_commands = 0;
  // Every column command is one of: a row hit (its row was open without an activate of its own),
  // a row miss (the first column after an activate to a bank that was closed), or a row conflict
  // (the first column after an activate to a bank whose other row had to be closed for it).
  std::int64_t row_hits = 0;
  std::int64_t row_misses = 0;
  std::int64_t row_conflicts = 0;
  // Column commands whose direction differs from the one before on the channel (read to write or
  // write to read): each pays a bus turnaround.
  std::int64_t turnarounds = 0;
  // Times the write queue's policy started a drain (write_drain: watermarks or drain_all); writes
  // served only because no read waited are not a drain.
  std::int64_t write_drains = 0;
  // Per rank, the memory clocks during which at least one of its banks had a row open (active
  // standby), summed over ranks: DRAM background energy (docs/energy-model.md). The other
  // rank-clocks are precharged standby.
  std::int64_t active_rank_cycles = 0;
  // From a request's arrival at the channel to the end of its last data burst (posted writes too:
  // the requester had its answer earlier).
  LatencyHistogram read_latency;
  LatencyHistogram write_latency;

  std::int64_t columns() const { return read_commands + write_commands; }
  DramChannelStats& operator+=(const DramChannelStats& other);
  DramChannelStats& operator-=(const DramChannelStats& earlier);
};

// What reports show of DRAM statistics: the counters, and the latencies' figures instead of their
// histograms (a run keeps one per layer and channel).
struct DramFigures {
  DramChannelStats counters;  // its latency histograms left empty
  LatencyFigures read_latency;
  LatencyFigures write_latency;
};
DramFigures figures_of(const DramChannelStats& stats);

}  // namespace reusesim::results
