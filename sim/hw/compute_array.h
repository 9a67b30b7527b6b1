#pragma once
// The compute array (systolic or vector-MAC clusters) and its vector unit, timed per tile from
// the closed-form cycle model (sim/timing/array_timing.h): no per-cycle or per-PE processes.
// Callers' threads ask how long a step takes and wait; the array counts what it did.

#include <systemc>

#include <cstdint>

#include "program/program.h"
#include "spec/accelerator_spec.h"

namespace reusesim::hw {

struct ComputeStats {
  std::int64_t macs = 0;
  std::int64_t skipped_macs = 0;  // of macs, those with a zero weight the array skipped (Step::kept_k)
  std::int64_t vector_ops = 0;
  // Output elements of the tiles added into the accumulators: groups x m x n per tile, each one
  // read and one write (the first K tile's read included: the accumulators add what they hold).
  std::int64_t accumulator_updates = 0;
};

// A step's cycles: its own work on the array or the vector unit (a compute step's GEMM, a vector
// step's element operations), and a compute step's time in the output path after the array. The
// output path's stages (activation, normalize, pool) are a pipeline, each its own unit taking
// vector_ops_per_cycle values a clock, fed as the array's rows come out: a tile spends its busiest
// stage's cycles there, overlapped with the array (docs/mapping-and-replay.md, "The output path").
// A GEMM on the vector unit occupies the output path's units itself, so its output-path time
// follows its own (hw::Core).
struct StepCycles {
  std::int64_t own = 0;
  std::int64_t output_path = 0;
};

class ComputeArray : public sc_core::sc_module {
 public:
  ComputeArray(sc_core::sc_module_name name, const spec::ComputeSpec& spec);

  // Cycles a compute or vector step occupies the array and the output path, and records it.
  StepCycles execute(const program::Step& step);
  sc_core::sc_time clock_period() const { return period_; }
  const spec::ComputeSpec& spec() const { return spec_; }
  const ComputeStats& stats() const { return stats_; }

 private:
  spec::ComputeSpec spec_;
  sc_core::sc_time period_;
  ComputeStats stats_;
};

}  // namespace reusesim::hw
