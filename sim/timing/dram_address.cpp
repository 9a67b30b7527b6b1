#include "timing/dram_address.h"

#include <stdexcept>

namespace reusesim::timing {

namespace {

int log2_exact(std::int64_t value) {
  int bits = 0;
  while ((std::int64_t{1} << bits) < value) ++bits;
  if ((std::int64_t{1} << bits) != value) throw std::invalid_argument("DRAM dimension is not a power of two");
  return bits;
}

}  // namespace

DramAddressMapper::DramAddressMapper(const spec::DramSpec& spec)
    : burst_bytes_(static_cast<std::uint64_t>(spec.burst_bytes())),
      offset_bits_(log2_exact(spec.burst_bytes())),
      pseudo_channels_(spec.pseudo_channels),
      xor_banks_(spec.address_hash == spec::AddressHash::xor_bank),
      bank_groups_(spec.bank_groups),
      banks_per_group_(spec.banks_per_group) {
  const auto bits_of = [&](spec::AddressField field) {
    switch (field) {
      case spec::AddressField::channel: return log2_exact(spec.channels);
      case spec::AddressField::pseudo_channel: return log2_exact(spec.pseudo_channels);
      case spec::AddressField::rank: return log2_exact(spec.ranks);
      case spec::AddressField::bank_group: return log2_exact(spec.bank_groups);
      case spec::AddressField::bank: return log2_exact(spec.banks_per_group);
      case spec::AddressField::column:
        return log2_exact(spec.channel_row_bytes() / spec.burst_bytes()) - low_column_bits_;
      default: return 0;  // rows: everything above the other fields
    }
  };
  if (spec.interleave_bytes > 0) low_column_bits_ = log2_exact(spec.interleave_bytes / spec.burst_bytes());
  int fixed_bits = offset_bits_ + low_column_bits_;
  for (spec::AddressField field : spec.address_mapping) fixed_bits += bits_of(field);
  int shift = offset_bits_ + low_column_bits_;
  for (auto field = spec.address_mapping.rbegin(); field != spec.address_mapping.rend(); ++field) {
    const int bits = *field == spec::AddressField::row ? 64 - fixed_bits : bits_of(*field);
    fields_.push_back(FieldBits{*field, shift, bits});
    if (bits > 0 && shift < 64) {
      slices_[static_cast<std::size_t>(*field)] =
          FieldSlice{shift, bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1};
    }
    shift += bits;
  }
  // Consecutive addresses stay in one bank and row while only the burst offset and, when it is
  // the lowest field that has bits, the column change (hashing mixes row bits into the bank, and
  // the row does not change within a run).
  int run_bits = offset_bits_ + low_column_bits_;
  for (const FieldBits& entry : fields_) {
    if (entry.bits == 0) continue;
    if (entry.field == spec::AddressField::column) run_bits += entry.bits;
    break;
  }
  run_bytes_ = std::uint64_t{1} << run_bits;
}

std::int64_t DramAddressMapper::bank_group_hash(std::int64_t row) const {
  return xor_banks_ ? row & (bank_groups_ - 1) : 0;
}

std::int64_t DramAddressMapper::bank_hash(std::int64_t row) const {
  return xor_banks_ ? (row / bank_groups_) & (banks_per_group_ - 1) : 0;
}

DramCoordinates DramAddressMapper::decode(std::uint64_t address) const {
  DramCoordinates coordinates;
  coordinates.channel = field(address, spec::AddressField::channel);
  coordinates.pseudo_channel = field(address, spec::AddressField::pseudo_channel);
  coordinates.rank = field(address, spec::AddressField::rank);
  coordinates.row = field(address, spec::AddressField::row);
  coordinates.column =
      field(address, spec::AddressField::column) << low_column_bits_ |
      static_cast<std::int64_t>((address >> offset_bits_) & ((std::uint64_t{1} << low_column_bits_) - 1));
  coordinates.bank_group = field(address, spec::AddressField::bank_group) ^ bank_group_hash(coordinates.row);
  coordinates.bank = field(address, spec::AddressField::bank) ^ bank_hash(coordinates.row);
  return coordinates;
}

std::uint64_t DramAddressMapper::encode(const DramCoordinates& where) const {
  const auto low_columns = static_cast<std::uint64_t>(where.column) & ((std::uint64_t{1} << low_column_bits_) - 1);
  std::uint64_t address = low_columns << offset_bits_;
  for (const FieldBits& entry : fields_) {
    std::int64_t value = 0;
    switch (entry.field) {
      case spec::AddressField::channel: value = where.channel; break;
      case spec::AddressField::pseudo_channel: value = where.pseudo_channel; break;
      case spec::AddressField::rank: value = where.rank; break;
      case spec::AddressField::bank_group: value = where.bank_group ^ bank_group_hash(where.row); break;
      case spec::AddressField::bank: value = where.bank ^ bank_hash(where.row); break;
      case spec::AddressField::row: value = where.row; break;
      case spec::AddressField::column:
        value = where.column >> low_column_bits_;
        break;
    }
    if (entry.shift < 64) address |= static_cast<std::uint64_t>(value) << entry.shift;
  }
  return address;
}

}  // namespace reusesim::timing
