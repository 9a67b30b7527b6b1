#include "timing/dram_interleave.h"

#include <bitset>

namespace reusesim::timing {

namespace {

int log2_of(std::int64_t value) {
  int bits = 0;
  while ((std::int64_t{1} << bits) < value) ++bits;
  return bits;
}

}  // namespace

ChannelInterleave::ChannelInterleave(const spec::DramSpec& spec) : burst_bits_(log2_of(spec.burst_bytes())) {
  // The fields from the least significant up, as DramAddressMapper lays them out (the DramSpec
  // loader has checked every dimension is a power of two).
  int shift = burst_bits_;
  int channel_shift = 0, pseudo_shift = 0;
  const int channel_bits = log2_of(spec.channels), pseudo_bits = log2_of(spec.pseudo_channels);
  bool lowest = true;
  run_bits_ = burst_bits_;
  for (auto field = spec.address_mapping.rbegin(); field != spec.address_mapping.rend(); ++field) {
    int bits = 0;
    switch (*field) {
      case spec::AddressField::channel:
        bits = channel_bits;
        channel_shift = shift;
        break;
      case spec::AddressField::pseudo_channel:
        bits = pseudo_bits;
        pseudo_shift = shift;
        break;
      case spec::AddressField::rank:
        bits = log2_of(spec.ranks);
        break;
      case spec::AddressField::bank_group:
        bits = log2_of(spec.bank_groups);
        break;
      case spec::AddressField::bank:
        bits = log2_of(spec.banks_per_group);
        break;
      case spec::AddressField::column:
        bits = log2_of(spec.channel_row_bytes() / spec.burst_bytes());
        break;
      case spec::AddressField::row:
        bits = 0;
        break;  // above every other field
    }
    if (lowest && bits > 0) {
      if (*field == spec::AddressField::column) run_bits_ += bits;
      lowest = false;
    }
    shift += bits;
  }
  const auto field_mask = [](int field_shift, int bits) { return ((std::uint64_t{1} << bits) - 1) << field_shift; };
  channel_mask_ = field_mask(channel_shift, channel_bits) | field_mask(pseudo_shift, pseudo_bits);
  for (std::int64_t channel = 0; channel < spec.channels; ++channel) {
    for (std::int64_t pseudo = 0; pseudo < spec.pseudo_channels; ++pseudo) {
      // Scheduled channel index: channel x pseudo-channels + pseudo-channel (channel_index()).
      channel_values_.push_back((static_cast<std::uint64_t>(channel) << channel_shift) |
                                (static_cast<std::uint64_t>(pseudo) << pseudo_shift));
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
    shares[channel].bursts = static_cast<std::int64_t>(count_units(burst_bits_, channel_values_[channel]));
    shares[channel].requests = static_cast<std::int64_t>(count_units(run_bits_, channel_values_[channel]));
  }
}

}  // namespace reusesim::timing
