#pragma once
// Byte address -> DRAM coordinates, following DramSpec::address_mapping (most significant field
// first). The byte offset inside one burst sits below every field, and with
// DramSpec::interleave_bytes the column's lowest bits just above it. Rows take all remaining bits.
// With DramSpec::address_hash xor, the bank-group and bank indices are then XORed with the row's
// lowest bits.

#include <array>
#include <cstdint>
#include <vector>

#include "spec/accelerator_spec.h"

namespace reusesim::timing {

struct DramCoordinates {
  std::int64_t channel = 0;
  std::int64_t pseudo_channel = 0;  // 0 unless pseudo-channel mode
  std::int64_t rank = 0;
  std::int64_t bank_group = 0;
  std::int64_t bank = 0;  // within its bank group
  std::int64_t row = 0;
  std::int64_t column = 0;  // in bursts
};

class DramAddressMapper {
 public:
  explicit DramAddressMapper(const spec::DramSpec& spec);

  DramCoordinates decode(std::uint64_t address) const;
  // The address of the first byte of `where` (decode's inverse).
  std::uint64_t encode(const DramCoordinates& where) const;
  // The scheduled channel (DramChannel) of `where`: channel x pseudo-channels + pseudo-channel.
  std::int64_t channel_index(const DramCoordinates& where) const {
    return where.channel * pseudo_channels_ + where.pseudo_channel;
  }
  // The same from the address alone (hashing never touches the channel bits): once per request.
  std::int64_t channel_index(std::uint64_t address) const {
    return field(address, spec::AddressField::channel) * pseudo_channels_ +
           field(address, spec::AddressField::pseudo_channel);
  }
  // Bytes from `address` to the end of the run of consecutive addresses that stay in the same
  // channel, bank and row (a DMA splits transfers there).
  std::uint64_t bytes_to_run_end(std::uint64_t address) const { return run_bytes_ - (address & (run_bytes_ - 1)); }
  std::uint64_t burst_bytes() const { return burst_bytes_; }

 private:
  struct FieldBits {
    spec::AddressField field;
    int shift;  // position of the field's least significant bit in the address
    int bits;
  };
  // Where each field sits in an address, by AddressField: decode() runs several times per request,
  // so it masks and shifts without walking the mapping.
  struct FieldSlice {
    int shift = 0;
    std::uint64_t mask = 0;  // 0: the field has no bits
  };
  std::int64_t field(std::uint64_t address, spec::AddressField which) const {
    const FieldSlice& slice = slices_[static_cast<std::size_t>(which)];
    return static_cast<std::int64_t>((address >> slice.shift) & slice.mask);
  }
  // The bank-group and bank bits XORed with the row's (none without hashing).
  std::int64_t bank_group_hash(std::int64_t row) const;
  std::int64_t bank_hash(std::int64_t row) const;

  std::uint64_t burst_bytes_;
  std::vector<FieldBits> fields_;  // least significant first
  std::array<FieldSlice, 7> slices_;
  std::uint64_t run_bytes_ = 0;  // see bytes_to_run_end()
  int offset_bits_;
  int low_column_bits_ = 0;  // the column's bits below every field (DramSpec::interleave_bytes)
  std::int64_t pseudo_channels_;
  bool xor_banks_;
  std::int64_t bank_groups_;
  std::int64_t banks_per_group_;
};

}  // namespace reusesim::timing
