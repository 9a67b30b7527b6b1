#pragma once
// The links between a system's chips (spec::SystemSpec), one SystemC component: timing::SystemLinks'
// servers, and the bytes on their way from chip to chip. A chip's thread sends at the current
// time (the bytes hold the links of their route as they get them); the receiving chip's thread
// waits until they have arrived. Bytes between two chips arrive in the order they were sent, per
// `tag` (the program that sent them), so concurrent programs do not take each other's data.

#include <systemc>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include "results/timeline_recorder.h"
#include "spec/system_spec.h"
#include "timing/system_links.h"

namespace reusesim::hw {

class ChipLinks : public sc_core::sc_module {
 public:
  ChipLinks(sc_core::sc_module_name name, const spec::SystemSpec& spec);

  // `bytes` leave chip `from` for chip `to` now.
  void send(std::int64_t from, std::int64_t to, std::uint64_t bytes, std::int64_t tag);
  // From a thread: returns once the next bytes `from` sent `to` under `tag` have arrived.
  void receive(std::int64_t to, std::int64_t from, std::int64_t tag);
  const timing::SystemLinks& links() const { return links_; }
  // Counts, link by link, what the sends of each program `counted` marks (by tag) add: what a run
  // with block reuse repeats of them (simulate/block_reuse.h). Set before the simulation starts.
  void count_programs(std::vector<bool> counted) { counted_ = std::move(counted); }
  // By tag, for the counted programs that sent: what they added to each link, in SystemLinks' order.
  const std::map<std::int64_t, std::vector<timing::SystemLinks::LinkStats>>& program_stats() const {
    return program_stats_;
  }
  // From now on, every transfer's hold of each link is recorded there, a track per link of the
  // system (in SystemLinks' order), its spans named by their `tag`, the link program.
  void record_to(results::TimelineRecorder& timeline);

 private:
  timing::SystemLinks links_;
  std::vector<bool> counted_;
  std::map<std::int64_t, std::vector<timing::SystemLinks::LinkStats>> program_stats_;
  results::TimelineRecorder* timeline_ = nullptr;
  std::vector<std::size_t> link_track_;  // by link: its track in the timeline
  // When each message not yet received arrives (ps), by (to, from, tag), in the order sent.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::deque<std::uint64_t>> arriving_;
  std::vector<std::unique_ptr<sc_core::sc_event>> sent_to_;  // by chip: a message left for it
};

}  // namespace reusesim::hw
