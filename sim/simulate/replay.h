#pragma once
// The driver's replay: programs simulated in order on one hw::Accelerator (a SystemC simulation:
// once per process), every layer checked against its program and the roofline
// (simulate/invariants.h). `run`, `replay`, trace workers and the tests all replay through here.

#include <string>
#include <vector>

#include "program/program.h"
#include "program/system_program.h"
#include "results/layer_result.h"
#include "results/system_result.h"
#include "results/timeline_recorder.h"
#include "spec/accelerator_spec.h"
#include "spec/fidelity.h"
#include "spec/system_spec.h"
#include "workload/block_reuse.h"

namespace reusesim::simulate {

// Every layer's result in the order of the runs, or a problem.
struct Replay {
  std::vector<results::LayerResult> results;
  // Why the replay cannot be trusted ("" when it can): the simulation stopped early (an SC_ERROR),
  // or a layer's replay disagrees with its program or beats the roofline. A bug, not bad input,
  // unless the simulation ran out of memory: then `problem` says so and `out_of_memory` is set.
  std::string problem;
  bool out_of_memory = false;
};

// With a `timeline`, the modules record their activity there. Throws nothing after the
// simulation: GCC's ASan takes a throw after SystemC's coroutines ran for a stack overflow.
// With `fidelity` fast, the DRAM is timed by the fast memory (docs/performance.md, "Fast mode");
// every invariant is checked all the same.
Replay replay(const spec::AcceleratorSpec& spec, std::vector<program::LayerRun> runs,
              results::TimelineRecorder* timeline = nullptr, spec::Fidelity fidelity = spec::Fidelity::exact);

// A system's replay (hw::System): each chip's layers, its part of each collective, the links.
struct SystemReplay {
  // By chip: the chip that replayed its layers (itself, or the twin it names), and its layers'
  // results when it replayed them (empty for a twin's).
  std::vector<std::size_t> replayed_by;
  std::vector<std::vector<results::LayerResult>> chip_results;
  // By chip, by segment (program::ChipWork::segments): when the chip started and finished it.
  std::vector<std::vector<std::uint64_t>> segment_start_ps, segment_end_ps;
  std::vector<results::CollectiveResult> collectives;  // chip after chip, each in its order
  std::vector<results::ChipLinkFigures> links;         // every link of the system, used or not, in SystemLinks' order
  std::vector<results::SystemBatch> batches;           // by batch
  std::string problem;                                 // as Replay's; also a twin that was not one
  bool out_of_memory = false;
};

// Every chip's layers checked as replay() checks one accelerator's. With a `timeline`, it gets
// chip 0's tracks (from the chip that replays its layers), every link's transfers and, after the
// simulation, every chip's segments. With `reused` blocks (a model cut to two copies of them,
// workload/block_reuse.h), the results are made the whole model's (simulate/block_reuse.h);
// segment_start_ps and segment_end_ps stay the simulated ones.
SystemReplay replay_system(const spec::SystemSpec& spec, program::SystemProgram program,
                           spec::Fidelity fidelity = spec::Fidelity::exact,
                           results::TimelineRecorder* timeline = nullptr,
                           const std::vector<workload::ReusedBlock>& reused = {});

}  // namespace reusesim::simulate
