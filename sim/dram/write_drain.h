#pragma once
// The write-drain policy (docs/dram-model.md, "Controller"): whether the scheduler serves writes
// rather than reads. Watermarks: drain from `high` queued writes down to `low`; drain_all: from a
// full write queue down to an empty one. With command queues, queued means still in the write
// queue. Writes are also served whenever no read waits; that is not a drain.

#include <cstdint>

#include "spec/accelerator_spec.h"

namespace reusesim::dram {

class WriteDrain {
 public:
  explicit WriteDrain(const spec::DramControllerSpec& controller)
      : start_at_(controller.write_drain == spec::WriteDrainPolicy::watermarks ? controller.write_drain_high
                                                                                : controller.write_queue_depth),
        stop_at_(controller.write_drain == spec::WriteDrainPolicy::watermarks ? controller.write_drain_low : 0) {}

  void restart() { draining_ = false; }
  // Weighs the writes queued now; true when a drain starts.
  bool update(std::int64_t queued_writes) {
    if (!draining_ && queued_writes >= start_at_) {
      draining_ = true;
      return true;
    }
    if (draining_ && queued_writes <= stop_at_) draining_ = false;
    return false;
  }
  bool draining() const { return draining_; }

 private:
  std::int64_t start_at_;
  std::int64_t stop_at_;
  bool draining_ = false;
};

}  // namespace reusesim::dram
