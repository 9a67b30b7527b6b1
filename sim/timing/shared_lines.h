#pragma once
// Which DRAM lines a chip's shared on-chip memory holds (spec::SharedMemorySpec): plain C++, so
// that hw::SharedMemory's decisions are tested without SystemC. A line is held burst by burst (a
// bit per burst, a "sector"): a burst is held once its data arrived (a read's fill, or a store
// written through), or filling while a read that missed fetches it from the DRAM. Lines are
// replaced least recently used first, never while one of their bursts is filling.

#include <algorithm>
#include <cstdint>
#include <list>
#include <unordered_map>

namespace reusesim::timing {

class SharedLines {
 public:
  // `line_bytes` a power of two of at most 64 bursts of `burst_bytes`; room for `capacity_lines`.
  SharedLines(std::int64_t line_bytes, std::int64_t burst_bytes, std::int64_t capacity_lines);

  // A read of [address, address + bytes) (whole bursts): a hit if every burst is held or filling;
  // then `waits_on` is a line with one of them filling (the read can be answered only after that
  // fill: call again then), or -1, and `ready` the latest time the lines' data arrived at.
  struct Lookup {
    bool hit = false;
    std::int64_t waits_on = -1;
    std::uint64_t ready = 0;
  };
  // A hit makes its lines the most recently used.
  Lookup read(std::uint64_t address, std::uint64_t bytes);
  // How many bytes from `address` (a burst's start), up to `max_bytes`, are bursts held or filling:
  // what one read may ask of the shared memory alone (0: the first burst would miss).
  std::uint64_t held_bytes(std::uint64_t address, std::uint64_t max_bytes) const;
  // A read that missed goes to the DRAM: its bursts are filling from now, in lines allocated for
  // them (a line that finds no room, every line filling, is not kept).
  void begin_fill(std::uint64_t address, std::uint64_t bytes);
  // Its data arrives at `ready`: the filling bursts are held (reads waiting on a line may look again).
  void end_fill(std::uint64_t address, std::uint64_t bytes, std::uint64_t ready);
  // A store written through at `ready`: its bursts are held.
  void write(std::uint64_t address, std::uint64_t bytes, std::uint64_t ready);
  // Whether line `line` has a burst filling.
  bool filling(std::int64_t line) const;
  // Holds nothing (at a batch's start, with the DRAM).
  void clear();
  std::int64_t held_lines() const { return static_cast<std::int64_t>(lines_.size()); }
  // Calls visit(line index, begin, end) for each line [address, address + bytes) touches, with the
  // part of the range in it, [begin, end).
  template <typename Visit>
  void for_each_line(std::uint64_t address, std::uint64_t bytes, Visit visit) const {
    const auto size = static_cast<std::uint64_t>(line_bytes_);
    for (std::uint64_t line = address / size; line * size < address + bytes; ++line) {
      visit(line, std::max(address, line * size), std::min(address + bytes, (line + 1) * size));
    }
  }

 private:
  struct Line {
    std::uint64_t held = 0;     // bursts with their data
    std::uint64_t filling = 0;  // bursts on their way from the DRAM
    std::uint64_t ready = 0;    // when the latest data arrived
    std::list<std::uint64_t>::iterator recency;
  };
  // The bursts of line `line` that its part [begin, end) covers, as bits.
  std::uint64_t bursts_of(std::uint64_t line, std::uint64_t begin, std::uint64_t end) const;
  // The line, made the most recently used; allocated (replacing the least recently used line
  // without a filling burst) when absent; nullptr when there is no room.
  Line* touch(std::uint64_t line);
  // Calls visit(line index, its burst bits) for each line of the range.
  template <typename Visit>
  void for_each_line_bursts(std::uint64_t address, std::uint64_t bytes, Visit visit) const {
    for_each_line(address, bytes, [&](std::uint64_t line, std::uint64_t begin, std::uint64_t end) {
      visit(line, bursts_of(line, begin, end));
    });
  }

  std::int64_t line_bytes_;
  std::int64_t burst_bytes_;
  std::int64_t capacity_lines_;
  std::unordered_map<std::uint64_t, Line> lines_;
  std::list<std::uint64_t> recency_;  // most recently used first
};

}  // namespace reusesim::timing
