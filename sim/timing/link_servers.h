#pragma once
// Links as servers of transfers, plain C++ so that the timing of a network-on-chip (NocLinks) and
// of the links between chips (SystemLinks) is tested without SystemC.
//
// A transfer holds each link of its route for `hold` (its bytes at the link's rate), cut-through:
// its head takes `hop` a link (the link and the router or chip it enters) and enters the next link
// once that link is free, so a transfer waits only where an earlier one still holds a link.
// Routers buffer without bound (no credits): a link's wait never holds the links behind it. A
// link serves transfers in the order they are offered, which the simulated time orders.

#include <cstdint>
#include <vector>

namespace reusesim::timing {

// The direction and number of steps from `from` to `to` along one ring of `size` (wrapping) or line
// (not): the shorter way round a ring, forward on a tie.
struct RingSteps {
  bool forward = true;
  std::int64_t count = 0;
};
RingSteps ring_steps(std::int64_t from, std::int64_t to, std::int64_t size, bool wraps);

class LinkServers {
 public:
  // Times are in the caller's unit; `tick` is the unit the statistics count in (a NoC clock, or
  // 1 for the caller's own unit).
  LinkServers(std::size_t links, std::uint64_t hop, std::uint64_t tick);

  // `bytes` held `hold` on each link of `path`, ready to leave at `ready`: when their last byte
  // arrives. Holds the links.
  std::uint64_t carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t hold,
                      std::uint64_t bytes);
  // A transfer whose head may enter `link` at `head`: when it enters. Holds the link.
  std::uint64_t enter(std::int32_t link, std::uint64_t head, std::uint64_t hold, std::uint64_t bytes);
  std::uint64_t hop() const { return hop_; }
  // Every link free from `now` (a batch's start); the counters stay.
  void restart(std::uint64_t now);

  // After record_entries(): the links entered since the last forget_entries(), each with when the
  // transfer entered it. Not kept otherwise: only a timeline needs them.
  struct Entered {
    std::int32_t link;
    std::uint64_t at;
  };
  void record_entries() { recording_ = true; }
  void forget_entries() { entered_.clear(); }
  const std::vector<Entered>& entered() const { return entered_; }

  struct LinkStats {
    std::int64_t transfers = 0, bytes = 0;
    std::int64_t busy_ticks = 0;    // ticks it moved bytes
    std::int64_t waited_ticks = 0;  // ticks transfers' heads waited for it, summed
    // Adds what `after` counted since `before`.
    void add(const LinkStats& after, const LinkStats& before) {
      transfers += after.transfers - before.transfers;
      bytes += after.bytes - before.bytes;
      busy_ticks += after.busy_ticks - before.busy_ticks;
      waited_ticks += after.waited_ticks - before.waited_ticks;
    }
  };
  std::size_t link_count() const { return stats_.size(); }
  const LinkStats& stats(std::size_t link) const { return stats_[link]; }

 private:
  std::uint64_t hop_, tick_;
  std::vector<std::uint64_t> free_at_;
  std::vector<LinkStats> stats_;
  std::vector<Entered> entered_;
  bool recording_ = false;
};

}  // namespace reusesim::timing
