#include "hw/dram_stats.h"

#include <algorithm>

namespace reusesim::hw {

void LatencyHistogram::add(std::int64_t cycles) {
  ++count_;
  total_cycles_ += cycles;
  const auto slot = static_cast<std::size_t>(cycles);
  if (counts_.size() <= slot) counts_.resize(slot + 1, 0);
  ++counts_[slot];
}

double LatencyHistogram::mean_cycles() const {
  return count_ > 0 ? static_cast<double>(total_cycles_) / static_cast<double>(count_) : 0.0;
}

std::int64_t LatencyHistogram::percentile_cycles(double fraction) const {
  if (count_ == 0) return 0;
  const auto wanted = static_cast<std::int64_t>(fraction * static_cast<double>(count_) + 0.999999);
  std::int64_t seen = 0;
  for (std::size_t cycles = 0; cycles < counts_.size(); ++cycles) {
    seen += counts_[cycles];
    if (seen >= wanted) return static_cast<std::int64_t>(cycles);
  }
  return static_cast<std::int64_t>(counts_.size()) - 1;
}

LatencyFigures LatencyHistogram::figures() const {
  return LatencyFigures{count_, total_cycles_, percentile_cycles(0.5), percentile_cycles(0.99)};
}

LatencyHistogram& LatencyHistogram::operator+=(const LatencyHistogram& other) {
  count_ += other.count_;
  total_cycles_ += other.total_cycles_;
  if (counts_.size() < other.counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
  return *this;
}

LatencyHistogram& LatencyHistogram::operator-=(const LatencyHistogram& earlier) {
  count_ -= earlier.count_;
  total_cycles_ -= earlier.total_cycles_;
  for (std::size_t i = 0; i < std::min(counts_.size(), earlier.counts_.size()); ++i) counts_[i] -= earlier.counts_[i];
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

}  // namespace reusesim::hw
