#pragma once
// The watchdog of docs/dram-model.md, "Refresh and progress": requests are queued, yet refreshes
// go by round after round without a read or write issued. Refreshes run on schedule, at most
// `slip` late (DramSpec::refresh_bound); with timings the loader accepts, a request is served
// between two of them. A refresh that ran late leaves the next one due sooner, and each round it
// is gap = tREFI - busy less late, so after tREFI / gap rounds of every unit, with a margin of 4,
// no request ever will be: the watchdog fires, once, and the controller issues nothing more.

#include <cstddef>
#include <cstdint>
#include <string>

#include "spec/accelerator_spec.h"

namespace reusesim::dram {

class Watchdog {
 public:
  Watchdog(const spec::DramSpec& spec, std::size_t refresh_units);

  // Counting starts again (a restart does not undo a firing).
  void restart() { refreshes_without_progress_ = 0; }
  void column_issued() { refreshes_without_progress_ = 0; }
  // A refresh was issued; true when this one passes the bound.
  bool refresh_issued(bool requests_queued);
  bool fired() const { return fired_; }
  // Refreshes with requests queued and no column command that it allows.
  std::int64_t bound() const { return bound_; }
  // Why it fired.
  std::string message() const;

 private:
  std::int64_t trefi_cycles_;
  std::int64_t bound_;
  std::int64_t refreshes_without_progress_ = 0;
  bool fired_ = false;
};

}  // namespace reusesim::dram
