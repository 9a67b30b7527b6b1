#pragma once
// What the replay of one layer at one batch size produced: plain data, no SystemC, so that energy,
// report and trace read results without linking the simulator.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/dram_stats.h"

namespace reusesim::results {

struct BatchDram {
  DramFigures total;
  std::vector<DramFigures> channels;
};

// Bank words one SRAM buffer read and wrote (SramStats::read_words, write_words).
struct SramWords {
  std::int64_t read_words = 0;
  std::int64_t write_words = 0;
};

// One core's share of a layer on a chip of several cores (cores.csv), in compute cycles: its own
// time from the layer's start to its last step (compute and stalls, as the layer's row counts
// them) and after it the time it waited for the cores still working (sync); they add up to the
// layer's cycles.
struct CoreFigures {
  std::string part;          // of the layer (program::LayerProgram::part)
  std::int64_t samples = 0;  // of the batch
  std::int64_t compute_cycles = 0, stall_cycles = 0, sync_cycles = 0;
  // Of stall_cycles, by cause (as LayerResult's).
  std::int64_t stall_weights = 0, stall_inputs = 0, stall_output_drain = 0, stall_sram = 0, stall_vector = 0,
               stall_noc = 0;
  std::int64_t macs = 0, dram_read_bytes = 0, dram_write_bytes = 0;
};

// What one link of a chip's network-on-chip moved during a layer (timing::NocLinks counts it).
struct NocLinkFigures {
  std::int64_t index = 0;  // timing::NocLinks' link index
  std::string link;        // "n3 -> n4"
  std::int64_t transfers = 0, bytes = 0;
  std::int64_t busy_cycles = 0;    // NoC clocks it moved flits
  std::int64_t waited_cycles = 0;  // NoC clocks transfers waited for it, summed
};

struct LayerResult {
  std::string layer;
  std::string type;
  std::string mapping;
  std::int64_t batch = 0;
  std::int64_t cycles = 0;          // compute clock: from the layer's start to its last store
  std::int64_t compute_cycles = 0;  // the array (or vector unit) busy
  // Cycles the array waited, by cause; with compute_cycles they add up to cycles.
  std::int64_t stall_weights = 0, stall_inputs = 0, stall_output_drain = 0, stall_sram = 0, stall_vector = 0;
  std::int64_t stall_noc = 0;  // loads' data crossing a network-on-chip (0 without one)
  std::int64_t macs = 0;
  std::int64_t vector_ops = 0;
  // MACs a PE did a cycle over the operand_bits rate (weights in a native format,
  // spec::ComputeSpec::native_formats): the layer's peak is the accelerator's times this; a
  // TOTAL's is its layers' highest.
  std::int64_t mac_rate = 1;
  // Of macs, those the array did in a native format of the weights (spec::ComputeSpec::native_formats)
  // by that format's name, whatever its rate: their energy is that format's MAC; the others' the
  // operand type's. A TOTAL's adds up its layers'.
  std::map<std::string, std::int64_t> native_macs;
  // Of macs, those the array skipped for a zero weight of an N:M sparse layer
  // (spec::ComputeSpec::sparsity): it did macs - skipped_macs, the effective MACs.
  std::int64_t skipped_macs = 0;
  std::int64_t effective_macs() const { return macs - skipped_macs; }
  // Every store is an output's: the output bytes written are dram_write_bytes.
  std::int64_t dram_read_weight_bytes = 0, dram_read_input_bytes = 0;
  std::int64_t dram_read_kv_cache_bytes = 0;  // a decode step's attention reading the earlier tokens' keys and values
  // The layer's own DRAM traffic, whenever it moved (its weights prefetched during the layer before
  // included), burst-widened as the channels see it: the program's bytes.
  std::int64_t dram_read_bytes = 0, dram_write_bytes = 0;
  std::int64_t prefetched_weight_bytes = 0;  // of dram_read_weight_bytes, loaded during the layer before
  // Bytes of the layer's loads a chip's shared memory served instead of the DRAM (not in the
  // dram_read_* counts; 0 without one): with dram_read_bytes, the program's loads.
  std::int64_t shared_read_bytes = 0;
  // Bytes of the layer's loads that came as copies of another core's read of the same bytes, the
  // network-on-chip multicasting one answer of the memory (noc.multicast; not in dram_read_* or
  // shared_read_bytes; 0 without it).
  std::int64_t multicast_read_bytes = 0;
  // Bytes the shared memory's banks moved during the layer, whichever layer they were for: read
  // for its hits, written by its fills and written-through stores (its energy; 0 without one).
  std::int64_t shared_bank_read_bytes = 0, shared_bank_write_bytes = 0;
  // What the memory did between the layer's start and end, whichever layer it was for: all
  // channels, and each channel (none for an ideal memory).
  DramFigures dram;
  std::vector<DramFigures> dram_channels;
  // On a batch's last layer: the same from the batch's start to its end (a batch's latency
  // percentiles are not the layers' combined).
  std::optional<BatchDram> batch_dram;
  // Residency across layers (from the program): input bytes read from on-chip data, output bytes kept.
  std::int64_t onchip_read_input_bytes = 0, onchip_kept_output_bytes = 0;
  std::int64_t sram_read_bytes = 0, sram_write_bytes = 0;
  std::vector<SramWords> sram_words;  // per buffer, in the accelerator's order
  // Output elements of GEMM tiles added into the accumulators (each a read and a write of one).
  std::int64_t accumulator_updates = 0;
  double seconds = 0;
  // The time the layer's own DRAM traffic moved in: `seconds`, plus, when weights were prefetched
  // during the layer before, the time from the prefetch's start to its last load's arrival (or to
  // the layer's start, if one was still arriving then).
  double dram_span_seconds = 0;
  // On a chip of several cores, each core's share (the row's time and its causes are the core's
  // that finished last; its work is every core's); empty on a one-core chip.
  std::vector<CoreFigures> cores;
  // On a chip with a network-on-chip, each link that moved data during the layer, in link order.
  std::vector<NocLinkFigures> noc_links;

  std::int64_t stall_cycles() const {
    return stall_weights + stall_inputs + stall_output_drain + stall_sram + stall_vector + stall_noc;
  }
};

// The seconds over which a row's own DRAM traffic moved, its DRAM rate's denominator: a layer's
// dram_span_seconds, a batch's TOTAL (`batch_total`) its time, as no prefetch crosses a batch
// (docs/conventions.md, "DRAM rates").
inline double dram_span_seconds(const LayerResult& row, bool batch_total) {
  return batch_total ? row.seconds : row.dram_span_seconds;
}

}  // namespace reusesim::results
