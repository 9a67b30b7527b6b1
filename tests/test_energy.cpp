// Energy and area tables (docs/energy-model.md): the shipped technology tables and DRAM power
// blocks load, the arithmetic of each energy term by hand, and a clear error for every kind of bad
// energy input. No simulation: the model multiplies counters, so counters are set by hand here.
#include <catch2/catch.hpp>
#include "input_error_text.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "energy/energy_model.h"

using reusesim::config::load_accelerator_text;
using reusesim::config::load_dram;
namespace energy = reusesim::energy;
namespace results = reusesim::results;
namespace spec = reusesim::spec;

namespace {

// An int8 16 x 16 array at 1 GHz with two buffers (lines 1-15); what a test appends starts at
// line 16.
const std::string kHead =
    "name: acc\n"                                   // 1
    "compute:\n"                                    // 2
    "  type: systolic\n"                            // 3
    "  rows: 16\n"                                  // 4
    "  cols: 16\n"                                  // 5
    "  dataflow: ws\n"                              // 6
    "  clock_mhz: 1000\n"                           // 7
    "  operand_bits: 8\n"                           // 8
    "  number_format: int\n"                        // 9
    "  vector_ops_per_cycle: 16\n"                  // 10
    "accumulators: {capacity_kib: 32, bits: 32}\n"  // 11
    "sram:\n"                                       // 12
    "  clock_mhz: 1000\n"                           // 13
    "  buffers:\n"                                  // 14
    "    - {name: w, capacity_kib: 32, banks: 4, bank_width_bytes: 8, read_ports: 1, write_ports: 1, holds: weights}\n"
    "    - {name: io, capacity_kib: 64, banks: 8, bank_width_bytes: 8, read_ports: 1, write_ports: 1, holds: [inputs, outputs]}\n";
// ...so that appended lines start at 17.

std::string errors_of(const std::string& tail, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { load_accelerator_text(kHead + tail, "acc.yaml", overrides); });
}

spec::AcceleratorSpec load(const std::string& tail) { return load_accelerator_text(kHead + tail, "acc.yaml"); }

const std::string kIdeal = "dram: {ideal: unlimited}\n";

// A technology table of its own (from line 17 on; its entries' errors point at line 18) that
// prices int8 operands and int32 accumulators only, on an ideal memory.
const std::string kInt8Table =
    "technology:\n"
    "  {name: mine, node_nm: 45, multiply_pj: {int8: 0.2}, add_pj: {int8: 0.03, int32: 0.1},\n"
    "   multiply_area_um2: {int8: 282}, add_area_um2: {int32: 137},\n"
    "   sram_read_pj_per_64_bits: [{kib: 8, pj: 10}], sram_write_pj_per_64_bits: [{kib: 8, pj: 10}],\n"
    "   sram_area_um2_per_kib: 4049, dma_pj_per_byte: 1.6, sram_leakage_uw_per_kib: 0.1,\n"
    "   logic_leakage_uw_per_um2: 0.002}\n" +
    kIdeal;

// A channel's command counts, as a controller would have kept them.
results::DramChannelStats commands(std::int64_t activates, std::int64_t precharges, std::int64_t reads,
                                   std::int64_t writes, std::int64_t refreshes, std::int64_t active_rank_cycles) {
  results::DramChannelStats counters;
  counters.activates = activates;
  counters.precharges = precharges;
  counters.read_commands = reads;
  counters.write_commands = writes;
  counters.refreshes = refreshes;
  counters.active_rank_cycles = active_rank_cycles;
  return counters;
}

}  // namespace

TEST_CASE("energy: an SRAM curve is not extrapolated past either end, and each array past one is named", "[energy]") {
  // A steep curve, both points in the allowed range: 1 pJ at 1 KiB, 1,000 pJ at 2 KiB. Its slope,
  // log(1000) / log(2) = 9.97, extended to the accumulators' 32 KiB gave 1000 x 16^9.97 = 1e15 pJ
  // an access; the curve's last point, 1,000 pJ, is what they cost now. The buffers' banks (8 KiB)
  // are past it too; the write curve (the 45 nm table's, 8 KiB to 1 MiB) covers every array.
  const spec::AcceleratorSpec steep =
      load("technology: {preset: 45nm, sram_read_pj_per_64_bits: [{kib: 1, pj: 1}, {kib: 2, pj: 1000}]}\n" + kIdeal);
  CHECK(energy::sram_access_pj(*steep.technology, 32, 64, false) == Approx(1000));
  // Between the points, log-log as before: 1.5 KiB is 2^0.585, so 1 x 1000^0.585 = 56.9 pJ.
  CHECK(energy::sram_access_pj(*steep.technology, 1.5, 64, false) == Approx(std::pow(1000.0, std::log2(1.5))));
  const std::vector<std::string> above = energy::curve_range_warnings(steep);
  REQUIRE(above.size() == 3);
  CHECK(above[2] == "technology " + steep.technology->name +
                        ": sram_read_pj_per_64_bits covers 1 KiB to 2 KiB; the accumulators (32 KiB) take the energy "
                        "at 2 KiB (1000 pJ per 64 bits): a curve is not extrapolated beyond its points");
  // The same curve moved up to 1,024 and 2,048 KiB: extended down to the 8 KiB banks it gave
  // (8 / 1024)^9.97 = 1e-21 pJ; its first point, 1 pJ, now.
  const spec::AcceleratorSpec high = load(
      "technology: {preset: 45nm, sram_write_pj_per_64_bits: [{kib: 1024, pj: 1}, {kib: 2048, pj: 1000}]}\n" + kIdeal);
  CHECK(energy::sram_access_pj(*high.technology, 8, 64, true) == Approx(1));
  const std::vector<std::string> below = energy::curve_range_warnings(high);
  REQUIRE(below.size() == 3);
  CHECK(below[0] == "technology " + high.technology->name +
                        ": sram_write_pj_per_64_bits covers 1024 KiB to 2048 KiB; the banks of buffer w (8 KiB) take "
                        "the energy at 1024 KiB (1 pJ per 64 bits): a curve is not extrapolated beyond its points");
}

TEST_CASE("energy: a MAC, an SRAM access and the area from the 45 nm table", "[energy]") {
  const spec::AcceleratorSpec spec = load("technology: 45nm\n" + kIdeal);
  REQUIRE(spec.technology);
  // Horowitz, ISSCC 2014: int8 multiply 0.2 pJ, int32 add 0.1 pJ (the accumulators are 32-bit).
  CHECK(energy::mac_pj(spec) == Approx(0.3));
  const spec::TechnologySpec& table = *spec.technology;
  // 64-bit SRAM reads: 8 KiB 10 pJ, 32 KiB 20 pJ, 1 MiB 100 pJ; log-log between, the nearest end's beyond.
  CHECK(energy::sram_access_pj(table, 8, 64, false) == Approx(10));
  CHECK(energy::sram_access_pj(table, 32, 128, true) == Approx(40));  // twice the bits, twice the energy
  // 16 KiB: slope log(20/10)/log(32/8) = 0.5, 10 x 2^0.5.
  CHECK(energy::sram_access_pj(table, 16, 64, false) == Approx(10 * std::sqrt(2.0)));
  // 4 KiB and 2 MiB, outside the table: its ends' 10 and 100 pJ, not its end segments extended.
  CHECK(energy::sram_access_pj(table, 4, 64, false) == Approx(10));
  CHECK(energy::sram_access_pj(table, 2048, 64, false) == Approx(100));
  // Every array of this accelerator is inside the table: no warning.
  CHECK(energy::curve_range_warnings(spec).empty());
  // Area: 256 MAC units x (int8 multiplier 282 + int32 adder 137 um^2) = 107,264 um^2; SRAM
  // (32 + 64) KiB x 4,049 = 388,704 um^2; accumulators 32 KiB x 4,049 = 129,568 um^2; 0.625536 mm^2.
  const energy::AreaBreakdown area = energy::area(spec);
  CHECK(area.array_um2 == Approx(107264));
  CHECK(area.sram_um2 == Approx(388704));
  CHECK(area.accumulator_um2 == Approx(129568));
  CHECK(area.total_mm2() == Approx(0.625536));
}

TEST_CASE("energy: a chip's area and leakage count every core", "[energy]") {
  // Three cores of the accelerator above: 3 x 0.625536 = 1.876608 mm^2, each part three times.
  spec::AcceleratorSpec chip = load("technology: 45nm\n" + kIdeal);
  chip.cores = 3;
  const energy::AreaBreakdown area = energy::area(chip);
  CHECK(area.array_um2 == Approx(3 * 107264));
  CHECK(area.sram_um2 == Approx(3 * 388704));
  CHECK(area.accumulator_um2 == Approx(3 * 129568));
  CHECK(area.total_mm2() == Approx(1.876608));
  // Leakage is the area's: a layer of the same time leaks three times the one core's.
  results::LayerResult layer;
  layer.seconds = 1e-3;
  const double one = energy::layer_energy(load("technology: 45nm\n" + kIdeal), layer).static_pj;
  CHECK(one > 0);
  CHECK(energy::layer_energy(chip, layer).static_pj == Approx(3 * one));
}

TEST_CASE("energy: a layer's on-chip energy is its counts times the table", "[energy]") {
  const spec::AcceleratorSpec spec = load("technology: 45nm\n" + kIdeal);
  results::LayerResult layer;
  layer.macs = 1000;
  layer.accumulator_updates = 100;
  layer.sram_words = {{10, 20}, {30, 40}};  // w: 10 read, 20 written; io: 30 read, 40 written
  layer.vector_ops = 50;
  layer.dram_read_bytes = 64;
  layer.dram_write_bytes = 36;
  layer.seconds = 1e-6;
  const energy::EnergyBreakdown e = energy::layer_energy(spec, layer);
  // SRAM: a bank of w is 32 / 4 = 8 KiB, of io 64 / 8 = 8 KiB, both 64-bit words: 10 pJ a read or a
  // write (writes equal reads in the table). (10 + 20 + 30 + 40) x 10 = 1,000 pJ.
  CHECK(e.sram_pj == Approx(1000));
  // Array: 1,000 MACs x 0.3 = 300 pJ; an update reads and writes one 32-bit partial sum of the
  // 32 KiB accumulators (20 pJ per 64 bits, so 10 + 10): 100 x 20 = 2,000 pJ.
  CHECK(e.array_pj == Approx(2300));
  // Vector: 50 element operations x an int8 add (0.03 pJ).
  CHECK(e.vector_pj == Approx(1.5));
  // DMA: 100 bytes x 1.6 pJ.
  CHECK(e.dma_pj == Approx(160));
  // Leakage: (32 + 64 + 32) KiB x 0.1 uW = 12.8 uW; 107,264 um^2 of array x 0.002 uW = 214.528 uW;
  // 227.328 uW x 1 us = 227.328 pJ.
  CHECK(e.static_pj == Approx(227.328));
  CHECK_FALSE(e.dram);  // an ideal memory issues no DRAM commands
  CHECK(e.total_pj() == Approx(1000 + 2300 + 1.5 + 160 + 227.328));
}

TEST_CASE("energy: a shared memory's bank bytes cost its bank's word energy, and it leaks", "[energy]") {
  // 64 KiB in 2 banks of 32-byte words: a bank of 32 KiB, 20 pJ per 64 bits at 45 nm, so a 256-bit
  // word 80 pJ, 2.5 pJ a byte either way (writes equal reads in the table).
  const spec::AcceleratorSpec plain = load("technology: 45nm\n" + kIdeal);
  spec::AcceleratorSpec chip = plain;
  chip.shared_memory = spec::SharedMemorySpec{"l2", 64 * 1024, 128, 2, 32, 1000, 10};
  results::LayerResult layer;
  layer.shared_bank_read_bytes = 2048;   // hits
  layer.shared_bank_write_bytes = 2304;  // fills and stores
  layer.seconds = 1e-6;
  const energy::EnergyBreakdown e = energy::layer_energy(chip, layer);
  // (2,048 + 2,304) x 2.5 = 10,880 pJ.
  CHECK(e.shared_pj == Approx(10880));
  // Its 64 KiB leak as SRAM: 64 x 0.1 uW x 1 us = 6.4 pJ over the chip without it.
  const energy::EnergyBreakdown without = energy::layer_energy(plain, layer);
  CHECK(without.shared_pj == 0);
  CHECK(e.static_pj - without.static_pj == Approx(6.4));
  CHECK(e.total_pj() - without.total_pj() == Approx(10880 + 6.4));
  // Its area: 64 KiB x 4,049 um^2 = 259,136 um^2, once for the chip.
  CHECK(energy::area(chip).shared_um2 == Approx(259136));
  CHECK(energy::area(chip).total_mm2() == Approx(0.625536 + 0.259136));
}

TEST_CASE("energy: a network-on-chip's bytes cost the technology's energy per bit per hop", "[energy]") {
  // 45 nm: 0.160 pJ a bit a hop (configs/energy/45nm.yaml). Two links moved 100 B and 28 B: every
  // byte crossed one hop, 128 x 8 bits x 0.160 = 163.84 pJ.
  const spec::AcceleratorSpec chip = load("technology: 45nm\n" + kIdeal +
                                          "cores: {count: 2}\n"
                                          "noc: {topology: mesh, columns: 2, rows: 1, link_bytes: 16, clock_mhz: 1000, "
                                          "router_latency_cycles: 1, memory_nodes: [0]}\n");
  results::LayerResult layer;
  layer.noc_links = {{0, "n0 -> n1", 2, 100, 7, 0}, {1, "n1 -> n0", 1, 28, 2, 0}};
  const energy::EnergyBreakdown e = energy::layer_energy(chip, layer);
  CHECK(e.noc_pj == Approx(163.84));
  CHECK(e.total_pj() == Approx(163.84));  // nothing else moved, and no time passed
  // A table without the entry is refused for a chip with a network, at the technology's line.
  CHECK(errors_of(kInt8Table + "cores: {count: 2}\n"
                               "noc: {topology: mesh, columns: 2, rows: 1, link_bytes: 16, clock_mhz: 1000, "
                               "router_latency_cycles: 1, memory_nodes: [0]}\n") ==
        "acc.yaml:18:3: error: technology.noc_pj_per_bit_per_hop: missing: technology mine has no "
        "noc_pj_per_bit_per_hop, the energy of a bit over one hop (a link's wires and the router it enters) that "
        "the chip's network-on-chip (noc) needs\n");
}

TEST_CASE("energy: DRAM command energies of ddr3-1066 from its IDD currents", "[energy]") {
  // ddr3-1066: a 32-bit channel of x8 devices (4 per rank), one rank, VDD 1.5 V, tCK 1.875 ns,
  // tRAS 20, tRC 27, BL 8, tRFC 86; IDD0 60, IDD2N 33, IDD3N 45.6, IDD4R 130, IDD4W 115, IDD5B 185 mA.
  // pJ per mA-clock: 1.5 V x 1.875 ns x 4 devices = 11.25.
  const spec::DramSpec dram = load_dram("ddr3-1066");
  REQUIRE(dram.power);
  const energy::DramCommandEnergy e = energy::dram_command_energy(dram);
  CHECK(e.activate_pj == Approx((60 - 45.6) * 20 * 11.25));       // 3,240
  CHECK(e.precharge_pj == Approx((60 - 33) * (27 - 20) * 11.25));  // 2,126.25
  CHECK(e.read_burst_pj == Approx((130 - 45.6) * 4 * 11.25));     // 3,798
  CHECK(e.write_burst_pj == Approx((115 - 45.6) * 4 * 11.25));    // 3,123
  CHECK(e.refresh_pj == Approx((185 - 45.6) * 86 * 11.25));       // 134,869.5
  CHECK(e.active_standby_pj_per_cycle == Approx(45.6 * 11.25));    // 513
  CHECK(e.precharged_standby_pj_per_cycle == Approx(33 * 11.25));  // 371.25
  // A burst moves 32 bits x 8 beats = 256 bits: 4.31 and 19.9 pJ per bit.
  CHECK(e.io_read_pj_per_burst == Approx(4.31 * 256));   // 1,103.36
  CHECK(e.io_write_pj_per_burst == Approx(19.9 * 256));  // 5,094.4

  const results::DramChannelStats counters = commands(2, 1, 10, 3, 1, 100);
  // 300 memory clocks of one channel's one rank: 100 active, 200 precharged.
  // 2 x 3,240 + 2,126.25 + 10 x 3,798 + 3 x 3,123 + 134,869.5 + 100 x 513 + 200 x 371.25
  //   + 10 x 1,103.36 + 3 x 5,094.4 = 342,691.55 pJ.
  CHECK(energy::dram_energy(dram, counters, 300, 1).total_pj() == Approx(342691.55));
}

TEST_CASE("energy: hbm2's per-access energies price a command stream", "[energy]") {
  // hbm2 (per-access form; configs/dram/hbm2.yaml): a 128-bit channel, tCK 1.0 ns, BL 4, so a
  // burst is 16 B x 4 = 64 B = 512 bits. Activate 1,818 pJ (two 1 KB rows of 909), precharge 0,
  // 2.68 pJ per bit in the array, 0.80 pJ per bit of I/O, refresh 60,840 pJ, standby 66 mW
  // active and 48 mW precharged (mW x 1.0 ns = pJ per clock).
  const spec::DramSpec dram = load_dram("hbm2");
  REQUIRE(dram.power);
  REQUIRE(dram.power->form == spec::DramPowerForm::per_access);
  const energy::DramCommandEnergy e = energy::dram_command_energy(dram);
  CHECK(e.activate_pj == Approx(1818));
  CHECK(e.precharge_pj == 0);
  CHECK(e.read_burst_pj == Approx(2.68 * 512));  // 1,372.16
  CHECK(e.write_burst_pj == Approx(2.68 * 512));
  CHECK(e.refresh_pj == Approx(60840));
  CHECK(e.active_standby_pj_per_cycle == Approx(66 * 1.0));
  CHECK(e.precharged_standby_pj_per_cycle == Approx(48 * 1.0));
  CHECK(e.io_read_pj_per_burst == Approx(0.80 * 512));  // 409.6

  // 1 ACT + 4 RD + 1 PRE over 100 clocks of one channel, a row open for 40 of them:
  // 1,818 + 0 + 4 x (1,372.16 + 409.6) + 40 x 66 + 60 x 48 = 14,465.04 pJ, over 4 x 512 bits
  // = 7.063 pJ per bit.
  const energy::DramEnergy stream = energy::dram_energy(dram, commands(1, 1, 4, 0, 0, 40), 100, 1);
  CHECK(stream.activate_pj + stream.precharge_pj == Approx(1818));
  CHECK(stream.read_pj == Approx(5488.64));
  CHECK(stream.io_pj == Approx(1638.4));
  CHECK(stream.active_standby_pj == Approx(2640));
  CHECK(stream.precharged_standby_pj == Approx(2880));
  CHECK(stream.total_pj() == Approx(14465.04));
  // A conflict pays its precharge and activate: a second row of the same bank adds a PRE and an
  // ACT (1,818 pJ) and holds the rank open 48 clocks more, 48 x (66 - 48) = 864 pJ.
  CHECK(energy::dram_energy(dram, commands(2, 2, 4, 0, 0, 88), 100, 1).total_pj() == Approx(14465.04 + 1818 + 864));
}

TEST_CASE("energy: gddr6's per-access energies price a command stream", "[energy]") {
  // gddr6 (configs/dram/gddr6.yaml): a 16-bit channel, tCK 0.125 ns, BL 16, so a burst is
  // 2 B x 16 = 32 B = 256 bits. Activate 2,301 pJ, 3.39 pJ per bit in the array, 8.55 pJ per bit
  // of I/O, refresh 18,672 pJ, standby 37.1 mW active (x 0.125 ns = 4.6375 pJ per clock) and
  // 30.4 mW precharged (3.8 pJ per clock).
  const spec::DramSpec dram = load_dram("gddr6");
  REQUIRE(dram.power);
  const energy::DramCommandEnergy e = energy::dram_command_energy(dram);
  CHECK(e.read_burst_pj == Approx(3.39 * 256));  // 867.84
  CHECK(e.write_burst_pj == Approx(3.39 * 256));
  CHECK(e.io_write_pj_per_burst == Approx(8.55 * 256));  // 2,188.8
  CHECK(e.active_standby_pj_per_cycle == Approx(4.6375));
  CHECK(e.precharged_standby_pj_per_cycle == Approx(3.8));

  // 1 ACT + 3 RD + 1 WR + 1 PRE + 1 REF over 800 clocks (100 ns) of each of 2 channels, a row open
  // 320 rank-clocks: 2,301 + 4 x (867.84 + 2,188.8) + 18,672 + 320 x 4.6375 + (1,600 - 320) x 3.8
  // = 2,301 + 12,226.56 + 18,672 + 1,484 + 4,864 = 39,547.56 pJ.
  CHECK(energy::dram_energy(dram, commands(1, 1, 3, 1, 1, 320), 800, 2).total_pj() == Approx(39547.56));
}

TEST_CASE("energy: ddr5-4800's IDD currents at DDR5's supplies", "[energy]") {
  // ddr5-4800: a 32-bit subchannel of 4 x8 devices, tCK 0.417 ns, tRAS 77, tRC 116, BL 16 (8
  // clocks), tRFC 708. pJ per mA-clock: VDD 1.1 V x 0.417 x 4 = 1.8348, VPP 1.8 V x 0.417 x 4 =
  // 3.0024. VDD: IDD0 48, IDD2N 34, IDD3N 43, IDD4R 135, IDD5B 250; VPP 3 mA but IPP5B 28.
  const spec::DramSpec dram = load_dram("ddr5-4800");
  REQUIRE(dram.power);
  const energy::DramCommandEnergy e = energy::dram_command_energy(dram);
  CHECK(e.activate_pj == Approx((48 - 43) * 77 * 1.8348));                             // 706.398
  CHECK(e.precharge_pj == Approx((48 - 34) * (116 - 77) * 1.8348));                    // 1,001.80
  CHECK(e.read_burst_pj == Approx((135 - 43) * 8 * 1.8348));                           // 1,350.41
  CHECK(e.refresh_pj == Approx((250 - 43) * 708 * 1.8348 + (28 - 3) * 708 * 3.0024));  // 322,043.4
  CHECK(e.active_standby_pj_per_cycle == Approx(43 * 1.8348 + 3 * 3.0024));            // 87.9036
  // A burst is 4 B x 16 = 512 bits at 0.52 pJ per bit read.
  CHECK(e.io_read_pj_per_burst == Approx(0.52 * 512));  // 266.24
}

TEST_CASE("energy: every shipped power block and technology loads", "[energy]") {
  for (const char* preset : {"ddr3-1066", "ddr3-1600", "ddr4-2400", "lpddr4-3200", "ddr5-4800", "lpddr5-6400", "gddr6",
                             "hbm2", "hbm2e", "hbm3"}) {
    INFO(preset);
    CHECK(load_dram(preset).power);
  }
  CHECK(load("technology: 7nm\n" + kIdeal).technology->node_nm == 7);
  // An override replaces one entry of the preset and keeps the rest.
  const spec::AcceleratorSpec spec = load("technology: {preset: 45nm, multiply_pj: {int8: 0.15}}\n" + kIdeal);
  CHECK(energy::mac_pj(spec) == Approx(0.25));
  CHECK(spec.technology->multiply_pj.at("fp32") == Approx(3.7));
}

TEST_CASE("energy: a layer's MACs cost the format the array computes them in", "[energy]") {
  // The accelerator above as an fp16 array that multiplies int8 weights natively.
  const spec::AcceleratorSpec spec =
      load_accelerator_text(kHead + "technology: 45nm\n" + kIdeal, "acc.yaml",
                            {"compute.number_format=fp", "compute.operand_bits=16", "compute.native_formats.int8=2"});
  // One linear layer, 1 x 256 -> 128: 256 x 128 = 32,768 MACs, one K tile: 128 accumulator updates.
  results::LayerResult layer;
  layer.macs = 32768;
  layer.accumulator_updates = 128;
  // An update reads and writes one 32-bit partial sum of the 32 KiB accumulators (20 pJ per 64
  // bits, 10 + 10 pJ): 128 x 20 = 2,560 pJ in either format.
  // fp16: a multiply 1.1 pJ and an fp32 add 0.9 pJ (Horowitz): 32,768 x 2.0 = 65,536 pJ.
  CHECK(energy::mac_pj(spec) == Approx(2.0));
  CHECK(energy::layer_energy(spec, layer).array_pj == Approx(65536 + 2560));
  // int8 native: an int8 multiply 0.2 pJ and an int32 add 0.1 pJ: 32,768 x 0.3 = 9,830.4 pJ.
  layer.native_macs["int8"] = 32768;
  CHECK(energy::mac_pj(spec, "int8") == Approx(0.3));
  CHECK(energy::layer_energy(spec, layer).array_pj == Approx(9830.4 + 2560));
  // A TOTAL of both layers: 32,768 MACs at each format, 256 updates.
  layer.macs = 65536;
  layer.accumulator_updates = 256;
  CHECK(energy::layer_energy(spec, layer).array_pj == Approx(65536 + 9830.4 + 5120));
  // fp8 e4m3 natively (a 4-bit significand multiplier, 1.1 x (4/11)^2 = 0.145 pJ, accumulated in
  // fp32, 0.9 pJ); int4 (0.0507 pJ, the int32 add 0.1 pJ).
  CHECK(energy::mac_pj(spec, "fp8_e4m3") == Approx(1.045));
  CHECK(energy::mac_pj(spec, "int4") == Approx(0.1507));
}

TEST_CASE("energy: bad energy input is refused with file, line and key", "[energy]") {
  SECTION("a negative energy") {
    CHECK(errors_of("technology: {preset: 45nm, add_pj: {int8: -0.03}}\n" + kIdeal) ==
          "acc.yaml:17:43: error: technology.add_pj.int8: expected a number from 1e-09 to 1e+09, got -0.03\n");
  }
  SECTION("a non-finite energy") {
    CHECK(errors_of("technology: {preset: 45nm, multiply_pj: {int8: .inf}}\n" + kIdeal) ==
          "acc.yaml:17:48: error: technology.multiply_pj.int8: expected a number from 1e-09 to 1e+09, got \".inf\"\n");
  }
  SECTION("an area for a component that does not exist") {
    CHECK(errors_of("technology: {preset: 45nm, multiply_area_um2: {int9: 100}}\n" + kIdeal) ==
          "acc.yaml:17:48: error: technology.multiply_area_um2.int9: unknown key (did you mean \"int4\"?)\n");
  }
  SECTION("no entry for the operand type in use") {
    CHECK(errors_of("technology:\n"
                    "  {name: mine, node_nm: 45, multiply_pj: {fp16: 1.1}, add_pj: {int8: 0.03, int32: 0.1},\n"
                    "   multiply_area_um2: {fp16: 1640}, add_area_um2: {int32: 137},\n"
                    "   sram_read_pj_per_64_bits: [{kib: 8, pj: 10}], sram_write_pj_per_64_bits: [{kib: 8, pj: 10}],\n"
                    "   sram_area_um2_per_kib: 4049, dma_pj_per_byte: 1.6, sram_leakage_uw_per_kib: 0.1,\n"
                    "   logic_leakage_uw_per_um2: 0.002}\n" +
                    kIdeal) ==
          "acc.yaml:18:3: error: technology.multiply_pj.int8: missing: technology mine has no multiply_pj entry for "
          "int8, the operand type in use\n"
          "acc.yaml:18:3: error: technology.multiply_area_um2.int8: missing: technology mine has no multiply_area_um2 "
          "entry for int8, the operand type in use\n");
  }
  SECTION("no entry for a native format of the array") {
    CHECK(errors_of(kInt8Table, {"compute.native_formats.fp8_e4m3=2"}) ==
          "acc.yaml:18:3: error: technology.multiply_pj.fp8_e4m3: missing: technology mine has no multiply_pj entry "
          "for fp8_e4m3, the native format (compute.native_formats.fp8_e4m3) in use\n"
          "acc.yaml:18:3: error: technology.add_pj.fp32: missing: technology mine has no add_pj entry for fp32, the "
          "accumulator type of the native format (compute.native_formats.fp8_e4m3) in use\n");
  }
  SECTION("an unknown technology") {
    CHECK(errors_of("technology: 45mn\n" + kIdeal) ==
          "acc.yaml:17:13: error: technology.preset: unknown technology preset \"45mn\" (no file " +
              reusesim::config::technology_preset_directory() + "/45mn.yaml)\n");
  }
  SECTION("an SRAM curve whose capacities do not increase") {
    CHECK(errors_of("technology: {preset: 45nm, sram_read_pj_per_64_bits: [{kib: 32, pj: 20}, {kib: 8, pj: 10}]}\n" +
                    kIdeal) ==
          "acc.yaml:17:74: error: technology.sram_read_pj_per_64_bits.1: capacities must increase from point to point "
          "(this one is not above the one before)\n");
  }
  SECTION("a technology without the operand type") {
    std::string head = kHead;  // without line 9: `technology` moves up to line 16
    head.erase(head.find("  number_format: int\n"), 21);
    CHECK(input_error_text([&] { load_accelerator_text(head + "technology: 45nm\n" + kIdeal, "acc.yaml"); }) ==
          "acc.yaml:16:13: error: compute.number_format: energy needs the operands' number format: add "
          "compute.number_format, one of int, fp, bf (with operand_bits it names the operand type, e.g. int8)\n");
  }
  SECTION("an operand type the table does not have: fp with 8 bits is fp8") {
    CHECK(errors_of("technology: 45nm\n" + kIdeal, {"compute.number_format=fp"}) ==
          "acc.yaml:17:13: error: technology.multiply_pj.fp8: missing: technology 45nm has no multiply_pj entry for "
          "fp8, the operand type in use\n"
          "acc.yaml:17:13: error: technology.add_pj.fp8: missing: technology 45nm has no add_pj entry for fp8, the "
          "operand type (vector operations) in use\n"
          "acc.yaml:17:13: error: technology.multiply_area_um2.fp8: missing: technology 45nm has no "
          "multiply_area_um2 entry for fp8, the operand type in use\n");
  }
  SECTION("an unknown number format") {
    CHECK(errors_of(kIdeal, {"compute.number_format=float"}) ==
          "--set compute.number_format=float: error: compute.number_format: expected one of int, fp, bf, got "
          "\"float\"\n");
  }
  SECTION("a DRAM without a power block") {
    CHECK(errors_of("technology: 45nm\n"
                    "dram: {name: mine, standard: ddr4, channels: 1, ranks: 1, bank_groups: 4, banks_per_group: 4,\n"
                    "  row_bytes: 8192, rows: 65536, bus_bits: 64, tck_ns: 0.833, cl: 17, cwl: 12, trcd: 17, trp: 17, "
                    "tras: 39,\n"
                    "  trc: 56, burst_length: 8, tccd_s: 4, tccd_l: 6, trrd_s: 4, trrd_l: 6, tfaw: 26, twtr_s: 3,\n"
                    "  twtr_l: 9, twr: 18, trtp: 9, trfc: 420, trefi: 9360, address_mapping: 'ro,ra,ba,co,bg,ch',\n"
                    "  controller: {read_queue_depth: 32, write_queue_depth: 32, write_drain: {high: 24, low: 8},\n"
                    "               page_policy: open, refresh: all_bank}}\n") ==
          "acc.yaml:17:13: error: dram.power: energy needs the DRAM's power: DRAM mine has no power block "
          "(docs/energy-model.md says what it holds: IDD currents from your device's datasheet, or energies per "
          "access)\n");
  }
  SECTION("a negative per-access energy") {
    CHECK(errors_of("dram: {preset: hbm2}\n", {"dram.power.activate_pj=-1"}) ==
          "--set dram.power.activate_pj=-1: error: dram.power.activate_pj: expected a number from 1e-09 to 1e+09, "
          "got -1\n");
  }
  SECTION("active standby below precharged standby") {
    CHECK(errors_of("dram: {preset: hbm2, power: {active_standby_mw: 20}}\n") ==
          "acc.yaml:17:49: error: dram.power.active_standby_mw: active_standby_mw 20 mW is below "
          "precharged_standby_mw 48 mW, which is physically impossible (a rank with a row open draws what a "
          "precharged one does and more)\n");
  }
  SECTION("an IDD key in a per-access block") {
    CHECK(errors_of("dram: {preset: hbm2}\n", {"dram.power.device_width_bits=128"}) ==
          "--set dram.power.device_width_bits=128: error: dram.power.device_width_bits: device_width_bits belongs to "
          "the idd form, and this block's form is per_access (docs/energy-model.md, \"DRAM energy\")\n");
  }
  SECTION("an IDD block switched to the per-access form") {
    // Each missing energy at the block's line (76) in the preset, and each IDD key at its own.
    const std::string file = reusesim::config::dram_preset_directory() + "/ddr4-2400.yaml:";
    std::string expected;
    for (const char* key : {"activate_pj", "precharge_pj", "read_pj_per_bit", "write_pj_per_bit", "refresh_pj",
                            "active_standby_mw", "precharged_standby_mw"}) {
      expected += file + "76:3: error: dram.power." + key + ": missing required key\n";
    }
    expected += file +
                "77:22: error: dram.power.device_width_bits: device_width_bits belongs to the idd form, and "
                "this block's form is per_access (docs/energy-model.md, \"DRAM energy\")\n" +
                file +
                "81:5: error: dram.power.rails: rails belongs to the idd form, and this block's form is "
                "per_access (docs/energy-model.md, \"DRAM energy\")\n";
    CHECK(errors_of("dram: {preset: ddr4-2400}\n", {"dram.power.form=per_access"}) == expected);
  }
  SECTION("an unknown form: one error, not one per key") {
    CHECK(errors_of("dram: {preset: hbm2}\n", {"dram.power.form=per_command"}) ==
          "--set dram.power.form=per_command: error: dram.power.form: expected one of idd, per_access, got "
          "\"per_command\" (did you mean \"per_access\"?)\n");
  }
  SECTION("IDD3N below IDD2N") {
    CHECK(errors_of("technology: 45nm\ndram: {preset: ddr3-1066}\n", {"dram.power.rails.vdd.idd3n=20"}) ==
          "--set dram.power.rails.vdd.idd3n=20: error: dram.power.rails.vdd.idd3n: idd3n 20 mA is below idd2n 33 mA, "
          "which is physically impossible (idd3n draws what idd2n does and more)\n");
  }
  SECTION("IDD4R below IDD3N") {
    CHECK(errors_of("dram: {preset: ddr3-1066}\n", {"dram.power.rails.vdd.idd4r=40"}) ==
          "--set dram.power.rails.vdd.idd4r=40: error: dram.power.rails.vdd.idd4r: idd4r 40 mA is below idd3n 45.6 mA, "
          "which is physically impossible (idd4r draws what idd3n does and more)\n");
  }
  SECTION("a device width that does not divide the bus") {
    CHECK(errors_of("dram: {preset: ddr3-1066}\n", {"dram.power.device_width_bits=24"}) ==
          "--set dram.power.device_width_bits=24: error: dram.power.device_width_bits: 24-bit devices do not fill a "
          "32-bit channel bus (bus_bits) a whole number of times\n");
  }
}
