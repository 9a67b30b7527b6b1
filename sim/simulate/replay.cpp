#include "simulate/replay.h"

#include <systemc>

#include <algorithm>
#include <map>

#include "hw/accelerator.h"
#include "hw/system.h"
#include "simulate/block_reuse.h"
#include "simulate/invariants.h"

namespace reusesim::simulate {

namespace {

std::size_t steps_of(const std::vector<program::LayerRun>& runs) {
  std::size_t steps = 0;
  for (const program::LayerRun& run : runs) steps += run.program.steps.size();
  return steps;
}

// Keep the last SC_ERROR, to tell a simulation that ran out of memory (SystemC reports the
// std::bad_alloc that escaped a thread) from one that failed.
void cache_errors() {
  const sc_core::sc_actions error_actions = sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, error_actions | sc_core::SC_CACHE_REPORT);
}

// After the simulation: why it cannot be trusted ("" when it finished), out of memory or stopped.
std::string simulation_problem(std::size_t steps, bool finished, bool& out_of_memory) {
  const sc_core::sc_report* error = sc_core::sc_report_handler::get_cached_report();
  if (error != nullptr && std::string(error->what()).find("bad_alloc") != std::string::npos) {
    out_of_memory = true;
    return "out of memory: the simulation of " + std::to_string(steps) +
           " data-movement steps needs more memory than this machine gives it; replay fewer layers or batch sizes "
           "at once";
  }
  if (sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) > 0 || !finished)
    return "the simulation stopped before every layer finished";
  return "";
}

// Each layer against its program and the roofline, each batch's TOTAL, the memory's totals.
std::string results_problem(const std::vector<results::LayerResult>& results,
                            const std::vector<program::LayerRun>& runs, const spec::AcceleratorSpec& spec,
                            const results::DramChannelStats& memory) {
  std::string problem;
  std::vector<results::LayerResult> batch;  // the layers of the batch so far, for its TOTAL
  for (std::size_t i = 0; i < runs.size() && problem.empty(); ++i) {
    problem = replay_problem(results[i], program::chip_totals(runs[i]), spec);
    if (runs[i].starts_batch) batch.clear();
    batch.push_back(results[i]);
    const bool ends_batch = i + 1 == runs.size() || runs[i + 1].starts_batch;
    if (problem.empty() && ends_batch) problem = batch_total_problem(batch, spec);
  }
  return problem.empty() ? memory_total_problem(results, memory) : problem;
}

// Each batch from its first segment's start on any chip to its last's end on any, and chip 0's
// time in it on layers and on collectives.
std::vector<results::SystemBatch> batch_spans(const std::vector<program::ChipWork>& chips, const SystemReplay& replay) {
  std::vector<results::SystemBatch> batches;
  for (std::size_t c = 0; c < chips.size(); ++c) {
    const std::vector<program::ChipSegment>& segments = chips[c].segments;
    for (std::size_t s = 0; s < segments.size(); ++s) {
      const std::size_t b = segments[s].batch;
      const std::uint64_t start = replay.segment_start_ps[c][s], end = replay.segment_end_ps[c][s];
      if (b >= batches.size()) batches.resize(b + 1, results::SystemBatch{start, end, 0, 0});
      results::SystemBatch& batch = batches[b];
      batch.start_ps = std::min(batch.start_ps, start);
      batch.end_ps = std::max(batch.end_ps, end);
      if (c > 0) continue;
      (segments[s].kind == program::ChipSegment::Kind::link ? batch.collectives_ps : batch.layers_ps) += end - start;
    }
  }
  return batches;
}

// Every link of the system that exists, in SystemLinks' order, with the counters `stats_of` gives it.
template <typename StatsOf>
std::vector<results::ChipLinkFigures> link_figures(const timing::SystemLinks& links, StatsOf stats_of) {
  std::vector<results::ChipLinkFigures> figures;
  for (std::size_t link = 0; link < links.link_count(); ++link) {
    if (!links.exists(link)) continue;
    const timing::SystemLinks::LinkStats stats = stats_of(link);
    figures.push_back({links.link_name(link), stats.transfers, stats.bytes, stats.busy_ticks, stats.waited_ticks});
  }
  return figures;
}

// Each chip's segments, as the timeline draws them: a run of layers named by the layers of the
// chip that replayed them, a link program by the chip's part of it.
void record_segments(const hw::System& system, results::TimelineRecorder& timeline) {
  const std::vector<program::ChipWork>& chips = system.program().chips;
  for (std::size_t c = 0; c < chips.size(); ++c) {
    const std::vector<program::LayerRun>& runs = chips[system.replayed_by(c)].runs;
    const hw::ChipController& controller = system.controller(c);
    std::size_t link_part = 0;
    for (std::size_t s = 0; s < chips[c].segments.size(); ++s) {
      const program::ChipSegment& segment = chips[c].segments[s];
      results::ChipSegmentSpan span;
      span.batch = segment.batch;
      span.start_ps = controller.segment_start_ps()[s];
      span.end_ps = controller.segment_end_ps()[s];
      if (segment.kind == program::ChipSegment::Kind::link) {
        span.is_link = true;
        span.link = controller.collectives()[link_part++];
      } else if (segment.end_run > segment.first_run) {
        span.layers = static_cast<std::int64_t>(segment.end_run - segment.first_run);
        span.first_layer = runs[segment.first_run].program.layer;
        span.last_layer = runs[segment.end_run - 1].program.layer;
      }
      timeline.chip_segment(c, std::move(span));
    }
  }
}

}  // namespace

Replay replay(const spec::AcceleratorSpec& spec, std::vector<program::LayerRun> runs,
              results::TimelineRecorder* timeline, spec::Fidelity fidelity) {
  cache_errors();
  hw::Accelerator accelerator("accelerator", spec, runs, timeline, fidelity);
  sc_core::sc_start();
  Replay replay;
  replay.problem = simulation_problem(steps_of(runs), accelerator.finished(), replay.out_of_memory);
  if (!replay.problem.empty()) return replay;
  replay.results = accelerator.results();
  replay.problem = results_problem(replay.results, runs, spec, accelerator.memory_stats());
  return replay;
}

SystemReplay replay_system(const spec::SystemSpec& spec, program::SystemProgram program, spec::Fidelity fidelity,
                           results::TimelineRecorder* timeline, const std::vector<workload::ReusedBlock>& reused) {
  std::size_t steps = 0;
  for (const program::ChipWork& chip : program.chips) steps += steps_of(chip.runs);
  std::vector<bool> counted;
  for (const program::LinkProgram& link_program : program.link_programs)
    counted.push_back(repeated_link_program(link_program.name, reused));
  cache_errors();
  hw::System system("system", spec, std::move(program), fidelity, timeline);
  system.chip_links().count_programs(std::move(counted));
  sc_core::sc_start();
  SystemReplay replay;
  replay.problem = simulation_problem(steps, system.finished(), replay.out_of_memory);
  if (!replay.problem.empty()) return replay;
  replay.problem = system.symmetry_problem();
  if (!replay.problem.empty()) {
    replay.problem = "a chip replayed as its twin's was not one: " + replay.problem;
    return replay;
  }
  const std::vector<program::ChipWork>& chips = system.program().chips;
  for (std::size_t c = 0; c < chips.size(); ++c) {
    replay.replayed_by.push_back(system.replayed_by(c));
    replay.segment_start_ps.push_back(system.controller(c).segment_start_ps());
    replay.segment_end_ps.push_back(system.controller(c).segment_end_ps());
    replay.chip_results.emplace_back();
    if (replay.replayed_by[c] != c) continue;
    replay.chip_results.back() = system.layer_results(c);
    if (replay.problem.empty())
      replay.problem = results_problem(replay.chip_results.back(), chips[c].runs, spec.chip, system.memory_stats(c));
  }
  replay.collectives = system.collectives();
  replay.links = link_figures(system.links(), [&](std::size_t link) { return system.links().stats(link); });
  replay.batches = batch_spans(chips, replay);
  if (timeline != nullptr) record_segments(system, *timeline);
  if (reused.empty()) return replay;
  std::map<std::size_t, std::vector<results::ChipLinkFigures>> program_links;
  for (const auto& [tag, stats] : system.chip_links().program_stats()) {
    program_links[static_cast<std::size_t>(tag)] =
        link_figures(system.links(), [&](std::size_t link) { return stats[link]; });
  }
  replay.problem = insert_reused_copies(replay, system.program(), reused, program_links);
  return replay;
}

}  // namespace reusesim::simulate
