#include "results/dram_stats.h"

#include <algorithm>

namespace reusesim::results {

void LatencyHistogram::add(std::int64_t cycles, std::int64_t requests) {
  count_ += requests;
  total_cycles_ += cycles * requests;
  // Latencies repeat: most adds find the entry the last one did, or near the end.
  if (last_added_ < counts_.size() && counts_[last_added_].first == cycles) {
    counts_[last_added_].second += requests;
    return;
  }
  const auto at = std::lower_bound(counts_.begin(), counts_.end(), cycles,
                                   [](const std::pair<std::int64_t, std::int64_t>& entry, std::int64_t value) {
                                     return entry.first < value;
                                   });
  last_added_ = static_cast<std::size_t>(at - counts_.begin());
  if (at != counts_.end() && at->first == cycles) {
    at->second += requests;
  } else {
    counts_.insert(at, {cycles, requests});
  }
}

double LatencyHistogram::mean_cycles() const {
  return count_ > 0 ? static_cast<double>(total_cycles_) / static_cast<double>(count_) : 0.0;
}

std::int64_t LatencyHistogram::percentile_cycles(double fraction) const {
  if (count_ == 0) return 0;
  const auto wanted = static_cast<std::int64_t>(fraction * static_cast<double>(count_) + 0.999999);
  std::int64_t seen = 0;
  for (const auto& [cycles, requests] : counts_) {
    seen += requests;
    if (seen >= wanted) return cycles;
  }
  return counts_.back().first;
}

LatencyFigures LatencyHistogram::figures() const {
  return LatencyFigures{count_, total_cycles_, percentile_cycles(0.5), percentile_cycles(0.99)};
}

namespace {

using Counts = std::vector<std::pair<std::int64_t, std::int64_t>>;

// a + sign x b, entry by entry (both by cycles); entries that drop to zero are left out.
Counts combined(const Counts& a, const Counts& b, std::int64_t sign) {
  Counts out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    std::pair<std::int64_t, std::int64_t> entry;
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      entry = a[i++];
    } else if (i == a.size() || b[j].first < a[i].first) {
      entry = {b[j].first, sign * b[j].second};
      ++j;
    } else {
      entry = {a[i].first, a[i].second + sign * b[j].second};
      ++i;
      ++j;
    }
    if (entry.second != 0) out.push_back(entry);
  }
  return out;
}

}  // namespace

LatencyHistogram& LatencyHistogram::operator+=(const LatencyHistogram& other) {
  count_ += other.count_;
  total_cycles_ += other.total_cycles_;
  counts_ = combined(counts_, other.counts_, 1);
  return *this;
}

LatencyHistogram& LatencyHistogram::operator-=(const LatencyHistogram& earlier) {
  count_ -= earlier.count_;
  total_cycles_ -= earlier.total_cycles_;
  counts_ = combined(counts_, earlier.counts_, -1);
  return *this;
}

namespace {

// Applies `op` to every counter of `a` and `b` alike, so += and -= cannot miss one.
template <typename Op>
void each_counter(DramChannelStats& a, const DramChannelStats& b, Op op) {
  op(a.reads, b.reads);
  op(a.writes, b.writes);
  op(a.read_bytes, b.read_bytes);
  op(a.write_bytes, b.write_bytes);
  op(a.activates, b.activates);
  op(a.precharges, b.precharges);
  op(a.refreshes, b.refreshes);
  op(a.read_commands, b.read_commands);
  op(a.write_commands, b.write_commands);
  op(a.row_hits, b.row_hits);
  op(a.row_misses, b.row_misses);
  op(a.active_rank_cycles, b.active_rank_cycles);
  op(a.row_conflicts, b.row_conflicts);
  op(a.turnarounds, b.turnarounds);
  op(a.write_drains, b.write_drains);
}

}  // namespace

DramChannelStats& DramChannelStats::operator+=(const DramChannelStats& other) {
  each_counter(*this, other, [](std::int64_t& a, std::int64_t b) { a += b; });
  read_latency += other.read_latency;
  write_latency += other.write_latency;
  return *this;
}

DramChannelStats& DramChannelStats::operator-=(const DramChannelStats& earlier) {
  each_counter(*this, earlier, [](std::int64_t& a, std::int64_t b) { a -= b; });
  read_latency -= earlier.read_latency;
  write_latency -= earlier.write_latency;
  return *this;
}

DramFigures figures_of(const DramChannelStats& stats) {
  DramFigures figures;
  figures.read_latency = stats.read_latency.figures();
  figures.write_latency = stats.write_latency.figures();
  each_counter(figures.counters, stats, [](std::int64_t& a, std::int64_t b) { a = b; });
  return figures;
}

}  // namespace reusesim::results
