#include "hw/chip_links.h"

#include "hw/systemc_compat.h"

namespace reusesim::hw {

ChipLinks::ChipLinks(sc_core::sc_module_name name, const spec::SystemSpec& spec)
    : sc_core::sc_module(name), links_(spec) {
  for (std::int64_t chip = 0; chip < spec.chips; ++chip) sent_to_.push_back(std::make_unique<sc_core::sc_event>());
}

void ChipLinks::send(std::int64_t from, std::int64_t to, std::uint64_t bytes, std::int64_t tag) {
  const std::uint64_t now = picoseconds(sc_core::sc_time_stamp());
  const std::vector<std::int32_t>& path = links_.route(from, to);  // valid until the next route()
  const bool counted =
      tag >= 0 && static_cast<std::size_t>(tag) < counted_.size() && counted_[static_cast<std::size_t>(tag)];
  std::vector<timing::SystemLinks::LinkStats> before;
  if (counted) {
    for (const std::int32_t link : path) before.push_back(links_.stats(static_cast<std::size_t>(link)));
  }
  arriving_[{to, from, tag}].push_back(links_.carry(path, now, bytes));
  if (counted) {
    std::vector<timing::SystemLinks::LinkStats>& stats = program_stats_[tag];
    stats.resize(links_.link_count());
    for (std::size_t i = 0; i < path.size(); ++i) {
      const auto link = static_cast<std::size_t>(path[i]);
      stats[link].add(links_.stats(link), before[i]);
    }
  }
  if (timeline_ != nullptr) {
    for (const timing::LinkServers::Entered& entered : links_.last_entered()) {
      const auto link = static_cast<std::size_t>(entered.link);
      // A node's links and the nodes' network move bytes at their own rates.
      timeline_->chip_link_transfer(link_track_[link], static_cast<std::size_t>(tag), entered.at,
                                    entered.at + links_.hold_ps(bytes, link), static_cast<std::int64_t>(bytes));
    }
  }
  sent_to_[static_cast<std::size_t>(to)]->notify(sc_core::SC_ZERO_TIME);
}

void ChipLinks::record_to(results::TimelineRecorder& timeline) {
  timeline_ = &timeline;
  links_.record_entries();
  link_track_.assign(links_.link_count(), 0);
  for (std::size_t link = 0; link < links_.link_count(); ++link) {
    // A slot that leads nowhere carries nothing; it gets no track.
    if (links_.exists(link)) link_track_[link] = timeline.add_chip_link(links_.link_name(link));
  }
}

void ChipLinks::receive(std::int64_t to, std::int64_t from, std::int64_t tag) {
  std::deque<std::uint64_t>& arriving = arriving_[{to, from, tag}];
  while (arriving.empty()) sc_core::wait(*sent_to_[static_cast<std::size_t>(to)]);
  const std::uint64_t arrival = arriving.front();
  arriving.pop_front();
  const std::uint64_t now = picoseconds(sc_core::sc_time_stamp());
  if (arrival > now) sc_core::wait(sc_core::sc_time::from_value(arrival - now));
}

}  // namespace reusesim::hw
