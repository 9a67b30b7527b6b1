#include "hw/accelerator.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <tuple>

#include "hw/dram_flow_memory.h"
#include "hw/dram_system.h"
#include "hw/ideal_memory.h"
#include "hw/network_on_chip.h"
#include "hw/shared_memory.h"
#include "hw/systemc_compat.h"
#include "results/cycle_count.h"

namespace reusesim::hw {

namespace {

// The fast fidelity's memory takes transfers in chunks of this many bytes (or a row run, if
// larger): big enough that a 13 GB weight stream is some 200,000 requests, small enough that
// transfers of the two DMA engines interleave on the channels as their requests would.
constexpr std::uint64_t kFastChunkBytes = 64 * 1024;

std::unique_ptr<Memory> make_dram(const spec::AcceleratorSpec& spec, spec::Fidelity fidelity) {
  if (spec.dram.ideal) return std::make_unique<IdealMemory>("memory", spec.dram);
  if (fidelity == spec::Fidelity::fast) {
    // The calibration streams keep as many requests outstanding per channel as a DMA engine's
    // requests spread over the channels would.
    const std::int64_t channels = spec.dram.scheduled_channels();
    const std::int64_t window = (spec.dma.outstanding_requests + channels - 1) / channels;
    return std::make_unique<DramFlowMemory>("dram", spec.dram, window);
  }
  return std::make_unique<DramSystem>("dram", spec.dram);
}

// What the cores' DMA engines reach: the DRAM, perhaps behind a shared memory, perhaps behind a
// network-on-chip (`shared` and `noc` are set to them).
std::unique_ptr<Memory> make_memory(const spec::AcceleratorSpec& spec, spec::Fidelity fidelity,
                                    const timing::DramAddressMapper& mapper, const SharedMemory*& shared,
                                    const NetworkOnChip*& noc) {
  std::unique_ptr<Memory> memory = make_dram(spec, fidelity);
  if (spec.shared_memory) {
    auto shared_memory = std::make_unique<SharedMemory>(spec.shared_memory->name.c_str(), *spec.shared_memory,
                                                        std::move(memory), spec.dram.burst_bytes());
    shared = shared_memory.get();
    memory = std::move(shared_memory);
  }
  if (spec.noc) {
    auto network = std::make_unique<NetworkOnChip>("noc", *spec.noc, mapper, std::move(memory));
    noc = network.get();
    memory = std::move(network);
  }
  return memory;
}

// The DMA engines' chunks on the fast memory (0: none, whole transfers).
std::uint64_t fast_chunk_bytes(const spec::AcceleratorSpec& spec, spec::Fidelity fidelity,
                               const timing::DramAddressMapper& mapper) {
  if (fidelity != spec::Fidelity::fast || spec.dram.ideal) return 0;
  return std::max(kFastChunkBytes, mapper.bytes_to_run_end(0));
}

// The figures of what a memory did from `before` to `after`.
results::DramFigures figures_since(results::DramChannelStats after, const results::DramChannelStats& before) {
  after -= before;
  return results::figures_of(after);
}

// Sets `figures`' compute and stall cycles from `totals`' times, counted as consecutive spans
// (compute, then the stalls by cause) in clocks of `period`; returns the cycles of a last span
// `after` them (the core's sync).
template <typename Figures>
std::int64_t set_activity_cycles(Figures& figures, const CoreUnitTotals& totals, const sc_core::sc_time& period,
                                 const sc_core::sc_time& after = sc_core::SC_ZERO_TIME) {
  const auto stall = [&](results::StallCause cause) {
    return picoseconds(totals.stalls[static_cast<std::size_t>(cause)]);
  };
  const std::vector<std::int64_t> cycles = results::span_cycles(
      {picoseconds(totals.compute), stall(results::StallCause::weights), stall(results::StallCause::inputs),
       stall(results::StallCause::sram), stall(results::StallCause::vector), stall(results::StallCause::output_drain),
       stall(results::StallCause::noc), picoseconds(after)},
      picoseconds(period));
  figures.compute_cycles = cycles[0];
  figures.stall_weights = cycles[1];
  figures.stall_inputs = cycles[2];
  figures.stall_sram = cycles[3];
  figures.stall_vector = cycles[4];
  figures.stall_output_drain = cycles[5];
  figures.stall_noc = cycles[6];
  return cycles[7];
}

}  // namespace

Accelerator::Accelerator(sc_core::sc_module_name name, const spec::AcceleratorSpec& spec,
                         std::vector<program::LayerRun> runs, results::TimelineRecorder* timeline,
                         spec::Fidelity fidelity, Driver driver)
    : sc_core::sc_module(name),
      mapper_(spec.dram),
      memory_(make_memory(spec, fidelity, mapper_, shared_, noc_)),
      cores_("cores", static_cast<std::size_t>(spec.cores),
             [&](const char*, std::size_t i) {
               const std::string core_name = i == 0 ? "core" : "core_" + std::to_string(i);
               return new Core(core_name.c_str(), static_cast<std::int64_t>(i), spec, mapper_, *memory_, timeline,
                               fast_chunk_bytes(spec, fidelity, mapper_));
             }),
      runs_(std::move(runs)),
      totals_(runs_.size()),
      timeline_(timeline) {
  REUSESIM_HAS_PROCESS(Accelerator);
  if (timeline_ != nullptr) {
    timeline_->set_compute_period_ps(picoseconds(cores_[0].clock_period()));
    memory_->record_to(*timeline_);
  }
  if (driver == Driver::own_thread) SC_THREAD(drive);
}

void Accelerator::restart_machine() {
  memory_->wait_until_idle();  // posted writes of the last batch finish first
  // On a DRAM clock edge, so that the channels' cycles since the restart are whole.
  sc_core::wait(memory_->next_clock_edge() - sc_core::sc_time_stamp());
  if (!memory_->restart()) SC_REPORT_ERROR("reusesim/accelerator", "a batch started while the DRAM was still busy");
  for (Core& core : cores_) core.restart();
}

std::vector<Accelerator::Unit> Accelerator::replay_order(const std::vector<program::LayerRun>& runs, std::size_t first,
                                                         std::size_t end_run) {
  std::vector<Unit> units;
  for (std::size_t r = first; r < end_run;) {
    const bool reduces = runs[r].program.reduction_step > 0;
    const std::int64_t passes = reduces ? 2 : std::max<std::int64_t>(1, runs[r].program.passes);
    // The consecutive layers of one batch with the same sub-batches run pass by pass.
    std::size_t end = r + 1;
    while (!reduces && passes > 1 && end < end_run && !runs[end].starts_batch && runs[end].program.passes == passes)
      ++end;
    for (std::int64_t pass = 0; pass < passes; ++pass) {
      for (std::size_t q = r; q < end; ++q) units.push_back(Unit{q, pass, pass + 1 == passes});
    }
    r = end;
  }
  return units;
}

const program::LayerProgram& Accelerator::program_of(const program::LayerRun& run, std::size_t core) const {
  if (core == 0) return run.program;
  return core <= run.other_cores.size() ? run.other_cores[core - 1] : no_program_;
}

std::pair<std::size_t, std::size_t> Accelerator::step_range(const Unit& unit, const program::LayerProgram& program) {
  const auto pass = static_cast<std::size_t>(unit.pass);
  const std::size_t size = program.steps.size();
  if (program.reduction_step > 0)
    return pass == 0 ? std::pair{std::size_t{0}, program.reduction_step} : std::pair{program.reduction_step, size};
  const auto passes = static_cast<std::size_t>(std::max<std::int64_t>(1, program.passes));
  if (pass >= passes) return {size, size};
  const std::size_t first = size / passes * pass;
  return {first, unit.last_pass || pass + 1 == passes ? size : first + size / passes};
}

void Accelerator::drive() {
  replay_runs(0, runs_.size());
  sc_core::sc_stop();
}

void Accelerator::replay_runs(std::size_t first, std::size_t end) {
  const std::vector<Unit> units = replay_order(runs_, first, end);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const Unit& unit = units[u];
    const std::size_t r = unit.run;
    const program::LayerRun& run = runs_[r];
    RunTotals& total = totals_[r];
    if (run.starts_batch && unit.pass == 0 && !results_.empty()) restart_machine();
    const results::DramChannelStats dram_before = memory_->total_stats();
    const std::vector<results::DramChannelStats> channels_before = memory_->channel_stats();
    const std::vector<timing::NocLinks::LinkStats> links_before = link_stats();
    const SharedMemoryStats shared_before = shared_ != nullptr ? shared_->stats() : SharedMemoryStats{};
    if ((run.starts_batch || r == 0) && unit.pass == 0) {
      batch_dram_before_ = dram_before;
      batch_channels_before_ = channels_before;
    }
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    if (unit.pass == 0) total.first_start = start;
    if (timeline_ != nullptr) timeline_->begin_layer(picoseconds(start));
    const bool next_in_batch =
        u + 1 < units.size() && !(units[u + 1].pass == 0 && runs_[units[u + 1].run].starts_batch);
    for (std::size_t c = 0; c < cores_.size(); ++c) {
      Core::NextUnit next;
      if (next_in_batch) {
        next.program = &program_of(runs_[units[u + 1].run], c);
        std::tie(next.first_step, next.end_step) = step_range(units[u + 1], *next.program);
      }
      const program::LayerProgram& program = program_of(run, c);
      const auto [first_step, end_step] = step_range(unit, program);
      cores_[c].begin_unit(program, first_step, end_step, next_in_batch ? &next : nullptr);
    }
    for (Core& core : cores_) {
      while (core.busy()) sc_core::wait(core.unit_done());
    }
    std::vector<CoreUnitTotals> core_units;
    for (Core& core : cores_) core_units.push_back(core.end_unit(start));
    total.core += chip_unit(core_units);
    if (cores_.size() > 1) {
      total.cores.resize(cores_.size());
      for (std::size_t c = 0; c < cores_.size(); ++c) total.cores[c] += core_units[c];
    }
    results::DramChannelStats dram_delta = memory_->total_stats();
    dram_delta -= dram_before;
    total.dram += dram_delta;
    const std::vector<results::DramChannelStats> channels_after = memory_->channel_stats();
    total.channels.resize(channels_after.size());
    for (std::size_t i = 0; i < channels_after.size(); ++i) {
      results::DramChannelStats delta = channels_after[i];
      delta -= channels_before[i];
      total.channels[i] += delta;
    }
    const std::vector<timing::NocLinks::LinkStats> links_after = link_stats();
    total.noc_links.resize(links_after.size());
    for (std::size_t i = 0; i < links_after.size(); ++i) total.noc_links[i].add(links_after[i], links_before[i]);
    if (shared_ != nullptr) {
      // A hit reads the banks; a miss's fill and a store write them.
      const SharedMemoryStats& shared_after = shared_->stats();
      total.shared_bank_read_bytes += shared_after.hit_bytes - shared_before.hit_bytes;
      total.shared_bank_write_bytes +=
          shared_after.miss_bytes - shared_before.miss_bytes + shared_after.write_bytes - shared_before.write_bytes;
    }
    if (!unit.last_pass) continue;
    if (timeline_ != nullptr) {
      // One span per layer, from its first pass to its last (other layers' passes run between).
      timeline_->begin_layer(picoseconds(total.first_start));
      timeline_->end_layer(picoseconds(sc_core::sc_time_stamp()));
    }
    results_.push_back(layer_result(run, total));
    if (r + 1 == runs_.size() || runs_[r + 1].starts_batch) {
      const results::DramChannelStats dram_after = memory_->total_stats();
      results::BatchDram batch{figures_since(dram_after, batch_dram_before_), {}};
      for (std::size_t i = 0; i < channels_after.size(); ++i) {
        batch.channels.push_back(figures_since(channels_after[i], batch_channels_before_[i]));
      }
      results_.back().batch_dram = std::move(batch);
    }
  }
}

std::vector<timing::NocLinks::LinkStats> Accelerator::link_stats() const {
  std::vector<timing::NocLinks::LinkStats> stats;
  if (noc_ == nullptr) return stats;
  for (std::size_t link = 0; link < noc_->links().link_count(); ++link) stats.push_back(noc_->links().stats(link));
  return stats;
}

results::LayerResult Accelerator::layer_result(const program::LayerRun& run, const RunTotals& total) const {
  const sc_core::sc_time period = cores_[0].clock_period();
  const CoreUnitTotals& core = total.core;
  const auto sum = [](const std::array<std::int64_t, program::kTensorRoles>& bytes) {
    return std::accumulate(bytes.begin(), bytes.end(), std::int64_t{0});
  };
  results::LayerResult result;
  result.layer = run.program.layer;
  result.type = run.program.type;
  result.mapping = run.program.mapping;
  result.mac_rate = run.program.mac_rate;
  result.onchip_read_input_bytes = run.program.onchip_input_bytes;
  result.onchip_kept_output_bytes = run.program.onchip_output_bytes;
  result.batch = run.batch;
  result.seconds = core.elapsed.to_seconds();
  result.dram_span_seconds = core.dram_span.to_seconds();
  // Busy time and stalls fill the layer's time end to end: counted as consecutive spans, their
  // cycles add up to the layer's exactly (results/cycle_count.h).
  result.cycles = results::nearest_cycles(picoseconds(core.elapsed), picoseconds(period));
  set_activity_cycles(result, core, period);
  result.macs = core.macs;
  if (!run.program.mac_format.empty()) result.native_macs[run.program.mac_format] = result.macs;
  result.skipped_macs = core.skipped_macs;
  result.vector_ops = core.vector_ops;
  result.accumulator_updates = core.accumulator_updates;
  // What the DRAM read: the loads' bytes but those the shared memory served and the copies of
  // other cores' reads.
  const auto read = [&](program::TensorRole role) {
    const auto r = static_cast<std::size_t>(role);
    return core.read_bytes[r] - core.shared_read_bytes[r] - core.multicast_read_bytes[r];
  };
  result.shared_read_bytes = sum(core.shared_read_bytes);
  result.multicast_read_bytes = sum(core.multicast_read_bytes);
  result.shared_bank_read_bytes = total.shared_bank_read_bytes;
  result.shared_bank_write_bytes = total.shared_bank_write_bytes;
  result.dram_read_weight_bytes = read(program::TensorRole::weights);
  // Everything but weights and the KV cache is an input, as the stall causes count it: a
  // recurrent layer's state, and outputs read back (partial sums of a program that spills them).
  result.dram_read_input_bytes =
      read(program::TensorRole::inputs) + read(program::TensorRole::state) + read(program::TensorRole::outputs);
  result.dram_read_kv_cache_bytes = read(program::TensorRole::kv_cache);
  result.dram_read_bytes =
      result.dram_read_weight_bytes + result.dram_read_input_bytes + result.dram_read_kv_cache_bytes;
  result.dram_write_bytes = core.write_bytes;
  result.prefetched_weight_bytes = core.prefetched_bytes;
  result.dram = results::figures_of(total.dram);
  for (const results::DramChannelStats& channel : total.channels)
    result.dram_channels.push_back(results::figures_of(channel));
  for (const SramStats& buffer : core.sram) {
    result.sram_read_bytes += buffer.read_bytes;
    result.sram_write_bytes += buffer.write_bytes;
    result.sram_words.push_back({buffer.read_words, buffer.write_words});
  }
  for (std::size_t c = 0; c < total.cores.size(); ++c) {
    const CoreUnitTotals& own = total.cores[c];
    results::CoreFigures figures;
    figures.part = program_of(run, c).part;
    figures.samples = c < run.core_batches.size() ? run.core_batches[c] : 0;
    // Consecutive spans, as the row's, then its sync: they add up to the layer's cycles.
    figures.sync_cycles = set_activity_cycles(figures, own, period, own.sync);
    figures.stall_cycles = figures.stall_weights + figures.stall_inputs + figures.stall_sram + figures.stall_vector +
                           figures.stall_output_drain + figures.stall_noc;
    figures.macs = own.macs;
    figures.dram_read_bytes = sum(own.read_bytes) - sum(own.shared_read_bytes) - sum(own.multicast_read_bytes);
    figures.dram_write_bytes = own.write_bytes;
    result.cores.push_back(figures);
  }
  for (std::size_t link = 0; link < total.noc_links.size(); ++link) {
    const timing::NocLinks::LinkStats& moved = total.noc_links[link];
    if (moved.bytes == 0) continue;
    result.noc_links.push_back({static_cast<std::int64_t>(link), noc_->links().link_name(link), moved.transfers,
                                moved.bytes, moved.busy_ticks, moved.waited_ticks});
  }
  return result;
}

}  // namespace reusesim::hw
