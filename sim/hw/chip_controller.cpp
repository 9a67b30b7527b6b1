#include "hw/chip_controller.h"

#include "hw/systemc_compat.h"

namespace reusesim::hw {

void BatchBarrier::finish(std::size_t batch) {
  if (finished_.size() <= batch) finished_.resize(batch + 1, 0);
  if (++finished_[batch] == chips_) all_finished_.notify(sc_core::SC_ZERO_TIME);
  while (finished_[batch] < chips_) sc_core::wait(all_finished_);
}

ChipController::ChipController(sc_core::sc_module_name name, std::int64_t chip, const program::ChipWork& work,
                               const std::vector<program::LinkProgram>& link_programs, Accelerator* accelerator,
                               const ChipController* twin, LinkEngine& engine, BatchBarrier& barrier)
    : sc_core::sc_module(name),
      chip_(chip),
      work_(work),
      link_programs_(link_programs),
      accelerator_(accelerator),
      twin_(twin),
      engine_(engine),
      barrier_(barrier) {
  REUSESIM_HAS_PROCESS(ChipController);
  SC_THREAD(run);
}

void ChipController::run() {
  for (const program::ChipSegment& segment : work_.segments) {
    if (segments_done_ > 0 && segment.batch != work_.segments[segments_done_ - 1].batch)
      barrier_.finish(work_.segments[segments_done_ - 1].batch);
    segment_start_ps_.push_back(picoseconds(sc_core::sc_time_stamp()));
    if (segment.kind == program::ChipSegment::Kind::link) {
      run_link_program(segment);
    } else if (accelerator_ != nullptr) {
      accelerator_->replay_runs(segment.first_run, segment.end_run);
    } else {
      while (twin_->segments_done_ <= segments_done_) sc_core::wait(twin_->segment_done_);
    }
    segment_end_ps_.push_back(picoseconds(sc_core::sc_time_stamp()));
    ++segments_done_;
    segment_done_.notify(sc_core::SC_ZERO_TIME);
  }
}

void ChipController::run_link_program(const program::ChipSegment& segment) {
  const program::LinkProgram& program = link_programs_[segment.link_program];
  const LinkEngine::Stats before = engine_.stats();
  results::CollectiveResult result;
  result.name = program.name;
  result.chip = chip_;
  result.batch = segment.batch;
  result.start_ps = picoseconds(sc_core::sc_time_stamp());
  engine_.run(program.chips[static_cast<std::size_t>(chip_)], static_cast<std::int64_t>(segment.link_program));
  const LinkEngine::Stats& after = engine_.stats();
  result.end_ps = picoseconds(sc_core::sc_time_stamp());
  result.receive_wait_ps = after.receive_wait_ps - before.receive_wait_ps;
  result.reduce_cycles = after.reduce_cycles - before.reduce_cycles;
  result.sent_bytes = after.sent_bytes - before.sent_bytes;
  collectives_.push_back(result);
}

}  // namespace reusesim::hw
