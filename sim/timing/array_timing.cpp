#include "timing/array_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "util/checked_math.h"


namespace reusesim::timing {

namespace {

using util::checked_add;
using util::checked_mul;
using util::checked_product;

void require_positive(std::int64_t value, const char* what) {
  if (value <= 0) throw std::invalid_argument(std::string(what) + " must be positive, got " + std::to_string(value));
}

// ceil(a / b) for a >= 0, b > 0, without forming a + b - 1.
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

void require_dimensions(const GemmShape& gemm) {
  require_positive(gemm.m, "GEMM dimension M");
  require_positive(gemm.n, "GEMM dimension N");
  require_positive(gemm.k, "GEMM dimension K");
  require_positive(gemm.groups, "GEMM groups");
}

double utilization_of(const GemmShape& gemm, std::int64_t cycles, std::int64_t macs_per_cycle) {
  // A ratio: doubles, so that a huge but valid GEMM does not throw here.
  const double work = static_cast<double>(gemm.groups) * static_cast<double>(gemm.m) * static_cast<double>(gemm.n) *
                      static_cast<double>(gemm.k);
  return work / (static_cast<double>(cycles) * static_cast<double>(macs_per_cycle));
}

// Which GEMM dimension lies on a systolic array's rows and columns and which one streams.
struct SystolicAxes {
  std::int64_t GemmShape::*rows_dim;
  std::int64_t GemmShape::*cols_dim;
  std::int64_t GemmShape::*streamed;
};

SystolicAxes systolic_axes(spec::Dataflow dataflow) {
  switch (dataflow) {
    case spec::Dataflow::os:
      return {&GemmShape::m, &GemmShape::n, &GemmShape::k};  // (M, N) on (R, C), K streamed
    case spec::Dataflow::ws:
      return {&GemmShape::k, &GemmShape::n, &GemmShape::m};  // (K, N) on (R, C), M streamed
    case spec::Dataflow::is:
      break;
  }
  return {&GemmShape::k, &GemmShape::m, &GemmShape::n};  // (K, M) on (R, C), N streamed
}

// How a GEMM lies on a systolic array: the dimensions on rows and columns, the streamed one, and
// the fill and drain of a fold (os: R + C; ws, is: 2R + C).
struct SystolicMapping {
  std::int64_t rows_dim = 0, cols_dim = 0, streamed = 0, fill_drain = 0;
};

SystolicMapping systolic_mapping(const spec::ComputeSpec& array, const GemmShape& gemm) {
  require_positive(array.rows, "systolic array rows");
  require_positive(array.cols, "systolic array cols");
  const SystolicAxes axes = systolic_axes(array.dataflow);
  const std::int64_t fill_drain = array.dataflow == spec::Dataflow::os
                                      ? checked_add(array.rows, array.cols)
                                      : checked_add(checked_mul(2, array.rows), array.cols);
  return {gemm.*axes.rows_dim, gemm.*axes.cols_dim, gemm.*axes.streamed, fill_drain};
}

// One array's cycles for `gemm` (utilization left to the caller).
ArrayCycles one_array_cycles(const spec::ComputeSpec& array, const GemmShape& gemm) {
  const SystolicMapping on = systolic_mapping(array, gemm);
  const std::int64_t r = array.rows;
  const std::int64_t c = array.cols;
  ArrayCycles result;
  // Groups whose blocks fit the array run side by side, block-diagonally (see the header).
  result.folds = checked_mul(ceil_div(gemm.groups, groups_per_fold(array, gemm)),
                             checked_mul(ceil_div(on.rows_dim, r), ceil_div(on.cols_dim, c)));
  const std::int64_t per_fold = checked_add(checked_add(on.streamed, on.fill_drain), -2);
  if (array.double_buffered_stationary && array.dataflow != spec::Dataflow::os) {
    // The first fold as ever; each later one starts when the one before has streamed its T rows
    // and its own stationary tile has shifted in (R cycles, behind the stream): max(T, R) apart.
    result.cycles = checked_add(per_fold, checked_mul(result.folds - 1, std::max(on.streamed, r)));
  } else {
    result.cycles = checked_mul(result.folds, per_fold);
  }
  return result;
}

// One array's cycles for its share of `gemm` when the arrays split the dimension `split`:
// ceil(dimension / arrays) of it each.
ArrayCycles share_cycles(const spec::ComputeSpec& array, const GemmShape& gemm, std::int64_t GemmShape::*split) {
  GemmShape share = gemm;
  share.*split = ceil_div(gemm.*split, array.arrays);
  return one_array_cycles(array, share);
}

ArrayCycles systolic_cycles(const spec::ComputeSpec& array, const GemmShape& gemm) {
  require_positive(array.arrays, "systolic arrays");
  // The arrays split the GEMM's columns, its streamed rows or its groups (its rows would need a
  // reduction between arrays), whichever ends first: the columns on a tie, then the streamed rows.
  const SystolicAxes axes = systolic_axes(array.dataflow);
  ArrayCycles result = share_cycles(array, gemm, axes.cols_dim);
  if (array.arrays > 1) {
    for (std::int64_t GemmShape::*split : {axes.streamed, &GemmShape::groups}) {
      const ArrayCycles other = share_cycles(array, gemm, split);
      if (other.cycles < result.cycles) result = other;
    }
  }
  result.utilization = utilization_of(gemm, result.cycles, checked_product({array.rows, array.cols, array.arrays}));
  return result;
}

ArrayCycles vector_mac_cycles(const spec::ComputeSpec& array, const GemmShape& gemm) {
  require_positive(array.units, "vector_mac units");
  require_positive(array.lanes, "vector_mac lanes");
  require_positive(gemm.k_row == 0 ? gemm.k : gemm.k_row, "GEMM kernel row");
  ArrayCycles result;
  std::int64_t cycles_per_pass = ceil_div(gemm.k, array.lanes);
  switch (array.lane_dimension) {
    case spec::LaneDimension::k:
      result.folds = checked_product({gemm.groups, gemm.m, ceil_div(gemm.n, array.units)});
      break;
    case spec::LaneDimension::kernel_row: {
      // Every kernel row starts on lane 0; a tile that cuts a row ends on a shorter one.
      const std::int64_t row = std::min(gemm.k_row == 0 ? gemm.k : gemm.k_row, gemm.k);
      result.folds = checked_product({gemm.groups, gemm.m, ceil_div(gemm.n, array.units)});
      cycles_per_pass = checked_add(checked_mul(gemm.k / row, ceil_div(row, array.lanes)),
                                    ceil_div(gemm.k % row, array.lanes));
      break;
    }
    case spec::LaneDimension::output_channels:
      result.folds = checked_product({gemm.groups, ceil_div(gemm.m, array.units), ceil_div(gemm.n, array.lanes)});
      cycles_per_pass = gemm.k;
      break;
  }
  result.cycles = checked_mul(result.folds, cycles_per_pass);
  result.utilization = utilization_of(gemm, result.cycles, checked_mul(array.units, array.lanes));
  return result;
}

}  // namespace

std::int64_t groups_per_fold(const spec::ComputeSpec& array, const GemmShape& gemm) {
  if (array.kind != spec::ArrayKind::systolic) return 1;
  const SystolicMapping on = systolic_mapping(array, gemm);
  if (on.rows_dim > array.rows || on.cols_dim > array.cols) return 1;
  return std::min(array.rows / on.rows_dim, array.cols / on.cols_dim);
}

ArrayCycles gemm_cycles(const spec::ComputeSpec& array, const GemmShape& gemm) {
  require_dimensions(gemm);
  switch (array.kind) {
    case spec::ArrayKind::systolic: return systolic_cycles(array, gemm);
    case spec::ArrayKind::vector_mac: return vector_mac_cycles(array, gemm);
  }
  throw std::invalid_argument("unknown compute array kind");
}

std::int64_t vector_gemm_cycles(const spec::ComputeSpec& array, const GemmShape& gemm) {
  require_dimensions(gemm);
  return vector_cycles(array, checked_mul(2, checked_product({gemm.groups, gemm.m, gemm.n, gemm.k})));
}

std::int64_t gemm_cycles_on(const spec::ComputeSpec& array, const GemmShape& gemm, GemmUnit unit) {
  return unit == GemmUnit::vector ? vector_gemm_cycles(array, gemm) : gemm_cycles(array, gemm).cycles;
}

std::int64_t gemm_cycles_at(const spec::ComputeSpec& array, const GemmShape& gemm, GemmUnit unit,
                            std::int64_t mac_rate) {
  require_positive(mac_rate, "mac_rate");
  const std::int64_t cycles = gemm_cycles_on(array, gemm, unit);
  return unit == GemmUnit::vector ? cycles : ceil_div(cycles, mac_rate);
}

std::int64_t vector_cycles(const spec::ComputeSpec& array, std::int64_t ops) {
  require_positive(array.vector_ops_per_cycle, "vector_ops_per_cycle");
  if (ops < 0) throw std::invalid_argument("vector op count must not be negative, got " + std::to_string(ops));
  return ceil_div(ops, array.vector_ops_per_cycle);
}

std::optional<double> sram_bound_ops_per_second(const spec::AcceleratorSpec& accelerator) {
  const spec::ComputeSpec& array = accelerator.compute;
  const auto operand_bytes = static_cast<double>(accelerator.element_bytes());
  // Bytes per compute cycle that one access stream of the buffer holding `kind` delivers.
  const auto supply = [&](spec::TensorKind kind) {
    for (const spec::SramBufferSpec& buffer : accelerator.sram.buffers) {
      if (std::find(buffer.holds.begin(), buffer.holds.end(), kind) != buffer.holds.end()) {
        return static_cast<double>(buffer.banks * buffer.bank_width_bytes) * accelerator.sram.clock_mhz / array.clock_mhz;
      }
    }
    return 0.0;
  };
  double input_elements = 0, weight_elements = 0;  // demanded per compute cycle
  if (array.kind == spec::ArrayKind::vector_mac) {
    input_elements = static_cast<double>(array.lanes);
    weight_elements = static_cast<double>(array.units * array.lanes);
  } else if (array.dataflow == spec::Dataflow::ws) {
    input_elements = static_cast<double>(array.rows);
  } else if (array.dataflow == spec::Dataflow::is) {
    weight_elements = static_cast<double>(array.rows);
  } else {
    input_elements = static_cast<double>(array.rows);
    weight_elements = static_cast<double>(array.cols * array.arrays);
  }
  double fraction = 1.0;
  if (input_elements > 0) fraction = std::min(fraction, supply(spec::TensorKind::inputs) / (input_elements * operand_bytes));
  if (weight_elements > 0) fraction = std::min(fraction, supply(spec::TensorKind::weights) / (weight_elements * operand_bytes));
  if (fraction >= 1.0) return std::nullopt;
  return fraction * array.peak_ops_per_second();
}

}  // namespace reusesim::timing
