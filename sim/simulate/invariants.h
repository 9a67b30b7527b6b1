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

// `value` with six significant digits, for the numbers of a problem: a short layer's seconds are
// microseconds.
std::string significant_digits(double value);

// A program against the analysis: its MACs equal the layer's MACs x batch, and it moves no fewer
// DRAM bytes than the layer's compulsory traffic (mapping::compulsory_traffic_problem).
// `widths`: what run moves each tensor at (workload::Network::run_widths); `element_bytes`: every
// tensor at that width.
std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, const workload::TensorWidths& widths);
std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, std::int64_t element_bytes);

// A training step's programs against the analysis: each forward program (and its recompute) as
// inference's are checked (every layer on its own), and the step's MACs three GEMMs' worth per
// layer, less the input gradients nobody needs, plus the recomputed forwards.
std::string training_step_problem(const workload::Network& network,
                                  const std::vector<mapping::TrainingProgram>& step, std::int64_t batch,
                                  std::int64_t checkpoint_segments, std::int64_t element_bytes);

// A replayed layer against its program: the replay's MACs and burst-widened DRAM bytes equal the
// program's (whenever they moved: a prefetched weight load counts for its own layer); then the
// layer's row as row_problem checks it.
std::string replay_problem(const results::LayerResult& result, const program::LayerProgram& program,
                           const spec::AcceleratorSpec& spec);

// A row of the run table, a layer's or (with `batch_total`) a batch's TOTAL, against its cycle
// accounting and its roofs: cycles = compute_cycles + stall_cycles, no count negative; its ops/s
// over its time no more than the compute peak; its own DRAM bytes over the time they moved in
// (dram_gbps over results::dram_span_seconds) no more than the memory's peak, nor those but the
// prefetched weights over its time. Its point on the figure (ops per DRAM byte, ops over that
// time) is then under both roofs. A prefetched load is issued at its prefetch's start and arrives
// by the prefetch's end, every other load is issued after the layer starts and every store is
// answered before it ends, so those bytes crossed the memory in those times; the memory's own
// counts over a window are no bound (it credits a request's bytes at its last burst, so a long
// request begun before the window lands in it whole).
std::string row_problem(const results::LayerResult& row, bool batch_total, const spec::AcceleratorSpec& spec);

// A batch's layers added up into its TOTAL row (the counts row_problem reads), checked by row_problem.
std::string batch_total_problem(const std::vector<results::LayerResult>& layers, const spec::AcceleratorSpec& spec);

// Over the whole run the memory moved exactly what the layers' steps did.
std::string memory_total_problem(const std::vector<results::LayerResult>& layers,
                                 const results::DramChannelStats& memory);

}  // namespace reusesim::simulate
