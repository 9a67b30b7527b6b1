#include "timing/dram_interleave.h"

#include <bitset>

#include "timing/dram_address.h"

namespace reusesim::timing {

namespace {

int log2_of(std::int64_t value) {
  int bits = 0;
  while ((std::int64_t{1} << bits) < value) ++bits;
  return bits;
}

}  // namespace

ChannelInterleave::ChannelInterleave(const spec::DramSpec& spec) {
  // The layout is the address mapper's own: a run from an aligned address is a whole row run, and
  // a channel's bits are where encoding its number puts them (nowhere, for a number that lies in
  // bits beyond the address, as when the channel field is mapped above the row: decoding gives
  // another channel back).
  const DramAddressMapper mapper(spec);
  burst_bits_ = log2_of(static_cast<std::int64_t>(mapper.burst_bytes()));
  run_bits_ = log2_of(static_cast<std::int64_t>(mapper.bytes_to_run_end(0)));
  DramCoordinates every_channel_bit;
  every_channel_bit.channel = spec.channels - 1;  // powers of two: all ones
  every_channel_bit.pseudo_channel = spec.pseudo_channels - 1;
  channel_mask_ = mapper.encode(every_channel_bit);
  for (std::int64_t channel = 0; channel < spec.channels; ++channel) {
    for (std::int64_t pseudo = 0; pseudo < spec.pseudo_channels; ++pseudo) {
      // Scheduled channel index: channel x pseudo-channels + pseudo-channel (channel_index()).
      DramCoordinates where;
      where.channel = channel;
      where.pseudo_channel = pseudo;
      const std::uint64_t address = mapper.encode(where);
      const DramCoordinates back = mapper.decode(address);
      channel_values_.push_back(back.channel == channel && back.pseudo_channel == pseudo ? address : kUnreachable);
    }
  }
}

std::uint64_t ChannelInterleave::count_below(std::uint64_t limit, std::uint64_t mask, std::uint64_t value) {
  // Walk limit's bits from the top with x's prefix equal to limit's: where limit has a 1, every x
  // with a 0 there (if the pattern allows it) and any free bits below is smaller.
  std::uint64_t total = 0;
  for (int i = 63; i >= 0; --i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    const bool fixed = (mask & bit) != 0;
    const bool wanted_one = (value & bit) != 0;
    if ((limit & bit) != 0) {
      if (!fixed || !wanted_one) total += std::uint64_t{1} << std::bitset<64>(~mask & (bit - 1)).count();
      if (fixed && !wanted_one) return total;  // x's prefix can no longer equal limit's
    } else if (fixed && wanted_one) {
      return total;
    }
  }
  return total;
}

void ChannelInterleave::split(std::uint64_t address, std::uint64_t bytes, std::vector<ChannelShare>& shares) const {
  shares.assign(channel_values_.size(), ChannelShare{});
  if (bytes == 0) return;
  const std::uint64_t last = address + bytes - 1;
  // Units (bursts, or row runs) are counted by their index, the address shifted down; the channel
  // bits sit above both units (a row run never crosses a channel).
  const auto count_units = [&](int unit_bits, std::uint64_t channel_value) {
    const std::uint64_t mask = channel_mask_ >> unit_bits, value = channel_value >> unit_bits;
    return count_below((last >> unit_bits) + 1, mask, value) - count_below(address >> unit_bits, mask, value);
  };
  for (std::size_t channel = 0; channel < channel_values_.size(); ++channel) {
    if (channel_values_[channel] == kUnreachable) continue;  // no address maps to it
    shares[channel].bursts = static_cast<std::int64_t>(count_units(burst_bits_, channel_values_[channel]));
    shares[channel].requests = static_cast<std::int64_t>(count_units(run_bits_, channel_values_[channel]));
  }
}

}  // namespace reusesim::timing
