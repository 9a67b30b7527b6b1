#pragma once
// Typed energy and area tables (docs/energy-model.md), filled by sim/config from a technology
// preset (configs/energy/) and a DRAM file's `power` block. Energies are pJ, powers µW, areas µm².
// Nothing here is used while simulating: reports multiply the modules' counters by these entries.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "spec/fields_equal.h"

namespace reusesim::spec {

// Operand and accumulator number formats the tables are keyed by ("int8", "int32", "fp16", ...).
std::vector<std::string> operand_types();
// Their families, an accelerator's compute.number_format: int, fp (IEEE), bf (bfloat).
std::vector<std::string> number_formats();
// The accumulator format of `operand_type` accumulating in `accumulator_bits`: int<bits> for an
// integer operand, fp<bits> for a floating one ("int8", 32 -> "int32"; "bf16", 32 -> "fp32").
std::string accumulator_type(const std::string& operand_type, std::int64_t accumulator_bits);

// One point of an SRAM energy curve: a 64-bit access to an array of `kib` KiB costs `pj`.
struct SramEnergyPoint {
  double kib = 0;
  double pj_per_64_bits = 0;

  auto fields() const { return std::tie(kib, pj_per_64_bits); }
};

struct TechnologySpec {
  std::string name;  // the preset, or the file it came from
  double node_nm = 0;
  // A MAC is a multiply of the operand type and an add of the accumulator type.
  std::map<std::string, double> multiply_pj;
  std::map<std::string, double> add_pj;
  std::map<std::string, double> multiply_area_um2;
  std::map<std::string, double> add_area_um2;
  // SRAM access energy against array capacity, by increasing kib; between the points it is
  // interpolated linearly in log(capacity) and log(energy), beyond them it is the nearest end's.
  std::vector<SramEnergyPoint> sram_read;
  std::vector<SramEnergyPoint> sram_write;
  double sram_area_um2_per_kib = 0;
  double dma_pj_per_byte = 0;      // moving a byte between the DRAM interface and a buffer
  double sram_leakage_uw_per_kib = 0;
  double logic_leakage_uw_per_um2 = 0;  // of the array's multipliers and adders

  auto fields() const {
    return std::tie(name, node_nm, multiply_pj, add_pj, multiply_area_um2, add_area_um2, sram_read, sram_write,
                    sram_area_um2_per_kib, dma_pj_per_byte, sram_leakage_uw_per_kib, logic_leakage_uw_per_um2);
  }
};

// One supply rail of a DRAM device: its voltage and the JEDEC IDD currents drawn from it (mA).
struct DramPowerRail {
  std::string name;  // vdd, vpp, vdd2, ...
  double volts = 0;
  double idd0 = 0;   // one bank activated and precharged every tRC
  double idd2n = 0;  // precharged standby
  double idd3n = 0;  // active standby
  double idd4r = 0;  // burst reads
  double idd4w = 0;  // burst writes
  double idd5b = 0;  // burst (all-bank) refresh

  auto fields() const { return std::tie(name, volts, idd0, idd2n, idd3n, idd4r, idd4w, idd5b); }
};

// A DRAM's power, DRAMPower-style (docs/energy-model.md, "DRAM"): the currents are one device's of
// `device_width_bits`; a channel of bus_bits has bus_bits / device_width_bits of them.
struct DramPowerSpec {
  std::int64_t device_width_bits = 0;
  std::vector<DramPowerRail> rails;
  // Driving and terminating the data bus, per bit moved (the controller's and the device's side).
  double io_read_pj_per_bit = 0;
  double io_write_pj_per_bit = 0;

  auto fields() const { return std::tie(device_width_bits, rails, io_read_pj_per_bit, io_write_pj_per_bit); }
};

}  // namespace reusesim::spec
