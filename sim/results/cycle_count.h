#pragma once
// Picoseconds to whole cycles of one clock, for spans that follow each other in one window (a
// layer's busy time and its stalls by cause). Plain C++.

#include <cstdint>
#include <vector>

namespace reusesim::results {

// The cycles of `spans_ps`, laid end to end from the window's start, in a clock of `period_ps`.
// Rounding each span to the nearest cycle on its own leaves up to half a cycle over or under per
// span, so their sum can miss the window's cycles by one per two spans. Here each span's end is
// rounded to the nearest cycle (halves up) and a span's cycles are its end's less its start's: the
// spans add up exactly to their sum rounded, and each stays within a cycle of its own length.
std::vector<std::int64_t> span_cycles(const std::vector<std::uint64_t>& spans_ps, std::uint64_t period_ps);

// `ps` in whole cycles of `period_ps`, to the nearest (halves up): the rounding span_cycles uses.
std::int64_t nearest_cycles(std::uint64_t ps, std::uint64_t period_ps);

}  // namespace reusesim::results
