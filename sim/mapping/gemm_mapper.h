#pragma once
// Convolutions and linear layers as tiled GEMMs: the tiling search and the program it emits.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mapping/program_builder.h"
#include "util/enum_names.h"
#include "workload/network.h"

namespace reusesim::mapping {

// One GEMM layer (or one step of a recurrent layer) as the tiling search sees it.
struct GemmProblem {
  std::int64_t groups = 1, m = 0, n = 0, k = 0;
  std::int64_t k_row = 0;  // values of one kernel row along K (GemmShape::k_row)
  std::int64_t e = 1;
  // Bytes per element of the N x K operand in DRAM and in its buffer, when not `e`: a decode step's
  // KV cache at its own format (docs/model-format.md, "Precision per tensor"). 0: `e`. The array
  // still reads it at `e` (compute steps' SRAM bytes).
  std::int64_t b_e = 0;
  std::int64_t b_bytes() const { return b_e > 0 ? b_e : e; }
  // A layer's weights in a format of another width than the operands', or with scales
  // (docs/model-format.md, "Precision per tensor"): packed at `b_bits` each (0: b_bytes() an
  // element), with fp16 scales (workload::kWeightScaleBytes) per column and group of `b_group`
  // along K (0: one per column). A column is stored as its packed K values, then its scales, then
  // its bias at `e`.
  std::int64_t b_bits = 0;
  bool b_scales = false;
  std::int64_t b_group = 0;
  // The array multiplies them natively at this MAC rate (program::Step::mac_rate), or else the
  // vector unit dequantizes each loaded tile before the array reads it.
  std::int64_t mac_rate = 1;
  std::string mac_format;  // that native format's name (program::LayerProgram::mac_format); empty: none
  bool dequantize = false;
  // N:M sparse weights (docs/model-format.md, "Structured sparsity"): a column stores
  // b_sparsity.kept(K) values (at b_bits, or b_bytes() each), then index_bits() of metadata per
  // kept value, then its scales and bias. Either the array skips their zeros as the pattern
  // `skipped` (the accelerator's compute.sparsity: a compute step sums over skipped.kept of its
  // K tile, Step::kept_k), or `dequantize` decompresses each loaded tile on the vector unit.
  workload::Sparsity b_sparsity;
  workload::Sparsity skipped;
  // Bytes of one column's K values [k0, k0 + count) as a load moves them: packed (a K tile's range
  // is rounded out to whole bytes, so a byte two tiles share is loaded by each), with the scales of
  // every group the range touches (a group split between two K tiles comes with both); no bias.
  std::int64_t b_column_bytes(std::int64_t k0, std::int64_t count) const;
  // Of them, the sparse weights' metadata (0 when dense).
  std::int64_t b_metadata_bytes(std::int64_t k0, std::int64_t count) const;
  // One column's bytes in DRAM: its K values, scales and bias.
  std::int64_t b_column_stride() const { return b_column_bytes(0, k) + bias * e; }
  // Bias values per output column (0 or 1). The weights tensor is [group][n][k + bias]: a column's
  // bias follows its K weights, so it rides the load of the column's last K tile.
  std::int64_t bias = 0;
  // Input bytes a tile of output rows [m0, m0 + tm) needs, with `tk` of K.
  std::function<std::int64_t(std::int64_t m0, std::int64_t tm, std::int64_t tk)> input_bytes;
  // Output-path work over the whole GEMM (its activation and the fused layers' vector ops), and
  // the bytes of the tensor it writes (a fused pooling's is smaller): both spread over the output
  // tiles in proportion to their outputs.
  std::int64_t output_vector_ops = 0;
  std::int64_t output_stage_ops = 0;  // of them, the busiest output-path stage's (a pipeline)
  std::int64_t written_bytes = 0;
  bool inputs_on_chip = false, output_on_chip = false;  // residency: no loads, no stores
  // The N x K operand ("weights" in the tiling's terms): a layer's weights, or a matmul's second
  // activation, which travels as an input and may be kept on chip.
  program::TensorRole b_role = program::TensorRole::weights;
  bool b_on_chip = false;
  std::vector<Addend> addends;                           // fused adds' other operands
  std::uint64_t weights = 0, inputs = 0, output = 0;
  std::uint64_t partial_sums = 0;  // DRAM scratch for partial sums that spill there
  bool may_spill_to_dram = true;   // false: a tiling whose partial sums would go to DRAM is no candidate
};

// Where a GEMM runs: on the array as laid out (the N x K operand on the array's k x n side: a ws
// array holds it and streams the M rows), on the array transposed (C^T = B^T A^T: the M x K operand
// takes the k x n side and the N rows stream; compute.swap_operands), or on the vector unit
// (compute.vector_unit_gemm; timing::vector_gemm_cycles). One tiling moves the same bytes wherever
// it runs; only the compute steps differ. Where a K-tiled tile's partial sums wait may differ: the
// vector unit has no accumulators (PartialSumHome).
enum class GemmPlacement { array, array_transposed, vector_unit };
constexpr util::EnumNames<GemmPlacement, 3> enum_names(GemmPlacement) {
  return {{{GemmPlacement::array, "array"},
           {GemmPlacement::array_transposed, "array transposed"},
           {GemmPlacement::vector_unit, "vector unit"}}};
}

// Where a K-tiled tile's partial sums wait between its K tiles (docs/mapping-and-replay.md,
// "Accumulators"): in the accumulators, spilled to the output buffer, or spilled to DRAM.
enum class PartialSumHome { accumulators, output_buffer, dram };

struct GemmTiling {
  GemmPlacement placement = GemmPlacement::array;
  std::int64_t tg = 1;  // groups a tile computes side by side (only with whole groups: tn = N, tk = K)
  std::int64_t tm = 0, tn = 0, tk = 0;
  bool n_outer = true;
  PartialSumHome partial_sums = PartialSumHome::accumulators;
  std::int64_t sum_bytes = 4;          // bytes of one partial sum (the accumulators' width)
  std::int64_t spill_piece_bytes = 0;  // a DRAM spill moves a tile's sums in pieces of at most this
  std::int64_t cycles = 0;
  std::int64_t dram_bytes = 0;
  std::int64_t tiles = 0;
};

// The tiling with the lowest estimate that fits the buffers, or `pinned` when given; the estimate
// and the tie-breaks are in mapper.h. MappingError (naming `layer`) when nothing fits.
GemmTiling choose_gemm_tiling(const GemmProblem& p, const spec::AcceleratorSpec& accelerator, const Capacity& capacity,
                              double dram_bytes_per_cycle, const std::string& layer,
                              const std::optional<workload::PinnedTiling>& pinned,
                              GemmPlacement placement = GemmPlacement::array);

// The placements `accelerator` offers: the array, the array transposed (compute.swap_operands), the
// vector unit (compute.vector_unit_gemm); only the array for a pinned tiling (the model fixed how
// the layer runs).
std::vector<GemmPlacement> gemm_placements(const spec::AcceleratorSpec& accelerator, bool pinned);

// The fastest of `candidates` by estimate: estimates within 1 % of the lowest count as equally
// fast, and among them the least DRAM traffic wins, then the fewest tiles, the lower estimate, the
// n-m order, and the earlier placement (array, array transposed, vector unit). Not empty.
const GemmTiling& fastest_tiling(const std::vector<GemmTiling>& candidates);

// A compute step of a tile whose partial sums spill to the output buffer reads them back (every K
// tile but the first) and writes them there (every one but the last): `sums` of the tile's groups
// x m x n.
void add_partial_sum_traffic(program::Step& compute, const GemmTiling& tiling, std::int64_t sums, bool first_k,
                             bool last_k);

// Both operands of a GEMM that are activations (a matmul's, a weight gradient's) share the input
// buffer: each gets half of its room.
Capacity activation_operands_capacity(Capacity capacity);

// Emits `p`'s program with `tiling` into `program`, without a mapping text: loads, stores and MACs
// depend on the tiles and where their partial sums wait only, so every placement of one tiling
// moves the same bytes. Returns the bytes of sparse weights' metadata its loads moved.
std::int64_t emit_gemm_program(const GemmProblem& p, const GemmTiling& tiling, const Context& context,
                               program::LayerProgram& program);

// The tilings map_gemm compared for the cores' parts of one layer, by what tells the parts apart
// (the partition, the part's extent, its first row for a split of rows, whose halos depend on
// where they start, and its shares of the output path's work and bytes): a split's parts differ
// by at most one row, column or group, so a layer over 108 cores is tiled a few times, not 108
// (addresses never enter the tiling). Valid for the cores of one layer only.
struct PartTilings {
  std::map<std::array<std::int64_t, 6>, std::vector<GemmTiling>> by_part;
};

// Tiles `p` for each placement (choose_gemm_tiling), takes the fastest (fastest_tiling) and emits
// its program into `program`, with the mapping it chose and the estimates it compared.
void map_gemm(const GemmProblem& p, const Context& context, const Capacity& capacity, const std::string& layer,
              const std::optional<workload::PinnedTiling>& pinned, program::LayerProgram& program);

// Core split.core's part of `p` (LayerSplit): its rows, columns or groups. What it writes (its
// part of the output, its spilled partial sums of `sum_bytes` each) is a block of its own after the
// earlier cores' (a split layer's output is stored in blocks by core, so each core's stores stay
// contiguous); what it reads is its part's place in the inputs and the weights, taken as
// contiguous from the part's first element, as a tile's. With `tiles_apart` (a shared memory,
// emit_gemm) a part of the columns reads the weights as a block of its own after the earlier
// cores' (the cores' columns of every group packed core by core). `p` itself on one core.
GemmProblem core_part(GemmProblem p, const LayerSplit& split, std::int64_t sum_bytes, bool tiles_apart);

// map_gemm of the context's core's part of `whole` (core_part); false, with an empty program,
// when the core has no part of it (fewer rows, columns or groups than cores).
bool map_core_part(const GemmProblem& whole, const Context& context, const Capacity& capacity, const std::string& layer,
                   const std::optional<workload::PinnedTiling>& pinned, program::LayerProgram& program);

// A conv2d or linear layer's GEMM as it runs in the network (see mapper.h for the GEMM view).
GemmProblem conv_or_linear_gemm(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                                const DramLayout& layout);
// Maps a conv2d or linear layer (see mapper.h for the GEMM view and the tiling search).
void map_conv_or_linear(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout, program::LayerProgram& program);
// A matmul's GEMM as it runs in the network (see map_matmul).
GemmProblem matmul_gemm(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout);
// Maps a matmul of two activations: per sample and key/value head one GEMM, side by side as
// groups (neither operand is shared across the batch); the query heads that share a key/value head
// are more rows of its GEMM. Both operands come in as inputs and share the input buffer.
void map_matmul(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, program::LayerProgram& program);

}  // namespace reusesim::mapping
