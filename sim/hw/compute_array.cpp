#include "hw/compute_array.h"

namespace reusesim::hw {

ComputeArray::ComputeArray(sc_core::sc_module_name name, const spec::ComputeSpec& spec)
    : sc_core::sc_module(name), spec_(spec), period_(1000.0 / spec.clock_mhz, sc_core::SC_NS) {}

StepCycles ComputeArray::execute(const program::Step& step) {
  stats_.vector_ops += step.vector_ops;
  if (step.kind != program::StepKind::compute) return {timing::vector_cycles(spec_, step.vector_ops), 0};
  stats_.macs += step.macs;
  const timing::GemmShape computed = step.computed_gemm();
  stats_.skipped_macs += step.macs - computed.macs();
  // A GEMM on the vector unit adds into no accumulators (its partial sums wait in the output buffer).
  if (step.unit == timing::GemmUnit::array) stats_.accumulator_updates += step.gemm.groups * step.gemm.m * step.gemm.n;
  return {timing::gemm_cycles_at(spec_, computed, step.unit, step.mac_rate),
          timing::vector_cycles(spec_, step.busiest_stage_ops())};
}

}  // namespace reusesim::hw
