#include "hw/core.h"

#include <algorithm>

#include "hw/systemc_compat.h"

namespace reusesim::hw {

namespace {

spec::TensorKind kind_of(program::TensorRole role) {
  switch (role) {
    case program::TensorRole::weights:
      return spec::TensorKind::weights;
    case program::TensorRole::outputs:
      return spec::TensorKind::outputs;
    default:
      return spec::TensorKind::inputs;
  }
}

results::StallCause load_cause(program::TensorRole role) {
  return role == program::TensorRole::weights ? results::StallCause::weights : results::StallCause::inputs;
}

// Tags of the transfers on each DMA engine, for completed_bytes(): the load engine's weights and
// everything else it loads; the store engine carries outputs only.
constexpr int kWeightTag = 0;
constexpr int kInputTag = 1;
constexpr int kOutputTag = 0;
int load_tag(program::TensorRole role) { return role == program::TensorRole::weights ? kWeightTag : kInputTag; }

// Picoseconds times bytes does not fit 64 bits.
__extension__ using Wide = unsigned __int128;

}  // namespace

CoreUnitTotals& CoreUnitTotals::operator+=(const CoreUnitTotals& unit) {
  elapsed += unit.elapsed;
  dram_span += unit.dram_span;
  compute += unit.compute;
  sync += unit.sync;
  for (std::size_t cause = 0; cause < results::kStallCauses; ++cause) stalls[cause] += unit.stalls[cause];
  add_work(unit);
  return *this;
}

void CoreUnitTotals::add_work(const CoreUnitTotals& unit) {
  for (std::size_t role = 0; role < program::kTensorRoles; ++role) {
    read_bytes[role] += unit.read_bytes[role];
    shared_read_bytes[role] += unit.shared_read_bytes[role];
    multicast_read_bytes[role] += unit.multicast_read_bytes[role];
  }
  write_bytes += unit.write_bytes;
  prefetched_bytes += unit.prefetched_bytes;
  macs += unit.macs;
  skipped_macs += unit.skipped_macs;
  vector_ops += unit.vector_ops;
  accumulator_updates += unit.accumulator_updates;
  sram.resize(unit.sram.size());
  for (std::size_t i = 0; i < unit.sram.size(); ++i) {
    sram[i].read_bytes += unit.sram[i].read_bytes;
    sram[i].write_bytes += unit.sram[i].write_bytes;
    sram[i].read_words += unit.sram[i].read_words;
    sram[i].write_words += unit.sram[i].write_words;
  }
}

CoreUnitTotals chip_unit(const std::vector<CoreUnitTotals>& cores) {
  std::size_t last = 0;
  for (std::size_t i = 1; i < cores.size(); ++i) {
    if (cores[i].elapsed > cores[last].elapsed) last = i;
  }
  CoreUnitTotals chip;
  chip.elapsed = cores[last].elapsed;
  // The chip's traffic moved from the earliest prefetch of any core (a core idle during the unit
  // before may have prefetched from its start) to the unit's end.
  sc_core::sc_time prefetch;
  for (const CoreUnitTotals& core : cores) prefetch = std::max(prefetch, core.dram_span - core.elapsed);
  chip.dram_span = chip.elapsed + prefetch;
  chip.compute = cores[last].compute;
  std::copy(std::begin(cores[last].stalls), std::end(cores[last].stalls), std::begin(chip.stalls));
  for (const CoreUnitTotals& core : cores) chip.add_work(core);
  return chip;
}

Core::Core(sc_core::sc_module_name name, std::int64_t index, const spec::AcceleratorSpec& spec,
           const timing::DramAddressMapper& mapper, Memory& memory, results::TimelineRecorder* timeline,
           std::uint64_t chunk_bytes)
    : sc_core::sc_module(name),
      spec_(spec),
      mapper_(mapper),
      load_dma_("load_dma", mapper, spec.dma.outstanding_requests, 0),
      store_dma_("store_dma", mapper, spec.dma.outstanding_requests, 0),
      array_("array", spec.compute),
      buffers_("sram", spec.sram.buffers.size(),
               [&](const char* buffer_name, std::size_t i) {
                 return new SramBuffer(buffer_name, spec.sram.buffers[i], spec.sram.clock_mhz);
               }),
      timeline_(timeline),
      timeline_core_(timeline != nullptr ? timeline->add_core() : 0) {
  if (chunk_bytes > 0) {
    load_dma_.split_at_chunks(chunk_bytes);
    store_dma_.split_at_chunks(chunk_bytes);
  }
  memory.bind(load_dma_.socket, index);
  memory.bind(store_dma_.socket, index);
  load_dma_.read_shared_runs(memory.shared_reads());
}

void Core::before_end_of_elaboration() {
  // SystemC runs processes that are ready at the same time in the order they were created: the
  // engines come after the chip's drive thread (created in its constructor, after this core's
  // children), as they did when one module was both, so that outputs stay the same.
  REUSESIM_HAS_PROCESS(Core);
  SC_THREAD(load_engine);
  SC_THREAD(compute_engine);
  SC_THREAD(store_engine);
  SC_THREAD(output_path_engine);
}

bool Core::begin_unit(const program::LayerProgram& program, std::size_t first, std::size_t end, const NextUnit* next) {
  compute_before_ = array_.stats();
  sram_before_.clear();
  for (const SramBuffer& buffer : buffers_) sram_before_.push_back(buffer.stats());
  program_ = &program;
  first_step_ = first;
  end_step_ = end;
  // The steps of earlier passes are done.
  done_.assign(program.steps.size(), false);
  std::fill(done_.begin(), done_.begin() + static_cast<std::ptrdiff_t>(first_step_), true);
  operands_read_.assign(program.steps.size(), false);
  finished_at_.assign(program.steps.size(), sc_core::SC_ZERO_TIME);
  network_tail_.assign(program.steps.size(), sc_core::SC_ZERO_TIME);
  remaining_ = static_cast<std::int64_t>(end_step_ - first_step_);
  compute_busy_ = sc_core::SC_ZERO_TIME;
  std::fill(std::begin(stall_by_cause_), std::end(stall_by_cause_), sc_core::SC_ZERO_TIME);
  read_bytes_by_role_.fill(0);
  shared_read_bytes_by_role_.fill(0);
  multicast_read_bytes_by_role_.fill(0);
  write_bytes_ = 0;
  adopt_prefetched_loads();
  next_program_ = next != nullptr ? next->program : nullptr;
  if (next != nullptr) {
    next_first_step_ = next->first_step;
    next_end_step_ = next->end_step;
  }
  prefetch_room_bytes_ = next != nullptr ? weight_room_bytes(program) : 0;
  unit_end_ = sc_core::sc_time_stamp();
  if (remaining_ > 0) {
    ++generation_;
    start_.notify();
  }
  return busy();
}

CoreUnitTotals Core::end_unit(const sc_core::sc_time& start) {
  const sc_core::sc_time elapsed = unit_end_ - start;
  // The array's last step ends before the last store: that tail is output drain.
  sc_core::sc_time attributed = compute_busy_;
  for (const sc_core::sc_time& stall : stall_by_cause_) attributed += stall;
  stall_by_cause_[static_cast<int>(results::StallCause::output_drain)] +=
      elapsed > attributed ? elapsed - attributed : sc_core::SC_ZERO_TIME;
  if (timeline_ != nullptr) {
    timeline_->array_span(timeline_core_, results::ArrayActivity::stall_output_drain, picoseconds(start + attributed),
                          picoseconds(start + elapsed));
    timeline_->array_span(timeline_core_, results::ArrayActivity::sync, picoseconds(unit_end_),
                          picoseconds(sc_core::sc_time_stamp()));
  }
  CoreUnitTotals unit;
  unit.elapsed = elapsed;
  unit.sync = sc_core::sc_time_stamp() - unit_end_;
  unit.dram_span = elapsed + prefetch_span_;
  unit.compute = compute_busy_;
  std::copy(std::begin(stall_by_cause_), std::end(stall_by_cause_), std::begin(unit.stalls));
  unit.read_bytes = read_bytes_by_role_;
  unit.shared_read_bytes = shared_read_bytes_by_role_;
  unit.multicast_read_bytes = multicast_read_bytes_by_role_;
  unit.write_bytes = write_bytes_;
  unit.prefetched_bytes = prefetched_bytes_;
  const ComputeStats& compute = array_.stats();
  unit.macs = compute.macs - compute_before_.macs;
  unit.skipped_macs = compute.skipped_macs - compute_before_.skipped_macs;
  unit.vector_ops = compute.vector_ops - compute_before_.vector_ops;
  unit.accumulator_updates = compute.accumulator_updates - compute_before_.accumulator_updates;
  unit.sram.resize(buffers_.size());
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const SramStats& now = buffers_[i].stats();
    unit.sram[i].read_bytes = now.read_bytes - sram_before_[i].read_bytes;
    unit.sram[i].write_bytes = now.write_bytes - sram_before_[i].write_bytes;
    unit.sram[i].read_words = now.read_words - sram_before_[i].read_words;
    unit.sram[i].write_words = now.write_words - sram_before_[i].write_words;
  }
  return unit;
}

void Core::restart() {
  for (SramBuffer& buffer : buffers_) buffer.restart();
}

SramBuffer& Core::buffer_for(spec::TensorKind kind) { return buffers_[spec_.sram.buffer_index(kind)]; }

sc_core::sc_time Core::sram_access(spec::TensorKind kind, std::uint64_t bytes, bool is_write) {
  // Exactly the program's bytes, never clamped; a step that reads nothing from a buffer costs it
  // nothing. Loads and stores fit their buffers (the mapper sizes tiles so; `replay` checks,
  // program::check_programs_on); a read of more than the buffer holds re-reads it: whole passes
  // of the buffer, then the rest, back to back on one port.
  if (bytes == 0) return sc_core::sc_time_stamp();
  SramBuffer& buffer = buffer_for(kind);
  const auto capacity = static_cast<std::uint64_t>(buffer.spec().capacity_bytes);
  SramAccess access;
  access.is_write = is_write;
  access.bytes = std::min(bytes, capacity);
  access.passes = bytes / access.bytes;
  access.tail_bytes = bytes % access.bytes;
  return buffer.reserve(access);
}

void Core::wait_for_unit(std::uint64_t& seen) {
  while (generation_ == seen) sc_core::wait(start_);
  seen = generation_;
}

std::int32_t Core::wait_for_dependencies(const program::Step& step) {
  // A load waits on a compute step for its double-buffer slot: the slot is free once the array has
  // read its operands, while the tile's outputs may still be in the output path.
  const bool is_load = step.kind == program::StepKind::load;
  const auto all_done = [&] {
    return std::all_of(step.after.begin(), step.after.end(), [&](std::int32_t i) {
      return done_[static_cast<std::size_t>(i)] || (is_load && operands_read_[static_cast<std::size_t>(i)]);
    });
  };
  while (!all_done()) sc_core::wait(step_done_);
  std::int32_t last = -1;
  for (std::int32_t i : step.after) {
    if (last < 0 || finished_at_[static_cast<std::size_t>(i)] > finished_at_[static_cast<std::size_t>(last)]) last = i;
  }
  return last;
}

std::int64_t Core::dram_bytes(const program::Step& step) const {
  return static_cast<std::int64_t>(program::burst_extent(step.address, step.bytes, mapper_.burst_bytes()));
}

void Core::record_transfer(results::DmaTrack track, const program::Step& step, const sc_core::sc_time& submitted) {
  if (timeline_ != nullptr)
    timeline_->transfer(timeline_core_, track, step.tensor, picoseconds(submitted),
                        picoseconds(sc_core::sc_time_stamp()), dram_bytes(step));
}

void Core::charge(results::StallCause cause, const sc_core::sc_time& from, const sc_core::sc_time& to) {
  if (to <= from) return;
  stall_by_cause_[static_cast<int>(cause)] += to - from;
  if (timeline_ != nullptr)
    timeline_->array_span(timeline_core_, results::stall_activity(cause), picoseconds(from), picoseconds(to));
}

void Core::charge_wait(const sc_core::sc_time& ready, const MemoryProgress& before, std::int32_t last) {
  // Waiting on a store (an output slot) is output drain, on a vector step vector work. Waiting on a
  // load: the end of the wait that the load's last request spent crossing a network-on-chip is the
  // network's. The rest: the load DMA serves loads in order, the DRAM reorders requests and the
  // stores share it, so the load that arrives last may have waited behind other traffic. It is
  // split between weights, inputs and output drain in proportion to the bytes of each the memory
  // delivered during the wait, in whole picoseconds (exact; the last load's own last bytes arrive
  // then, so there are some).
  const program::Step& last_arrived = program_->steps[static_cast<std::size_t>(last)];
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (last_arrived.kind != program::StepKind::load) {
    charge(
        last_arrived.kind == program::StepKind::store ? results::StallCause::output_drain : results::StallCause::vector,
        ready, now);
    return;
  }
  const sc_core::sc_time memory_end = now - std::min(now - ready, network_tail_[static_cast<std::size_t>(last)]);
  charge_memory_wait(ready, memory_end, before, last_arrived.tensor);
  charge(results::StallCause::noc, memory_end, now);
}

void Core::charge_memory_wait(const sc_core::sc_time& ready, const sc_core::sc_time& end, const MemoryProgress& before,
                              program::TensorRole last_tensor) {
  if (end <= ready) return;
  const MemoryProgress after = memory_progress();
  const auto weights = static_cast<Wide>(after.weight_bytes - before.weight_bytes);
  const auto inputs = static_cast<Wide>(after.input_bytes - before.input_bytes);
  const auto outputs = static_cast<Wide>(after.output_bytes - before.output_bytes);
  const Wide total = weights + inputs + outputs;
  if (total == 0) {
    charge(load_cause(last_tensor), ready, end);
    return;
  }
  const auto wait_ps = static_cast<Wide>((end - ready).value());
  const sc_core::sc_time weights_end =
      ready + sc_core::sc_time::from_value(static_cast<std::uint64_t>(wait_ps * weights / total));
  const sc_core::sc_time inputs_end =
      weights_end + sc_core::sc_time::from_value(static_cast<std::uint64_t>(wait_ps * inputs / total));
  charge(results::StallCause::weights, ready, weights_end);
  charge(results::StallCause::inputs, weights_end, inputs_end);
  charge(results::StallCause::output_drain, inputs_end, end);
}

Core::MemoryProgress Core::memory_progress() const {
  return {load_dma_.completed_bytes(kWeightTag), load_dma_.completed_bytes(kInputTag),
          store_dma_.completed_bytes(kOutputTag)};
}

void Core::finish(std::int32_t index) {
  done_[static_cast<std::size_t>(index)] = true;
  finished_at_[static_cast<std::size_t>(index)] = sc_core::sc_time_stamp();
  step_done_.notify();
  if (--remaining_ == 0) {
    unit_end_ = sc_core::sc_time_stamp();
    unit_done_.notify();
  }
}

void Core::transfer_engine(program::StepKind kind) {
  // Loads and stores: each step goes to its DMA engine once its dependencies are done.
  const bool is_load = kind == program::StepKind::load;
  DmaEngine& dma = is_load ? load_dma_ : store_dma_;
  std::uint64_t seen = 0;
  while (true) {
    wait_for_unit(seen);
    const program::LayerProgram& program = *program_;
    for (std::size_t i = first_step_; i < end_step_; ++i) {
      const program::Step& step = program.steps[i];
      if (step.kind != kind || (is_load && prefetched_[i])) continue;
      wait_for_dependencies(step);
      const auto index = static_cast<std::int32_t>(i);
      if (is_load) {
        read_bytes(step.tensor) += dram_bytes(step);
      } else {
        write_bytes_ += dram_bytes(step);
        sram_access(spec::TensorKind::outputs, step.bytes, false);  // read out of the output buffer
      }
      const sc_core::sc_time submitted = sc_core::sc_time_stamp();
      const int tag = is_load ? load_tag(step.tensor) : kOutputTag;
      dma.submit(DmaTransfer{step.address, step.bytes, !is_load, sc_core::SC_ZERO_TIME, tag},
                 [this, index, &step, is_load, submitted](const DmaEngine::Done& done) {
                   if (is_load) {
                     sram_access(kind_of(step.tensor), step.bytes, true);  // the data lands in its buffer
                     count_on_chip(step.tensor, done);
                     network_tail_[static_cast<std::size_t>(index)] = done.last_network_time;
                   }
                   record_transfer(is_load ? results::DmaTrack::load : results::DmaTrack::store, step, submitted);
                   finish(index);
                 });
    }
    if (is_load) prefetch_next_weights();
  }
}

std::int64_t Core::weight_room_bytes(const program::LayerProgram& program) {
  const std::size_t weight_buffer = spec_.sram.buffer_index(spec::TensorKind::weights);
  std::uint64_t largest = 0, second = 0;
  for (const program::Step& step : program.steps) {
    if (step.kind != program::StepKind::load && step.kind != program::StepKind::store) continue;
    if (spec_.sram.buffer_index(kind_of(step.tensor)) != weight_buffer) continue;
    if (step.bytes > largest) {
      second = largest;
      largest = step.bytes;
    } else if (step.bytes > second) {
      second = step.bytes;
    }
  }
  const auto kept = static_cast<std::int64_t>(largest + second);
  return std::max<std::int64_t>(0, buffers_[weight_buffer].spec().capacity_bytes - kept);
}

void Core::count_on_chip(program::TensorRole role, const DmaEngine::Done& done) {
  shared_read_bytes_by_role_[static_cast<std::size_t>(role)] += done.shared_bytes;
  multicast_read_bytes_by_role_[static_cast<std::size_t>(role)] += done.multicast_bytes;
}

void Core::prefetch_next_weights() {
  if (next_program_ == nullptr) return;
  const std::vector<program::Step>& steps = next_program_->steps;
  prefetch_state_.assign(steps.size(), 0);
  prefetch_done_at_.assign(steps.size(), sc_core::SC_ZERO_TIME);
  prefetch_outcome_.assign(steps.size(), DmaEngine::Done{});
  const std::uint64_t owner = generation_ + 1;
  prefetch_owner_ = owner;
  prefetch_started_at_ = sc_core::sc_time_stamp();
  std::int64_t room = prefetch_room_bytes_;
  for (std::size_t i = next_first_step_; i < next_end_step_; ++i) {
    const program::Step& step = steps[i];
    if (step.kind != program::StepKind::load || step.tensor != program::TensorRole::weights || !step.after.empty())
      continue;
    if (static_cast<std::int64_t>(step.bytes) > room) break;
    room -= static_cast<std::int64_t>(step.bytes);
    prefetch_state_[i] = 1;
    const auto index = static_cast<std::int32_t>(i);
    const sc_core::sc_time submitted = sc_core::sc_time_stamp();
    load_dma_.submit(DmaTransfer{step.address, step.bytes, false, sc_core::SC_ZERO_TIME, kWeightTag},
                     [this, index, owner, &step, submitted](const DmaEngine::Done& done) {
                       sram_access(spec::TensorKind::weights, step.bytes, true);
                       record_transfer(results::DmaTrack::load, step, submitted);
                       const auto slot = static_cast<std::size_t>(index);
                       if (generation_ == owner) {
                         count_on_chip(program::TensorRole::weights, done);
                         network_tail_[slot] = done.last_network_time;
                         finish(index);  // its unit has started and waits for it
                       } else {
                         prefetch_state_[slot] = 2;
                         prefetch_done_at_[slot] = sc_core::sc_time_stamp();
                         prefetch_outcome_[slot] = done;
                       }
                     });
  }
}

void Core::adopt_prefetched_loads() {
  prefetched_.assign(program_->steps.size(), false);
  prefetched_bytes_ = 0;
  prefetch_span_ = sc_core::SC_ZERO_TIME;
  if (prefetch_owner_ != generation_ + 1 || prefetch_state_.size() != program_->steps.size()) return;
  for (std::size_t i = 0; i < prefetch_state_.size(); ++i) {
    if (prefetch_state_[i] == 0) continue;
    const program::Step& step = program_->steps[i];
    prefetched_[i] = true;
    const std::int64_t bytes = dram_bytes(step);
    read_bytes(step.tensor) += bytes;
    prefetched_bytes_ += bytes;
    // The prefetch's bytes moved from its start to its last arrival, or to now if one is still arriving.
    const sc_core::sc_time moved_until = prefetch_state_[i] == 2 ? prefetch_done_at_[i] : sc_core::sc_time_stamp();
    prefetch_span_ = std::max(prefetch_span_, moved_until - prefetch_started_at_);
    if (prefetch_state_[i] == 2) {  // else still in flight: it finishes as one of the unit's loads
      count_on_chip(step.tensor, prefetch_outcome_[i]);
      done_[i] = true;
      finished_at_[i] = prefetch_done_at_[i];
      --remaining_;
    }
  }
}

void Core::output_path_engine() {
  // Tiles leave the output path in the order they entered it (a pipeline): each step is done when
  // its outputs are through.
  while (true) {
    while (path_queue_.empty()) sc_core::wait(path_handed_);
    const auto [index, end] = path_queue_.front();
    if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
    path_queue_.pop_front();
    finish(index);
  }
}

void Core::wait_for_output_path(const sc_core::sc_time& until) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (until <= now) return;
  charge(results::StallCause::vector, now, until);
  sc_core::wait(until - now);
}

void Core::load_engine() { transfer_engine(program::StepKind::load); }
void Core::store_engine() { transfer_engine(program::StepKind::store); }

void Core::compute_engine() {
  std::uint64_t seen = 0;
  const sc_core::sc_time period = array_.clock_period();
  const std::int64_t element_bytes = spec_.element_bytes();
  while (true) {
    wait_for_unit(seen);
    const program::LayerProgram& program = *program_;
    for (std::size_t i = first_step_; i < end_step_; ++i) {
      const program::Step& step = program.steps[i];
      if (step.kind != program::StepKind::compute && step.kind != program::StepKind::vector) continue;
      const sc_core::sc_time ready = sc_core::sc_time_stamp();
      const MemoryProgress before = memory_progress();
      const std::int32_t last = wait_for_dependencies(step);
      if (sc_core::sc_time_stamp() > ready && last >= 0) charge_wait(ready, before, last);
      const bool is_compute = step.kind == program::StepKind::compute;
      // The accumulators are double-buffered: a tile starts on the array once the tile before the
      // last has left the output path. A vector step, or a GEMM on the vector unit, runs on the
      // output path's units: it waits until they are idle.
      const bool on_vector_unit = !is_compute || step.unit == timing::GemmUnit::vector;
      wait_for_output_path(on_vector_unit ? path_latest_end_ : path_older_end_);
      // Operands come out of SRAM while the array runs, and partial sums that spilled to the output
      // buffer are read from it and written back; the slowest of them sets the pace.
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      sc_core::sc_time sram_done = start;
      if (is_compute) {
        const auto weight_bytes = static_cast<std::uint64_t>(step.gemm.weight_elements() * element_bytes);
        sram_done = std::max(
            sram_done, sram_access(step.stationary_in_inputs ? spec::TensorKind::inputs : spec::TensorKind::weights,
                                   weight_bytes, false));
        sram_done = std::max(
            sram_done, sram_access(step.streamed_in_weights ? spec::TensorKind::weights : spec::TensorKind::inputs,
                                   step.bytes - weight_bytes, false));
        sram_done = std::max(sram_done, sram_access(spec::TensorKind::outputs, step.psum_read_bytes, false));
        sram_done = std::max(sram_done, sram_access(spec::TensorKind::outputs, step.psum_write_bytes, true));
      } else {
        sram_done = std::max(
            sram_done, sram_access(step.streamed_in_weights ? spec::TensorKind::weights : spec::TensorKind::inputs,
                                   step.bytes, false));
      }
      const StepCycles cycles = array_.execute(step);
      const sc_core::sc_time own_time = period * static_cast<double>(cycles.own);
      const sc_core::sc_time duration = std::max(own_time, sram_done - start);
      compute_busy_ += own_time;
      stall_by_cause_[static_cast<int>(results::StallCause::sram)] += duration - own_time;
      if (timeline_ != nullptr) {
        // The step's own cycles first, then the SRAM's beyond them.
        timeline_->array_span(timeline_core_,
                              is_compute ? results::ArrayActivity::compute : results::ArrayActivity::vector,
                              picoseconds(start), picoseconds(start + own_time));
        timeline_->array_span(timeline_core_, results::ArrayActivity::stall_sram, picoseconds(start + own_time),
                              picoseconds(start + duration));
      }
      const auto index = static_cast<std::int32_t>(i);
      if (cycles.output_path == 0) {
        sc_core::wait(duration);
        finish(index);
        continue;
      }
      // The output path takes the tile's rows as the array produces them, once it is done with
      // the tile before: it ends its busiest stage's cycles after it starts, and never before the
      // array's last row. The vector unit is those units: its tile's output-path work follows its
      // MACs.
      const sc_core::sc_time path_start = on_vector_unit ? start + duration : std::max(start, path_latest_end_);
      const sc_core::sc_time path_end =
          std::max(start + duration, path_start + period * static_cast<double>(cycles.output_path));
      path_older_end_ = path_latest_end_;
      path_latest_end_ = path_end;
      path_queue_.emplace_back(index, path_end);
      path_handed_.notify();
      sc_core::wait(duration);
      operands_read_[i] = true;  // its double-buffer slots are free
      step_done_.notify();
    }
    // The last tile's time in the output path after the array has finished.
    charge(results::StallCause::vector, sc_core::sc_time_stamp(), path_latest_end_);
  }
}

}  // namespace reusesim::hw
