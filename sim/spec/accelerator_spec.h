#pragma once
// Typed descriptions of the hardware, filled by sim/config from YAML. Hardware modules take these
// structs and never see YAML. Times are integer cycles of the component's own clock.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "spec/energy_spec.h"
#include "spec/fields_equal.h"
#include "spec/sparsity.h"
#include "util/enum_names.h"

namespace reusesim::spec {

// Each enum's names (util/enum_names.h) are the words of the accelerator files
// (docs/accelerator-format.md), which the loader reads and config.json writes.
enum class ArrayKind { systolic, vector_mac };
constexpr util::EnumNames<ArrayKind, 2> enum_names(ArrayKind) {
  return {{{ArrayKind::systolic, "systolic"}, {ArrayKind::vector_mac, "vector_mac"}}};
}
enum class Dataflow { ws, os, is };  // weight-, output-, input-stationary (systolic only)
constexpr util::EnumNames<Dataflow, 3> enum_names(Dataflow) {
  return {{{Dataflow::ws, "ws"}, {Dataflow::os, "os"}, {Dataflow::is, "is"}}};
}
// What the post-processing after the array can run on a GEMM's outputs on their way out
// (compute.output_path; docs/mapping-and-replay.md, "Fusion into the output path").
enum class OutputStage { activation, batchnorm, add, pooling };
constexpr util::EnumNames<OutputStage, 4> enum_names(OutputStage) {
  return {{{OutputStage::activation, "activation"},
           {OutputStage::batchnorm, "batchnorm"},
           {OutputStage::add, "add"},
           {OutputStage::pooling, "pooling"}}};
}

// What a vector-MAC unit's lanes consume side by side (timing/array_timing.h).
enum class LaneDimension { kernel_row, output_channels, k };
constexpr util::EnumNames<LaneDimension, 3> enum_names(LaneDimension) {
  return {{{LaneDimension::kernel_row, "kernel_row"},
           {LaneDimension::output_channels, "output_channels"},
           {LaneDimension::k, "k"}}};
}

struct ComputeSpec {
  ArrayKind kind = ArrayKind::systolic;
  std::int64_t rows = 0;   // systolic
  std::int64_t cols = 0;   // systolic
  Dataflow dataflow = Dataflow::ws;
  // ws and is: a second register per PE takes the next fold's stationary operand (R cycles to shift
  // in) while the current fold streams, as TPU v1's double-buffered weight tiles do.
  bool double_buffered_stationary = false;
  // systolic: either operand of a GEMM may take the array's stationary side, the compiler computing
  // C^T = B^T A^T when that is faster (both operands reach the array from on-chip buffers).
  bool swap_operands = false;
  // systolic: identical arrays in the core, sharing its buffers, accumulators and output path; they
  // take each tile together, split along one of its dimensions (timing/array_timing.h).
  std::int64_t arrays = 1;
  std::int64_t units = 0;  // vector_mac: units x lanes MACs
  std::int64_t lanes = 0;
  LaneDimension lane_dimension = LaneDimension::k;  // vector_mac
  double clock_mhz = 0;
  std::int64_t operand_bits = 0;
  // number_format and operand_bits together (int8, bf16, ...): what energy tables are keyed by;
  // empty without a number_format (energy needs one).
  std::string operand_type;
  std::int64_t vector_ops_per_cycle = 0;  // pooling, activations, element-wise, softmax
  // The vector unit can also run a GEMM, a MAC as two of its ops (a multiply and an add).
  bool vector_unit_gemm = false;
  std::vector<OutputStage> output_path;    // empty: no layer fuses into its producer
  // Weight formats the array multiplies natively (a precision block's names: "int8", "fp8_e4m3"),
  // each with its MAC rate over the operand_bits rate (2: two MACs a PE a cycle). Weights in any
  // other format than the operands' are dequantized on the vector unit (docs/accelerator-format.md).
  std::map<std::string, std::int64_t> native_formats;
  // N:M sparse weights whose zeros the array skips (spec::Sparsity::runs_on): their GEMMs sum over
  // sparsity.kept(K) of K; dense (m 0): every sparse layer is decompressed and computed densely.
  Sparsity sparsity;

  auto fields() const {
    return std::tie(kind, rows, cols, dataflow, double_buffered_stationary, swap_operands, arrays, units, lanes,
                    lane_dimension, clock_mhz, operand_bits, operand_type, vector_ops_per_cycle, vector_unit_gemm,
                    output_path, native_formats, sparsity);
  }

  bool output_path_has(OutputStage stage) const {
    return std::find(output_path.begin(), output_path.end(), stage) != output_path.end();
  }

  std::int64_t macs_per_cycle() const { return kind == ArrayKind::systolic ? rows * cols * arrays : units * lanes; }
  // Partial sums the arrays produce side by side (one row each): what the accumulators must hold at least.
  std::int64_t accumulator_row() const { return kind == ArrayKind::systolic ? cols * arrays : units; }
  // 1 MAC = 2 ops.
  double peak_ops_per_second() const { return 2.0 * static_cast<double>(macs_per_cycle()) * clock_mhz * 1e6; }
};

// Where partial sums of a K-tiled GEMM stay between its K tiles (mapping/gemm_mapper.cpp).
struct AccumulatorSpec {
  std::int64_t capacity_bytes = 0;
  std::int64_t bits = 0;
  std::int64_t element_bytes() const { return (bits + 7) / 8; }
  auto fields() const { return std::tie(capacity_bytes, bits); }
};

enum class TensorKind { weights, inputs, outputs };
constexpr util::EnumNames<TensorKind, 3> enum_names(TensorKind) {
  return {{{TensorKind::weights, "weights"}, {TensorKind::inputs, "inputs"}, {TensorKind::outputs, "outputs"}}};
}

struct SramBufferSpec {
  std::string name;
  std::int64_t capacity_bytes = 0;
  std::int64_t banks = 0;
  std::int64_t bank_width_bytes = 0;  // bytes per bank per cycle
  std::int64_t read_ports = 0;
  std::int64_t write_ports = 0;
  std::vector<TensorKind> holds;
  // keeps: [activations]: a layer's output may stay here for the layers that consume it (only on
  // a buffer that holds inputs and outputs; the default there).
  bool keeps_activations = false;

  auto fields() const {
    return std::tie(name, capacity_bytes, banks, bank_width_bytes, read_ports, write_ports, holds, keeps_activations);
  }
};

struct SramSpec {
  double clock_mhz = 0;
  std::vector<SramBufferSpec> buffers;

  auto fields() const { return std::tie(clock_mhz, buffers); }

  // The buffer that holds `kind` (validation guarantees one does; the first otherwise).
  std::size_t buffer_index(TensorKind kind) const {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      for (TensorKind held : buffers[i].holds) {
        if (held == kind) return i;
      }
    }
    return 0;
  }
  // The buffer that keeps activations across layers, or -1 when none does.
  int keeping_buffer() const {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].keeps_activations) return static_cast<int>(i);
    }
    return -1;
  }
};

enum class PagePolicy { open, closed };
constexpr util::EnumNames<PagePolicy, 2> enum_names(PagePolicy) {
  return {{{PagePolicy::open, "open"}, {PagePolicy::closed, "closed"}}};
}
enum class RefreshMode { all_bank, per_bank, off };
constexpr util::EnumNames<RefreshMode, 3> enum_names(RefreshMode) {
  return {{{RefreshMode::all_bank, "all_bank"}, {RefreshMode::per_bank, "per_bank"}, {RefreshMode::off, "off"}}};
}
// watermarks is written as its {high, low} pair, drain_all as the word.
enum class WriteDrainPolicy { watermarks, drain_all };
constexpr util::EnumNames<WriteDrainPolicy, 2> enum_names(WriteDrainPolicy) {
  return {{{WriteDrainPolicy::watermarks, "watermarks"}, {WriteDrainPolicy::drain_all, "drain_all"}}};
}
// Address fields, most significant first in DramSpec::address_mapping.
enum class AddressField { channel, rank, bank_group, bank, row, column, pseudo_channel };
constexpr util::EnumNames<AddressField, 7> enum_names(AddressField) {
  return {{{AddressField::channel, "ch"},
           {AddressField::rank, "ra"},
           {AddressField::bank_group, "bg"},
           {AddressField::bank, "ba"},
           {AddressField::row, "ro"},
           {AddressField::column, "co"},
           {AddressField::pseudo_channel, "pc"}}};
}
// none: the fields as mapped. xor: the bank-group and bank indices are XORed with as many of the
// row's lowest bits (permutation-based page interleaving), so rows that would share a bank spread
// over the banks while a row's own addresses stay in one bank.
enum class AddressHash { none, xor_bank };
constexpr util::EnumNames<AddressHash, 2> enum_names(AddressHash) {
  return {{{AddressHash::none, "none"}, {AddressHash::xor_bank, "xor"}}};
}

// JEDEC timing parameters, in memory clock cycles (tCK).
struct DramTiming {
  double tck_ns = 0;
  std::int64_t cl = 0, cwl = 0, trcd = 0, trp = 0, tras = 0, trc = 0;
  std::int64_t burst_length = 0;  // beats; a burst holds the bus for burst_length / 2 clocks (DDR)
  std::int64_t tccd_s = 0, tccd_l = 0, trrd_s = 0, trrd_l = 0, tfaw = 0;
  std::int64_t twtr_s = 0, twtr_l = 0, twr = 0, trtp = 0, trfc = 0, trefi = 0;
  std::int64_t trfc_pb = 0;  // per-bank refresh: how long one bank is busy (refresh: per_bank only)

  auto fields() const {
    return std::tie(tck_ns, cl, cwl, trcd, trp, tras, trc, burst_length, tccd_s, tccd_l, trrd_s, trrd_l, tfaw, twtr_s,
                    twtr_l, twr, trtp, trfc, trefi, trfc_pb);
  }
};

// An ideal memory in place of the DRAM (docs/dram-model.md, "Ideal memory"): requests served in
// order, each after `latency_ns` plus its bytes at `bandwidth_gbps`, or at once when unlimited.
struct IdealMemorySpec {
  bool unlimited = false;
  double bandwidth_gbps = 0;  // 1e9 bytes/s
  double latency_ns = 0;

  auto fields() const { return std::tie(unlimited, bandwidth_gbps, latency_ns); }
};

// The controller in front of each channel (docs/dram-model.md, "Controller"). Cycles are memory
// clocks (tCK): the controller runs at the DRAM command clock.
struct DramControllerSpec {
  std::int64_t read_queue_depth = 0;   // requests waiting to be scheduled
  std::int64_t write_queue_depth = 0;
  // Per-bank command queues of this depth behind the read and write queues: requests move into
  // their bank's queue in arrival order while it has room, and the scheduler picks only among
  // those. 0: no command queues, the scheduler picks among all queued requests.
  std::int64_t command_queue_depth = 0;
  WriteDrainPolicy write_drain = WriteDrainPolicy::watermarks;
  std::int64_t write_drain_high = 0;  // watermarks: start draining writes at this many queued
  std::int64_t write_drain_low = 0;   // and stop at this many (drain_all: when the queue fills, to empty)
  bool posted_writes = false;  // a write is answered when it is queued, not when its data is written
  std::int64_t frontend_latency_cycles = 0;  // from a request's arrival until the scheduler may pick it
  PagePolicy page_policy = PagePolicy::open;
  RefreshMode refresh = RefreshMode::all_bank;

  auto fields() const {
    return std::tie(read_queue_depth, write_queue_depth, command_queue_depth, write_drain, write_drain_high,
                    write_drain_low, posted_writes, frontend_latency_cycles, page_policy, refresh);
  }
};

// dram.capacity_gib's unit.
constexpr std::int64_t kBytesPerGib = std::int64_t{1} << 30;

struct DramSpec {
  // Set: the memory is ideal, and the DRAM fields below only describe its address space (one
  // channel, 64-byte bursts, 4 KiB runs: see config::ideal_dram_spec).
  std::optional<IdealMemorySpec> ideal;
  std::string name;      // the preset, or the file it came from
  std::string standard;  // ddr3, ddr4, lpddr4, hbm2, hbm3
  std::int64_t channels = 0;
  std::int64_t ranks = 0;
  std::int64_t bank_groups = 0;
  std::int64_t banks_per_group = 0;
  std::int64_t row_bytes = 0;  // one rank's row (page) across the channel's bus
  std::int64_t rows = 0;       // rows of each bank: with the organisation above, the capacity
  std::int64_t bus_bits = 0;   // data bus width of one channel
  // HBM's pseudo-channel mode: 2 splits each channel into two with half its bus and row, their own
  // banks, scheduled independently (their shared command pins are not modelled).
  std::int64_t pseudo_channels = 1;
  DramTiming timing;
  std::vector<AddressField> address_mapping;  // with AddressField::pseudo_channel iff pseudo_channels > 1
  // Bytes of a row that consecutive addresses fill before address_mapping's lowest field changes:
  // the column's lowest bits for that many bytes sit below every field (a GPU's 256-byte channel
  // interleave). 0: none, the whole column where address_mapping puts it.
  std::int64_t interleave_bytes = 0;
  AddressHash address_hash = AddressHash::none;
  DramControllerSpec controller;
  std::optional<DramPowerSpec> power;  // IDD currents or per-access energies (docs/energy-model.md)
  // dram.capacity_gib: what a card holds, given where the channels above model fewer or other
  // devices than it has (a card's 12 channels as 8 faster ones). None: the organisation's, or an
  // ideal memory's unlimited room.
  std::optional<std::int64_t> given_capacity_bytes;

  auto fields() const {
    return std::tie(ideal, name, standard, channels, ranks, bank_groups, banks_per_group, row_bytes, rows, bus_bits,
                    pseudo_channels, timing, address_mapping, interleave_bytes, address_hash, controller, power,
                    given_capacity_bytes);
  }

  // Bytes the memory holds: the given capacity, else channels x ranks x banks x rows x row_bytes
  // (pseudo-channels split the banks' rows, not the bytes), else (an ideal memory) none: unlimited.
  // The loader's ranges keep the product below 2^62.
  std::optional<std::int64_t> capacity_bytes() const {
    if (given_capacity_bytes) return given_capacity_bytes;
    if (ideal) return std::nullopt;
    return channels * ranks * bank_groups * banks_per_group * rows * row_bytes;
  }

  // What one scheduled channel (a pseudo-channel in pseudo-channel mode) has.
  std::int64_t channel_bus_bits() const { return bus_bits / pseudo_channels; }
  std::int64_t channel_row_bytes() const { return row_bytes / pseudo_channels; }
  std::int64_t scheduled_channels() const { return channels * pseudo_channels; }
  std::int64_t burst_bytes() const { return channel_bus_bits() / 8 * timing.burst_length; }

  // The refresh interval below which the channel's controller (sim/dram/controller.h) may never
  // serve a request (docs/dram-model.md, "Refresh and progress"). A unit (a rank, or a bank with
  // per-bank refresh) due at cycle d takes no request command from d on; the last one, at d - 1
  // at the latest, lets the unit's banks close by d - 1 + `slip`: a bank activated then may
  // close after tRAS (and activate again after tRC), one read after tRTP, one written after
  // CWL + BL/2 + tWR; tRP later the refresh may go, after one precharge per clock for the unit's
  // banks. The refresh keeps the unit `busy`; then an activate and, tRCD later, a read or write
  // must fit before the next due cycle d + tREFI: tREFI >= busy + slip + tRCD. A per-bank
  // refresh is spaced like an activate (tRRD_L, tFAW), and the refreshes of the rank's other
  // banks may each go first, max(tRRD_L, tFAW) apiece, both before the refresh and before the
  // activate after it.
  struct RefreshBound {
    std::int64_t busy = 0;  // tRFC; per-bank: max(tRFC_pb, tRRD_L, tFAW) + others
    std::int64_t slip = 0;  // the refresh issues before d + slip
    std::int64_t min_trefi = 0;  // busy + slip + tRCD
  };
  // How long one refresh keeps its rank (all-bank) or bank (per-bank) from taking requests.
  std::int64_t refresh_cycles() const {
    return controller.refresh == RefreshMode::per_bank ? timing.trfc_pb : timing.trfc;
  }
  RefreshBound refresh_bound() const {
    const DramTiming& t = timing;
    const std::int64_t close_after = std::max({t.tras, t.trtp, t.cwl + t.burst_length / 2 + t.twr});
    RefreshBound bound;
    if (controller.refresh == RefreshMode::per_bank) {
      const std::int64_t others = (bank_groups * banks_per_group - 1) * std::max(t.trrd_l, t.tfaw);
      bound.busy = std::max({t.trfc_pb, t.trrd_l, t.tfaw}) + others;
      bound.slip = std::max({t.trc, close_after + t.trp, t.trrd_l, t.tfaw}) + others;
    } else {
      bound.busy = t.trfc;
      bound.slip = std::max(t.trc, close_after + t.trp + bank_groups * banks_per_group - 1);
    }
    bound.min_trefi = bound.busy + bound.slip + t.trcd;
    return bound;
  }
  // Both clock edges carry data: bytes per second over all channels. An ideal memory: its
  // bandwidth, or infinity when unlimited.
  double peak_bytes_per_second() const {
    if (ideal) return ideal->unlimited ? std::numeric_limits<double>::infinity() : ideal->bandwidth_gbps * 1e9;
    return static_cast<double>(channels) * static_cast<double>(bus_bits) / 8.0 * 2.0 / (timing.tck_ns * 1e-9);
  }
};

// The load and the store DMA engine: each keeps up to this many DRAM requests in flight (in
// order), which with the memory's latency bounds the bandwidth it can draw (Little's law).
struct DmaSpec {
  std::int64_t outstanding_requests = 64;

  auto fields() const { return std::tie(outstanding_requests); }
};

// A level of on-chip memory every core of the chip reaches between its DMA engines and the DRAM
// (an L2, TPU v4's CMEM; docs/accelerator-format.md, "Shared memory"). It keeps the DRAM lines the
// cores read or write (least recently used out first, write-through: every store still reaches the
// DRAM), and serves a read whose lines it holds from its banks instead of the DRAM: each bank moves
// bank_width_bytes a clock, lines interleave over the banks, and an answer leaves latency_cycles
// after its last byte.
struct SharedMemorySpec {
  std::string name;
  std::int64_t capacity_bytes = 0;
  std::int64_t line_bytes = 0;  // what it allocates and replaces, a power of two of whole DRAM bursts
  std::int64_t banks = 0;
  std::int64_t bank_width_bytes = 0;
  double clock_mhz = 0;
  std::int64_t latency_cycles = 0;

  auto fields() const {
    return std::tie(name, capacity_bytes, line_bytes, banks, bank_width_bytes, clock_mhz, latency_cycles);
  }
  std::int64_t lines() const { return capacity_bytes / line_bytes; }
  double peak_bytes_per_second() const { return static_cast<double>(banks * bank_width_bytes) * clock_mhz * 1e6; }
};

// A network-on-chip between the cores' DMA engines and the memory (docs/accelerator-format.md,
// "Network-on-chip"): nodes on a grid of `columns` x `rows`, core c on node c; a mesh and a torus
// route X then Y (a torus the shorter way round each ring), a ring the shorter way, a crossbar
// through one switch (each node a link up to it and one down).
enum class NocTopology { mesh, torus, ring, crossbar };
constexpr util::EnumNames<NocTopology, 4> enum_names(NocTopology) {
  return {{{NocTopology::mesh, "mesh"},
           {NocTopology::torus, "torus"},
           {NocTopology::ring, "ring"},
           {NocTopology::crossbar, "crossbar"}}};
}

struct NocSpec {
  NocTopology topology = NocTopology::mesh;
  std::int64_t columns = 0, rows = 0;
  std::int64_t link_bytes = 0;  // a link moves this many bytes a clock, each way
  double clock_mhz = 0;
  std::int64_t router_latency_cycles = 0;  // per hop: a link and the router it enters
  // The node of DRAM channel i (and of its slice of a shared memory): memory_nodes[i mod size].
  std::vector<std::int64_t> memory_nodes;
  // A read of the bytes another core's read is still waiting for joins it: the memory answers once
  // and the data comes down the union of the routes, a link shared by them carrying it once.
  bool multicast = false;

  auto fields() const {
    return std::tie(topology, columns, rows, link_bytes, clock_mhz, router_latency_cycles, memory_nodes, multicast);
  }
  std::int64_t nodes() const { return columns * rows; }
};

// How a chip of several cores runs a batch (docs/mapping-and-replay.md, "Cores"): each core a
// share of the samples through the whole network, every layer split over all cores, or whichever
// of the two the mapper estimates faster.
enum class CorePartition { automatic, samples, layers };
constexpr util::EnumNames<CorePartition, 3> enum_names(CorePartition) {
  return {{{CorePartition::automatic, "auto"}, {CorePartition::samples, "samples"}, {CorePartition::layers, "layers"}}};
}

struct AcceleratorSpec {
  std::string name;
  ComputeSpec compute;
  AccumulatorSpec accumulators;
  SramSpec sram;
  DramSpec dram;
  DmaSpec dma;
  // The energy and area tables; none: the run reports no energy (docs/energy-model.md).
  std::optional<TechnologySpec> technology;
  // Identical cores, each with the compute above, its accumulators, SRAM buffers and DMA engines,
  // sharing the DRAM; the mapper splits each batch between them by `core_partition`
  // (docs/accelerator-format.md, "Cores").
  std::int64_t cores = 1;
  CorePartition core_partition = CorePartition::automatic;
  std::optional<SharedMemorySpec> shared_memory;  // none: the DMA engines reach the DRAM directly
  std::optional<NocSpec> noc;                     // none: every core reaches the memory in no time

  auto fields() const {
    return std::tie(name, compute, accumulators, sram, dram, dma, technology, cores, core_partition, shared_memory,
                    noc);
  }

  // The chip's peak: every core's arrays (1 MAC = 2 ops).
  double peak_ops_per_second() const { return compute.peak_ops_per_second() * static_cast<double>(cores); }

  // Bytes per element on the accelerator: its operand width, whole bytes.
  std::int64_t element_bytes() const { return std::max<std::int64_t>(1, (compute.operand_bits + 7) / 8); }
};

}  // namespace reusesim::spec
