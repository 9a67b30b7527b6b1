#pragma once
// Energy and area from the simulated counters (docs/energy-model.md): action counts the modules
// kept (MACs, accumulator updates, SRAM words, vector ops, DMA bytes, DRAM commands and active
// standby) times the technology table's and the DRAM's power entries, plus leakage over the
// simulated time. Computed when results are reported; nothing here runs during simulation.
// Energies in pJ, areas in µm² (mm² where the name says so).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/dram_stats.h"
#include "results/layer_result.h"
#include "spec/accelerator_spec.h"

namespace reusesim::energy {

// DRAMPower-style DRAM energy of a command stream (docs/energy-model.md, "DRAM"), pJ.
struct DramEnergy {
  double activate_pj = 0;
  double precharge_pj = 0;
  double read_pj = 0;    // read bursts in the array (IDD4R above active standby)
  double write_pj = 0;
  double refresh_pj = 0;
  double active_standby_pj = 0;      // rank-clocks with a row open, at IDD3N
  double precharged_standby_pj = 0;  // the other rank-clocks, at IDD2N
  double io_pj = 0;                  // driving and terminating the data bus
  double total_pj() const;
};

// What one command of each kind costs on one scheduled channel's devices, pJ (summed over rails).
struct DramCommandEnergy {
  double activate_pj = 0, precharge_pj = 0, read_burst_pj = 0, write_burst_pj = 0, refresh_pj = 0;
  double active_standby_pj_per_cycle = 0, precharged_standby_pj_per_cycle = 0;  // per rank-clock
  double io_read_pj_per_burst = 0, io_write_pj_per_burst = 0;
};
DramCommandEnergy dram_command_energy(const spec::DramSpec& dram);

// The energy of `counters` (one channel's, or several channels' added up) over `memory_cycles`
// memory clocks of each of `channels` scheduled channels. `dram` must have a power block.
DramEnergy dram_energy(const spec::DramSpec& dram, const results::DramChannelStats& counters, double memory_cycles,
                       std::int64_t channels);

// A layer's (or a TOTAL's) energy by component, pJ.
struct EnergyBreakdown {
  std::optional<DramEnergy> dram;  // none for an ideal memory, which issues no DRAM commands
  double sram_pj = 0;         // buffer words read and written
  double array_pj = 0;        // MACs and accumulator reads and writes
  double vector_pj = 0;       // element operations on the vector unit
  double dma_pj = 0;          // bytes moved between the DRAM interface and the buffers
  double static_pj = 0;       // leakage of the SRAM (the shared memory's too) and the array over the layer's time
  double shared_pj = 0;       // the shared memory's bank bytes read and written (0 without one)
  double noc_pj = 0;          // bits over the network-on-chip's hops (0 without one)
  double onchip_pj() const { return sram_pj + array_pj + vector_pj + dma_pj + static_pj + shared_pj + noc_pj; }
  double total_pj() const { return onchip_pj() + (dram ? dram->total_pj() : 0.0); }
};

// Energy of `layer` on `accelerator`, which must have a technology (and a DRAM power block unless
// its memory is ideal): the loaders guarantee both when `technology` is set.
EnergyBreakdown layer_energy(const spec::AcceleratorSpec& accelerator, const results::LayerResult& layer);

// pJ of one access of `bits` to an SRAM array of `kib` KiB, reading or writing (the technology's
// curves, interpolated in log-log; outside a curve's points, its nearest end's energy).
double sram_access_pj(const spec::TechnologySpec& technology, double kib, std::int64_t bits, bool is_write);
// One line for each SRAM array of `accelerator` (a buffer's bank, the accumulators) whose capacity
// lies outside a curve of its technology, naming the table, the curve, its range, the capacity and
// the energy used instead (docs/energy-model.md, "On-chip energy"); none without a technology.
// Commands that report energy print them as warnings.
std::vector<std::string> curve_range_warnings(const spec::AcceleratorSpec& accelerator);

// pJ of one MAC: the operand type's multiply and the accumulator type's add.
double mac_pj(const spec::AcceleratorSpec& accelerator);
// pJ of one MAC in `format` (an operand type, or a native format of the array's: "int8",
// "fp8_e4m3"): its multiply and the add of the type it accumulates in at the accumulators' bits.
double mac_pj(const spec::AcceleratorSpec& accelerator, const std::string& format);

struct AreaBreakdown {
  double array_um2 = 0;        // multipliers and adders, one of each per MAC unit
  double sram_um2 = 0;         // every buffer
  double accumulator_um2 = 0;  // the accumulator storage, as SRAM
  double shared_um2 = 0;       // the chip's shared memory, as SRAM (0 without one)
  double total_mm2() const { return (array_um2 + sram_um2 + accumulator_um2 + shared_um2) / 1e6; }
};
// The chip's area: each core's array, buffers and accumulators, times the cores, and the shared
// memory once.
AreaBreakdown area(const spec::AcceleratorSpec& accelerator);

}  // namespace reusesim::energy
