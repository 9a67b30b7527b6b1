#pragma once
// How a range of addresses spreads over the scheduled channels (pseudo-channels) as
// DramSpec::address_mapping interleaves them, in closed form: the bursts and the DMA requests
// (row runs, DramAddressMapper::bytes_to_run_end) each channel gets, counted bit by bit over the
// address rather than burst by burst. The fast memory (docs/performance.md, "Fast mode") needs
// these per transfer; the count is exact, the same as splitting the range burst by burst.

#include <cstdint>
#include <vector>

#include "spec/accelerator_spec.h"

namespace reusesim::timing {

struct ChannelShare {
  std::int64_t bursts = 0;
  std::int64_t requests = 0;  // row runs: the pieces an exact DMA engine would send
};

class ChannelInterleave {
 public:
  explicit ChannelInterleave(const spec::DramSpec& spec);

  std::int64_t channels() const { return static_cast<std::int64_t>(channel_values_.size()); }
  // Each scheduled channel's share of the whole bursts that [address, address + bytes) touches
  // (a DMA widens a transfer so); `shares` is resized to channels().
  void split(std::uint64_t address, std::uint64_t bytes, std::vector<ChannelShare>& shares) const;

  // How many x in [0, limit) have the bits `mask` equal to `value` (value within mask).
  static std::uint64_t count_below(std::uint64_t limit, std::uint64_t mask, std::uint64_t value);

 private:
  int burst_bits_ = 0;
  int run_bits_ = 0;                           // a row run's bytes, log2
  std::uint64_t channel_mask_ = 0;             // the channel and pseudo-channel bits of an address
  // Per scheduled channel, its bits under channel_mask_, or kUnreachable when its number lies in
  // bits beyond the address (a channel field mapped above the row).
  std::vector<std::uint64_t> channel_values_;
  static constexpr std::uint64_t kUnreachable = ~std::uint64_t{0};
};

}  // namespace reusesim::timing
