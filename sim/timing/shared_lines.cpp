#include "timing/shared_lines.h"

#include <algorithm>

namespace reusesim::timing {

SharedLines::SharedLines(std::int64_t line_bytes, std::int64_t burst_bytes, std::int64_t capacity_lines)
    : line_bytes_(line_bytes), burst_bytes_(burst_bytes), capacity_lines_(capacity_lines) {}

std::uint64_t SharedLines::bursts_of(std::uint64_t line, std::uint64_t begin, std::uint64_t end) const {
  const auto burst = static_cast<std::uint64_t>(burst_bytes_);
  const std::uint64_t first = (begin - line * static_cast<std::uint64_t>(line_bytes_)) / burst;
  const std::uint64_t count = (end - begin + burst - 1) / burst;
  const std::uint64_t ones = count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
  return ones << first;
}

SharedLines::Lookup SharedLines::read(std::uint64_t address, std::uint64_t bytes) {
  Lookup lookup;
  lookup.hit = true;
  for_each_line_bursts(address, bytes, [&](std::uint64_t line, std::uint64_t bursts) {
    const auto found = lines_.find(line);
    if (found == lines_.end() || (bursts & ~(found->second.held | found->second.filling)) != 0) {
      lookup.hit = false;
      return;
    }
    if ((bursts & found->second.filling) != 0 && lookup.waits_on < 0) lookup.waits_on = static_cast<std::int64_t>(line);
    lookup.ready = std::max(lookup.ready, found->second.ready);
  });
  if (!lookup.hit) return Lookup{};
  for_each_line(address, bytes, [&](std::uint64_t line, std::uint64_t, std::uint64_t) { touch(line); });
  return lookup;
}

std::uint64_t SharedLines::held_bytes(std::uint64_t address, std::uint64_t max_bytes) const {
  const auto size = static_cast<std::uint64_t>(line_bytes_);
  const auto burst = static_cast<std::uint64_t>(burst_bytes_);
  std::uint64_t held = 0;
  while (held < max_bytes) {
    const std::uint64_t at = address + held;
    const auto found = lines_.find(at / size);
    if (found == lines_.end()) break;
    // This line's bursts from `at` on, while each is held or filling.
    const std::uint64_t present = found->second.held | found->second.filling;
    std::uint64_t burst_index = (at % size) / burst;
    const std::uint64_t bursts = size / burst;
    while (burst_index < bursts && (present >> burst_index & 1) != 0 && held < max_bytes) {
      ++burst_index;
      held += burst;
    }
    if (burst_index < bursts) break;
  }
  return std::min(held, max_bytes);
}

SharedLines::Line* SharedLines::touch(std::uint64_t line) {
  const auto found = lines_.find(line);
  if (found != lines_.end()) {
    recency_.splice(recency_.begin(), recency_, found->second.recency);
    return &found->second;
  }
  if (static_cast<std::int64_t>(lines_.size()) >= capacity_lines_) {
    // The least recently used line without a burst on its way out.
    auto victim = recency_.end();
    while (victim != recency_.begin()) {
      --victim;
      if (lines_.at(*victim).filling == 0) break;
    }
    if (victim == recency_.end() || lines_.at(*victim).filling != 0) return nullptr;
    lines_.erase(*victim);
    recency_.erase(victim);
  }
  recency_.push_front(line);
  Line& added = lines_[line];
  added.recency = recency_.begin();
  return &added;
}

void SharedLines::begin_fill(std::uint64_t address, std::uint64_t bytes) {
  for_each_line_bursts(address, bytes, [&](std::uint64_t line, std::uint64_t bursts) {
    if (Line* kept = touch(line)) kept->filling |= bursts & ~kept->held;
  });
}

void SharedLines::end_fill(std::uint64_t address, std::uint64_t bytes, std::uint64_t ready) {
  for_each_line_bursts(address, bytes, [&](std::uint64_t line, std::uint64_t bursts) {
    const auto found = lines_.find(line);
    if (found == lines_.end()) return;
    Line& kept = found->second;
    const std::uint64_t arrived = bursts & kept.filling;
    kept.filling &= ~arrived;
    kept.held |= arrived;
    if (arrived != 0) kept.ready = std::max(kept.ready, ready);
  });
}

void SharedLines::write(std::uint64_t address, std::uint64_t bytes, std::uint64_t ready) {
  for_each_line_bursts(address, bytes, [&](std::uint64_t line, std::uint64_t bursts) {
    if (Line* kept = touch(line)) {
      kept->held |= bursts;
      kept->ready = std::max(kept->ready, ready);
    }
  });
}

bool SharedLines::filling(std::int64_t line) const {
  const auto found = lines_.find(static_cast<std::uint64_t>(line));
  return found != lines_.end() && found->second.filling != 0;
}

void SharedLines::clear() {
  lines_.clear();
  recency_.clear();
}

}  // namespace reusesim::timing
