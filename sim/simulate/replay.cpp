#include "simulate/replay.h"

#include <systemc>

#include "hw/accelerator.h"
#include "simulate/invariants.h"

namespace reusesim::simulate {

Replay replay(const spec::AcceleratorSpec& spec, std::vector<program::LayerRun> runs,
              results::TimelineRecorder* timeline, spec::Fidelity fidelity) {
  std::size_t steps = 0;
  for (const program::LayerRun& run : runs) steps += run.program.steps.size();
  // Keep the last SC_ERROR, to tell a simulation that ran out of memory (SystemC reports the
  // std::bad_alloc that escaped a thread) from one that failed.
  const sc_core::sc_actions error_actions = sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, error_actions | sc_core::SC_CACHE_REPORT);
  hw::Accelerator accelerator("accelerator", spec, runs, timeline, fidelity);
  sc_core::sc_start();
  Replay replay;
  const sc_core::sc_report* error = sc_core::sc_report_handler::get_cached_report();
  if (error != nullptr && std::string(error->what()).find("bad_alloc") != std::string::npos) {
    replay.out_of_memory = true;
    replay.problem = "out of memory: the simulation of " + std::to_string(steps) +
                     " data-movement steps needs more memory than this machine gives it; replay fewer layers or "
                     "batch sizes at once";
    return replay;
  }
  if (sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) > 0 || !accelerator.finished()) {
    replay.problem = "the simulation stopped before every layer finished";
    return replay;
  }
  replay.results = accelerator.results();
  std::vector<results::LayerResult> batch;  // the layers of the batch so far, for its TOTAL
  for (std::size_t i = 0; i < runs.size() && replay.problem.empty(); ++i) {
    replay.problem = replay_problem(replay.results[i], program::chip_totals(runs[i]), spec);
    if (runs[i].starts_batch) batch.clear();
    batch.push_back(replay.results[i]);
    const bool ends_batch = i + 1 == runs.size() || runs[i + 1].starts_batch;
    if (replay.problem.empty() && ends_batch) replay.problem = batch_total_problem(batch, spec);
  }
  if (replay.problem.empty()) replay.problem = memory_total_problem(replay.results, accelerator.memory_stats());
  return replay;
}

}  // namespace reusesim::simulate
