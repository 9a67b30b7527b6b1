#pragma once
// Typed energy and area tables (docs/energy-model.md), filled by sim/config from a technology
// preset (configs/energy/) and a DRAM file's `power` block. Energies are pJ, powers µW, areas µm².
// Nothing here is used while simulating: reports multiply the modules' counters by these entries.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "spec/fields_equal.h"
#include "util/enum_names.h"

namespace reusesim::spec {

// Number formats the tables are keyed by: an array's operand type ("int8", "bf16"), an accumulator's
// ("int32", "fp32"), and the formats of a model's precision block an array multiplies natively
// ("int4", "fp8_e4m3").
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
  // A bit over one hop of a network-on-chip: the link's wires and the router it enters. A table
  // may leave it out; a chip with a `noc:` needs it (config::check_energy_inputs), and a chip
  // without one does not keep it.
  std::optional<double> noc_pj_per_bit_per_hop;

  auto fields() const {
    return std::tie(name, node_nm, multiply_pj, add_pj, multiply_area_um2, add_area_um2, sram_read, sram_write,
                    sram_area_um2_per_kib, dma_pj_per_byte, sram_leakage_uw_per_kib, logic_leakage_uw_per_um2,
                    noc_pj_per_bit_per_hop);
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

// How a DRAM's power block prices its commands (docs/energy-model.md, "DRAM energy"): from a
// device's JEDEC IDD currents, as DRAMPower does, or from energies per command and per bit, the
// form papers and vendors give for HBM.
enum class DramPowerForm { idd, per_access };
constexpr util::EnumNames<DramPowerForm, 2> enum_names(DramPowerForm) {
  return {{{DramPowerForm::idd, "idd"}, {DramPowerForm::per_access, "per_access"}}};
}

// The per-access form: what each command costs on one scheduled channel (pJ), and the channel's
// standby power per rank (mW; mW x ns = pJ).
struct DramAccessEnergy {
  double activate_pj = 0;
  double precharge_pj = 0;
  double read_pj_per_bit = 0;  // array and on-die data movement of a read, per data bit
  double write_pj_per_bit = 0;
  double refresh_pj = 0;             // one all-bank refresh
  double active_standby_mw = 0;      // a rank with a row open
  double precharged_standby_mw = 0;  // a rank with every bank closed

  auto fields() const {
    return std::tie(activate_pj, precharge_pj, read_pj_per_bit, write_pj_per_bit, refresh_pj, active_standby_mw,
                    precharged_standby_mw);
  }
};

// A DRAM's power. The IDD form, DRAMPower-style: the currents are one device's of
// `device_width_bits`; a channel of bus_bits has bus_bits / device_width_bits of them. The
// per-access form: `access` holds the channel's energies.
struct DramPowerSpec {
  DramPowerForm form = DramPowerForm::idd;
  std::int64_t device_width_bits = 0;  // the IDD form's
  std::vector<DramPowerRail> rails;    // the IDD form's
  DramAccessEnergy access;             // the per-access form's
  // Driving and terminating the data bus, per bit moved (the controller's and the device's side).
  double io_read_pj_per_bit = 0;
  double io_write_pj_per_bit = 0;

  auto fields() const {
    return std::tie(form, device_width_bits, rails, access, io_read_pj_per_bit, io_write_pj_per_bit);
  }
};

}  // namespace reusesim::spec
