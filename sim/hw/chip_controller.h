#pragma once
// A chip's sequencer in a system: it walks the chip's segments (program::ChipWork) in order,
// replaying layer runs on the chip (hw::Accelerator, Driver::caller) and its steps of link
// programs on its link engine, each segment when the one before it is done, and a batch's first
// when every chip has finished the batch before (BatchBarrier).
//
// A chip whose layers another chip replays (ChipWork::same_layers_as, the twin) has no
// accelerator: at a layer segment it waits until its twin has finished that segment. That is
// the same as replaying them itself if and only if it reached the segment when its twin did,
// which the controller records (segment_start_ps) for the system to check.

#include <systemc>

#include <cstdint>
#include <vector>

#include "hw/accelerator.h"
#include "hw/link_engine.h"
#include "program/system_program.h"
#include "results/system_result.h"

namespace reusesim::hw {

// Where the chips meet between batches: every chip finishes a batch before any starts the next,
// so each batch is timed as if it ran alone (as one accelerator's batches are).
class BatchBarrier {
 public:
  explicit BatchBarrier(std::size_t chips) : chips_(chips) {}
  // From a chip's thread: its part of batch `batch` is done; returns once every chip's is.
  void finish(std::size_t batch);

 private:
  std::size_t chips_;
  std::vector<std::size_t> finished_;  // by batch: the chips done with it
  sc_core::sc_event all_finished_;
};

class ChipController : public sc_core::sc_module {
 public:
  // `accelerator` is null for a chip whose layers `twin` replays.
  ChipController(sc_core::sc_module_name name, std::int64_t chip, const program::ChipWork& work,
                 const std::vector<program::LinkProgram>& link_programs, Accelerator* accelerator,
                 const ChipController* twin, LinkEngine& engine, BatchBarrier& barrier);

  bool finished() const { return segments_done_ == work_.segments.size(); }
  const sc_core::sc_event& segment_done() const { return segment_done_; }
  // When the chip reached each segment it has started, and when it finished each it has finished.
  const std::vector<std::uint64_t>& segment_start_ps() const { return segment_start_ps_; }
  const std::vector<std::uint64_t>& segment_end_ps() const { return segment_end_ps_; }
  // Its part of each link program it ran, in order.
  const std::vector<results::CollectiveResult>& collectives() const { return collectives_; }

 private:
  void run();
  void run_link_program(const program::ChipSegment& segment);

  std::int64_t chip_;
  const program::ChipWork& work_;
  const std::vector<program::LinkProgram>& link_programs_;
  Accelerator* accelerator_;
  const ChipController* twin_;
  LinkEngine& engine_;
  BatchBarrier& barrier_;
  std::size_t segments_done_ = 0;
  sc_core::sc_event segment_done_;
  std::vector<std::uint64_t> segment_start_ps_, segment_end_ps_;
  std::vector<results::CollectiveResult> collectives_;
};

}  // namespace reusesim::hw
