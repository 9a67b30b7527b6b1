#pragma once
// Closed-form compute cycles of one GEMM on the compute array (DESIGN.md section 4, "Compute array").
//
// Every MAC layer is seen as a GEMM C[M x N] += A[M x K] * B[K x N]. For a convolution,
// M = batch * Ho * Wo, K = kh * kw * Cin / groups, N = Cout / groups, and one call covers ONE group:
// the caller multiplies by the number of groups (groups run one after the other).
//
// Systolic arrays (R x C) follow SCALE-Sim v2 (Samajdar et al., ISPASS 2020):
//   os maps (M, N) on (R, C) and streams K;
//   ws maps (K, N) on (R, C) and streams M;
//   is maps (K, M) on (R, C) and streams N.
//   folds = ceil(rows-dim / R) * ceil(cols-dim / C); folds never overlap. With T the streamed
//   dimension, every fold (partial or not) costs
//     os:       T + R + C - 2
//     ws, is:   2R + C + T - 2
//   and cycles = folds * cycles per fold. Fill and drain are included in every fold; a partial fold
//   costs as much as a full one, which is where the utilisation lost to dimensions that do not
//   divide the array comes from.
//   NOT included: DESIGN.md's layer-level "- 1" (compute cycles of a layer = folds x cycles per
//   fold - 1). It is applied ONCE PER LAYER by the caller, after summing the GEMMs (groups) of the
//   layer, and never per GEMM. Stalls (memory) are not included either.
//
// Vector-MAC clusters (Snowflake-style, units x lanes): each unit computes one output at a time and
//   its lanes reduce along K; the units work on different outputs, N first, then M. A pass is one
//   output per unit (ceil(N / units) passes per row of M), taking ceil(K / lanes) cycles:
//     folds (passes) = M * ceil(N / units),  cycles = passes * ceil(K / lanes).
//   No pipeline fill or drain is modelled for vector-MAC units.
//
// utilization = M*N*K / (cycles * MACs per cycle), MACs per cycle = R*C or units*lanes, in (0, 1].
//
// Errors: std::invalid_argument for a zero or negative GEMM dimension, or an array whose size
// fields for its kind (rows/cols, or units/lanes) are not positive; workload::CountOverflow when a
// count does not fit in 64 bits.

#include <cstdint>
#include <optional>

#include "hw/accelerator_spec.h"

namespace reusesim::mapping {

// A GEMM C[M x N] += A[M x K] * B[K x N] (one group of a grouped conv; conv: M = batch*Ho*Wo,
// K = kh*kw*Cin/g, N = Cout/g).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
};

struct ArrayCycles {
  std::int64_t cycles = 0;  // closed-form compute cycles of this GEMM on the array, fill and drain included
  std::int64_t folds = 0;   // systolic: ceil(rows-dim/R) * ceil(cols-dim/C); vector_mac: passes
  double utilization = 0;   // M*N*K / (cycles * MACs per cycle)
};

// Cycles of one GEMM on the array (see the file comment for the model).
ArrayCycles gemm_cycles(const hw::ComputeSpec& array, const GemmShape& gemm);

// Non-MAC work (pooling, activation, element-wise, softmax) on the vector unit:
// ceil(ops / vector_ops_per_cycle). ops = 0 gives 0 cycles; negative ops or a non-positive
// vector_ops_per_cycle throw std::invalid_argument.
std::int64_t vector_cycles(const hw::ComputeSpec& array, std::int64_t ops);

// The SRAM roof of the roofline: the ops/s the array reaches when its buffers deliver operands no
// faster than one access stream of banks x bank_width_bytes per SRAM cycle each, and the array
// demands per compute cycle (elements x operand bytes):
//   ws: R inputs (a row of A enters each cycle; weights are preloaded once per fold),
//   is: R weights (symmetrically), os: R inputs and C weights,
//   vector_mac: `lanes` inputs (broadcast to every unit) and units x lanes weights.
// ceiling = peak x min over the streamed operands of (supply / demand). Returns the ceiling when it
// is below the compute peak (the SRAM binds), otherwise nothing.
std::optional<double> sram_bound_ops_per_second(const hw::AcceleratorSpec& accelerator);

}  // namespace reusesim::mapping
