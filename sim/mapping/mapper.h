#pragma once
// The mapper: for one layer at one batch size, choose tile sizes and a loop order that fit the
// SRAM buffers with double buffering, and emit the data-movement program. Plain C++.
// map_network plans the network first: fusion into output paths (fusion.h) and tensors kept on
// chip across layers (residency.h), handed to each layer as a LayerPlan.
//
// MAC layers are GEMMs (per group): conv M = batch x Ho x Wo, K = kh kw Cin/g, N = Cout/g;
// linear M = batch x steps, K = in, N = out; recurrent layers are one GEMM per time step
// (M = batch, K = in + H, N = gates x H), replayed in order because step t needs h(t-1).
// Loops run with K innermost, so each output tile is written once. Candidates: tile sizes
// halving from each full dimension, powers of two from 8 and multiples of the array edge a
// dimension lies along, and two orders: n-m (a weight tile with all of K stays for every M tile)
// and m-n (an input tile with all of K stays for every N tile). The estimate per candidate is
// max(compute cycles, ragged last tiles at their own size, DRAM bytes / DRAM bytes per cycle);
// candidates within 1 % of the lowest count as equally fast, and among them the least traffic
// wins, then the fewest tiles (docs/mapping-and-replay.md).
//
// DRAM layout: tensors are contiguous (activations NHWC, weights [group][n][k]); a tile's
// range is taken as contiguous from its first element, an approximation for tiles that cut K
// or N. flatten, to_sequence, to_tokens, first_step and concat are views (no data moves).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "program/program.h"
#include "spec/accelerator_spec.h"
#include "util/enum_names.h"
#include "workload/network.h"

namespace reusesim::mapping {

// No tiling fits the buffers (the message names the layer and the smallest tile's needs).
class MappingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a layer's tensors live in DRAM.
struct DramLayout {
  std::uint64_t weights = 0;
  std::vector<std::uint64_t> inputs;  // one per input
  std::uint64_t output = 0;
  // A decode step's kv_cache matmul: the cached keys or values with the new token's after them,
  // per sample, where its second operand is read from.
  std::uint64_t kv_cache = 0;
  // Bytes per element of that cache: the model's kv_cache format, or the operand width.
  std::int64_t kv_cache_element_bytes = 0;
  // The weights' format when a precision block gives them another width than the operands', or
  // scales: a GEMM layer's weights are packed at its bits with their scales (GemmProblem::b_bits).
  std::optional<workload::NumberFormat> weight_format;
  std::int64_t weight_group_size = 0;  // one scale per this many weights along K; 0: per column
  // A precision block's activations and KV cache formats: the array multiplies at the activations'
  // format's compute.native_formats rate, weights in another format are dequantized to it
  // (docs/model-format.md, "Precision per tensor"). None without a block.
  std::optional<workload::NumberFormat> activation_format;
  std::optional<workload::NumberFormat> kv_cache_format;
  // After every tensor of the network: where partial sums that spill to DRAM go (a layer at a time).
  std::uint64_t scratch = 0;
};

constexpr std::size_t kOutputStages = static_cast<std::size_t>(spec::OutputStage::pooling) + 1;

// How a layer runs inside the network (residency.h, fusion.h); LayerPlan{} is a layer run on its own,
// every operand from DRAM and its output to DRAM.
struct Addend {  // a fused add's other operand, read in the output path
  std::uint64_t address = 0;
  std::int64_t elements = 0;  // per sample
  bool on_chip = false;
};
struct LayerPlan {
  std::string fused_into;              // non-empty: runs in that layer's output path, no program
  std::vector<std::string> absorbed;   // the layers run in this layer's output path, in order
  std::int64_t absorbed_vector_ops = 0;  // their vector ops per sample, run in the output path
  // The same by output-path stage (indexed by spec::OutputStage): the stages are a pipeline, so the
  // busiest one sets a tile's time there.
  std::array<std::int64_t, kOutputStages> absorbed_stage_ops{};
  // A folded batch-norm's vector ops per sample: done once, when the weights and bias are prepared,
  // so they cost no cycles at run time and appear in no program.
  std::int64_t folded_vector_ops = 0;
  std::int64_t output_elements = 0;    // per sample, of the tensor written (the chain's last); 0: the layer's own
  bool folds_batchnorm = false;        // a fused batch-norm's shift becomes a per-channel bias
  std::vector<Addend> addends;
  std::vector<bool> inputs_on_chip;    // per input; empty: all from DRAM
  bool output_on_chip = false;         // kept in the keeping buffer for its consumers
  std::int64_t resident_bytes = 0;     // resident tensors in the keeping buffer while the layer runs

  bool input_on_chip(std::size_t i) const { return i < inputs_on_chip.size() && inputs_on_chip[i]; }
  // The ops of the busiest output-path stage over `batch` samples, the producer's own activation
  // (`own_activation_ops`, all samples) on the activation stage beside the fused layers'.
  std::int64_t busiest_stage_ops(std::int64_t batch, std::int64_t own_activation_ops) const;
  // Elements per sample of the tensor `layer`'s program writes.
  std::int64_t written_elements(const workload::NetworkLayer& layer) const {
    return output_elements > 0 ? output_elements : layer.counts.output_elems;
  }
};

// The accelerator as run moves `network`'s tensors: `accelerator`, whose elements are
// compute.operand_bits wide, or, when a precision block gives the activations a narrower format
// (which run accepts only when compute.native_formats lists it), the same with operand_bits at
// that format's width: activations, outputs and the array's operands then move at it
// (docs/model-format.md, "Precision per tensor"). Peak, energy and the rest are the accelerator's.
spec::AcceleratorSpec run_accelerator(const spec::AcceleratorSpec& accelerator, const workload::Network& network);

// Lays out the model input and every layer's weights and output (views share their input's).
std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes);

// The conservation check against the analysis: a program may not move fewer bytes than the
// hardware must (analyze's compulsory traffic): its weight loads at least the layer's parameters
// (bias included; an embedding's gathered rows), its stores at least the layer's output (before
// burst widening). What falls short, or "" when nothing does; views move nothing and pass.
// In a network (`plan`), what is kept on chip counts as stored, a fused layer must have an empty
// program and its producer accounts for the chain's last tensor and the folded parameters.
// `widths`: what run moves each tensor at (workload::Network::run_widths); `element_bytes`: every
// tensor at that width.
std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       const workload::TensorWidths& widths, const program::LayerProgram& program,
                                       const LayerPlan& plan = {});
std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const program::LayerProgram& program,
                                       const LayerPlan& plan = {});

struct PartTilings;

// Core `core` of `cores` takes the `core`-th of `cores` near-equal parts of the dimension the
// partition splits: items [first(total), first(total) + part(total)).
struct LayerSplit {
  workload::Partition partition = workload::Partition::columns;
  std::int64_t core = 0, cores = 1;
  // The tilings of this layer's parts chosen so far, shared by its cores so that alike parts are
  // tiled once (gemm_mapper.h); none: every part is tiled.
  PartTilings* tilings = nullptr;

  std::int64_t first(std::int64_t total) const;
  std::int64_t part(std::int64_t total) const {
    return LayerSplit{partition, core + 1, cores, nullptr}.first(total) - first(total);
  }
  bool whole() const { return cores == 1; }
};

program::LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch,
                                const spec::AcceleratorSpec& accelerator, const DramLayout& layout,
                                const LayerPlan& plan = {}, const LayerSplit& split = {});

// Every layer of the network as it runs in it: fusion into output paths, then residency across
// layers (a layer whose tiles no longer fit beside the resident tensors sends the largest of them
// to DRAM and the plan is redone from its producer on). Programs and plans in layer order; a
// sub-batched layer's plan is its sub-batch's.
struct NetworkMapping {
  std::vector<program::LayerProgram> programs;
  std::vector<LayerPlan> plans;
};
// A batch whose activations do not fit the keeping buffer may run a prefix of the network in
// sub-batches (batch / 2, / 4, ... samples, each program then in passes: program::LayerProgram::
// passes), weights reloaded every pass, when that lowers the network's estimate
// (docs/mapping-and-replay.md, "Sub-batches").
NetworkMapping map_network(const workload::Network& network, std::int64_t batch, const spec::AcceleratorSpec& accelerator);

// The replay's closed forms over a whole program: its compute steps' cycles on their unit (with a
// vector-unit GEMM's output-path work, which follows it on the same units) and its vector steps'
// cycles, or its DRAM bytes at the memory's peak bandwidth, whichever is longer.
std::int64_t estimate_cycles(const program::LayerProgram& program, const spec::AcceleratorSpec& accelerator);
// The same over a chip's cores running one layer side by side (each core's program): `cycles`, the
// busiest core's compute cycles or every core's DRAM bytes at the one memory's peak bandwidth,
// whichever is longer; and the DRAM bytes of the core that moves the most (each core draws them
// through DMA engines of its own). Over several layers, each added up.
struct ChipEstimate {
  std::int64_t cycles = 0;
  std::int64_t busiest_core_bytes = 0;
  void add(const ChipEstimate& other);
};
ChipEstimate chip_estimate(const std::vector<const program::LayerProgram*>& programs,
                           const spec::AcceleratorSpec& accelerator);
// The fastest of `candidates` (not empty), as fastest_tiling judges tilings: estimates within 1 %
// of the lowest count as equally fast, and among them the one whose busiest core moves the
// fewest bytes wins, then the earlier.
std::size_t fastest_on_chip(const std::vector<ChipEstimate>& candidates);

// A network with every layer split over the chip's cores (model parallel): per layer each core's
// program (core 0 first; a core with no part of the layer an empty one, each program's `part` saying
// which it is). Nothing stays on chip across layers (a layer's consumers need every core's part of its
// output) and there are no sub-batches; fusion is as on one core. A GEMM layer takes the fastest
// of its partitions on the chip (fastest_on_chip, in the order columns, rows, groups, k).
struct SplitNetworkMapping {
  std::vector<std::vector<program::LayerProgram>> programs;  // [layer][core]
  std::vector<LayerPlan> plans;
};
SplitNetworkMapping map_network_split(const workload::Network& network, std::int64_t batch,
                                      const spec::AcceleratorSpec& accelerator);

// Fusion moves vector work between programs, and folding a batch-norm does it before the run: the
// network's programs' vector ops plus the folded ones against the analysis's, or "" when they agree.
std::string vector_ops_problem(const workload::Network& network, std::int64_t batch, const NetworkMapping& mapped);

}  // namespace reusesim::mapping
