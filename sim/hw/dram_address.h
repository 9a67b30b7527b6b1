#pragma once
// Byte address -> DRAM coordinates, following DramSpec::address_mapping (most significant field
// first). The byte offset inside one burst sits below every field. Rows take all remaining bits.

#include <cstdint>
#include <vector>

#include "hw/accelerator_spec.h"

namespace reusesim::hw {

struct DramCoordinates {
  std::int64_t channel = 0;
  std::int64_t rank = 0;
  std::int64_t bank_group = 0;
  std::int64_t bank = 0;  // within its bank group
  std::int64_t row = 0;
  std::int64_t column = 0;  // in bursts
};

class DramAddressMapper {
 public:
  explicit DramAddressMapper(const DramSpec& spec);

  DramCoordinates decode(std::uint64_t address) const;
  // Bytes from `address` to the end of the run of consecutive addresses that stay in the same
  // channel, bank and row (a DMA splits transfers there).
  std::uint64_t bytes_to_run_end(std::uint64_t address) const;
  // The address step that moves to the next row of the same bank.
  std::uint64_t row_stride_bytes() const;
  std::uint64_t burst_bytes() const { return burst_bytes_; }

 private:
  struct FieldBits {
    AddressField field;
    int shift;  // position of the field's least significant bit in the address
    int bits;
  };
  std::uint64_t burst_bytes_;
  std::vector<FieldBits> fields_;  // least significant first
  int offset_bits_;
};

}  // namespace reusesim::hw
