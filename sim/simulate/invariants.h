#pragma once
// The conservation checks every simulation runs (docs/architecture.md, "Invariants"). Each returns
// what is wrong, naming the layer and batch, or "" when all is well; the driver (simulate/replay.h)
// turns a problem into an internal error. Plain C++: each check is unit-tested by breaking its
// condition on purpose.

#include <cstdint>
#include <string>
#include <vector>

#include "mapping/mapper.h"
#include "mapping/training_mapper.h"
#include "program/program.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"
#include "workload/network.h"

namespace reusesim::simulate {

// A program against the analysis: its MACs equal the layer's MACs x batch, and it moves no fewer
// DRAM bytes than the layer's compulsory traffic (mapping::compulsory_traffic_problem).
std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, std::int64_t element_bytes);

// A training step's programs against the analysis: each forward program (and its recompute) as
// inference's are checked (every layer on its own), and the step's MACs three GEMMs' worth per
// layer, less the input gradients nobody needs, plus the recomputed forwards.
std::string training_step_problem(const workload::Network& network,
                                  const std::vector<mapping::TrainingProgram>& step, std::int64_t batch,
                                  std::int64_t checkpoint_segments, std::int64_t element_bytes);

// A replayed layer against its program and the roofline: the replay's MACs and burst-widened DRAM
// bytes equal the program's (whenever they moved: a prefetched weight load counts for its own
// layer), and its time is no shorter than max(MACs / peak MAC rate, bytes moved inside its window /
// peak DRAM bandwidth). Every load but a prefetched one is issued after the layer starts and every
// store is answered before it ends, so those bytes crossed the memory inside the window; the
// memory's own counts over the window are no bound (it credits a request's bytes at its last burst,
// so a long request begun before the window, the next layer's prefetch, lands in it whole).
std::string replay_problem(const results::LayerResult& result, const program::LayerProgram& program,
                           const spec::AcceleratorSpec& spec);

// Over the whole run the memory moved exactly what the layers' steps did.
std::string memory_total_problem(const std::vector<results::LayerResult>& layers,
                                 const results::DramChannelStats& memory);

}  // namespace reusesim::simulate
