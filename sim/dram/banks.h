#pragma once
// Banks by flat index, as timing::DramTimingState numbers them: (rank x bank groups + bank group) x
// banks per group + bank. The controller's parts keep their per-bank state in vectors so indexed.

#include <cstddef>
#include <cstdint>

#include "spec/accelerator_spec.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

class BankNumbering {
 public:
  explicit BankNumbering(const spec::DramSpec& spec)
      : ranks_(spec.ranks), bank_groups_(spec.bank_groups), banks_per_group_(spec.banks_per_group) {}

  std::size_t index(const timing::BankTarget& bank) const {
    return static_cast<std::size_t>((bank.rank * bank_groups_ + bank.bank_group) * banks_per_group_ + bank.bank);
  }
  timing::BankTarget target(std::int64_t flat) const {
    return timing::BankTarget{flat / banks_per_rank(), (flat % banks_per_rank()) / banks_per_group_,
                              flat % banks_per_group_};
  }
  std::int64_t ranks() const { return ranks_; }
  std::int64_t bank_groups() const { return bank_groups_; }
  std::int64_t banks_per_rank() const { return bank_groups_ * banks_per_group_; }
  std::size_t banks() const { return static_cast<std::size_t>(ranks_ * banks_per_rank()); }

 private:
  std::int64_t ranks_;
  std::int64_t bank_groups_;
  std::int64_t banks_per_group_;
};

}  // namespace reusesim::dram
