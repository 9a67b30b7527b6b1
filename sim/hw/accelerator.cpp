#include "hw/accelerator.h"

#include <algorithm>
#include <cmath>

#include "hw/systemc_compat.h"
#include "mapping/mapper.h"

namespace reusesim::hw {

namespace {

TensorKind kind_of(mapping::TensorRole role) {
  switch (role) {
    case mapping::TensorRole::weights: return TensorKind::weights;
    case mapping::TensorRole::outputs: return TensorKind::outputs;
    default: return TensorKind::inputs;
  }
}

std::int64_t to_cycles(const sc_core::sc_time& time, const sc_core::sc_time& period) {
  return static_cast<std::int64_t>(std::llround(time / period));
}

}  // namespace

Accelerator::Accelerator(sc_core::sc_module_name name, const AcceleratorSpec& spec, std::vector<LayerRun> runs,
                         TimelineRecorder* timeline)
    : sc_core::sc_module(name),
      spec_(spec),
      dram_("dram", spec.dram),
      load_dma_("load_dma", dram_.mapper(), kDmaOutstanding, 0),
      store_dma_("store_dma", dram_.mapper(), kDmaOutstanding, 0),
      array_("array", spec.compute),
      buffers_("sram", spec.sram.buffers.size(),
               [&](const char* buffer_name, std::size_t i) {
                 return new SramBuffer(buffer_name, spec.sram.buffers[i], spec.sram.clock_mhz);
               }),
      runs_(std::move(runs)),
      timeline_(timeline) {
  REUSESIM_HAS_PROCESS(Accelerator);
  if (timeline_ != nullptr) {
    timeline_->set_compute_period(array_.clock_period());
    dram_.record_to(*timeline_);
  }
  load_dma_.socket.bind(dram_.socket);
  store_dma_.socket.bind(dram_.socket);
  SC_THREAD(drive);
  SC_THREAD(load_engine);
  SC_THREAD(compute_engine);
  SC_THREAD(store_engine);
}

SramBuffer& Accelerator::buffer_for(TensorKind kind) { return buffers_[spec_.sram.buffer_index(kind)]; }

sc_core::sc_time Accelerator::sram_access(TensorKind kind, std::uint64_t bytes, bool is_write) {
  // Exactly the program's bytes, never clamped; a step that reads nothing from a buffer costs it
  // nothing. Loads and stores fit their buffers (the mapper sizes tiles so; `replay` checks,
  // mapping::check_programs_on); a read of more than the buffer holds re-reads it: whole passes
  // of the buffer, then the rest, back to back on one port.
  if (bytes == 0) return sc_core::sc_time_stamp();
  SramBuffer& buffer = buffer_for(kind);
  const auto capacity = static_cast<std::uint64_t>(buffer.spec().capacity_bytes);
  SramAccess access;
  access.is_write = is_write;
  access.row_bytes = std::min(bytes, capacity);
  access.passes = bytes / access.row_bytes;
  access.tail_bytes = bytes % access.row_bytes;
  return buffer.reserve(access);
}

void Accelerator::wait_for_layer(std::uint64_t& seen) {
  while (generation_ == seen) sc_core::wait(start_);
  seen = generation_;
}

std::int32_t Accelerator::wait_for_dependencies(const mapping::Step& step) {
  const auto all_done = [&] {
    return std::all_of(step.after.begin(), step.after.end(), [&](std::int32_t i) { return done_[static_cast<std::size_t>(i)]; });
  };
  while (!all_done()) sc_core::wait(step_done_);
  std::int32_t last = -1;
  for (std::int32_t i : step.after) {
    if (last < 0 || finished_at_[static_cast<std::size_t>(i)] > finished_at_[static_cast<std::size_t>(last)]) last = i;
  }
  return last;
}

void Accelerator::finish(std::int32_t index) {
  done_[static_cast<std::size_t>(index)] = true;
  finished_at_[static_cast<std::size_t>(index)] = sc_core::sc_time_stamp();
  step_done_.notify();
  if (--remaining_ == 0) layer_done_.notify();
}

void Accelerator::transfer_engine(mapping::StepKind kind) {
  // Loads and stores: each step goes to its DMA engine once its dependencies are done.
  const bool is_load = kind == mapping::StepKind::load;
  DmaEngine& dma = is_load ? load_dma_ : store_dma_;
  std::uint64_t seen = 0;
  while (true) {
    wait_for_layer(seen);
    const mapping::LayerProgram& program = *program_;
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const mapping::Step& step = program.steps[i];
      if (step.kind != kind) continue;
      wait_for_dependencies(step);
      const auto index = static_cast<std::int32_t>(i);
      if (is_load) {
        read_bytes_by_role_[static_cast<int>(step.tensor)] +=
            static_cast<std::int64_t>(mapping::burst_extent(step.address, step.bytes, dram_.mapper().burst_bytes()));
      } else {
        sram_access(TensorKind::outputs, step.bytes, false);  // read out of the output buffer
      }
      const sc_core::sc_time submitted = sc_core::sc_time_stamp();
      dma.submit(DmaTransfer{step.address, step.bytes, !is_load, sc_core::SC_ZERO_TIME},
                 [this, index, &step, is_load, submitted] {
                   if (is_load) sram_access(kind_of(step.tensor), step.bytes, true);  // the data lands in its buffer
                   if (timeline_ != nullptr) {
                     const auto bytes = mapping::burst_extent(step.address, step.bytes, dram_.mapper().burst_bytes());
                     timeline_->transfer(is_load ? DmaTrack::load : DmaTrack::store, step.tensor, submitted,
                                         sc_core::sc_time_stamp(), static_cast<std::int64_t>(bytes));
                   }
                   finish(index);
                 });
    }
  }
}

void Accelerator::load_engine() { transfer_engine(mapping::StepKind::load); }
void Accelerator::store_engine() { transfer_engine(mapping::StepKind::store); }

void Accelerator::compute_engine() {
  std::uint64_t seen = 0;
  const sc_core::sc_time period = array_.clock_period();
  const std::int64_t element_bytes = mapping::element_bytes(spec_);
  while (true) {
    wait_for_layer(seen);
    const mapping::LayerProgram& program = *program_;
    for (std::size_t i = 0; i < program.steps.size(); ++i) {
      const mapping::Step& step = program.steps[i];
      if (step.kind != mapping::StepKind::compute && step.kind != mapping::StepKind::vector) continue;
      // Waiting: charged to what arrived last.
      const sc_core::sc_time ready = sc_core::sc_time_stamp();
      const std::int32_t last = wait_for_dependencies(step);
      const sc_core::sc_time waited = sc_core::sc_time_stamp() - ready;
      if (waited > sc_core::SC_ZERO_TIME && last >= 0) {
        const mapping::Step& blocker = program.steps[static_cast<std::size_t>(last)];
        const StallCause cause = blocker.kind == mapping::StepKind::store ? StallCause::output_drain
                            : blocker.kind == mapping::StepKind::load
                                ? (blocker.tensor == mapping::TensorRole::weights ? StallCause::weights : StallCause::inputs)
                                : StallCause::vector;
        stall_by_cause_[static_cast<int>(cause)] += waited;
        if (timeline_ != nullptr) timeline_->array_span(stall_activity(cause), ready, sc_core::sc_time_stamp());
      }
      // Operands come out of SRAM while the array runs; the slower of the two sets the pace.
      sc_core::sc_time sram_done = sc_core::sc_time_stamp();
      if (step.kind == mapping::StepKind::compute) {
        const auto weight_bytes = static_cast<std::uint64_t>(step.gemm.weight_elements() * element_bytes);
        sram_done = std::max(sram_done, sram_access(TensorKind::weights, weight_bytes, false));
        sram_done = std::max(sram_done, sram_access(TensorKind::inputs, step.bytes - weight_bytes, false));
      } else {
        sram_done = std::max(sram_done, sram_access(TensorKind::inputs, step.bytes, false));
      }
      const std::int64_t array_cycles = step.kind == mapping::StepKind::compute ? mapping::gemm_cycles(spec_.compute, step.gemm).cycles : 0;
      const std::int64_t busy = array_.execute(step);
      const sc_core::sc_time compute_time = period * static_cast<double>(busy);
      const sc_core::sc_time duration = std::max(compute_time, sram_done - sc_core::sc_time_stamp());
      const std::int64_t own = step.kind == mapping::StepKind::compute ? array_cycles : busy;
      const sc_core::sc_time own_time = period * static_cast<double>(own);
      compute_busy_ += own_time;
      stall_by_cause_[static_cast<int>(StallCause::vector)] += compute_time - own_time;
      stall_by_cause_[static_cast<int>(StallCause::sram)] += duration - compute_time;
      if (timeline_ != nullptr) {
        // The step's own cycles first, then the fused vector work beyond them, then the SRAM's.
        const sc_core::sc_time now = sc_core::sc_time_stamp();
        const bool is_compute = step.kind == mapping::StepKind::compute;
        timeline_->array_span(is_compute ? ArrayActivity::compute : ArrayActivity::vector, now, now + own_time);
        timeline_->array_span(ArrayActivity::stall_vector, now + own_time, now + compute_time);
        timeline_->array_span(ArrayActivity::stall_sram, now + compute_time, now + duration);
      }
      sc_core::wait(duration);
      finish(static_cast<std::int32_t>(i));
    }
  }
}

void Accelerator::restart_machine() {
  // On a DRAM clock edge, so that the channels' cycles since the restart are whole.
  sc_core::wait(dram_.next_clock_edge() - sc_core::sc_time_stamp());
  if (!dram_.restart()) SC_REPORT_ERROR("reusesim/accelerator", "a batch started while the DRAM was still busy");
  for (SramBuffer& buffer : buffers_) buffer.restart();
}

void Accelerator::drive() {
  const sc_core::sc_time period = array_.clock_period();
  for (const LayerRun& run : runs_) {
    if (run.starts_batch && !results_.empty()) restart_machine();
    const DramChannelStats dram_before = dram_.total_stats();
    const ComputeStats compute_before = array_.stats();
    std::int64_t sram_read_before = 0, sram_write_before = 0;
    for (const SramBuffer& buffer : buffers_) {
      sram_read_before += buffer.stats().read_bytes;
      sram_write_before += buffer.stats().write_bytes;
    }
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    if (timeline_ != nullptr) timeline_->begin_layer(start);
    program_ = &run.program;
    done_.assign(run.program.steps.size(), false);
    finished_at_.assign(run.program.steps.size(), sc_core::SC_ZERO_TIME);
    remaining_ = static_cast<std::int64_t>(run.program.steps.size());
    compute_busy_ = sc_core::SC_ZERO_TIME;
    std::fill(std::begin(stall_by_cause_), std::end(stall_by_cause_), sc_core::SC_ZERO_TIME);
    std::fill(std::begin(read_bytes_by_role_), std::end(read_bytes_by_role_), 0);
    if (remaining_ > 0) {
      ++generation_;
      start_.notify();
      sc_core::wait(layer_done_);
    }
    const sc_core::sc_time elapsed = sc_core::sc_time_stamp() - start;
    LayerResult result;
    result.layer = run.program.layer;
    result.type = run.program.type;
    result.mapping = run.program.mapping;
    result.onchip_read_input_bytes = run.program.onchip_input_bytes;
    result.onchip_kept_output_bytes = run.program.onchip_output_bytes;
    result.batch = run.batch;
    result.seconds = elapsed.to_seconds();
    result.cycles = to_cycles(elapsed, period);
    result.compute_cycles = to_cycles(compute_busy_, period);
    // The array's last step ends before the last store: that tail is output drain.
    sc_core::sc_time attributed = compute_busy_;
    for (const sc_core::sc_time& stall : stall_by_cause_) attributed += stall;
    stall_by_cause_[static_cast<int>(StallCause::output_drain)] += elapsed > attributed ? elapsed - attributed : sc_core::SC_ZERO_TIME;
    if (timeline_ != nullptr) {
      timeline_->array_span(ArrayActivity::stall_output_drain, start + attributed, start + elapsed);
      timeline_->end_layer(start + elapsed);
    }
    result.stall_weights = to_cycles(stall_by_cause_[static_cast<int>(StallCause::weights)], period);
    result.stall_inputs = to_cycles(stall_by_cause_[static_cast<int>(StallCause::inputs)], period);
    result.stall_sram = to_cycles(stall_by_cause_[static_cast<int>(StallCause::sram)], period);
    result.stall_vector = to_cycles(stall_by_cause_[static_cast<int>(StallCause::vector)], period);
    // Rounding each cause separately could leave a cycle over or under: drain takes the rest.
    result.stall_output_drain = std::max<std::int64_t>(
        0, result.cycles - result.compute_cycles - result.stall_weights - result.stall_inputs - result.stall_sram -
               result.stall_vector);
    const ComputeStats& compute = array_.stats();
    result.macs = compute.macs - compute_before.macs;
    result.vector_ops = compute.vector_ops - compute_before.vector_ops;
    result.dram_read_weight_bytes = read_bytes_by_role_[static_cast<int>(mapping::TensorRole::weights)];
    result.dram_read_input_bytes = read_bytes_by_role_[static_cast<int>(mapping::TensorRole::inputs)] +
                                   read_bytes_by_role_[static_cast<int>(mapping::TensorRole::state)];
    const DramChannelStats dram_after = dram_.total_stats();
    result.dram_read_bytes = dram_after.read_bytes - dram_before.read_bytes;
    result.dram_write_bytes = dram_after.write_bytes - dram_before.write_bytes;
    result.dram_write_output_bytes = result.dram_write_bytes;
    result.dram_requests = (dram_after.reads + dram_after.writes) - (dram_before.reads + dram_before.writes);
    result.dram_row_hits = dram_after.row_hits - dram_before.row_hits;
    result.dram_activates = dram_after.activates - dram_before.activates;
    for (const SramBuffer& buffer : buffers_) {
      result.sram_read_bytes += buffer.stats().read_bytes;
      result.sram_write_bytes += buffer.stats().write_bytes;
    }
    result.sram_read_bytes -= sram_read_before;
    result.sram_write_bytes -= sram_write_before;
    results_.push_back(result);
  }
  sc_core::sc_stop();
}

}  // namespace reusesim::hw
