#include "timing/dram_interleave.h"

#include <algorithm>
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
  // loader has checked every dimension is a power of two): the row takes the bits the others
  // leave, so a field mapped above the row sits at bit 64 or beyond and is always 0.
  const int channel_bits = log2_of(spec.channels), pseudo_bits = log2_of(spec.pseudo_channels);
  const auto bits_of = [&](spec::AddressField field) {
    switch (field) {
      case spec::AddressField::channel:
        return channel_bits;
      case spec::AddressField::pseudo_channel:
        return pseudo_bits;
      case spec::AddressField::rank:
        return log2_of(spec.ranks);
      case spec::AddressField::bank_group:
        return log2_of(spec.bank_groups);
      case spec::AddressField::bank:
        return log2_of(spec.banks_per_group);
      case spec::AddressField::column:
        return log2_of(spec.channel_row_bytes() / spec.burst_bytes());
      default:
        return 0;  // the row: see below
    }
  };
  int fixed_bits = burst_bits_;
  for (const spec::AddressField field : spec.address_mapping) fixed_bits += bits_of(field);
  int shift = burst_bits_;
  int channel_shift = 0, pseudo_shift = 0;
  bool lowest = true;
  run_bits_ = burst_bits_;
  for (auto field = spec.address_mapping.rbegin(); field != spec.address_mapping.rend(); ++field) {
    const int bits = *field == spec::AddressField::row ? 64 - fixed_bits : bits_of(*field);
    if (*field == spec::AddressField::channel) channel_shift = shift;
    if (*field == spec::AddressField::pseudo_channel) pseudo_shift = shift;
    // A run is what DramAddressMapper::bytes_to_run_end says: the lowest field with bits, if a column.
    if (lowest && bits > 0) {
      if (*field == spec::AddressField::column) run_bits_ += bits;
      lowest = false;
    }
    shift += bits;
  }
  // The bits of a field that fall inside the address, and whether a value of it can occur there.
  const auto field_mask = [](int field_shift, int bits) {
    const int inside = field_shift >= 64 ? 0 : std::min(bits, 64 - field_shift);
    return inside == 0 ? 0 : (inside == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << inside) - 1) << field_shift;
  };
  const auto placed = [](std::uint64_t value, int field_shift) {
    if (value == 0) return std::uint64_t{0};
    return field_shift >= 64 || (field_shift > 0 && (value >> (64 - field_shift)) != 0) ? kUnreachable
                                                                                        : value << field_shift;
  };
  channel_mask_ = field_mask(channel_shift, channel_bits) | field_mask(pseudo_shift, pseudo_bits);
  for (std::int64_t channel = 0; channel < spec.channels; ++channel) {
    for (std::int64_t pseudo = 0; pseudo < spec.pseudo_channels; ++pseudo) {
      // Scheduled channel index: channel x pseudo-channels + pseudo-channel (channel_index()).
      const std::uint64_t channel_value = placed(static_cast<std::uint64_t>(channel), channel_shift);
      const std::uint64_t pseudo_value = placed(static_cast<std::uint64_t>(pseudo), pseudo_shift);
      channel_values_.push_back(
          channel_value == kUnreachable || pseudo_value == kUnreachable ? kUnreachable : channel_value | pseudo_value);
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
