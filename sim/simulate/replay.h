#pragma once
// The driver's replay: programs simulated in order on one hw::Accelerator (a SystemC simulation:
// once per process), every layer checked against its program and the roofline
// (simulate/invariants.h). `run`, `replay`, trace workers and the tests all replay through here.

#include <string>
#include <vector>

#include "program/program.h"
#include "results/layer_result.h"
#include "results/timeline_recorder.h"
#include "spec/accelerator_spec.h"
#include "spec/fidelity.h"

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

}  // namespace reusesim::simulate
