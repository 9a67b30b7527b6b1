#pragma once
// Byte address -> DRAM coordinates, following DramSpec::address_mapping (most significant field
// first). The byte offset inside one burst sits below every field. Rows take all remaining bits.
// With DramSpec::address_hash xor, the bank-group and bank indices are then XORed with the row's
// lowest bits.

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
  // Bytes from `address` to the end of the run of consecutive addresses that stay in the same
  // channel, bank and row (a DMA splits transfers there).
  std::uint64_t bytes_to_run_end(std::uint64_t address) const;
  std::uint64_t burst_bytes() const { return burst_bytes_; }

 private:
  struct FieldBits {
    spec::AddressField field;
    int shift;  // position of the field's least significant bit in the address
    int bits;
  };
  // The bank-group and bank bits XORed with the row's (none without hashing).
  std::int64_t bank_group_hash(std::int64_t row) const;
  std::int64_t bank_hash(std::int64_t row) const;

  std::uint64_t burst_bytes_;
  std::vector<FieldBits> fields_;  // least significant first
  int offset_bits_;
  std::int64_t pseudo_channels_;
  bool xor_banks_;
  std::int64_t bank_groups_;
  std::int64_t banks_per_group_;
};

}  // namespace reusesim::timing
