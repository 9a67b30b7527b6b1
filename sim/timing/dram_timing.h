#pragma once
// The JEDEC timing state of one DRAM channel: open rows and, per bank, rank and bus, the earliest
// cycle each command may issue. Plain C++ (no SystemC), advanced once per command, so the channel
// module can compute the next legal command time and sleep until then.

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spec/accelerator_spec.h"

namespace reusesim::timing {

enum class DramCommand { activate, precharge, read, write, refresh };
std::string command_name(DramCommand command);

struct BankTarget {
  std::int64_t rank = 0;
  std::int64_t bank_group = 0;
  std::int64_t bank = 0;  // within the bank group
};

class DramTimingState {
 public:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  static constexpr std::int64_t kClosed = -1;

  explicit DramTimingState(const spec::DramSpec& spec);

  // The earliest cycle >= now at which `command` may issue to `target`, or kNever when the bank
  // state forbids it (a read to a closed bank, an activate to an open one, an all-bank refresh
  // while a bank of the rank is open). Refresh targets the whole rank unless per-bank refresh.
  std::int64_t earliest(DramCommand command, const BankTarget& target, std::int64_t now) const;
  // Applies a command issued at `cycle` (which must be legal). For reads and writes, returns the
  // cycle the data burst ends; otherwise `cycle`.
  std::int64_t issue(DramCommand command, const BankTarget& target, std::int64_t row, std::int64_t cycle);

  std::int64_t open_row(const BankTarget& target) const { return bank(target).open_row; }
  // The same by flat bank index: (rank * bank_groups + bank_group) * banks_per_group + bank.
  std::int64_t open_row(std::size_t flat_bank) const { return banks_[flat_bank].open_row; }
  bool rank_precharged(std::int64_t rank) const;
  std::int64_t burst_cycles() const { return timing_.burst_length / 2; }
  const spec::DramTiming& timing() const { return timing_; }

 private:
  struct Bank {
    std::int64_t open_row = kClosed;
    std::int64_t next_activate = 0;   // tRC after ACT, tRP after PRE, tRFC after refresh
    std::int64_t next_column = 0;     // tRCD after ACT
    std::int64_t next_precharge = 0;  // tRAS after ACT, tRTP after RD, tWR after write data
  };
  struct Rank {
    std::array<std::int64_t, 4> recent_activates;  // ring of the last four ACTs, for tFAW
    std::size_t next_slot = 0;
    std::int64_t last_activate = 0;
    std::vector<std::int64_t> last_activate_in_group;
    std::int64_t write_data_end = 0;  // for tWTR_S
    std::vector<std::int64_t> write_data_end_in_group;  // for tWTR_L
    std::int64_t refresh_until = 0;   // all-bank refresh busy until
  };

  const Bank& bank(const BankTarget& target) const;
  Bank& bank(const BankTarget& target);
  std::int64_t column_earliest(bool is_write, const BankTarget& target, std::int64_t now) const;

 public:
  // A column command's earliest cycle is the later of its bank's tRCD and a floor shared by
  // every bank of the same rank and bank group (tCCD, data bus, tWTR, read-to-write): the
  // scheduler computes the floor once per group when it weighs many banks.
  std::int64_t column_floor(bool is_write, const BankTarget& target, std::int64_t now) const;
  std::int64_t column_ready(std::size_t flat_bank) const { return banks_[flat_bank].next_column; }

 private:
  // tRRD_S, tRRD_L and tFAW: row activations (and per-bank refreshes) of one rank.
  std::int64_t activate_spacing(const BankTarget& target, std::int64_t not_before) const;
  static void record_activate(Rank& rank, std::size_t group, std::int64_t cycle);

  spec::DramTiming timing_;
  spec::RefreshMode refresh_mode_;
  std::int64_t trfc_per_bank_;
  std::int64_t bank_groups_;
  std::int64_t banks_per_group_;
  std::vector<Bank> banks_;
  std::vector<Rank> ranks_;
  // The shared command-to-data pipeline and data bus.
  std::int64_t last_column_cycle_ = std::numeric_limits<std::int64_t>::min() / 2;
  std::int64_t last_column_rank_ = -1;
  std::int64_t last_column_group_ = -1;
  std::int64_t last_read_cycle_ = std::numeric_limits<std::int64_t>::min() / 2;
  std::int64_t bus_free_ = 0;
};

}  // namespace reusesim::timing
