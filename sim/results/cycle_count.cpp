#include "results/cycle_count.h"

#include <stdexcept>

namespace reusesim::results {

std::int64_t nearest_cycles(std::uint64_t ps, std::uint64_t period_ps) {
  if (period_ps == 0) throw std::logic_error("a clock period of 0 ps");
  return static_cast<std::int64_t>(ps / period_ps + (2 * (ps % period_ps) >= period_ps ? 1 : 0));
}

std::vector<std::int64_t> span_cycles(const std::vector<std::uint64_t>& spans_ps, std::uint64_t period_ps) {
  std::vector<std::int64_t> cycles;
  cycles.reserve(spans_ps.size());
  std::uint64_t end_ps = 0;
  std::int64_t end_cycles = 0;
  for (std::uint64_t span : spans_ps) {
    end_ps += span;
    const std::int64_t next = nearest_cycles(end_ps, period_ps);
    cycles.push_back(next - end_cycles);
    end_cycles = next;
  }
  return cycles;
}

}  // namespace reusesim::results
