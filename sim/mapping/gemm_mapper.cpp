#include "mapping/gemm_mapper.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "mapping/vector_mapper.h"
#include "util/checked_math.h"
#include "workload/precision.h"

namespace reusesim::mapping {

using util::checked_add;
using util::checked_mul;
using util::checked_product;
using workload::LayerType;

namespace {

// Bytes of values [first, end) of a column packed at `bits` each, rounded out to whole bytes.
std::int64_t packed_range_bytes(std::int64_t first, std::int64_t end, std::int64_t bits) {
  return ceil_div(checked_mul(end, bits), 8) - checked_mul(first, bits) / 8;
}

// The array multiplies `p`'s operands at the activations' format when compute.native_formats lists
// it, at its MAC rate; else at the operand type, rate 1 (so without a precision block).
void multiply_at_activation_format(GemmProblem& p, const spec::AcceleratorSpec& accelerator,
                                   const std::optional<workload::NumberFormat>& activations) {
  if (!activations) return;
  const auto& native = accelerator.compute.native_formats;
  const auto rate = native.find(util::name(*activations));
  if (rate == native.end()) return;
  p.mac_rate = rate->second;
  p.mac_format = rate->first;
}

}  // namespace

std::int64_t GemmProblem::b_metadata_bytes(std::int64_t k0, std::int64_t count) const {
  return packed_range_bytes(b_sparsity.kept(k0), b_sparsity.kept(k0 + count), b_sparsity.index_bits());
}

std::int64_t GemmProblem::b_column_bytes(std::int64_t k0, std::int64_t count) const {
  if (b_bits == 0 && !b_sparsity.sparse()) return checked_mul(count, b_bytes());
  // No values touch no group: the first K tile starts at its column's first byte.
  if (count == 0) return 0;
  const std::int64_t end = k0 + count;
  // The kept values of a sparse column (all of them when dense), then their metadata.
  std::int64_t bytes =
      packed_range_bytes(b_sparsity.kept(k0), b_sparsity.kept(end), b_bits > 0 ? b_bits : b_bytes() * 8);
  bytes += b_metadata_bytes(k0, count);
  if (b_scales) bytes += (b_group > 0 ? ceil_div(end, b_group) - k0 / b_group : 1) * workload::kWeightScaleBytes;
  return bytes;
}

namespace {

std::vector<std::int64_t> sorted_unique(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// Tile sizes to try for a dimension: the dimension halved again and again, the powers of two
// from 8 up, and, when the dimension lies along an edge of the array (`edge` > 0: rows, columns,
// units or lanes, or a kernel row), the multiples of the edge that split it most evenly: for c
// tiles, ceil(dimension / c) rounded up to the edge (a full array pass for every tile but the
// last). Only the distinct ones, about 2 sqrt(dimension / edge) of them.
std::vector<std::int64_t> tile_sizes(std::int64_t dimension, std::int64_t edge = 0) {
  std::vector<std::int64_t> values{dimension};
  for (std::int64_t n = dimension; n > 1;) {
    n = (n + 1) / 2;
    values.push_back(n);
  }
  for (std::int64_t power = 8; power < dimension; power *= 2) values.push_back(power);
  if (edge > 0) {
    for (std::int64_t count = 1; count <= ceil_div(dimension, edge); ++count) {
      const std::int64_t size = ceil_div(ceil_div(dimension, count), edge) * edge;
      if (size < dimension) values.push_back(size);
    }
  }
  return sorted_unique(std::move(values));
}

// The array edge each GEMM dimension lies along (0: none), for the tile sizes to try.
struct Edges {
  std::int64_t m = 0, n = 0, k = 0;
};

Edges array_edges(const spec::ComputeSpec& array, const GemmProblem& p) {
  if (array.kind == spec::ArrayKind::systolic) {
    // A core's arrays side by side split the columns first: a tile fills them at cols x arrays.
    const std::int64_t cols = array.cols * array.arrays;
    switch (array.dataflow) {
      case spec::Dataflow::ws:
        return {0, cols, array.rows};
      case spec::Dataflow::os:
        return {array.rows, cols, 0};
      case spec::Dataflow::is: break;
    }
    return {cols, 0, array.rows};
  }
  switch (array.lane_dimension) {
    case spec::LaneDimension::k: return {0, array.units, array.lanes};
    case spec::LaneDimension::kernel_row:  // rows of whole lane groups tile like k
      return {0, array.units, p.k_row == 0 || p.k_row % array.lanes == 0 ? array.lanes : p.k_row};
    case spec::LaneDimension::output_channels: break;
  }
  return {array.units, array.lanes, 0};
}

// The edges a placement's tiles lie along: transposed, M takes N's edge and N M's; the vector unit
// has none (its lanes take any outputs).
Edges placement_edges(const spec::ComputeSpec& array, const GemmProblem& p, GemmPlacement placement) {
  const Edges edges = array_edges(array, p);
  switch (placement) {
    case GemmPlacement::array:
      break;
    case GemmPlacement::array_transposed:
      return {edges.n, edges.m, edges.k};
    case GemmPlacement::vector_unit:
      return {};
  }
  return edges;
}

// A tile as the unit that runs it sees it: transposed (C^T = B^T A^T), M and N swap.
timing::GemmShape placed_shape(GemmPlacement placement, std::int64_t tg, std::int64_t tm, std::int64_t tn,
                               std::int64_t tk, std::int64_t k_row) {
  if (placement == GemmPlacement::array_transposed) return {tn, tm, tk, tg, k_row};
  return {tm, tn, tk, tg, k_row};
}

timing::GemmUnit unit_of(GemmPlacement placement) {
  return placement == GemmPlacement::vector_unit ? timing::GemmUnit::vector : timing::GemmUnit::array;
}

// SRAM cycles of a K tile whose partial sums spill to the output buffer: the first K tile writes
// the tile's sums there, the middle ones read and write them, the last reads them; reads share the
// buffer's read ports with the array's operand reads when the buffer also holds inputs (or
// weights). The replay charges an access of b bytes ceil(ceil(b / bank width) / banks) SRAM
// cycles on one port; the estimate spreads a port kind's bytes over its ports.
struct SpillCost {
  bool spill = false;
  std::int64_t sum_bytes = 0;  // per partial sum (the accumulators' width)
  std::int64_t e = 1;
  const spec::SramBufferSpec* buffer = nullptr;
  bool holds_inputs = false, holds_weights = false;
  double compute_per_sram_cycle = 1;

  std::int64_t cycles(const timing::GemmShape& tile, bool read_sums, bool write_sums) const {
    if (!spill) return 0;
    const std::int64_t sums = checked_product({tile.groups, tile.m, tile.n, sum_bytes});
    std::int64_t read = read_sums ? sums : 0;
    if (holds_inputs) read = checked_add(read, checked_product({tile.groups, tile.m, tile.k, e}));
    if (holds_weights) read = checked_add(read, checked_product({tile.groups, tile.k, tile.n, e}));
    const auto port_cycles = [&](std::int64_t bytes, std::int64_t ports) {
      const std::int64_t words = ceil_div(bytes, buffer->bank_width_bytes);
      return static_cast<double>(ceil_div(ceil_div(words, buffer->banks), std::max<std::int64_t>(1, ports)));
    };
    const double sram =
        std::max(port_cycles(read, buffer->read_ports), port_cycles(write_sums ? sums : 0, buffer->write_ports));
    return static_cast<std::int64_t>(std::ceil(sram * compute_per_sram_cycle));
  }
};

SpillCost spill_cost(const spec::AcceleratorSpec& accelerator, const GemmProblem& p, bool spill) {
  const spec::SramSpec& sram = accelerator.sram;
  const std::size_t outputs = sram.buffer_index(spec::TensorKind::outputs);
  return {spill,
          accelerator.accumulators.element_bytes(),
          p.e,
          &sram.buffers[outputs],
          sram.buffer_index(spec::TensorKind::inputs) == outputs,
          sram.buffer_index(spec::TensorKind::weights) == outputs,
          accelerator.compute.clock_mhz / sram.clock_mhz};
}

// Whether the array skips `p`'s zero weights where the tiling places it: the vector unit computes
// densely from a decompressed tile.
bool skips_zeros(const GemmProblem& p, GemmPlacement placement) {
  return p.skipped.sparse() && placement != GemmPlacement::vector_unit;
}

// Whether each loaded weight tile is converted on the vector unit before it is multiplied:
// quantized weights dequantized, sparse weights decompressed (both at once when both).
bool converts_weights(const GemmProblem& p, GemmPlacement placement) {
  return p.dequantize || (p.skipped.sparse() && !skips_zeros(p, placement));
}

// Compute cycles of every tile of a tiling, a ragged last tile along each dimension at its own
// size: each dimension splits into full tiles and at most one smaller one, so a tiling has at
// most 2^4 distinct tile shapes, each costed once and multiplied by how many there are. A tile
// whose partial sums spill takes the longer of its cycles on the placement's unit and its SRAM
// cycles, by its place along K (first, middle or last); the SRAM sees the tile as laid out (the
// same bytes of each buffer wherever it runs).
std::int64_t tiled_compute_cycles(const spec::ComputeSpec& array, const GemmProblem& p, GemmPlacement placement,
                                  std::int64_t tg, std::int64_t tm, std::int64_t tn, std::int64_t tk,
                                  const SpillCost& spill) {
  struct Part {
    std::int64_t size = 0, count = 0;
  };
  const auto parts = [](std::int64_t dimension, std::int64_t tile) {
    std::vector<Part> split{{tile, dimension / tile}};
    if (dimension % tile != 0) split.push_back({dimension % tile, 1});
    return split;
  };
  const std::int64_t tiles_k = ceil_div(p.k, tk);
  std::int64_t cycles = 0;
  for (const Part& g : parts(p.groups, tg)) {
    for (const Part& m : parts(p.m, tm)) {
      for (const Part& n : parts(p.n, tn)) {
        const std::int64_t count = checked_product({g.count, m.count, n.count});
        if (count == 0) continue;
        const auto tile = [&](std::int64_t k, bool read_sums, bool write_sums) {
          const timing::GemmShape shape{m.size, n.size, k, g.size, p.k_row};
          timing::GemmShape placed = placed_shape(placement, g.size, m.size, n.size, k, p.k_row);
          if (skips_zeros(p, placement)) placed.k = p.skipped.kept(k);
          return std::max(timing::gemm_cycles_at(array, placed, unit_of(placement), p.mac_rate),
                          spill.cycles(shape, read_sums, write_sums));
        };
        std::int64_t per_tile = 0;
        if (!spill.spill) {
          for (const Part& k : parts(p.k, tk))
            per_tile = checked_add(per_tile, checked_mul(k.count, tile(k.size, false, false)));
        } else {  // K-tiled: the first K tile writes its sums, the middle ones read and write, the last reads
          per_tile = checked_add(checked_add(tile(tk, false, true), checked_mul(tiles_k - 2, tile(tk, true, true))),
                                 tile(p.k - (tiles_k - 1) * tk, true, false));
        }
        cycles = checked_add(cycles, checked_mul(count, per_tile));
      }
    }
  }
  return cycles;
}

// Where a tile's partial sums wait between its K tiles. With all of K in one tile they never
// leave the array's accumulators; K-tiled, the tile's tg x tm x tn sums at accumulator width stay
// in the accumulators when two tiles' worth fit (double-buffered, so the next tile starts while
// the last one's outputs drain), else they spill at accumulator width to the output buffer when
// half of it holds them (read back and written again by every K tile), else to DRAM (stored after
// every K tile but the last and loaded back before every one but the first, through the output
// buffer in pieces of at most half of it). Outputs leave at operand width either way. Transposed,
// the accumulators hold the same tg x tm x tn sums (n rows of m); the vector unit has no
// accumulators, so its K-tiled sums always wait in the output buffer or DRAM.
struct PartialSums {
  PartialSumHome home = PartialSumHome::accumulators;
  std::int64_t output_tile_bytes = 0;  // what one output tile occupies in the output buffer
};

PartialSums partial_sums(const spec::AcceleratorSpec& accelerator, const GemmProblem& p, GemmPlacement placement,
                         std::int64_t output_capacity, std::int64_t tg, std::int64_t tm, std::int64_t tn,
                         std::int64_t tiles_k) {
  const std::int64_t outputs = checked_product({tg, tm, tn, p.e});
  if (tiles_k == 1) return {PartialSumHome::accumulators, outputs};
  const std::int64_t sums = checked_product({tg, tm, tn, accelerator.accumulators.element_bytes()});
  if (placement != GemmPlacement::vector_unit && sums * 2 <= accelerator.accumulators.capacity_bytes) {
    return {PartialSumHome::accumulators, outputs};
  }
  if (std::max(outputs, sums) * 2 <= output_capacity) return {PartialSumHome::output_buffer, std::max(outputs, sums)};
  return {PartialSumHome::dram, outputs};
}

// The output-path work of a GEMM on the vector unit, its busiest stage's: that unit runs it after
// the MACs (on the array it overlaps the next tile, and the estimate leaves it out).
std::int64_t vector_unit_output_cycles(const spec::ComputeSpec& array, const GemmProblem& p) {
  const std::int64_t busiest =
      p.output_stage_ops > 0 ? std::min(p.output_stage_ops, p.output_vector_ops) : p.output_vector_ops;
  return timing::vector_cycles(array, busiest);
}

// The most bytes one column's K tile of `tk` takes in the weight buffer, its bias included when
// it rides the last tile: with packed or sparse weights, the largest of the tiles at k0 = 0, tk, 2 tk, ...
std::int64_t largest_b_tile_column(const GemmProblem& p, std::int64_t tk) {
  if (p.b_bits == 0 && !p.b_sparsity.sparse()) return checked_mul(tk + p.bias, p.b_bytes());
  std::int64_t largest = 0;
  for (std::int64_t k0 = 0; k0 < p.k; k0 += tk) {
    const std::int64_t rows = std::min(tk, p.k - k0);
    largest = std::max(largest, p.b_column_bytes(k0, rows) + (k0 + rows == p.k ? p.bias * p.e : 0));
  }
  return largest;
}

// The vector ops that dequantize one column's K tile of `rows` weights: one a weight, a convert
// and a multiply by its group's scale fused (ASSUMED; docs/model-format.md, "Precision per tensor").
std::int64_t dequant_ops(std::int64_t rows, std::int64_t columns) { return checked_mul(rows, columns); }

// Groups per tile to try: 1, and for whole groups (tn = N, tk = K) of a grouped layer the halvings
// and powers of two of the group count and multiples of what one fold of the array holds side by
// side (7 of a 3x3 depthwise conv's channels on 64 rows). A pinned tiling keeps one group a tile.
std::vector<std::int64_t> group_tile_sizes(const GemmProblem& p, const spec::ComputeSpec& array,
                                           GemmPlacement placement, std::int64_t tn, std::int64_t tk, bool pinned) {
  if (pinned || p.groups == 1 || tn != p.n || tk != p.k) return {1};
  std::vector<std::int64_t> values = tile_sizes(p.groups);
  const std::int64_t per_fold = placement == GemmPlacement::vector_unit
                                    ? 1
                                    : timing::groups_per_fold(array, placed_shape(placement, p.groups, p.m, tn, tk, 0));
  for (std::int64_t tg = per_fold; tg < p.groups; tg *= 2) values.push_back(tg);
  return sorted_unique(std::move(values));
}

}  // namespace

GemmTiling choose_gemm_tiling(const GemmProblem& p, const spec::AcceleratorSpec& accelerator, const Capacity& capacity,
                              double dram_bytes_per_cycle, const std::string& layer,
                              const std::optional<workload::PinnedTiling>& pinned, GemmPlacement placement) {
  const spec::ComputeSpec& array = accelerator.compute;
  const Edges edges = placement_edges(array, p, placement);
  std::vector<GemmTiling> candidates;
  bool too_many_tiles = false;
  // By tile height: the input bytes of one sweep over M and of its largest tile, with all of K.
  struct InputSweep {
    std::int64_t total = 0;
    std::int64_t largest = 0;
  };
  std::map<std::int64_t, InputSweep> input_sweeps;
  const auto sweep_of = [&](std::int64_t tm) -> const InputSweep& {
    auto cached = input_sweeps.find(tm);
    if (cached == input_sweeps.end()) {
      InputSweep sweep;
      for (std::int64_t m0 = 0; m0 < p.m; m0 += tm) {
        const std::int64_t bytes = p.input_bytes(m0, std::min(tm, p.m - m0), p.k);
        sweep.total += bytes;
        sweep.largest = std::max(sweep.largest, bytes);
      }
      sweep.total *= p.groups;
      cached = input_sweeps.emplace(tm, sweep).first;
    }
    return cached->second;
  };
  // A pinned tiling is the only candidate: one with more tiles than a layer may have steps is
  // refused for that, not for fitting no buffer.
  if (pinned) {
    const std::int64_t tiles = util::checked_product({p.groups, ceil_div(p.m, std::min(pinned->m, p.m)),
                                                          ceil_div(p.n, std::min(pinned->n, p.n)),
                                                          ceil_div(p.k, std::min(pinned->k, p.k))});
    if (tiles > static_cast<std::int64_t>(program::kMaxLayerSteps)) {
      throw MappingError("layer " + layer + ": the pinned tiling m" + std::to_string(pinned->m) + " n" +
                         std::to_string(pinned->n) + " k" + std::to_string(pinned->k) + " makes " +
                         std::to_string(tiles) + " tiles, more than the " + std::to_string(program::kMaxLayerSteps) +
                         " steps one layer may have; pin larger tiles");
    }
  }
  // A pinned tiling is the only candidate (tiles larger than the GEMM are clipped to it).
  const auto sizes = [&](std::int64_t dimension, std::int64_t pin, std::int64_t edge) {
    return pinned ? std::vector<std::int64_t>{std::min(pin, dimension)} : tile_sizes(dimension, edge);
  };
  // Lanes along a kernel row start each row on lane 0, so a K tile's cycles must not depend on
  // where in a row it starts: it holds whole rows, or lies within one, or rows and tile are both
  // whole lane groups (then no lane idles whatever the offset).
  const bool rows_matter = array.kind == spec::ArrayKind::vector_mac &&
                           array.lane_dimension == spec::LaneDimension::kernel_row && p.k_row > 0 && p.k_row < p.k;
  const auto fits_rows = [&](std::int64_t tk) {
    return !rows_matter || tk % p.k_row == 0 || p.k_row % tk == 0 ||
           (p.k_row % array.lanes == 0 && tk % array.lanes == 0);
  };
  if (pinned && !fits_rows(std::min(pinned->k, p.k))) {
    throw MappingError("layer " + layer + ": the pinned tiling's k " + std::to_string(pinned->k) +
                       " cuts kernel rows of " + std::to_string(p.k_row) +
                       " values; with lane_dimension kernel_row a K tile holds whole rows or lies within one");
  }
  // What every tiling moves at least once, whatever its tiles.
  const std::int64_t weight_bytes = checked_product({p.groups, p.n, p.b_column_stride()});
  const std::int64_t output_bytes = p.groups * p.m * p.n * p.e;
  const std::int64_t output_path =
      placement == GemmPlacement::vector_unit ? vector_unit_output_cycles(array, p) : std::int64_t{0};
  for (std::int64_t tk : sizes(p.k, pinned ? pinned->k : 0, edges.k)) {
    if (!fits_rows(tk)) continue;
    const std::int64_t b_tile_column = largest_b_tile_column(p, tk);  // walks K for packed or sparse weights
    for (std::int64_t tn : sizes(p.n, pinned ? pinned->n : 0, edges.n)) {
      for (std::int64_t tg : group_tile_sizes(p, array, placement, tn, tk, pinned.has_value())) {
        if (checked_product({tg, tn, b_tile_column}) * 2 > capacity.weights) continue;
        for (std::int64_t tm : sizes(p.m, pinned ? pinned->m : 0, edges.m)) {
          // More tiles than a program may have steps: not a candidate (and not worth sweeping M for).
          if (checked_mul(ceil_div(p.groups, tg), ceil_div(p.m, tm)) > static_cast<std::int64_t>(program::kMaxLayerSteps)) {
            too_many_tiles = true;
            continue;
          }
          // Every input tile must fit (tiles that straddle images or rows are the largest).
          const InputSweep& sweep = sweep_of(tm);
          const std::int64_t largest_input_tile = tg * std::max(p.e, ceil_div(sweep.largest * tk, p.k));
          const std::int64_t tiles_m = ceil_div(p.m, tm), tiles_n = ceil_div(p.n, tn), tiles_k = ceil_div(p.k, tk);
          const PartialSums sums = partial_sums(accelerator, p, placement, capacity.outputs, tg, tm, tn, tiles_k);
          if (largest_input_tile * 2 > capacity.inputs || sums.output_tile_bytes * 2 > capacity.outputs) continue;
          if (sums.home == PartialSumHome::dram && !p.may_spill_to_dram) continue;
          const std::int64_t tiles = checked_product({ceil_div(p.groups, tg), tiles_m, tiles_n, tiles_k});
          if (tiles > static_cast<std::int64_t>(program::kMaxLayerSteps)) {
            too_many_tiles = true;
            continue;
          }
          const std::int64_t compute =
              checked_add(tiled_compute_cycles(array, p, placement, tg, tm, tn, tk,
                                               spill_cost(accelerator, p, sums.home == PartialSumHome::output_buffer)),
                          output_path);
          const std::int64_t input_sweep = sweep.total;
          // Partial sums spilled to DRAM: every K tile but the last stores them, every one but the
          // first loads them back, at accumulator width.
          const std::int64_t spilled_bytes =
              sums.home == PartialSumHome::dram
                  ? checked_product({2, tiles_k - 1, p.groups, p.m, p.n, accelerator.accumulators.element_bytes()})
                  : 0;
          for (bool n_outer : {true, false}) {
            if (pinned && n_outer != pinned->n_outer) continue;
            const std::int64_t weight_passes = n_outer && tiles_k == 1 ? 1 : tiles_m;
            const std::int64_t weights = p.b_on_chip ? 0 : weight_bytes * weight_passes;
            // The vector unit dequantizes every weight each time it is loaded, between the array's tiles.
            const std::int64_t dequant =
                converts_weights(p, placement)
                    ? timing::vector_cycles(array, checked_product({weight_passes, p.groups, dequant_ops(p.k, p.n)}))
                    : 0;
            const std::int64_t inputs = p.inputs_on_chip ? 0 : !n_outer && tiles_k == 1 ? input_sweep : input_sweep * tiles_n;
            const std::int64_t bytes = weights + inputs + (p.output_on_chip ? 0 : output_bytes) + spilled_bytes;
            const auto memory = static_cast<std::int64_t>(static_cast<double>(bytes) / dram_bytes_per_cycle);
            // Dequantized weights: the first weight tile's load and dequantization overlap nothing
            // (the array waits for both), so a tiling whose one tile holds every weight pays its
            // load, its dequantization and its MACs one after another.
            const std::int64_t prologue =
                converts_weights(p, placement)
                    ? checked_add(static_cast<std::int64_t>(
                                      static_cast<double>(checked_product({tg, tn, b_tile_column})) /
                                      dram_bytes_per_cycle),
                                  timing::vector_cycles(array, dequant_ops(tk, tg * tn)))
                    : 0;
            const std::int64_t cycles = checked_add(std::max(checked_add(compute, dequant), memory), prologue);
            candidates.push_back(GemmTiling{placement, tg, tm, tn, tk, n_outer, sums.home,
                                            accelerator.accumulators.element_bytes(),
                                            std::max<std::int64_t>(1, capacity.outputs / 2), cycles, bytes, tiles});
          }
        }
      }
    }
  }
  const bool found = !candidates.empty();
  if (found) return fastest_tiling(candidates);
  if (pinned) {
    throw MappingError("layer " + layer + ": the pinned tiling m" + std::to_string(pinned->m) + " n" +
                       std::to_string(pinned->n) + " k" + std::to_string(pinned->k) +
                       " does not fit half the weight, input and output buffers (" + std::to_string(capacity.weights) +
                       ", " + std::to_string(capacity.inputs) + ", " + std::to_string(capacity.outputs) + " bytes)");
  }
  if (too_many_tiles) {
    throw MappingError("layer " + layer + ": every tiling that fits the SRAM buffers needs more than " +
                       std::to_string(program::kMaxLayerSteps) +
                       " tiles, the step limit of one layer; lower the batch size or give the buffers more capacity");
  }
  throw MappingError("layer " + layer + ": no tiling fits the SRAM: even a 1x1x1 tile needs " +
                     std::to_string(2 * (1 + p.bias) * p.b_bytes()) + " bytes of weights, " +
                     std::to_string(2 * p.input_bytes(0, 1, 1)) + " of inputs and " + std::to_string(2 * p.e) +
                     " of outputs with double buffering; the buffers give " + std::to_string(capacity.weights) + ", " +
                     std::to_string(capacity.inputs) + " and " + std::to_string(capacity.outputs));
}

// The estimate is coarse (no pipeline effects, no SRAM contention): tilings within 1 % of the
// fastest count as equally fast, and among them the least DRAM traffic wins, then the fewest
// tiles. Traffic is what the estimate cannot see once a layer is compute-bound.
const GemmTiling& fastest_tiling(const std::vector<GemmTiling>& candidates) {
  std::int64_t fastest = candidates.front().cycles;
  for (const GemmTiling& t : candidates) fastest = std::min(fastest, t.cycles);
  const std::int64_t tolerance = fastest + fastest / 100;
  const auto key = [](const GemmTiling& t) {
    return std::make_tuple(t.dram_bytes, t.tiles, t.cycles, !t.n_outer, static_cast<int>(t.placement));
  };
  const GemmTiling* best = nullptr;
  for (const GemmTiling& t : candidates) {
    if (t.cycles <= tolerance && (best == nullptr || key(t) < key(*best))) best = &t;
  }
  return *best;
}

std::vector<GemmPlacement> gemm_placements(const spec::AcceleratorSpec& accelerator, bool pinned) {
  std::vector<GemmPlacement> placements{GemmPlacement::array};
  if (pinned) return placements;
  // The loader allows swap_operands on systolic arrays only.
  if (accelerator.compute.swap_operands) placements.push_back(GemmPlacement::array_transposed);
  if (accelerator.compute.vector_unit_gemm) placements.push_back(GemmPlacement::vector_unit);
  return placements;
}

namespace {

// `tiles_apart`: each tile of an operand loads a DRAM range of its own, beside the other tiles'
// (the weights packed tile by tile, [group][n tile][k][n], as compilers pack them; a tile of
// several groups holds their whole N and K, so it is their whole range; an input tile's groups, and
// within them its K tiles, one after the other within its rows' range), where otherwise a tile
// that cuts K is taken as one contiguous range from its first element and every group's input tile
// from its rows' first group (docs/mapping-and-replay.md, "Limits"). DRAM timing hardly depends on
// which of a tensor's bytes a tile reads, but a shared memory's hits do: on a chip with one, a tile
// must not read the addresses of another tile's data. Returns the sparse weights' metadata bytes
// its loads moved.
std::int64_t emit_gemm(ProgramBuilder& builder, const GemmProblem& p, const GemmTiling& t,
                       const spec::ComputeSpec& array, bool tiles_apart) {
  Slots weight_slots, input_slots, output_slots;
  std::int64_t metadata_bytes = 0;
  const std::int64_t tiles_k = ceil_div(p.k, t.tk);
  const std::int64_t input_total = p.input_bytes(0, p.m, p.k);
  const std::int64_t all_outputs = p.groups * p.m * p.n;
  std::int64_t outputs_done = 0;
  for (std::int64_t g = 0; g < p.groups; g += t.tg) {
    const std::int64_t tg = std::min(t.tg, p.groups - g);  // groups side by side in this tile
    const std::int64_t outer_count = t.n_outer ? ceil_div(p.n, t.tn) : ceil_div(p.m, t.tm);
    const std::int64_t inner_count = t.n_outer ? ceil_div(p.m, t.tm) : ceil_div(p.n, t.tn);
    for (std::int64_t outer = 0; outer < outer_count; ++outer) {
      std::int32_t resident = -1;  // the outer operand's load, when all of K stays in SRAM
      for (std::int64_t inner = 0; inner < inner_count; ++inner) {
        const std::int64_t n0 = (t.n_outer ? outer : inner) * t.tn, m0 = (t.n_outer ? inner : outer) * t.tm;
        const std::int64_t tn = std::min(t.tn, p.n - n0), tm = std::min(t.tm, p.m - m0);
        const std::int32_t output_wait = output_slots.claim();
        const auto tile_offset = static_cast<std::uint64_t>((m0 * p.n * p.groups + g * p.n + n0) * p.e);
        const std::int64_t tile_bytes = tg * tm * tn * p.e;
        // A fused add's other operand, tile by tile into the output slot, unless it is on chip.
        std::vector<std::int32_t> addend_loads;
        for (const Addend& addend : p.addends) {
          if (!addend.on_chip) addend_loads.push_back(builder.load(program::TensorRole::inputs, addend.address + tile_offset, tile_bytes, deps({output_wait})));
        }
        std::int32_t last_compute = -1;
        // Partial sums that spill to DRAM: this tile's scratch range, and the pieces the last K
        // tile stored (the next one loads each back after its store).
        const std::int64_t tile_sum_bytes = tg * tm * tn * t.sum_bytes;
        const std::uint64_t scratch =
            p.partial_sums + tile_offset / static_cast<std::uint64_t>(p.e) * static_cast<std::uint64_t>(t.sum_bytes);
        std::vector<std::int32_t> spill_stores;
        for (std::int64_t k0 = 0; k0 < p.k; k0 += t.tk) {
          const std::int64_t tk = std::min(t.tk, p.k - k0);
          const bool reuse_outer = tiles_k == 1 && inner > 0;
          const auto load_weights = [&]() -> std::int32_t {
            if (p.b_on_chip) return -1;
            const std::int64_t k_offset = tiles_apart ? tg * tn * p.b_column_bytes(0, k0) : p.b_column_bytes(0, k0);
            const auto offset = static_cast<std::uint64_t>((g * p.n + n0) * p.b_column_stride() + k_offset);
            const std::int64_t column = p.b_column_bytes(k0, tk) + (k0 + tk == p.k ? p.bias * p.e : 0);
            const std::int32_t load =
                builder.load(p.b_role, p.weights + offset, tg * tn * column, deps({weight_slots.claim()}));
            metadata_bytes = checked_add(metadata_bytes, checked_product({tg, tn, p.b_metadata_bytes(k0, tk)}));
            if (!converts_weights(p, t.placement)) return load;
            // The tile's weights, dequantized in the weight buffer before the array reads them.
            program::Step dequant;
            dequant.kind = program::StepKind::vector;
            dequant.vector_ops = dequant_ops(tk, tg * tn);
            dequant.bytes = static_cast<std::uint64_t>(tg * tn * column);
            dequant.streamed_in_weights = true;
            dequant.after = {load};
            builder.count_dequantization(dequant.vector_ops, timing::vector_cycles(array, dequant.vector_ops));
            return builder.add(std::move(dequant));
          };
          const auto load_inputs = [&]() -> std::int32_t {
            if (p.inputs_on_chip) return -1;
            // Rows of the input in proportion to the output rows (NHWC keeps a row contiguous).
            const std::int64_t group_offset = tiles_apart ? g * p.input_bytes(m0, tm, p.k) : 0;
            const std::int64_t k_offset = tiles_apart && k0 > 0 ? tg * p.input_bytes(m0, tm, k0) : 0;
            const auto offset = static_cast<std::uint64_t>(
                input_total / std::max<std::int64_t>(1, p.m) * m0 * p.groups + group_offset + k_offset);
            return builder.load(program::TensorRole::inputs, p.inputs + offset, tg * p.input_bytes(m0, tm, tk), deps({input_slots.claim()}));
          };
          std::int32_t weight_load = -1, input_load = -1;
          if (t.n_outer) {
            weight_load = reuse_outer ? resident : load_weights();
            input_load = load_inputs();
            if (tiles_k == 1) resident = weight_load;
          } else {
            input_load = reuse_outer ? resident : load_inputs();
            weight_load = load_weights();
            if (tiles_k == 1) resident = input_load;
          }
          program::Step compute;
          compute.kind = program::StepKind::compute;
          compute.gemm = placed_shape(t.placement, tg, tm, tn, tk, p.k_row);
          compute.unit = unit_of(t.placement);
          compute.macs = compute.gemm.macs();
          if (t.placement != GemmPlacement::vector_unit) compute.mac_rate = p.mac_rate;
          if (skips_zeros(p, t.placement)) compute.kept_k = p.skipped.kept(k0 + tk) - p.skipped.kept(k0);
          compute.bytes = static_cast<std::uint64_t>(tg * (tm * tk + tk * tn) * p.e);
          // Transposed, the step's k x n operand is the input tile and its m x k one the N x K operand.
          const bool b_in_weights = p.b_role == program::TensorRole::weights;
          const bool transposed = t.placement == GemmPlacement::array_transposed;
          compute.stationary_in_inputs = transposed || !b_in_weights;
          compute.streamed_in_weights = transposed && b_in_weights;
          compute.after = deps({weight_load, input_load, output_wait});
          const bool first_k = k0 == 0, last_k = k0 + tk == p.k;
          add_partial_sum_traffic(compute, t, tg * tm * tn, first_k, last_k);
          for (std::size_t piece = 0; piece < spill_stores.size(); ++piece) {
            const std::int64_t offset = static_cast<std::int64_t>(piece) * t.spill_piece_bytes;
            compute.after.push_back(
                builder.load(program::TensorRole::outputs, scratch + static_cast<std::uint64_t>(offset),
                             std::min(t.spill_piece_bytes, tile_sum_bytes - offset), deps({spill_stores[piece]})));
          }
          if (last_k) {
            const auto share = [&](std::int64_t total) {
              return prorate(total, outputs_done + tg * tm * tn, all_outputs) -
                     prorate(total, outputs_done, all_outputs);
            };
            compute.vector_ops = share(p.output_vector_ops);
            // Several stages: the busiest one's share (0 when one stage does all of it).
            if (p.output_stage_ops < p.output_vector_ops)
              compute.stage_ops = std::min(share(p.output_stage_ops), compute.vector_ops);
            compute.after.insert(compute.after.end(), addend_loads.begin(), addend_loads.end());
          }
          last_compute = builder.add(std::move(compute));
          weight_slots.used_by(last_compute);
          input_slots.used_by(last_compute);
          spill_stores.clear();
          if (t.partial_sums == PartialSumHome::dram && !last_k) {
            for (std::int64_t offset = 0; offset < tile_sum_bytes; offset += t.spill_piece_bytes) {
              spill_stores.push_back(builder.store(scratch + static_cast<std::uint64_t>(offset),
                                                   std::min(t.spill_piece_bytes, tile_sum_bytes - offset),
                                                   deps({last_compute})));
            }
          }
        }
        const std::int64_t written = prorate(p.written_bytes, outputs_done + tg * tm * tn, all_outputs) -
                                     prorate(p.written_bytes, outputs_done, all_outputs);
        const auto written_offset = static_cast<std::uint64_t>(prorate(static_cast<std::int64_t>(tile_offset), p.written_bytes, all_outputs * p.e));
        outputs_done += tg * tm * tn;
        output_slots.used_by(p.output_on_chip || written == 0
                                 ? last_compute
                                 : builder.store(p.output + written_offset, written, deps({last_compute})));
      }
    }
  }
  return metadata_bytes;
}

std::string describe(const GemmProblem& p, const GemmTiling& t) {
  std::string text = "gemm " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  if (p.groups > 1) text += " x" + std::to_string(p.groups) + " groups";
  text += ", tiles ";
  if (t.tg > 1) text += "g" + std::to_string(t.tg) + " ";
  text += "m" + std::to_string(t.tm) + " n" + std::to_string(t.tn) + " k" + std::to_string(t.tk) + ", order " +
          (t.n_outer ? "n-m" : "m-n");
  if (ceil_div(p.k, t.tk) == 1) {
    const char* stationary = p.b_role == program::TensorRole::weights ? ", weights stay for all m" : ", the second operand stays for all m";
    text += t.n_outer ? stationary : ", inputs stay for all n";
  }
  if (t.partial_sums == PartialSumHome::output_buffer) text += ", partial sums spill to the output buffer";
  if (t.partial_sums == PartialSumHome::dram) text += ", partial sums spill to DRAM";
  return text;
}

}  // namespace

void add_partial_sum_traffic(program::Step& compute, const GemmTiling& tiling, std::int64_t sums, bool first_k,
                             bool last_k) {
  if (tiling.partial_sums != PartialSumHome::output_buffer) return;
  const auto bytes = static_cast<std::uint64_t>(checked_mul(sums, tiling.sum_bytes));
  compute.psum_read_bytes = first_k ? 0 : bytes;
  compute.psum_write_bytes = last_k ? 0 : bytes;
}

Capacity activation_operands_capacity(Capacity capacity) {
  capacity.weights = capacity.inputs / 2;
  capacity.inputs -= capacity.weights;
  return capacity;
}

std::int64_t emit_gemm_program(const GemmProblem& p, const GemmTiling& tiling, const Context& context,
                               program::LayerProgram& program) {
  ProgramBuilder builder(program, context.burst_bytes);
  return emit_gemm(builder, p, tiling, context.accelerator.compute, context.accelerator.shared_memory.has_value());
}

namespace {

// Every placement's best tiling of `p`: every placement tiles the same buffers; the array's own
// placement comes first and its MappingError (nothing fits) is the layer's. Another placement
// whose tile sizes fit nothing is no candidate.
std::vector<GemmTiling> placement_tilings(const GemmProblem& p, const Context& context, const Capacity& capacity,
                                          const std::string& layer,
                                          const std::optional<workload::PinnedTiling>& pinned) {
  std::vector<GemmTiling> options;
  for (GemmPlacement placement : gemm_placements(context.accelerator, pinned.has_value())) {
    try {
      options.push_back(
          choose_gemm_tiling(p, context.accelerator, capacity, context.dram_bytes_per_cycle, layer, pinned, placement));
    } catch (const MappingError&) {
      if (placement == GemmPlacement::array) throw;
    }
  }
  return options;
}

// Takes the fastest of `options` and emits its program, with the mapping it chose and the
// estimates it compared.
void emit_fastest(const GemmProblem& p, const std::vector<GemmTiling>& options, const Context& context,
                  program::LayerProgram& program) {
  const GemmTiling tiling = fastest_tiling(options);
  const std::int64_t metadata_bytes = emit_gemm_program(p, tiling, context, program);
  program.mapping = describe(p, tiling);
  // Where it runs and why: each placement's best estimate, in the order they were tried.
  if (options.size() > 1) {
    program.mapping += "; on the " + util::name(tiling.placement) + " (estimated cycles:";
    for (std::size_t i = 0; i < options.size(); ++i) {
      program.mapping +=
          std::string(i == 0 ? " " : ", ") + util::name(options[i].placement) + " " + std::to_string(options[i].cycles);
    }
    program.mapping += ")";
  }
  program.estimated_cycles = tiling.cycles;
  if (p.b_sparsity.sparse()) {
    program.mapping +=
        "; weights " + p.b_sparsity.describe() + " sparse, " + std::to_string(metadata_bytes) + " B of metadata loaded";
    if (skips_zeros(p, tiling.placement)) {
      program.mapping += ", zeros skipped as " + p.skipped.describe() + " (K " + std::to_string(p.skipped.kept(p.k)) +
                         " of " + std::to_string(p.k) + ")";
    }
  }
  if (converts_weights(p, tiling.placement)) {
    const std::string bits = std::to_string(p.b_bits > 0 ? p.b_bits : p.b_bytes() * 8);
    const char* done = !p.b_sparsity.sparse() ? "dequantized"
                       : p.b_scales           ? "decompressed and dequantized"
                                              : "decompressed";
    program.mapping += "; weights at " + bits + " bits " + done + " on the vector unit (" +
                       std::to_string(program.dequant_vector_ops) + " ops, " + std::to_string(program.dequant_cycles) +
                       " cycles)";
  }
  if (tiling.placement != GemmPlacement::vector_unit) program.mac_format = p.mac_format;
  if (p.mac_rate > 1 && tiling.placement != GemmPlacement::vector_unit) {
    program.mac_rate = p.mac_rate;
    program.mapping +=
        "; operands at " + std::to_string(p.e * 8) + " bits native at " + std::to_string(p.mac_rate) + "x the MAC rate";
  }
}

}  // namespace

void map_gemm(const GemmProblem& p, const Context& context, const Capacity& capacity, const std::string& layer,
              const std::optional<workload::PinnedTiling>& pinned, program::LayerProgram& program) {
  emit_fastest(p, placement_tilings(p, context, capacity, layer, pinned), context, program);
}

namespace {

// The dimension of `p` a partition splits.
std::int64_t split_extent(const GemmProblem& p, workload::Partition partition) {
  switch (partition) {
    case workload::Partition::rows:
      return p.m;
    case workload::Partition::columns:
      return p.n;
    case workload::Partition::groups:
      return p.groups;
    case workload::Partition::k:
      break;
  }
  return p.k;
}

// Where a split over K keeps the cores' partial sums in DRAM: core c's whole block of the GEMM's
// outputs at `sum_bytes` each from the layer's scratch, c blocks up, and the sums its own K tiles
// spill above every core's block.
std::uint64_t partial_block(const GemmProblem& whole, std::int64_t core, std::int64_t sum_bytes) {
  return whole.partial_sums +
         static_cast<std::uint64_t>(checked_product({core, whole.groups, whole.m, whole.n, sum_bytes}));
}

// Core split.core's part of a split over K: its K values of every column and every input row, as
// one contiguous range each from the part's place (as a tile's), summed into a block of partial
// sums of its own; the output path's work, the fused adds and the bias wait for the reduction
// (the bias rides the last part's weights, as it rides a column's last K tile).
GemmProblem k_part(GemmProblem p, const LayerSplit& split, std::int64_t sum_bytes) {
  const std::int64_t first = split.first(p.k), part = split.part(p.k);
  p.weights += static_cast<std::uint64_t>(prorate(checked_product({p.groups, p.n, p.b_column_stride()}), first, p.k));
  p.inputs += static_cast<std::uint64_t>(prorate(checked_mul(p.groups, p.input_bytes(0, p.m, p.k)), first, p.k));
  if (first + part < p.k) p.bias = 0;
  p.output = partial_block(p, split.core, sum_bytes);
  p.partial_sums = partial_block(p, split.cores + split.core, sum_bytes);
  p.written_bytes = checked_product({p.groups, p.m, p.n, sum_bytes});
  p.output_vector_ops = p.output_stage_ops = 0;
  p.addends.clear();
  p.k = part;
  return p;
}

// After a split over K, core split.core's part of the reduction: its share of the outputs (in
// output order), summed over every core's block of partial sums (cores - 1 adds each), through
// the output path's work and fused adds on the vector unit, and stored. Streamed in chunks that
// fit the input and output buffers twice over (double-buffered), from program.reduction_step on.
void emit_reduction(const GemmProblem& whole, const Context& context, program::LayerProgram& program) {
  const LayerSplit& split = context.split;
  const std::int64_t sum_bytes = context.accelerator.accumulators.element_bytes();
  const std::int64_t outputs = checked_product({whole.groups, whole.m, whole.n});
  const std::int64_t first = split.first(outputs), own = split.part(outputs);
  program.reduction_step = program.steps.size();
  if (own == 0) return;
  const auto share = [&](std::int64_t total) {
    return prorate(total, first + own, outputs) - prorate(total, first, outputs);
  };
  std::vector<Stream> loads;
  for (std::int64_t core = 0; core < split.cores; ++core) {
    loads.push_back({program::TensorRole::inputs,
                     partial_block(whole, core, sum_bytes) + static_cast<std::uint64_t>(checked_mul(first, sum_bytes)),
                     checked_mul(own, sum_bytes)});
  }
  for (const Addend& addend : whole.addends) {
    if (!addend.on_chip) {
      loads.push_back({program::TensorRole::inputs,
                       addend.address + static_cast<std::uint64_t>(checked_mul(first, whole.e)),
                       checked_mul(own, whole.e)});
    }
  }
  std::vector<Stream> stores;
  if (!whole.output_on_chip && whole.written_bytes > 0) {
    stores.push_back({program::TensorRole::outputs,
                      whole.output + static_cast<std::uint64_t>(prorate(whole.written_bytes, first, outputs)),
                      share(whole.written_bytes)});
  }
  std::int64_t loaded = 0;
  for (const Stream& load : loads) loaded = util::checked_add(loaded, load.bytes);
  const std::int64_t stored = stores.empty() ? 0 : stores.front().bytes;
  const std::int64_t chunks = std::max<std::int64_t>({1, double_buffered_chunks(loaded, context.capacity.inputs),
                                                      double_buffered_chunks(stored, context.capacity.outputs)});
  const std::int64_t adds = checked_mul(split.cores - 1, own);
  ProgramBuilder builder(program, context.burst_bytes);
  stream_chunks(builder, chunks, -1, loads, stores, loaded, util::checked_add(adds, share(whole.output_vector_ops)));
  program.reduction_vector_ops = util::checked_add(program.reduction_vector_ops, adds);
  program.mapping += "; then reduces outputs " + std::to_string(first) + ".." + std::to_string(first + own - 1) +
                     " over the " + std::to_string(split.cores) + " cores' partial sums in " + std::to_string(chunks) +
                     (chunks == 1 ? " chunk" : " chunks");
}

}  // namespace

GemmProblem core_part(GemmProblem p, const LayerSplit& split, std::int64_t sum_bytes, bool tiles_apart) {
  if (split.whole()) return p;
  if (split.partition == workload::Partition::k) return k_part(std::move(p), split, sum_bytes);
  const std::int64_t dimension = split_extent(p, split.partition);
  const std::int64_t first = split.first(dimension), part = split.part(dimension);
  // The outputs before this core's (the earlier cores' blocks) and its own.
  const std::int64_t outputs = checked_product({p.groups, p.m, p.n});
  const std::int64_t before = outputs / dimension * first, own = outputs / dimension * part;
  const auto share = [&](std::int64_t total) {
    return prorate(total, before + own, outputs) - prorate(total, before, outputs);
  };
  p.output += static_cast<std::uint64_t>(prorate(p.written_bytes, before, outputs));
  p.written_bytes = share(p.written_bytes);
  p.output_vector_ops = share(p.output_vector_ops);
  p.output_stage_ops = share(p.output_stage_ops);
  p.partial_sums += static_cast<std::uint64_t>(checked_mul(before, sum_bytes));
  for (Addend& addend : p.addends) addend.address += static_cast<std::uint64_t>(checked_mul(before, p.e));
  const std::int64_t group_input_bytes = p.input_bytes(0, p.m, p.k);
  switch (split.partition) {
    case workload::Partition::rows:
      // emit_gemm takes a row's input bytes as the average; the part's rows keep their own halos.
      p.inputs += static_cast<std::uint64_t>(group_input_bytes / p.m * first * p.groups);
      p.input_bytes = [rows = p.input_bytes, first](std::int64_t m0, std::int64_t tm, std::int64_t tk) {
        return rows(m0 + first, tm, tk);
      };
      p.m = part;
      break;
    case workload::Partition::columns:
      // Apart, every group's columns of the part are the core's block (emit_gemm packs a group's
      // columns with the part's width): from group 0's column `first` they would run into the next
      // cores' columns and every group but the first would read columns other cores read.
      p.weights +=
          static_cast<std::uint64_t>(checked_product({tiles_apart ? p.groups : 1, first, p.b_column_stride()}));
      p.n = part;
      break;
    case workload::Partition::groups:
      p.weights += static_cast<std::uint64_t>(checked_product({first, p.n, p.b_column_stride()}));
      p.inputs += static_cast<std::uint64_t>(checked_mul(first, group_input_bytes));
      p.groups = part;
      break;
    case workload::Partition::k:
      break;  // k_part
  }
  return p;
}

bool map_core_part(const GemmProblem& whole, const Context& context, const Capacity& capacity, const std::string& layer,
                   const std::optional<workload::PinnedTiling>& pinned, program::LayerProgram& program) {
  const LayerSplit& split = context.split;
  const bool over_k = !split.whole() && split.partition == workload::Partition::k;
  if (over_k && whole.k < split.cores) {
    throw MappingError("layer " + layer + ": its K (" + std::to_string(whole.k) + ") is smaller than the " +
                       std::to_string(split.cores) + " cores a split over K gives a part each");
  }
  const GemmProblem p = core_part(whole, split, context.accelerator.accumulators.element_bytes(),
                                  context.accelerator.shared_memory.has_value());
  if (!split.whole()) {
    const std::int64_t extent = split_extent(whole, split.partition);
    program.part = part_text(util::name(split.partition), split.first(extent), split.part(extent), extent);
  }
  if (p.m == 0 || p.n == 0 || p.groups == 0) {
    program.mapping = "no part of the layer on this core";
    return false;
  }
  if (split.tilings == nullptr) {
    map_gemm(p, context, capacity, layer, pinned, program);
  } else {
    // Rows start where they start (halos); over K, the last part carries the bias.
    const std::int64_t extent = split_extent(whole, split.partition);
    const std::array<std::int64_t, 6> part{static_cast<std::int64_t>(split.partition),
                                           split.part(extent),
                                           split.partition == workload::Partition::rows ? split.first(extent)
                                           : over_k                                     ? p.bias
                                                                                        : 0,
                                           p.written_bytes,
                                           p.output_vector_ops,
                                           p.output_stage_ops};
    auto known = split.tilings->by_part.find(part);
    if (known == split.tilings->by_part.end()) {
      known = split.tilings->by_part.emplace(part, placement_tilings(p, context, capacity, layer, pinned)).first;
    }
    emit_fastest(p, known->second, context, program);
  }
  if (over_k) emit_reduction(whole, context, program);
  return true;
}

GemmProblem conv_or_linear_gemm(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                                const DramLayout& layout) {
  GemmProblem p;
  p.e = context.e;
  p.weights = layout.weights;
  p.inputs = layout.inputs.front();
  p.output = layout.output;
  p.partial_sums = layout.scratch;
  const LayerPlan& plan = context.plan;
  p.bias = (layer.spec.type == LayerType::conv2d ? layer.spec.conv.bias : layer.spec.linear.bias) || plan.folds_batchnorm ? 1 : 0;
  p.inputs_on_chip = plan.input_on_chip(0);
  p.output_on_chip = plan.output_on_chip;
  p.addends = plan.addends;
  const workload::Shape& in = layer.input_shapes.front();
  const workload::Shape& out = layer.output_shape;
  const std::int64_t e = p.e;
  if (layer.spec.type == LayerType::conv2d) {
    const workload::Conv2dParams& conv = layer.spec.conv;
    p.groups = conv.depthwise ? in.channels : conv.groups;
    p.m = checked_mul(batch, checked_mul(out.height, out.width));
    p.n = out.channels / p.groups;
    const std::int64_t channels_per_group = in.channels / p.groups;
    p.k = checked_mul(conv.kernel.height * conv.kernel.width, channels_per_group);
    // Only lanes along a kernel row see the row; elsewhere the program stays as it was.
    const spec::ComputeSpec& array = context.accelerator.compute;
    if (array.kind == spec::ArrayKind::vector_mac && array.lane_dimension == spec::LaneDimension::kernel_row) {
      p.k_row = checked_mul(conv.kernel.width, channels_per_group);
    }
    const std::int64_t k = p.k, out_width = out.width, out_rows = out.height, out_pixels = out.height * out.width;
    const std::int64_t image_bytes = in.height * in.width * channels_per_group * e;
    const std::int64_t row_bytes = in.width * channels_per_group * e;
    const std::int64_t reach = conv.dilation.height * (conv.kernel.height - 1) + 1;
    const std::int64_t stride = conv.stride.height, height = in.height;
    // Output pixels m0 .. m0 + tm (image, row, column order) need whole input rows with the
    // kernel's halo, per image; a share tk / K of the channels and taps.
    p.input_bytes = [=](std::int64_t m0, std::int64_t tm, std::int64_t tk) {
      std::int64_t bytes = 0;
      if (tm >= out_pixels) {
        bytes = ceil_div(tm, out_pixels) * image_bytes;
      } else {
        const std::int64_t first_row = (m0 % out_pixels) / out_width;
        const std::int64_t last_row = std::min(((m0 % out_pixels) + tm - 1) / out_width, out_rows - 1);
        const std::int64_t rows_in = std::min(height, (last_row - first_row) * stride + reach);
        bytes = rows_in * row_bytes * (((m0 % out_pixels) + tm > out_pixels) ? 2 : 1);
      }
      return std::max<std::int64_t>(e, ceil_div(bytes * tk, k));
    };
  } else {
    p.m = checked_mul(batch, in.kind == workload::ShapeKind::sequence ? in.steps : 1);
    p.n = layer.spec.linear.out_features;
    p.k = in.features;
    p.input_bytes = [=](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * e; };
  }
  multiply_at_activation_format(p, context.accelerator, layout.activation_format);
  if (layout.weight_format) {
    const workload::NumberFormat format = *layout.weight_format;
    p.b_bits = workload::format_bits(format);
    p.b_scales = workload::takes_weight_scales(format);
    p.b_group = layout.weight_group_size;
    // The array multiplies two operands of one format: weights in the activations' format (their
    // scales applied to the sums, ASSUMED free) as they are, any other dequantized to it.
    p.dequantize = format != layout.activation_format;
  }
  // Sparse weights: the array skips their zeros when its pattern holds theirs and its lanes do not
  // follow kernel rows (whose tiles a shorter K would cut); else each tile is decompressed.
  p.b_sparsity = layer.spec.sparsity;
  const spec::Sparsity& array_sparsity = context.accelerator.compute.sparsity;
  if (p.b_sparsity.sparse()) {
    if (p.k_row == 0 && p.b_sparsity.runs_on(array_sparsity)) {
      p.skipped = array_sparsity;
    } else {
      p.dequantize = true;
    }
  }
  const std::int64_t outputs = checked_product({p.groups, p.m, p.n});
  const std::int64_t own_activation_ops = layer.spec.activation == workload::Activation::none ? 0 : outputs;
  p.output_vector_ops = checked_add(own_activation_ops, checked_mul(plan.absorbed_vector_ops, batch));
  p.output_stage_ops = plan.busiest_stage_ops(batch, own_activation_ops);
  p.written_bytes = checked_product({plan.written_elements(layer), batch, e});
  return p;
}

void map_conv_or_linear(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout, program::LayerProgram& program) {
  const bool mapped = map_core_part(conv_or_linear_gemm(layer, batch, context, layout), context, context.capacity,
                                    layer.spec.name, layer.spec.tiling, program);
  if (mapped && layer.spec.tiling) program.mapping += " (pinned)";
}

GemmProblem matmul_gemm(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout) {
  const workload::MatmulParams& mm = layer.spec.matmul;
  const workload::Shape& a = layer.input_shapes[0];
  const workload::Shape& b = layer.input_shapes[1];
  const std::int64_t kv_heads = mm.kv_heads_or_heads();
  const std::int64_t head_size = b.features / kv_heads;
  const LayerPlan& plan = context.plan;
  GemmProblem p;
  p.e = context.e;
  p.groups = checked_mul(batch, kv_heads);
  p.m = checked_mul(a.steps, mm.heads / kv_heads);
  p.k = mm.transpose_b ? head_size : b.steps;
  p.n = mm.transpose_b ? b.steps : head_size;
  // In a decode step the second operand is the KV cache: the tokens before this one and the new
  // token's keys or values, read from the cache in DRAM.
  const bool cached = layer.cached_steps > 0;
  p.weights = cached ? layout.kv_cache : layout.inputs[1];
  if (cached) p.b_e = layout.kv_cache_element_bytes;
  // Two activations at the activations' format multiply at its rate; a cache in another format is
  // widened in the array's input path (at no cost, ASSUMED) and multiplied at the operands' rate.
  if (!cached || layout.kv_cache_format == layout.activation_format) {
    multiply_at_activation_format(p, context.accelerator, layout.activation_format);
  }
  p.inputs = layout.inputs[0];
  p.output = layout.output;
  p.partial_sums = layout.scratch;
  p.b_role = cached ? program::TensorRole::kv_cache : program::TensorRole::inputs;
  p.inputs_on_chip = plan.input_on_chip(0);
  p.b_on_chip = plan.input_on_chip(1);  // never for the cache (residency.h)
  p.output_on_chip = plan.output_on_chip;
  const std::int64_t e = p.e;
  p.input_bytes = [=](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * e; };
  p.output_vector_ops = checked_mul(plan.absorbed_vector_ops, batch);
  p.output_stage_ops = plan.busiest_stage_ops(batch, 0);
  p.written_bytes = checked_product({plan.written_elements(layer), batch, e});
  return p;
}

void map_matmul(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, program::LayerProgram& program) {
  map_core_part(matmul_gemm(layer, batch, context, layout), context, activation_operands_capacity(context.capacity),
                layer.spec.name, std::nullopt, program);
}

}  // namespace reusesim::mapping
