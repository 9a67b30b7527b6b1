#pragma once
// A data-movement program: what one layer does, step by step, for the hardware to replay.
// Loads and stores move bytes between a DRAM range and an SRAM buffer; compute steps run a GEMM
// tile on the array; vector steps run element-wise work on the vector unit. Each step lists the
// earlier steps it must wait for (operands loaded, a double-buffer slot freed, h(t-1) computed).

#include <cstdint>
#include <string>
#include <vector>

#include "timing/array_timing.h"

namespace reusesim::program {

// kv_cache: the keys and values a decode step's attention reads for the tokens before it.
enum class TensorRole { weights, inputs, outputs, state, kv_cache };
// How many roles there are, for arrays indexed by role: kv_cache must stay the last.
constexpr std::size_t kTensorRoles = static_cast<std::size_t>(TensorRole::kv_cache) + 1;
std::string role_name(TensorRole role);

enum class StepKind { load, store, compute, vector };
std::string step_kind_name(StepKind kind);

// Resource limits. A step costs about 150 bytes as a program and as much again in the replay, and
// the replay does about a million steps a second: a layer may have 4 million steps and a run
// (every layer at every batch size) 8 million, so a run stays within a few GB and about ten
// minutes. Absurd inputs (batch 10^6 on a large network, a sequence of 10^7 steps) are refused up
// front, by the mapper (MappingError) and by `run`, with what to change.
constexpr std::size_t kMaxLayerSteps = 4'000'000;
constexpr std::size_t kMaxRunSteps = 8'000'000;

struct Step {
  StepKind kind = StepKind::load;
  TensorRole tensor = TensorRole::inputs;  // load / store: what moves
  std::uint64_t address = 0;               // load / store: first DRAM byte of the range
  std::uint64_t bytes = 0;                 // load / store: bytes moved; compute / vector: SRAM bytes read
  timing::GemmShape gemm;                          // compute
  std::int64_t macs = 0;                   // compute
  std::int64_t vector_ops = 0;             // vector, and a compute step's fused activation
  // compute: the output path's stages are a pipeline, each its own unit, so a tile takes as long as
  // its busiest stage: that stage's ops (0: vector_ops, all of them in one stage).
  std::int64_t stage_ops = 0;
  // compute: partial sums that do not fit the accumulators live in the output buffer: read from it
  // before the step accumulates (every K tile but the first) and written back after it (every K
  // tile but the last), at accumulator width.
  std::uint64_t psum_read_bytes = 0;
  std::uint64_t psum_write_bytes = 0;
  // compute: the k x n operand is read from the input buffer (a matmul's second activation)
  // rather than the weight buffer.
  bool stationary_in_inputs = false;
  // compute: the m x k operand is read from the weight buffer rather than the input buffer (a
  // layer's GEMM the mapper transposed, C^T = B^T A^T, so that its weights stream); vector: the
  // step reads the weight buffer (a dequantization) rather than the input buffer.
  bool streamed_in_weights = false;
  // compute: the unit that runs the GEMM (the array, or the vector unit one MAC as two ops).
  timing::GemmUnit unit = timing::GemmUnit::array;
  // compute on the array: MACs a PE does a cycle over the operand_bits rate, weights in a native
  // format (spec::ComputeSpec::native_formats); the tile's cycles divided by it, rounded up.
  std::int64_t mac_rate = 1;
  // compute on the array, N:M sparse weights whose zeros it skips (spec::ComputeSpec::sparsity): the
  // K it sums over, the kept values of each column's tk (0: all of gemm.k). `macs` stay the dense tile's.
  std::int64_t kept_k = 0;
  std::vector<std::int32_t> after;         // indices of earlier steps of the same layer

  // The ops of the output path's busiest stage: what sets a compute step's output-path time.
  std::int64_t busiest_stage_ops() const { return stage_ops > 0 ? stage_ops : vector_ops; }
  // The GEMM the unit computes: `gemm` with K at kept_k when the array skips zeros.
  timing::GemmShape computed_gemm() const {
    timing::GemmShape computed = gemm;
    if (kept_k > 0) computed.k = kept_k;
    return computed;
  }
};

struct LayerProgram {
  std::string layer;
  std::string type;
  std::vector<Step> steps;
  std::string mapping;  // what the mapper chose, e.g. "gemm 3136x64x576 tiles m784 n64 k576, order n-m, weights resident"
  // On a chip of several cores, which part of the layer this core's program is ("columns 64..127
  // of 256", "samples 2..3 of 4", "none"); empty on one core.
  std::string part;
  std::int64_t macs = 0;
  std::int64_t vector_ops = 0;
  // Of vector_ops, those that dequantize weights loaded in a format the array does not multiply
  // natively, and their vector-unit cycles (step by step, compute clock).
  std::int64_t dequant_vector_ops = 0;
  std::int64_t dequant_cycles = 0;
  std::int64_t mac_rate = 1;  // of its GEMM's tiles on the array (Step::mac_rate)
  // The native format (spec::ComputeSpec::native_formats) its GEMM's tiles on the array multiply
  // the weights in, whatever its rate; empty: the operand type. What their MACs' energy is priced at.
  std::string mac_format;
  // DRAM moves whole bursts: the sums over load and store steps of their burst-aligned extents
  // (what the replay must observe).
  std::int64_t dram_read_bytes = 0;
  std::int64_t dram_write_bytes = 0;
  std::int64_t estimated_cycles = 0;  // the mapper's estimate, compute clock
  // Residency across layers: bytes of the input tensors (each once) read from on-chip data instead
  // of DRAM, and of the output kept on chip instead of stored.
  std::int64_t onchip_input_bytes = 0;
  std::int64_t onchip_output_bytes = 0;
  // A GEMM split over the cores by K (workload::Partition::k): the steps from this one on reduce
  // the cores' partial sums, so they start once every core has finished the steps before its own
  // (the chip runs the two as units of the layer, a barrier between); 0: no reduction. Of
  // vector_ops, the reduction's adds, which are the split's work, not the model's.
  std::size_t reduction_step = 0;
  std::int64_t reduction_vector_ops = 0;
  // Sub-batches: the steps are `passes` consecutive parts of equal length, one per sub-batch. The
  // replay runs consecutive layers with the same number of passes pass by pass (every layer's
  // first part, then every layer's second, ...), so a sub-batch's tensors pass from layer to layer
  // while the next sub-batch waits (docs/mapping-and-replay.md, "Sub-batches").
  std::int64_t passes = 1;
};

// One layer's program as the accelerator replays it, at its batch size.
struct LayerRun {
  std::int64_t batch = 1;
  LayerProgram program;
  // The first layer of a batch: it starts from the machine as built (DRAM banks precharged,
  // queues empty, refresh timers and SRAM ports restarted), so each batch's numbers depend on
  // its own work only, as if it ran alone.
  bool starts_batch = false;
  // On a chip of several cores (spec::AcceleratorSpec::cores): the programs of cores 1, 2, ... for
  // this layer, `program` being core 0's, each on its share of the batch (none for a core without
  // samples: an empty program); empty on a one-core chip.
  std::vector<LayerProgram> other_cores;
  std::vector<std::int64_t> core_batches;  // each core's samples (core 0 first); empty on one core
};

// Every core's program of `run` together (LayerRun::other_cores): core 0's name, type and mapping
// with every core's MACs, vector ops and DRAM bytes added up, and no steps.
LayerProgram chip_totals(const LayerRun& run);
// The steps of every core's program of `run`.
std::size_t run_steps(const LayerRun& run);

// The bytes a DRAM access of `bytes` from `address` moves when it is widened to whole bursts.
std::uint64_t burst_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t burst_bytes);

}  // namespace reusesim::program
