#include "timing/link_servers.h"

#include <algorithm>

namespace reusesim::timing {

RingSteps ring_steps(std::int64_t from, std::int64_t to, std::int64_t size, bool wraps) {
  if (!wraps) return {to >= from, to >= from ? to - from : from - to};
  const std::int64_t ahead = ((to - from) % size + size) % size;
  return ahead <= size - ahead ? RingSteps{true, ahead} : RingSteps{false, size - ahead};
}

LinkServers::LinkServers(std::size_t links, std::uint64_t hop, std::uint64_t tick)
    : hop_(hop), tick_(tick), free_at_(links), stats_(links) {}

std::uint64_t LinkServers::enter(std::int32_t link, std::uint64_t head, std::uint64_t hold, std::uint64_t bytes) {
  std::uint64_t& free_at = free_at_[static_cast<std::size_t>(link)];
  const std::uint64_t start = std::max(head, free_at);
  free_at = start + hold;
  LinkStats& stats = stats_[static_cast<std::size_t>(link)];
  ++stats.transfers;
  stats.bytes += static_cast<std::int64_t>(bytes);
  stats.busy_ticks += static_cast<std::int64_t>(hold / tick_);
  stats.waited_ticks += static_cast<std::int64_t>((start - head) / tick_);
  if (recording_) entered_.push_back({link, start});
  return start;
}

std::uint64_t LinkServers::carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t hold,
                                 std::uint64_t bytes) {
  if (path.empty()) return ready;
  std::uint64_t head = ready;  // when the head may enter the next link
  for (const std::int32_t link : path) head = enter(link, head, hold, bytes) + hop_;
  return head + hold;
}

void LinkServers::restart(std::uint64_t now) { std::fill(free_at_.begin(), free_at_.end(), now); }

}  // namespace reusesim::timing
