#pragma once
// Closed-form compute cycles of one GEMM on the compute array (docs/mapping-and-replay.md, "The compute array").
//
// Every MAC layer is seen as a GEMM C[M x N] += A[M x K] * B[K x N]. For a convolution,
// M = batch * Ho * Wo, K = kh * kw * Cin / groups, N = Cout / groups per group. A call covers
// `groups` such GEMMs at once (groups of a grouped or depthwise conv: same M, own A and B each).
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
//   Groups run side by side when a group's block (rows-dim x cols-dim) fits the array: the array
//   holds them block-diagonally (e.g. ws: group j's K weights on rows jK .. (j+1)K - 1 and its N
//   on columns jN .. (j+1)N - 1; each row takes its own group's input, and a column sums only its
//   group's rows), b = min(floor(R / rows-dim), floor(C / cols-dim)) blocks a fold, and
//     folds = ceil(groups / b) for such blocks, else groups * ceil(rows-dim / R) * ceil(cols-dim / C).
//   A depthwise 3x3 conv (K = 9, N = 1) on a 64 x 64 ws array: 7 channels a fold, 63 rows busy.
//   A core of A > 1 arrays (`arrays`: TPU's MXUs) gives each GEMM to all of them, split along one
//   dimension, each array taking ceil(dimension / A) of it: the columns (cols-dim; the streamed
//   operand is broadcast to every array), the streamed one (the stationary operand is broadcast) or
//   the groups; never rows-dim, whose partial sums would need adding across arrays. The GEMM takes
//   the busiest array's cycles under the split that ends first (columns on a tie, then streamed).
//   E.g. ws, four 128 x 128 arrays, M = 1, K = 128, N = 512: 128 columns each, one fold of
//   2*128 + 128 + 1 - 2 = 383 cycles, where one 128 x 512 array takes 2*128 + 512 + 1 - 2 = 767.
//   Cycles are counts: a fold of T + R + C - 2 cycles occupies exactly that many cycles. SCALE-Sim
//   reports the index of a layer's last cycle, one less than the count; nothing here or in the
//   callers subtracts that one (docs/mapping-and-replay.md, "Cycles are counts"). Stalls (memory)
//   are not included.
//
// Vector-MAC clusters (Snowflake-style, units x lanes): `lane_dimension` says what a unit's lanes
//   consume side by side in one cycle (a pass is one set of outputs per unit):
//   k:               lanes along all of K; a unit computes one output at a time, units take N first,
//                    then M: passes = groups * M * ceil(N / units), ceil(K / lanes) cycles a pass.
//   kernel_row:      lanes along one kernel row of k_row = kernel_width x Cin/g values (maps stored
//                    channels-innermost, as in Snowflake); each of the K / k_row rows starts on
//                    lane 0, so a row that is not a multiple of the lanes leaves lanes idle:
//                    passes as for k, floor(K / k_row) * ceil(k_row / lanes) + ceil((K mod k_row) /
//                    lanes) cycles a pass (a linear layer's row is all of K: the same as k).
//   output_channels: lanes along N (a unit computes `lanes` outputs of one row of M, one K value a
//                    cycle), units take M: passes = groups * ceil(M / units) * ceil(N / lanes), K
//                    cycles a pass.
//   Groups run one after the other: the lanes' inputs are broadcast to every unit, and units
//   working on different groups would need different inputs.
//   No pipeline fill or drain is modelled for vector-MAC units.
//
// utilization = groups*M*N*K / (cycles * MACs per cycle), MACs per cycle = R*C*A or units*lanes, in (0, 1].
//
// Errors: std::invalid_argument for a zero or negative GEMM dimension (groups included), or an array whose size
// fields for its kind (rows/cols, or units/lanes) are not positive; util::CountOverflow when a
// count does not fit in 64 bits.

#include <cstdint>
#include <optional>

#include "spec/accelerator_spec.h"
#include "util/checked_math.h"
#include "util/enum_names.h"

namespace reusesim::timing {

// `groups` GEMMs C[M x N] += A[M x K] * B[K x N], each with its own A and B (groups of a grouped
// conv; conv: M = batch*Ho*Wo, K = kh*kw*Cin/g, N = Cout/g).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t groups = 1;
  // Values of one kernel row along K (kernel_width x Cin/g; all of K for a linear layer): what
  // vector-MAC lanes along `kernel_row` consume side by side. 0 means K.
  std::int64_t k_row = 0;
  std::int64_t macs() const { return groups * m * n * k; }
  std::int64_t weight_elements() const { return groups * k * n; }
};

struct ArrayCycles {
  std::int64_t cycles = 0;  // closed-form compute cycles of this GEMM on the array, fill and drain included
  std::int64_t folds = 0;   // systolic: ceil(rows-dim/R) * ceil(cols-dim/C); vector_mac: passes
  double utilization = 0;   // groups*M*N*K / (cycles * MACs per cycle)
};

// Cycles of one GEMM on the array (see the file comment for the model).
ArrayCycles gemm_cycles(const spec::ComputeSpec& array, const GemmShape& gemm);

// Which unit runs a GEMM: the compute array, or the vector unit (attention's one-row GEMMs of a
// decode step, where the array would hold each cached block for a single query row).
enum class GemmUnit { array, vector };
constexpr util::EnumNames<GemmUnit, 2> enum_names(GemmUnit) {
  return {{{GemmUnit::array, "array"}, {GemmUnit::vector, "vector"}}};
}

// A GEMM on the vector unit: each MAC is a multiply and an add, two of its ops (as a batch-norm's
// scale and shift are two ops an element), ceil(2 x MACs / vector_ops_per_cycle) cycles; the lanes
// take independent outputs, so no cross-lane reduction is needed and nothing fills or drains.
std::int64_t vector_gemm_cycles(const spec::ComputeSpec& array, const GemmShape& gemm);

// Cycles of one GEMM on `unit`: gemm_cycles' on the array, vector_gemm_cycles' on the vector unit.
// The mapper's estimate and the replay both call this.
std::int64_t gemm_cycles_on(const spec::ComputeSpec& array, const GemmShape& gemm, GemmUnit unit);
// The same with weights in a format the array multiplies `mac_rate` times as fast as its operands
// (spec::ComputeSpec::native_formats): the array's cycles divided by the rate, rounded up (fill and
// drain shrink with the rest, ASSUMED); the vector unit's are unchanged.
std::int64_t gemm_cycles_at(const spec::ComputeSpec& array, const GemmShape& gemm, GemmUnit unit,
                            std::int64_t mac_rate);

// How many of `gemm`'s groups one fold of the array holds side by side (block-diagonally): b of the
// file comment for a systolic array, 1 for a vector-MAC cluster.
std::int64_t groups_per_fold(const spec::ComputeSpec& array, const GemmShape& gemm);

// Non-MAC work (pooling, activation, element-wise, softmax) on the vector unit:
// ceil(ops / vector_ops_per_cycle). ops = 0 gives 0 cycles; negative ops or a non-positive
// vector_ops_per_cycle throw std::invalid_argument.
std::int64_t vector_cycles(const spec::ComputeSpec& array, std::int64_t ops);

// The SRAM roof of the roofline: the ops/s the array reaches when its buffers deliver operands no
// faster than one access stream of banks x bank_width_bytes per SRAM cycle each, and the array
// demands per compute cycle (elements x operand bytes):
//   ws: R inputs (a row of A enters each cycle; weights are preloaded once per fold),
//   is: R weights (symmetrically), os: R inputs and C weights,
//   A arrays splitting the columns: the streamed operand broadcast to them (the same R elements),
//   os's C weights per array (C x A),
//   vector_mac: `lanes` inputs (broadcast to every unit) and units x lanes weights.
// ceiling = peak x min over the streamed operands of (supply / demand). Returns the ceiling when it
// is below the compute peak (the SRAM binds), otherwise nothing.
std::optional<double> sram_bound_ops_per_second(const spec::AcceleratorSpec& accelerator);

}  // namespace reusesim::timing
