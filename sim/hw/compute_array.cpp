#include "hw/compute_array.h"

#include <algorithm>

namespace reusesim::hw {

ComputeArray::ComputeArray(sc_core::sc_module_name name, const spec::ComputeSpec& spec)
    : sc_core::sc_module(name), spec_(spec), period_(1000.0 / spec.clock_mhz, sc_core::SC_NS) {}

StepCycles ComputeArray::execute(const program::Step& step) {
  const std::int64_t vector = timing::vector_cycles(spec_, step.vector_ops);
  stats_.vector_ops += step.vector_ops;
  if (step.kind != program::StepKind::compute) return {vector, vector};
  const std::int64_t gemm = timing::gemm_cycles_on(spec_, step.gemm, step.unit);
  stats_.macs += step.macs;
  if (step.unit == timing::GemmUnit::vector) return {gemm, gemm + vector};  // one unit: the output path's ops wait
  stats_.accumulator_updates += step.gemm.groups * step.gemm.m * step.gemm.n;
  return {gemm, std::max(gemm, vector)};
}

}  // namespace reusesim::hw
