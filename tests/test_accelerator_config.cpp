#include <catch2/catch.hpp>
#include "input_error_text.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/accelerator_loader.h"
#include "util/diagnostics.h"

// Accelerator files and DRAM presets: the shipped configs, exact error messages for every kind of
// bad input, --set overrides, preset overrides, and peak compute / bandwidth (derivations inline).

using reusesim::util::InputError;
using reusesim::config::load_accelerator_file;
using reusesim::config::load_accelerator_text;
using reusesim::config::load_dram;
namespace spec = reusesim::spec;

namespace {

const std::string kSource = REUSESIM_SOURCE_DIR;

// Lines 1-17 of a valid accelerator, ending with the `dram:` key on line 17.
const std::string kHead =
    "name: acc\n"                  // 1
    "compute:\n"                   // 2
    "  type: systolic\n"           // 3
    "  rows: 16\n"                 // 4
    "  cols: 16\n"                 // 5
    "  dataflow: ws\n"             // 6
    "  clock_mhz: 1000\n"          // 7
    "  operand_bits: 8\n"          // 8
    "  vector_ops_per_cycle: 16\n" // 9
    "accumulators: {capacity_kib: 16, bits: 32}\n"  // 10
    "sram:\n"                      // 11
    "  clock_mhz: 1000\n"          // 12
    "  buffers:\n"                 // 13
    "    - {name: weights, capacity_kib: 32, banks: 4, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: weights}\n"  // 14
    "    - {name: inputs, capacity_kib: 32, banks: 4, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: inputs}\n"    // 15
    "    - {name: outputs, capacity_kib: 16, banks: 4, bank_width_bytes: 16, read_ports: 1, write_ports: 1, holds: outputs}\n" // 16
    "dram:\n";                     // 17

// The valid accelerator: line 18 names the ddr4-2400 preset; lines appended after it are
// per-field overrides starting at line 19.
const std::string kAccelerator = kHead + "  preset: ddr4-2400\n";  // 18

// Every DRAM field written out (the ddr4-2400 values), for a `dram:` section without a preset.
// Starts at line 18 when appended to kHead.
const std::vector<std::string> kDramLines = {
    "  standard: ddr4",  "  channels: 1",     "  ranks: 2",          "  bank_groups: 4",   "  banks_per_group: 4",
    "  row_bytes: 8192", "  bus_bits: 64",    "  tck_ns: 0.833",     "  cl: 17",           "  cwl: 12",
    "  trcd: 17",        "  trp: 17",         "  tras: 39",          "  trc: 56",          "  burst_length: 8",
    "  tccd_s: 4",       "  tccd_l: 6",       "  trrd_s: 4",         "  trrd_l: 6",        "  tfaw: 26",
    "  twtr_s: 3",       "  twtr_l: 9",       "  twr: 18",           "  trtp: 9",          "  trfc: 420",
    "  trefi: 9360",     "  address_mapping: ro,ra,ba,co,bg,ch",     "  controller:",
    "    read_queue_depth: 32", "    write_queue_depth: 32", "    write_drain: {high: 24, low: 8}",
    "    page_policy: open", "    refresh: all_bank", "  rows: 65536"};

// kHead + every DRAM line except the ones starting with `skip` (when given).
std::string inline_dram(const std::string& skip = "") {
  std::string text = kHead;
  for (const std::string& line : kDramLines) {
    if (!skip.empty() && line.rfind("  " + skip + ":", 0) == 0) continue;
    text += line + "\n";
  }
  return text;
}

// The text of configs/`name`.yaml.
std::string shipped_text(const std::string& name) {
  std::ifstream file(kSource + "/configs/" + name + ".yaml");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

spec::AcceleratorSpec load(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return load_accelerator_text(text, "acc.yaml", overrides);
}

// The InputError's what() (every message, one per line) of loading `text`; fails the test when
// loading succeeds or throws anything else.
std::string errors_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { load(text, overrides); });
}

std::string dram_errors_of(const std::string& preset, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { load_dram(preset, overrides); });
}

std::string preset_file(const std::string& name) {
  return (std::filesystem::path(reusesim::config::dram_preset_directory()) / (name + ".yaml")).string();
}

const std::string kMappingRule =
    "expected the six fields ch, ra, bg, ba, ro, co, each once, most significant first (pc only with pseudo_channels: "
    "2)";

}  // namespace

// --- the shipped files --------------------------------------------------------------------------

// The test base text is itself valid, and the preset fills every DRAM field.
TEST_CASE("base accelerator text loads with the ddr4-2400 preset", "[accelerator]") {
  const spec::AcceleratorSpec acc = load(kAccelerator);
  CHECK(acc.name == "acc");
  CHECK(acc.compute.kind == spec::ArrayKind::systolic);
  CHECK(acc.compute.macs_per_cycle() == 256);  // 16 x 16
  REQUIRE(acc.sram.buffers.size() == 3);
  CHECK(acc.sram.buffers[0].capacity_bytes == 32 * 1024);
  CHECK(acc.sram.buffers[2].holds == std::vector<spec::TensorKind>{spec::TensorKind::outputs});
  CHECK(acc.dram.name == "ddr4-2400");
  CHECK(acc.dram.standard == "ddr4");
  CHECK(acc.dram.timing.trcd == 17);
}

// configs/small.yaml: 16 x 16 ws at 1 GHz -> 256 MACs x 2 x 1e9 = 512e9 ops/s; one DDR4-2400 channel.
TEST_CASE("configs/small.yaml loads", "[accelerator]") {
  const spec::AcceleratorSpec acc = load_accelerator_file(kSource + "/configs/small.yaml");
  CHECK(acc.name == "small");
  CHECK(acc.compute.rows == 16);
  CHECK(acc.compute.cols == 16);
  CHECK(acc.compute.dataflow == spec::Dataflow::ws);
  CHECK(acc.compute.peak_ops_per_second() == Approx(512e9));
  CHECK(acc.sram.buffers.size() == 3);
  CHECK(acc.dram.name == "ddr4-2400");
  CHECK(acc.dram.channels == 1);
}

// configs/snowflake.yaml: 16 vMACs x 16 MACs = 256 MACs; 256 x 2 ops x 250e6 = 128e9 ops/s
// (Snowflake's 128 G-ops/s); DRAM is the 32-bit DDR3-1066: 4 B x 2 / 1.875 ns = 4.267e9 B/s.
TEST_CASE("snowflake compute peak is 128 G-ops/s", "[accelerator]") {
  const spec::AcceleratorSpec acc = load_accelerator_file(kSource + "/configs/snowflake.yaml");
  CHECK(acc.compute.kind == spec::ArrayKind::vector_mac);
  CHECK(acc.compute.units * acc.compute.lanes == 256);
  CHECK(acc.compute.peak_ops_per_second() == Approx(128e9));
  CHECK(acc.dram.name == "ddr3-1066");
  CHECK(acc.dram.peak_bytes_per_second() == Approx(4.2667e9).epsilon(1e-4));
  // maps hold inputs and outputs, weights the weights: every kind exactly once.
  REQUIRE(acc.sram.buffers.size() == 2);
  CHECK(acc.sram.buffers[0].holds == std::vector<spec::TensorKind>{spec::TensorKind::inputs, spec::TensorKind::outputs});
  CHECK(acc.sram.buffers[1].holds == std::vector<spec::TensorKind>{spec::TensorKind::weights});
}

// configs/tpu_v4i.yaml: four 128 x 128 bf16 MXUs (compute.arrays) at 1,050 MHz:
// 4 x 16,384 x 2 x 1.05e9 = 137.6256e12 ops/s; 16 MiB VMEM keeping activations, 128 MiB CMEM for
// weights; two HBM2 stacks of 8 channels: 16 x 128 bits / 8 x 2 / 1.0 ns = 512e9 B/s; ridge 268.8 ops/B.
TEST_CASE("tpu_v4i loads: bf16 array, VMEM and CMEM, two HBM2 stacks", "[accelerator]") {
  const spec::AcceleratorSpec acc = load_accelerator_file(kSource + "/configs/tpu_v4i.yaml");
  CHECK(acc.compute.peak_ops_per_second() == Approx(137.6256e12));
  CHECK(std::make_tuple(acc.compute.rows, acc.compute.cols, acc.compute.arrays) == std::make_tuple(128, 128, 4));
  CHECK(acc.compute.operand_type == "bf16");
  CHECK(acc.compute.double_buffered_stationary);
  REQUIRE(acc.sram.buffers.size() == 2);
  CHECK(acc.sram.buffers[0].capacity_bytes == 16 * 1024 * 1024);
  CHECK(acc.sram.keeping_buffer() == 0);
  CHECK(acc.sram.buffers[1].capacity_bytes == 128 * 1024 * 1024);
  CHECK(acc.dram.standard == "hbm2");
  CHECK(acc.dram.channels == 16);
  CHECK(acc.dram.peak_bytes_per_second() == Approx(512e9));
  CHECK(acc.compute.peak_ops_per_second() / acc.dram.peak_bytes_per_second() == Approx(268.8));
}

// configs/tpu_v4.yaml: two cores of four 128 x 128 bf16 MXUs at 1,050 MHz: 2 x 4 x 16,384 x 2 x
// 1.05e9 = 275.2512e12 ops/s (Google's 275 TFLOPS); per core 16 MiB VMEM, the 128 MiB CMEM shared;
// four HBM2 stacks of 8 channels at 2.4 Gb/s a pin: 32 x 128 bits / 8 x 2 / 0.8333 ns = 1,228.85e9 B/s.
TEST_CASE("tpu_v4 loads: two TensorCores of four MXUs, four HBM2 stacks at 1.2 TB/s", "[accelerator]") {
  const spec::AcceleratorSpec acc = load_accelerator_file(kSource + "/configs/tpu_v4.yaml");
  CHECK(acc.cores == 2);
  CHECK(acc.peak_ops_per_second() == Approx(275.2512e12));
  CHECK(std::make_tuple(acc.compute.rows, acc.compute.cols, acc.compute.arrays) == std::make_tuple(128, 128, 4));
  REQUIRE(acc.sram.buffers.size() == 1);
  CHECK(acc.sram.buffers[0].capacity_bytes == 16 * 1024 * 1024);
  REQUIRE(acc.shared_memory.has_value());
  CHECK(acc.shared_memory->capacity_bytes == 128 * 1024 * 1024);
  CHECK(acc.dram.channels == 32);
  CHECK(acc.dram.peak_bytes_per_second() == Approx(1228.849e9));
}

// configs/a100.yaml: 108 SMs of four 16 x 16 fp16 arrays at 1,410 MHz: 108 x 4 x 256 x 2 x 1.41e9 =
// 311.86944e12 ops/s (NVIDIA's 312 TFLOPS); a 40 MiB L2 of 80 banks x 64 B = 5,120 B a clock, 7.2192e12
// B/s; 32 HBM2e channels x 128 bits / 8 x 2 / 0.5022 ns = 2,039.2e9 B/s, interleaved every 256 B.
// configs/h100.yaml: 132 x 4 x 512 x 2 x 1.83e9 = 989.5e12 ops/s (989.4 TFLOPS); 50 MiB of L2;
// 64 HBM3 channels x 64 bits / 8 x 2 / 0.30567 ns = 3,350.0e9 B/s.
TEST_CASE("a100 and h100 load: their SMs, L2 and HBM as published", "[accelerator]") {
  const spec::AcceleratorSpec a100 = load_accelerator_file(kSource + "/configs/a100.yaml");
  CHECK(a100.cores == 108);
  CHECK(a100.peak_ops_per_second() == Approx(311.86944e12));
  REQUIRE(a100.shared_memory.has_value());
  CHECK(a100.shared_memory->capacity_bytes == 40 * 1024 * 1024);
  CHECK(a100.shared_memory->peak_bytes_per_second() == Approx(7.2192e12));
  CHECK(a100.dram.peak_bytes_per_second() == Approx(2039.2e9).epsilon(1e-4));
  CHECK(a100.dram.interleave_bytes == 256);
  const spec::AcceleratorSpec h100 = load_accelerator_file(kSource + "/configs/h100.yaml");
  CHECK(h100.cores == 132);
  CHECK(h100.peak_ops_per_second() == Approx(989.5e12).epsilon(1e-4));
  CHECK(h100.shared_memory->capacity_bytes == 50 * 1024 * 1024);
  CHECK(h100.dram.peak_bytes_per_second() == Approx(3350.0e9).epsilon(1e-4));
}

// configs/wormhole_n150.yaml: 64 Tensix cores of 512 fp16 MACs at 1 GHz: 64 x 512 x 2 x 1e9 =
// 65.536e12 ops/s; 1,464 KiB of L1 each; 8 GDDR6 channels x 16 bits / 8 x 2 / 0.11111 ns = 288e9 B/s.
TEST_CASE("wormhole_n150 loads: 64 Tensix cores of 1.5 MB on 288 GB/s of GDDR6", "[accelerator]") {
  const spec::AcceleratorSpec wormhole = load_accelerator_file(kSource + "/configs/wormhole_n150.yaml");
  CHECK(wormhole.cores == 64);
  CHECK(wormhole.peak_ops_per_second() == Approx(65.536e12));
  CHECK(wormhole.sram.buffers.at(0).capacity_bytes == 1464 * 1024);
  CHECK_FALSE(wormhole.shared_memory.has_value());
  CHECK(wormhole.dram.peak_bytes_per_second() == Approx(288e9).epsilon(1e-4));
}

// configs/simba.yaml: 36 chiplets of 16 PEs x 8 x 8 int8 MACs at 1,733 MHz: 36 x 16 x 64 x 2 x 1.733e9
// = 127.770624e12 ops/s (Zimmer et al.'s 127.8 TOPS); the PEs' weight buffers 16 x 32 KiB, a 64 KiB
// global buffer; a 6 x 6 mesh of 25-byte links at 1 GHz (25 GB/s, 100 GB/s over a chiplet's four);
// 4 DDR4-2400 channels x 8 B x 2 / 0.833 ns = 76.83e9 B/s.
TEST_CASE("simba loads: 36 chiplets of 1,024 int8 MACs on a 6 x 6 mesh", "[accelerator]") {
  const spec::AcceleratorSpec simba = load_accelerator_file(kSource + "/configs/simba.yaml");
  CHECK(simba.cores == 36);
  CHECK(simba.compute.arrays == 16);
  CHECK(simba.peak_ops_per_second() == Approx(127.770624e12));
  REQUIRE(simba.sram.buffers.size() == 2);
  CHECK(simba.sram.buffers[0].capacity_bytes == 512 * 1024);
  CHECK(simba.sram.buffers[1].capacity_bytes == 64 * 1024);
  CHECK(simba.sram.keeping_buffer() == 1);
  REQUIRE(simba.noc.has_value());
  CHECK(simba.noc->topology == spec::NocTopology::mesh);
  CHECK(simba.noc->nodes() == 36);
  CHECK(simba.noc->link_bytes * simba.noc->clock_mhz * 1e6 == Approx(25e9));
  CHECK(simba.dram.peak_bytes_per_second() == Approx(76.83e9).epsilon(1e-3));
}

// configs/tpu_v1.yaml: 256 x 256 x 2 ops x 700e6 = 91.7504e12 ops/s; a 24 MiB unified buffer that
// holds inputs and outputs and so keeps activations, a 256 KiB weight FIFO; an output path of
// activation, batch-norm, add and pooling; DRAM = ddr3-1600 overridden to 2 channels of DDR3-2133:
// 2 x 8 B x 2 / 0.9375 ns = 34.133e9 B/s, with DDR3-2133N timings (tRCD 14, tRC 36 + 14 = 50).
TEST_CASE("tpu_v1 loads with its DDR3-2133 overrides", "[accelerator]") {
  const spec::AcceleratorSpec acc = load_accelerator_file(kSource + "/configs/tpu_v1.yaml");
  CHECK(acc.compute.peak_ops_per_second() == Approx(91.7504e12));
  REQUIRE(acc.sram.buffers.size() == 2);
  CHECK(acc.sram.buffers[0].capacity_bytes == 24 * 1024 * 1024);
  CHECK(acc.sram.buffers[0].holds == std::vector<spec::TensorKind>{spec::TensorKind::inputs, spec::TensorKind::outputs});
  CHECK(acc.sram.keeping_buffer() == 0);
  CHECK(acc.sram.buffers[1].capacity_bytes == 256 * 1024);
  CHECK(acc.compute.output_path ==
        std::vector<spec::OutputStage>{spec::OutputStage::activation, spec::OutputStage::batchnorm, spec::OutputStage::pooling});
  CHECK(acc.dram.standard == "ddr3");
  CHECK(acc.dram.channels == 2);
  CHECK(acc.dram.timing.trcd == 14);
  CHECK(acc.dram.timing.trc == 50);
  CHECK(acc.dram.timing.burst_length == 8);  // kept from the preset
  CHECK(acc.dram.peak_bytes_per_second() == Approx(34.133e9).epsilon(1e-4));
}

// Each preset loads and has the peak bandwidth channels x bus_bits / 8 x 2 / tCK:
//   ddr4-2400:   1 x  8 B x 2 / 0.833 ns  = 19.208e9 (19.2e9 within 0.1%: 0.04% off)
//   ddr3-1600:   1 x  8 B x 2 / 1.25 ns   = 12.8e9
//   ddr3-1066:   1 x  4 B x 2 / 1.875 ns  = 4.2667e9
//   lpddr4-3200: 4 x  2 B x 2 / 0.625 ns  = 25.6e9
//   hbm2:        8 x 16 B x 2 / 1.0 ns    = 256e9
//   hbm3:       16 x  8 B x 2 / 0.3125 ns = 819.2e9 (two 4-byte pseudo-channels per channel)
//   ddr5-4800:   2 x  4 B x 2 / 0.417 ns  = 38.37e9 (two 32-bit subchannels)
//   lpddr5-6400: 4 x  2 B x 2 / 0.3125 ns = 51.2e9
//   gddr6:       2 x  2 B x 2 / 0.125 ns  = 64e9
//   hbm2e:       8 x 16 B x 2 / 0.625 ns  = 409.6e9
TEST_CASE("DRAM presets load and have their peak bandwidth", "[accelerator]") {
  const std::vector<std::pair<std::string, double>> presets{
      {"ddr4-2400", 19.2e9}, {"ddr3-1600", 12.8e9}, {"ddr3-1066", 4.2667e9}, {"lpddr4-3200", 25.6e9}, {"hbm2", 256e9},
      {"hbm3", 819.2e9}, {"ddr5-4800", 38.4e9}, {"lpddr5-6400", 51.2e9}, {"gddr6", 64e9}, {"hbm2e", 409.6e9}};
  for (const auto& [name, peak] : presets) {
    INFO(name);
    const spec::DramSpec dram = load_dram(name);
    CHECK(dram.name == name);
    CHECK(dram.address_mapping.size() == (dram.pseudo_channels == 2 ? 7U : 6U));  // pc in pseudo-channel mode
    CHECK(dram.peak_bytes_per_second() == Approx(peak).epsilon(0.001));
  }
}

// Each preset's capacity, channels x ranks x bank groups x banks per group x rows x row_bytes (the
// rows of each preset's device density, cited in its file).
TEST_CASE("DRAM presets hold what their organisation gives", "[accelerator][capacity]") {
  constexpr std::int64_t gib = std::int64_t{1} << 30;
  const std::vector<std::pair<std::string, std::int64_t>> presets{
      {"ddr3-1066", gib / 2},     // 1 x 1 x 1 x 8 x 16,384 x 4,096 = 2^29: two 2 Gb x16 devices
      {"ddr3-1600", 2 * gib},     // 1 x 1 x 1 x 8 x 32,768 x 8,192 = 2^31: eight 2 Gb x8 devices
      {"ddr4-2400", 16 * gib},    // 1 x 2 x 4 x 4 x 65,536 x 8,192 = 2^34: sixteen 8 Gb x8 devices
      {"ddr5-4800", 16 * gib},    // 2 x 1 x 8 x 4 x 65,536 x 4,096 = 2^34: eight 16 Gb x8 devices
      {"gddr6", 2 * gib},         // 2 x 1 x 4 x 4 x 32,768 x 2,048 = 2^31: one 16 Gb device
      {"hbm2", 4 * gib},          // 8 x 1 x 4 x 4 x 16,384 x 2,048 = 2^32: a 4-high stack of 8 Gb dies
      {"hbm2e", 16 * gib},        // 8 x 1 x 4 x 4 x 65,536 x 2,048 = 2^34: an 8-high stack of 16 Gb dies
      {"hbm3", 16 * gib},         // 16 x 1 x 4 x 4 x 32,768 x 2,048 = 2^34: an 8-high stack of 16 Gb dies
      {"lpddr4-3200", 4 * gib},   // 4 x 1 x 1 x 8 x 65,536 x 2,048 = 2^32: four 8 Gb channels
      {"lpddr5-6400", 8 * gib}};  // 4 x 1 x 4 x 4 x 65,536 x 2,048 = 2^33: four 16 Gb dies
  for (const auto& [name, bytes] : presets) {
    INFO(name);
    CHECK(load_dram(name).capacity_bytes() == bytes);
  }
}

// The shipped accelerators' capacities, each cited in its file: the card's, given where its DRAM is
// modelled on fewer or other devices, else the organisation's.
TEST_CASE("the shipped accelerators' DRAM capacities", "[accelerator][capacity]") {
  constexpr std::int64_t gib = std::int64_t{1} << 30;
  const std::vector<std::pair<std::string, std::int64_t>> accelerators{
      {"a100", 80 * gib},  {"h100", 80 * gib},          {"tpu_v4", 32 * gib}, {"tpu_v4i", 8 * gib},
      {"snowflake", gib},  {"wormhole_n150", 12 * gib}, {"tpu_v1", 8 * gib},  // 2 channels x 1 x 1 x 8 x 65,536 x 8,192
                                                                              // = 2^33: 4 Gb x8 devices
      {"simba", 64 * gib},                                                    // 4 channels of ddr4-2400's 16 GiB
      {"small", 16 * gib}};                                                   // ddr4-2400's
  for (const auto& [name, bytes] : accelerators) {
    INFO(name);
    CHECK(load_accelerator_file(kSource + "/configs/" + name + ".yaml").dram.capacity_bytes() == bytes);
  }
}

// dram.capacity_gib in the file or by --set, rows by --set; an ideal memory holds anything unless given a capacity.
TEST_CASE("DRAM capacity: given in GiB, or by the rows; an ideal memory's unlimited unless given",
          "[accelerator][capacity]") {
  CHECK(load(kAccelerator + "  capacity_gib: 40\n").dram.capacity_bytes() == std::int64_t{40} << 30);
  CHECK(load(kAccelerator, {"dram.capacity_gib=0.5"}).dram.capacity_bytes() == std::int64_t{1} << 29);
  // 1 x 2 x 4 x 4 x 32,768 x 8,192 = 2^33.
  CHECK(load(kAccelerator, {"dram.rows=32768"}).dram.capacity_bytes() == std::int64_t{8} << 30);
  CHECK_FALSE(load(kHead + "  ideal: unlimited\n").dram.capacity_bytes().has_value());
  CHECK(load(kHead + "  ideal: unlimited\n  capacity_gib: 2\n").dram.capacity_bytes() == std::int64_t{2} << 30);
  CHECK(
      load(kHead + "  ideal: {bandwidth_gbps: 10, latency_ns: 50}\n", {"dram.capacity_gib=3"}).dram.capacity_bytes() ==
      std::int64_t{3} << 30);
}

TEST_CASE("DRAM capacity: bad values name the key", "[accelerator][capacity]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"capacity_gib: 0", "acc.yaml:19:17: error: dram.capacity_gib: expected a number from 0.001 to 1e+06, got 0\n"},
      {"capacity_gib: 2e6",
       "acc.yaml:19:17: error: dram.capacity_gib: expected a number from 0.001 to 1e+06, got 2e6\n"},
      {"rows: 0", "acc.yaml:19:9: error: dram.rows: expected a positive integer, got 0\n"},
      {"rows: 524288", "acc.yaml:19:9: error: dram.rows: expected at most 262144, got 524288\n"},
  };
  for (const auto& [line, expected] : cases) {
    INFO(line);
    CHECK(errors_of(kAccelerator + "  " + line + "\n") == expected);
  }
  CHECK(errors_of(kHead + "  ideal: unlimited\n  capacity_gib: many\n") ==
        "acc.yaml:19:17: error: dram.capacity_gib: expected a number from 0.001 to 1e+06, got \"many\"\n");
  CHECK_THAT(errors_of(inline_dram("rows")), Catch::Matchers::Contains("dram.rows: missing required key"));
}

// ddr4-2400: 1 channel x 64 bits = 8 B per transfer, 2 transfers per 0.833 ns clock:
// 16 B / 0.833e-9 s = 19.208e9 B/s, within 0.1% of the nominal 19.2 GB/s. A burst is 8 B x BL 8 = 64 B.
TEST_CASE("ddr4-2400 peak bandwidth is 19.2 GB/s", "[accelerator]") {
  const spec::DramSpec dram = load_dram("ddr4-2400");
  CHECK(dram.peak_bytes_per_second() == Approx(19.2e9).epsilon(0.001));
  CHECK(dram.burst_bytes() == 64);
  // Most significant first: ro,ra,ba,co,bg,ch.
  CHECK(dram.address_mapping == std::vector<spec::AddressField>{spec::AddressField::row, spec::AddressField::rank,
                                                              spec::AddressField::bank, spec::AddressField::column,
                                                              spec::AddressField::bank_group, spec::AddressField::channel});
}

// hbm2: 8 channels x 128 bits = 16 B per transfer each, 2 transfers per 1.0 ns clock:
// 8 x 32e9 = 256e9 B/s per stack, with the issue's timings as written (tCCD_S 1, BL 4).
TEST_CASE("hbm2 peak bandwidth is 256 GB/s", "[accelerator]") {
  const spec::DramSpec dram = load_dram("hbm2");
  CHECK(dram.timing.tccd_s == 1);
  CHECK(dram.channels == 8);
  CHECK(dram.peak_bytes_per_second() == Approx(256e9));
  CHECK(dram.burst_bytes() == 64);  // 16 B x BL 4
}

// --- presets and overrides ----------------------------------------------------------------------

// `dram: {preset: ddr4-2400, channels: 2}` takes channels from the section and everything else
// from the preset: tRCD stays 17, and the peak doubles to 2 x 19.208e9 = 38.415e9 B/s.
TEST_CASE("a preset field overridden in the dram section", "[accelerator]") {
  const spec::AcceleratorSpec acc = load(kAccelerator + "  channels: 2\n");
  CHECK(acc.dram.channels == 2);
  CHECK(acc.dram.timing.trcd == 17);
  CHECK(acc.dram.ranks == 2);
  CHECK(acc.dram.peak_bytes_per_second() == Approx(38.4e9).epsilon(0.001));
}

// load_dram takes overrides at the top level of the DRAM fields.
TEST_CASE("load_dram applies overrides to a preset", "[accelerator]") {
  const spec::DramSpec dram = load_dram("ddr4-2400", {"channels=2"});
  CHECK(dram.channels == 2);
  CHECK(dram.timing.trcd == 17);
}

// A dram section without a preset must give every field itself; with all of them it loads.
TEST_CASE("a dram section written out in full needs no preset", "[accelerator]") {
  const spec::AcceleratorSpec acc = load(inline_dram());
  CHECK(acc.dram.name.empty());
  CHECK(acc.dram.standard == "ddr4");
  CHECK(acc.dram.timing.trefi == 9360);
}

// The controller block: the preset's values, optional keys at their documented defaults, and an
// override of one key that keeps the rest of the preset's block (maps merge key by key).
TEST_CASE("dram controller: preset values, defaults, and a partial override", "[accelerator]") {
  const spec::DramControllerSpec preset = load(kAccelerator).dram.controller;
  CHECK(preset.read_queue_depth == 32);
  CHECK(preset.write_queue_depth == 32);
  CHECK(preset.write_drain == spec::WriteDrainPolicy::watermarks);
  CHECK(preset.write_drain_high == 24);
  CHECK(preset.write_drain_low == 8);
  CHECK(preset.refresh == spec::RefreshMode::all_bank);
  // kDramLines leave out command_queue_depth, posted_writes and frontend_latency_cycles: 0, false, 0.
  const spec::DramControllerSpec inline_block = load(inline_dram()).dram.controller;
  CHECK(inline_block.command_queue_depth == 0);
  CHECK_FALSE(inline_block.posted_writes);
  CHECK(inline_block.frontend_latency_cycles == 0);
  const spec::DramControllerSpec changed =
      load(kAccelerator + "  controller:\n    posted_writes: true\n    refresh: off\n").dram.controller;
  CHECK(changed.posted_writes);
  CHECK(changed.refresh == spec::RefreshMode::off);
  CHECK(changed.read_queue_depth == 32);
  // One key holds the drain policy, so setting drain_all leaves no watermarks behind.
  const spec::DramControllerSpec drain_all = load(kAccelerator, {"dram.controller.write_drain=drain_all"}).dram.controller;
  CHECK(drain_all.write_drain == spec::WriteDrainPolicy::drain_all);
}

// Keys that moved into the controller block are refused with where they went; a drain policy must be one of two.
TEST_CASE("dram controller: moved keys and keys of the other drain policy are refused", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  queue_depth: 32\n") ==
        "acc.yaml:19:16: error: dram.queue_depth: is now controller.read_queue_depth and controller.write_queue_depth "
        "(docs/dram-model.md, \"Controller\")\n");
  CHECK(errors_of(kAccelerator + "  refresh: off\n") ==
        "acc.yaml:19:12: error: dram.refresh: is now controller.refresh (docs/dram-model.md, \"Controller\")\n");
  CHECK(errors_of(kAccelerator + "  controller:\n    write_drain: half\n") ==
        "acc.yaml:20:18: error: dram.controller.write_drain: expected drain_all or watermarks {high: H, low: L}, got "
        "\"half\"\n");
  CHECK(errors_of(kAccelerator + "  write_drain_high: 24\n") ==
        "acc.yaml:19:21: error: dram.write_drain_high: is now controller.write_drain.high (docs/dram-model.md, "
        "\"Controller\")\n");
}

// `--set dram.channels=2` on the accelerator: channels 2, the preset's other fields kept.
TEST_CASE("a --set override changes the spec", "[accelerator]") {
  const spec::AcceleratorSpec acc = load(kAccelerator, {"dram.channels=2"});
  CHECK(acc.dram.channels == 2);
  CHECK(acc.dram.timing.trcd == 17);
}

// --set addresses a list element by its name: 64 KiB = 65,536 bytes.
TEST_CASE("a --set path reaches a buffer by name", "[accelerator]") {
  const spec::AcceleratorSpec acc = load(kAccelerator, {"sram.buffers.weights.capacity_kib=64"});
  CHECK(acc.sram.buffers[0].capacity_bytes == 65536);
}

// A bad value given with --set is reported with the --set argument as its origin (no line).
TEST_CASE("a bad --set value names the --set argument", "[accelerator]") {
  CHECK(errors_of(kAccelerator, {"dram.channels=eight"}) ==
        "--set dram.channels=eight: error: dram.channels: expected a positive integer, got \"eight\"\n");
}

// Bad --set paths: an unknown list element (with a hint), an unknown key (with a hint), a path
// through a scalar, and an argument without '='.
TEST_CASE("bad --set paths", "[accelerator]") {
  CHECK(errors_of(kAccelerator, {"sram.buffers.weigths.capacity_kib=64"}) ==
        "--set sram.buffers.weigths.capacity_kib=64: error: sram.buffers.weigths: no list element named or "
        "numbered \"weigths\" (did you mean \"weights\"?)\n");
  CHECK(errors_of(kAccelerator, {"dram.chanels=2"}) ==
        "--set dram.chanels=2: error: dram.chanels: unknown key (did you mean \"channels\"?)\n");
  CHECK(errors_of(kAccelerator, {"name.x=1"}) == "--set name.x=1: error: name: cannot descend into \"acc\" to set name.x\n");
  CHECK(errors_of(kAccelerator, {"dram.channels"}) == "--set dram.channels: error: expected key.path=value\n");
}

// --- errors: keys ---------------------------------------------------------------------------------

// "chanels" on line 19, column 3, is one deletion from "channels".
TEST_CASE("unknown key with a did-you-mean hint", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  chanels: 2\n") ==
        "acc.yaml:19:3: error: dram.chanels: unknown key (did you mean \"channels\"?)\n");
  // "rowz" in place of "rows" (line 4): rows is then missing (reported at compute, 3:3) and
  // rowz unknown, one substitution from rows.
  std::string text = kAccelerator;
  text.replace(text.find("  rows: 16\n"), 11, "  rowz: 16\n");
  CHECK(errors_of(text) ==
        "acc.yaml:3:3: error: compute.rows: missing required key\n"
        "acc.yaml:4:3: error: compute.rowz: unknown key (did you mean \"rows\"?)\n");
}

// The second `channels` (line 20) is the duplicate; the first was on line 19.
TEST_CASE("duplicate key", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  channels: 2\n  channels: 4\n") ==
        "acc.yaml:20:3: error: dram.channels: duplicate key (first given at line 19)\n");
}

// A missing key is reported at its mapping: compute's first key is at 3:3, the root at 1:1, and
// an inline dram section's first key (standard) at 18:3.
TEST_CASE("missing required keys", "[accelerator]") {
  std::string text = kAccelerator;
  text.erase(text.find("  operand_bits: 8\n"), 18);
  CHECK(errors_of(text) == "acc.yaml:3:3: error: compute.operand_bits: missing required key\n");

  CHECK(errors_of(inline_dram("trfc")) == "acc.yaml:18:3: error: dram.trfc: missing required key\n");

  std::string no_sram = kAccelerator;
  no_sram.erase(no_sram.find("sram:\n"), no_sram.find("dram:\n") - no_sram.find("sram:\n"));
  CHECK(errors_of(no_sram) == "acc.yaml:1:1: error: sram: missing required key\n");
}

// --- errors: values -------------------------------------------------------------------------------

// "  channels: " is 12 characters, so the value starts at column 13 of line 19.
TEST_CASE("wrong type: a word for an integer", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  channels: eight\n") ==
        "acc.yaml:19:13: error: dram.channels: expected a positive integer, got \"eight\"\n");
  CHECK(errors_of(kAccelerator + "  tck_ns: fast\n") ==
        "acc.yaml:19:11: error: dram.tck_ns: expected a number from 0.01 to 1000, got \"fast\"\n");
}

// Zero, negative and too-large counts. Counts are 1 .. 2^20 = 1,048,576, DRAM channels 1 .. 1024;
// write_drain_low may be 0.
TEST_CASE("zero, negative and out-of-range values", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  channels: 0\n") ==
        "acc.yaml:19:13: error: dram.channels: expected a positive integer, got 0\n");
  CHECK(errors_of(kAccelerator + "  ranks: -1\n") ==
        "acc.yaml:19:10: error: dram.ranks: expected a positive integer, got -1\n");
  // Line 19 opens the controller block, line 20 holds the key (value at column 4 + key + 3).
  CHECK(errors_of(kAccelerator + "  controller:\n    read_queue_depth: 0\n") ==
        "acc.yaml:20:23: error: dram.controller.read_queue_depth: expected a positive integer, got 0\n");
  CHECK(errors_of(kAccelerator + "  controller:\n    write_queue_depth: 5000\n") ==
        "acc.yaml:20:24: error: dram.controller.write_queue_depth: expected at most 4096, got 5000\n");
  CHECK(errors_of(kAccelerator + "  controller:\n    write_drain: {high: 24, low: -1}\n") ==
        "acc.yaml:20:34: error: dram.controller.write_drain.low: expected a non-negative integer, got -1\n");
  CHECK(errors_of(kAccelerator + "  channels: 2048\n") ==
        "acc.yaml:19:13: error: dram.channels: expected at most 1024, got 2048\n");
  CHECK(errors_of(kAccelerator, {"sram.buffers.outputs.capacity_kib=0"}) ==
        "--set sram.buffers.outputs.capacity_kib=0: error: sram.buffers.outputs.capacity_kib: expected a "
        "positive integer, got 0\n");
}

// Clocks run from 1 MHz to 100 GHz (tCK 0.01 to 1000 ns): compute.clock_mhz is on line 7
// ("  clock_mhz: " = 13 characters -> column 14), a tCK on line 19 ("  tck_ns: " -> column 11).
// Absurd clocks used to run: 1e308 MHz gave negative cycle counts, 1e-300 ns hung the simulation
// (found by fuzzing: the trace plan wrote the infinite peak as null).
TEST_CASE("clocks out of range", "[accelerator]") {
  std::string text = kAccelerator;
  text.replace(text.find("  clock_mhz: 1000\n"), 18, "  clock_mhz: 0\n");
  CHECK(errors_of(text) == "acc.yaml:7:14: error: compute.clock_mhz: expected a number from 1 to 100000, got 0\n");
  CHECK(errors_of(kAccelerator, {"compute.clock_mhz=1e308"}) ==
        "--set compute.clock_mhz=1e308: error: compute.clock_mhz: expected a number from 1 to 100000, got 1e308\n");
  CHECK(errors_of(kAccelerator, {"sram.clock_mhz=0.5"}) ==
        "--set sram.clock_mhz=0.5: error: sram.clock_mhz: expected a number from 1 to 100000, got 0.5\n");
  CHECK(errors_of(kAccelerator + "  tck_ns: 0\n") ==
        "acc.yaml:19:11: error: dram.tck_ns: expected a number from 0.01 to 1000, got 0\n");
  CHECK(errors_of(kAccelerator + "  tck_ns: -1.25\n") ==
        "acc.yaml:19:11: error: dram.tck_ns: expected a number from 0.01 to 1000, got -1.25\n");
  CHECK(errors_of(kAccelerator + "  tck_ns: 1e-300\n") ==
        "acc.yaml:19:11: error: dram.tck_ns: expected a number from 0.01 to 1000, got 1e-300\n");
  CHECK(load(kAccelerator + "  tck_ns: 1000\n").dram.timing.tck_ns == 1000);
}

// accumulators (line 10): 32 bits (column 40) cannot be narrower than 64-bit operands.
TEST_CASE("accumulator narrower than the operands", "[accelerator]") {
  std::string text = kAccelerator;
  text.replace(text.find("  operand_bits: 8\n"), 18, "  operand_bits: 64\n");
  CHECK(errors_of(text) ==
        "acc.yaml:10:40: error: accumulators.bits: accumulators (32 bits) narrower than the operands (64 bits)\n");
}

// One array row of partial sums: 4096 columns x 32 bits = 4096 x 4 B = 16384 bytes; 8 KiB = 8192
// bytes cannot hold it (capacity_kib's value at line 10, column 30).
TEST_CASE("accumulators smaller than one array row of partial sums", "[accelerator]") {
  std::string text = kAccelerator;
  text.replace(text.find("  cols: 16\n"), 11, "  cols: 4096\n");
  text.replace(text.find("capacity_kib: 16"), 16, "capacity_kib: 8");
  CHECK(errors_of(text) == "acc.yaml:10:30: error: accumulators.capacity_kib: 8192 bytes hold less than one array row "
                           "of partial sums: 4096 x 32 bits = 16384 bytes\n");
}

// compute.accumulator_bits (line 9 once inserted) moved to accumulators.bits: the error says where.
TEST_CASE("compute.accumulator_bits says where it moved", "[accelerator]") {
  std::string text = kAccelerator;
  text.insert(text.find("  vector_ops_per_cycle"), "  accumulator_bits: 32\n");
  CHECK(errors_of(text).rfind("acc.yaml:9:21: error: compute.accumulator_bits: accumulator_bits moved to the "
                              "accumulators section",
                              0) == 0);
}

// lane_dimension: required on vector_mac (lines 3-5 rewritten), an error on a systolic array.
TEST_CASE("lane_dimension is required on vector_mac arrays and refused on systolic ones", "[accelerator]") {
  const std::string systolic_lines = "  type: systolic\n  rows: 16\n  cols: 16\n  dataflow: ws\n";
  const std::string lane_line = "  lane_dimension: kernel_row\n";
  std::string vector = kAccelerator;
  vector.replace(vector.find(systolic_lines), systolic_lines.size(),
                 "  type: vector_mac\n  units: 16\n  lanes: 16\n" + lane_line);
  CHECK(load(vector).compute.lane_dimension == spec::LaneDimension::kernel_row);
  CHECK(load(vector, {"compute.lane_dimension=output_channels"}).compute.lane_dimension ==
        spec::LaneDimension::output_channels);
  CHECK(load(vector, {"compute.lane_dimension=k"}).compute.lane_dimension == spec::LaneDimension::k);
  std::string missing = vector;
  missing.erase(missing.find(lane_line), lane_line.size());
  CHECK(errors_of(missing) == "acc.yaml:3:3: error: compute.lane_dimension: missing required key\n");
  std::string unknown = vector;
  unknown.replace(unknown.find("kernel_row"), 10, "rows");
  CHECK(errors_of(unknown).rfind("acc.yaml:6:19: error: compute.lane_dimension: ", 0) == 0);
  std::string systolic = kAccelerator;
  systolic.insert(systolic.find("  clock_mhz: 1000\n"), "  lane_dimension: k\n");
  CHECK(errors_of(systolic) == "acc.yaml:7:19: error: compute.lane_dimension: lane_dimension applies to vector_mac "
                               "arrays only (a systolic array maps the GEMM by its dataflow)\n");
}

TEST_CASE("dma.outstanding_requests: 64 by default, 1 to 4096", "[accelerator]") {
  CHECK(load(kAccelerator).dma.outstanding_requests == 64);
  CHECK(load(kAccelerator + "dma: {outstanding_requests: 300}\n").dma.outstanding_requests == 300);
  CHECK(load_accelerator_file(kSource + "/configs/tpu_v4i.yaml").dma.outstanding_requests == 256);
  CHECK(errors_of(kAccelerator + "dma: {outstanding_requests: 0}\n").find("dma.outstanding_requests: ") !=
        std::string::npos);
  CHECK(errors_of(kAccelerator + "dma: {outstanding_requests: 5000}\n").find("dma.outstanding_requests: ") !=
        std::string::npos);
  CHECK(errors_of(kAccelerator + "dma: {outstanding: 8}\n").find("dma.outstanding: unknown key") != std::string::npos);
}

TEST_CASE("double_buffered_stationary: off by default, for ws and is only", "[accelerator]") {
  CHECK_FALSE(load(kAccelerator).compute.double_buffered_stationary);
  CHECK(load(kAccelerator, {"compute.double_buffered_stationary=true"}).compute.double_buffered_stationary);
  CHECK(load(kAccelerator, {"compute.dataflow=is", "compute.double_buffered_stationary=true"})
            .compute.double_buffered_stationary);
  CHECK(errors_of(kAccelerator, {"compute.dataflow=os", "compute.double_buffered_stationary=true"}) ==
        "--set compute.double_buffered_stationary=true: error: compute.double_buffered_stationary: an "
        "output-stationary array keeps partial sums, not operands, in place: double_buffered_stationary "
        "applies to ws and is\n");
}

TEST_CASE("swap_operands and vector_unit_gemm: off by default, on for tpu_v4i, swap_operands systolic only",
          "[accelerator]") {
  CHECK_FALSE(load(kAccelerator).compute.swap_operands);
  CHECK_FALSE(load(kAccelerator).compute.vector_unit_gemm);
  CHECK(load(kAccelerator, {"compute.swap_operands=true"}).compute.swap_operands);
  CHECK(load(kAccelerator, {"compute.vector_unit_gemm=true"}).compute.vector_unit_gemm);
  const spec::AcceleratorSpec tpu = load_accelerator_file(kSource + "/configs/tpu_v4i.yaml");
  CHECK((tpu.compute.swap_operands && tpu.compute.vector_unit_gemm));
  const spec::AcceleratorSpec tpu_v1 = load_accelerator_file(kSource + "/configs/tpu_v1.yaml");
  CHECK_FALSE((tpu_v1.compute.swap_operands || tpu_v1.compute.vector_unit_gemm));
  CHECK(load_accelerator_file(kSource + "/configs/snowflake.yaml", {"compute.vector_unit_gemm=true"})
            .compute.vector_unit_gemm);
  CHECK(errors_of(shipped_text("snowflake"), {"compute.swap_operands=true"}) ==
        "--set compute.swap_operands=true: error: compute.swap_operands: swap_operands applies to systolic arrays "
        "only (a vector-MAC cluster broadcasts its inputs to units that hold the weights)\n");
}

// compute.arrays: one by default; a systolic core's arrays count in its peak and its accumulators'
// row (16 x 16 ws at 1 GHz, two arrays: 2 x 256 MACs x 2 ops x 1e9 = 1.024e12 ops/s; a row of 2 x 16
// partial sums at 32 bits = 128 bytes); a vector_mac cluster has units instead; 0 is out of range.
TEST_CASE("compute.arrays: one by default, counted in the peak, systolic only", "[accelerator]") {
  CHECK(load(kAccelerator).compute.arrays == 1);
  const spec::AcceleratorSpec two = load(kAccelerator, {"compute.arrays=2"});
  CHECK(two.compute.arrays == 2);
  CHECK(two.compute.peak_ops_per_second() == Approx(1.024e12));
  CHECK(two.compute.accumulator_row() == 32);
  CHECK(errors_of(kAccelerator, {"compute.arrays=0"}).find("compute.arrays: expected a positive integer, got 0") !=
        std::string::npos);
  CHECK(errors_of(shipped_text("snowflake"), {"compute.arrays=4"}) ==
        "--set compute.arrays=4: error: compute.arrays: arrays applies to systolic arrays only (a vector-MAC "
        "cluster's units are its arrays: write units: <count>)\n");
}

// cores: one by default; cores.count identical cores, counted in the chip's peak (small: 16 x 16
// at 1 GHz, 512 Gops/s a core; four: 2.048e12 ops/s); a mapping with one key, count.
TEST_CASE("cores: one by default, count counted in the chip's peak, errors name the key", "[accelerator]") {
  CHECK(load(kAccelerator).cores == 1);
  const spec::AcceleratorSpec four = load(kAccelerator, {"cores.count=4"});
  CHECK(four.cores == 4);
  CHECK(four.peak_ops_per_second() == Approx(2.048e12));
  CHECK(four.compute.peak_ops_per_second() == Approx(512e9));
  CHECK(errors_of(kAccelerator, {"cores=2"}) ==
        "--set cores=2: error: cores: expected a mapping (key: value lines), got \"2\"\n");
  CHECK(errors_of(kAccelerator, {"cores.counts=2"}) ==
        "--set cores.counts=2: error: cores.count: missing required key\n"
        "--set cores.counts=2: error: cores.counts: unknown key (did you mean \"count\"?)\n");
  CHECK(errors_of(kAccelerator, {"cores.count=1025"}).find("cores.count: expected at most 1024, got 1025") !=
        std::string::npos);
}

// cores.partition: how a batch is split over the cores, the mapper's choice (auto) unless pinned.
TEST_CASE("cores: the partition is the mapper's choice unless pinned, a bad one names the choices", "[accelerator]") {
  CHECK(load(kAccelerator, {"cores.count=2"}).core_partition == spec::CorePartition::automatic);
  CHECK(load(kAccelerator, {"cores.count=2", "cores.partition=layers"}).core_partition == spec::CorePartition::layers);
  CHECK(load(kAccelerator, {"cores.count=2", "cores.partition=samples"}).core_partition ==
        spec::CorePartition::samples);
  CHECK(errors_of(kAccelerator, {"cores.count=2", "cores.partition=rows"}).find("cores.partition: expected one of") !=
        std::string::npos);
}

// shared_memory: none by default; 1 MiB of 128-byte lines = 8,192 lines, 8 banks x 32 B at 1,000 MHz
// = 256e9 B/s. small's DDR4 bursts are 64 B: a line of 96 B is no power of two of bursts, one of
// 8 KiB is 128 bursts (a line tracks at most 64), 1,000 KiB are not whole 4 KiB lines.
TEST_CASE("shared memory: none by default, its lines whole bursts, errors name the key", "[accelerator]") {
  CHECK_FALSE(load(kAccelerator).shared_memory.has_value());
  const std::vector<std::string> l2{
      "shared_memory.name=l2", "shared_memory.capacity_kib=1024",   "shared_memory.line_bytes=128",
      "shared_memory.banks=8", "shared_memory.bank_width_bytes=32", "shared_memory.clock_mhz=1000"};
  const spec::AcceleratorSpec chip = load(kAccelerator, l2);
  REQUIRE(chip.shared_memory.has_value());
  CHECK(chip.shared_memory->lines() == 8192);
  CHECK(chip.shared_memory->latency_cycles == 0);
  CHECK(chip.shared_memory->peak_bytes_per_second() == Approx(256e9));
  const auto with = [&](const std::string& override) {
    std::vector<std::string> overrides = l2;
    overrides.push_back(override);
    return errors_of(kAccelerator, overrides);
  };
  CHECK(with("shared_memory.line_bytes=96")
            .find("shared_memory.line_bytes: expected a power of two of 1 to 64 DRAM "
                  "bursts of 64 bytes, got 96") != std::string::npos);
  CHECK(with("shared_memory.line_bytes=8192").find("got 8192") != std::string::npos);
  std::vector<std::string> odd = l2;
  odd.push_back("shared_memory.line_bytes=4096");  // 64 bursts: the most a line may have
  CHECK(load(kAccelerator, odd).shared_memory->lines() == 256);
  odd.push_back("shared_memory.capacity_kib=1001");
  CHECK(errors_of(kAccelerator, odd).find("shared_memory.capacity_kib: 1025024 bytes are not whole lines of 4096") !=
        std::string::npos);
  CHECK(errors_of(kAccelerator, {"shared_memory.name=l2"}).find("shared_memory.capacity_kib: missing required key") !=
        std::string::npos);
  CHECK(with("shared_memory.ways=8").find("shared_memory.ways: unknown key") != std::string::npos);
}

// noc: none by default; a 2 x 2 mesh of 16-byte links holds 4 cores; the key path of each error.
TEST_CASE("network-on-chip: none by default, a grid that holds the cores, errors name the key", "[accelerator]") {
  CHECK_FALSE(load(kAccelerator).noc.has_value());
  const std::vector<std::string> mesh{
      "cores.count=4",      "noc.topology=mesh",           "noc.columns=2",          "noc.rows=2", "noc.link_bytes=16",
      "noc.clock_mhz=1000", "noc.router_latency_cycles=2", "noc.memory_nodes=[0, 3]"};
  const spec::AcceleratorSpec chip = load(kAccelerator, mesh);
  REQUIRE(chip.noc.has_value());
  CHECK(chip.noc->nodes() == 4);
  CHECK(chip.noc->memory_nodes == std::vector<std::int64_t>{0, 3});
  CHECK_FALSE(chip.noc->multicast);
  const auto with = [&](const std::string& override) {
    std::vector<std::string> overrides = mesh;
    overrides.push_back(override);
    return errors_of(kAccelerator, overrides);
  };
  CHECK(with("noc.rows=1")
            .find("noc.columns: a grid of 2 x 1 nodes for 4 cores (core c sits on node c): expected "
                  "at least one node a core") != std::string::npos);
  CHECK(with("noc.memory_nodes=[4]").find("noc.memory_nodes.0: expected at most 3, got 4") != std::string::npos);
  CHECK(with("noc.topology=hypercube").find("noc.topology: expected one of") != std::string::npos);
  CHECK(with("noc.vcs=2").find("noc.vcs: unknown key") != std::string::npos);
  CHECK(with("noc.multicast=yes").find("noc.multicast: expected true or false, got") != std::string::npos);
  std::vector<std::string> multicast = mesh;
  multicast.push_back("noc.multicast=true");
  CHECK(load(kAccelerator, multicast).noc->multicast);
  CHECK(errors_of(kAccelerator, {"noc.topology=ring"}).find("noc.columns: missing required key") != std::string::npos);
}

// configs/tpu_v1.yaml: 4096 x 256 x 32-bit accumulators = 4 MiB; snowflake's lanes run along a kernel row.
TEST_CASE("the shipped accelerators' accumulators and lane direction", "[accelerator]") {
  const spec::AcceleratorSpec tpu = load_accelerator_file(kSource + "/configs/tpu_v1.yaml");
  CHECK(tpu.accumulators.capacity_bytes == 4096 * 256 * 4);
  CHECK(tpu.accumulators.bits == 32);
  const spec::AcceleratorSpec snowflake = load_accelerator_file(kSource + "/configs/snowflake.yaml");
  CHECK(snowflake.compute.lane_dimension == spec::LaneDimension::kernel_row);
  CHECK(snowflake.accumulators.bits == 32);
}

// Organisation fields must be powers of two: 3 banks per group, 6 bank groups, 3 channels.
TEST_CASE("non-power-of-two organisation", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  banks_per_group: 3\n") ==
        "acc.yaml:19:20: error: dram.banks_per_group: expected a power of two, got 3\n");
  CHECK(errors_of(kAccelerator + "  bank_groups: 6\n") ==
        "acc.yaml:19:16: error: dram.bank_groups: expected a power of two, got 6\n");
  CHECK(errors_of(kAccelerator + "  channels: 3\n") ==
        "acc.yaml:19:13: error: dram.channels: expected a power of two, got 3\n");
}

// "ddr4-2000" is one substitution from "ddr4-2400". "  preset: " is 10 characters -> column 11.
TEST_CASE("unknown DRAM preset with a did-you-mean hint", "[accelerator]") {
  CHECK(errors_of(kHead + "  preset: ddr4-2000\n") ==
        "acc.yaml:18:11: error: dram.preset: unknown DRAM preset \"ddr4-2000\" (no file " + preset_file("ddr4-2000") +
            ") (did you mean \"ddr4-2400\"?)\n");
  // Through load_dram the origin is the --dram argument and the key path is the bare field.
  CHECK(dram_errors_of("ddr4-240") == "--dram ddr4-240: error: preset: unknown DRAM preset \"ddr4-240\" (no file " +
                                          preset_file("ddr4-240") + ") (did you mean \"ddr4-2400\"?)\n");
}

// A preset name too long for a file name is an unknown preset, not a filesystem exception (found
// by fuzzing).
TEST_CASE("a preset name too long for a file", "[accelerator]") {
  const std::string name(300, 'x');
  CHECK(dram_errors_of(name) == "--dram " + name + ": error: preset: unknown DRAM preset \"" + name + "\" (no file " +
                                    preset_file(name) + ")\n");
}

// A DRAM file's text loads like the file: its fields, on top of a preset found from its directory.
TEST_CASE("load_dram_text reads a DRAM file", "[accelerator]") {
  const std::string origin = reusesim::config::dram_preset_directory() + "/mine.yaml";
  const spec::DramSpec dram = reusesim::config::load_dram_text("preset: ddr4-2400.yaml\nchannels: 4\n", origin);
  CHECK(dram.channels == 4);
  CHECK(dram.timing.trcd == 17);
  CHECK_THAT(input_error_text([&] { reusesim::config::load_dram_text("chanels: 4\n", "d.yaml"); }),
             Catch::Contains("d.yaml:1:1: error: chanels: unknown key (did you mean \"channels\"?)\n"));
}

// The DRAM organisation has bounds a channel can be built with (found by fuzzing: 2^20 ranks of
// 2^20 bank groups asked for 2^40 banks' state; a row shorter than a burst, or a bus narrower than
// a byte, gave no column or burst and an exception from the address mapper). The value's column is
// len("  <key>: ") + 1.
TEST_CASE("DRAM organisation limits", "[accelerator]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"ranks: 32", "acc.yaml:19:10: error: dram.ranks: expected at most 16, got 32\n"},
      {"bank_groups: 32", "acc.yaml:19:16: error: dram.bank_groups: expected at most 16, got 32\n"},
      {"banks_per_group: 128", "acc.yaml:19:20: error: dram.banks_per_group: expected at most 64, got 128\n"},
      {"row_bytes: 2097152", "acc.yaml:19:14: error: dram.row_bytes: expected at most 1048576, got 2097152\n"},
      {"bus_bits: 4", "acc.yaml:19:13: error: dram.bus_bits: expected an integer >= 8, got 4\n"},
      {"bus_bits: 2048", "acc.yaml:19:13: error: dram.bus_bits: expected at most 1024, got 2048\n"},
      {"burst_length: 1", "acc.yaml:19:17: error: dram.burst_length: expected an integer >= 2, got 1\n"},
      {"burst_length: 128", "acc.yaml:19:17: error: dram.burst_length: expected at most 64, got 128\n"},
      // ddr4-2400: 64-bit bus x BL8 = 64-byte bursts.
      {"row_bytes: 32",
       "acc.yaml:19:14: error: dram.row_bytes: 32 is less than one burst (bus_bits / 8 x burst_length = 64 bytes)\n"},
  };
  for (const auto& [line, expected] : cases) {
    INFO(line);
    CHECK(errors_of(kAccelerator + "  " + line + "\n") == expected);
  }
}

// --- errors: JEDEC relations ---------------------------------------------------------------------

// Each relation broken by one override on line 19 of a ddr4-2400 accelerator, whose values are
// tRCD 17, tRP 17, tRAS 39, tCCD_S 4, tRRD_S 4, tWTR_S 3, tRFC 420, BL 8, queue 32, drain 24/8.
// The value's column is len("  <key>: ") + 1.
TEST_CASE("every JEDEC relation check", "[accelerator]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      // tRC >= tRAS + tRP = 39 + 17 = 56
      {"  trc: 55", "acc.yaml:19:8: error: dram.trc: 55 breaks tRC >= tRAS + tRP (needs at least 56)"},
      // tRAS >= tRCD = 17
      {"  tras: 16", "acc.yaml:19:9: error: dram.tras: 16 breaks tRAS >= tRCD (needs at least 17)"},
      // tCCD_L >= tCCD_S = 4
      {"  tccd_l: 3", "acc.yaml:19:11: error: dram.tccd_l: 3 breaks tCCD_L >= tCCD_S (needs at least 4)"},
      // tRRD_L >= tRRD_S = 4
      {"  trrd_l: 3", "acc.yaml:19:11: error: dram.trrd_l: 3 breaks tRRD_L >= tRRD_S (needs at least 4)"},
      // tWTR_L >= tWTR_S = 3
      {"  twtr_l: 2", "acc.yaml:19:11: error: dram.twtr_l: 2 breaks tWTR_L >= tWTR_S (needs at least 3)"},
      // tFAW >= tRRD_S = 4
      {"  tfaw: 3", "acc.yaml:19:9: error: dram.tfaw: 3 breaks tFAW >= tRRD_S (needs at least 4)"},
      // tREFI > tRFC = 420, so at least 421
      {"  trefi: 420", "acc.yaml:19:10: error: dram.trefi: 420 breaks tREFI > tRFC (needs at least 421)"},
      // write_drain_high > write_drain_low = 8, so at least 9
      {"  controller:\n    write_drain: {high: 8, low: 8}",
       "acc.yaml:20:25: error: dram.controller.write_drain.high: 8 breaks high > low (needs at least 9)"},
      // write_drain_high <= write_queue_depth = 32
      {"  controller:\n    write_drain: {high: 40, low: 8}",
       "acc.yaml:20:25: error: dram.controller.write_drain.high: 40 exceeds write_queue_depth 32"},
  };
  for (const auto& [line, message] : cases) {
    INFO(line);
    CHECK(errors_of(kAccelerator + line + "\n") == message + "\n");
  }
}

// --- errors: address mapping --------------------------------------------------------------------

// Pseudo-channel mode is HBM's, takes 1 or 2, and needs pc in the mapping; the hash is none or xor.
TEST_CASE("pseudo_channels and address_hash: bad values and mismatches are refused", "[accelerator]") {
  CHECK(dram_errors_of("ddr4-2400", {"pseudo_channels=2"}) ==
        "--set pseudo_channels=2: error: pseudo_channels: 2 is HBM's pseudo-channel mode (standard hbm2, hbm2e or "
        "hbm3), not ddr4\n");
  CHECK(dram_errors_of("hbm2", {"pseudo_channels=3"}) ==
        "--set pseudo_channels=3: error: pseudo_channels: expected at most 2, got 3\n");
  CHECK(dram_errors_of("hbm2", {"pseudo_channels=2"}) ==
        preset_file("hbm2") + ":47:18: error: address_mapping: expected the seven fields ch, pc, ra, bg, ba, ro, co "
        "(pseudo_channels: 2), each once, most significant first, got \"ro,ra,ba,co,bg,ch\"\n");
  CHECK(dram_errors_of("hbm2", {"address_hash=mod"}) ==
        "--set address_hash=mod: error: address_hash: expected one of none, xor, got \"mod\"\n");
  // In pseudo-channel mode HBM2's 128-bit channel is two 64-bit pseudo-channels with 1 KiB rows.
  const spec::DramSpec split = load_dram("hbm2", {"pseudo_channels=2", "address_mapping=ro,ra,ba,co,bg,ch,pc"});
  CHECK(split.scheduled_channels() == 16);
  CHECK(split.channel_bus_bits() == 64);
  CHECK(split.channel_row_bytes() == 1024);
  CHECK(split.burst_bytes() == 32);  // 64 bits / 8 x BL 4
  CHECK(split.peak_bytes_per_second() == load_dram("hbm2").peak_bytes_per_second());
}

// "  address_mapping: " is 19 characters -> column 20 of line 19.
// dram.interleave_bytes: a power of two from one burst to one row (ddr4-2400: 64 B bursts, 8 KiB
// rows).
TEST_CASE("interleave_bytes: from one burst to one row, a power of two", "[accelerator]") {
  CHECK(load(kAccelerator).dram.interleave_bytes == 0);
  CHECK(load(kAccelerator, {"dram.interleave_bytes=256"}).dram.interleave_bytes == 256);
  for (const std::string bytes : {"32", "96", "16384"}) {
    CHECK(errors_of(kAccelerator, {"dram.interleave_bytes=" + bytes})
              .find("dram.interleave_bytes: expected a power of two from one burst (64 bytes) to one row (8192 "
                    "bytes), got " +
                    bytes) != std::string::npos);
  }
}

TEST_CASE("address mapping naming a field twice, missing one, or unknown", "[accelerator]") {
  CHECK(errors_of(kAccelerator + "  address_mapping: ro,ra,ba,co,bg,ro\n") ==
        "acc.yaml:19:20: error: dram.address_mapping: field \"ro\" appears twice; " + kMappingRule + "\n");
  CHECK(errors_of(kAccelerator + "  address_mapping: ro,ra,ba,co,bg\n") ==
        "acc.yaml:19:20: error: dram.address_mapping: " + kMappingRule + ", got \"ro,ra,ba,co,bg\"\n");
  CHECK(errors_of(kAccelerator + "  address_mapping: ro,ra,ba,co,bg,xx\n") ==
        "acc.yaml:19:20: error: dram.address_mapping: unknown field \"xx\"; " + kMappingRule + "\n");
  // pc belongs to pseudo-channel mode, and pseudo-channel mode needs it.
  CHECK(errors_of(kAccelerator + "  address_mapping: ro,ra,ba,co,bg,ch,pc\n") ==
        "acc.yaml:19:20: error: dram.address_mapping: " + kMappingRule + ", got \"ro,ra,ba,co,bg,ch,pc\"\n");
  // Spaces after the commas are allowed.
  CHECK(load(kAccelerator + "  address_mapping: ch, ra, bg, ba, ro, co\n").dram.address_mapping.front() ==
        spec::AddressField::channel);
}

// --- errors: SRAM buffers -----------------------------------------------------------------------

// Buffer `inputs` (line 15) also claims weights (its `holds` value starts at column 109), and then
// no buffer holds inputs (reported at the list, line 14, column 5). Messages come in file order.
TEST_CASE("a tensor kind held by two buffers", "[accelerator]") {
  std::string text = kAccelerator;
  text.replace(text.find("holds: inputs}"), 14, "holds: weights}");
  CHECK(errors_of(text) ==
        "acc.yaml:14:5: error: sram.buffers: no buffer holds inputs\n"
        "acc.yaml:15:109: error: sram.buffers.inputs.holds: weights are already held by buffer \"weights\"\n");
}

// Without the outputs buffer (line 16) nothing holds outputs; reported at the list (line 14, column 5).
TEST_CASE("a tensor kind held by no buffer", "[accelerator]") {
  std::string text = kAccelerator;
  const std::size_t from = text.find("    - {name: outputs");
  text.erase(from, text.find('\n', from) + 1 - from);
  CHECK(errors_of(text) == "acc.yaml:14:5: error: sram.buffers: no buffer holds outputs\n");
}

// A relation that a --set breaks is the --set's fault: it was reported at the preset's line of
// the value the user did not touch. ddr4-2400 has tRAS 39 at configs/dram/ddr4-2400.yaml:39:7.
TEST_CASE("a JEDEC relation broken by --set is reported at the --set", "[accelerator]") {
  // tRCD 100,000 also leaves no room between refreshes: that too is the --set's doing. The bound is
  // tRFC 420 + 71 (the refresh's slip) + tRCD 100,000 = 100,491 > tREFI 9,360.
  CHECK(errors_of(kAccelerator, {"dram.trcd=100000"}) ==
        "--set dram.trcd=100000: error: dram.trcd: 100000 breaks tRAS >= tRCD with tras 39 (" +
            preset_file("ddr4-2400") +
            ":39:7; needs tras at least 100000)\n"
            "--set dram.trcd=100000: error: dram.trefi: 9360 clocks leaves 8940 after tRFC (420), too few to serve "
            "a request between refreshes: a refresh may issue up to 71 clocks after it falls due (max(tRC, "
            "max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP + banks per rank - 1)), then an activate needs tRCD (100000) "
            "before its read or write: needs at least tRFC + 71 + tRCD = 100491 (docs/dram-model.md)\n");
  // Set on the other side, the relation names the --set's own key as before.
  CHECK(errors_of(kAccelerator, {"dram.tras=16"}) ==
        "--set dram.tras=16: error: dram.tras: 16 breaks tRAS >= tRCD (needs at least 17)\n");
}

// An accelerator with a name that holds a line break split `run`'s table rows in two.
TEST_CASE("a name with a line break is refused", "[accelerator]") {
  CHECK(errors_of(kAccelerator, {"name=\"two\\nlines\""}) ==
        "--set name=\"two\\nlines\": error: name: a name is one line of printable text; this one holds the byte "
        "0x0a, a control character\n");
}

// Given as an accelerator, a model file got a list of missing keys; now it is named for what it is.
TEST_CASE("a model file given as an accelerator", "[accelerator]") {
  CHECK(errors_of("name: m\nprecision: fp32\ninput: {features: 4}\nlayers: []\n") ==
        "acc.yaml:1:1: error: this is a model file (it has `layers:`), not an accelerator file\n");
  CHECK(dram_errors_of(std::string(REUSESIM_SOURCE_DIR) + "/configs/small.yaml") ==
        std::string(REUSESIM_SOURCE_DIR) +
            "/configs/small.yaml:5:1: error: this is an accelerator file (it has `compute:`), not a DRAM file\n");
}

// All problems are reported at once, in file order, and diagnostics() holds them as data.
TEST_CASE("several errors are reported together", "[accelerator]") {
  try {
    load(kAccelerator + "  channels: 0\n  trc: 55\n");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    CHECK(std::string(error.what()) ==
          "acc.yaml:19:13: error: dram.channels: expected a positive integer, got 0\n"
          "acc.yaml:20:8: error: dram.trc: 55 breaks tRC >= tRAS + tRP (needs at least 56)\n");
    REQUIRE(error.diagnostics().size() == 2);
    CHECK(error.diagnostics()[1].location.line == 20);
    CHECK(error.diagnostics()[1].location.column == 8);
    CHECK(error.diagnostics()[1].key_path == "dram.trc");
  }
}

// Two buffers of one name would make `--set sram.buffers.<name>...` ambiguous.
TEST_CASE("duplicate SRAM buffer names are rejected", "[accelerator]") {
  const std::string text = R"(name: dup
compute: {type: systolic, rows: 4, cols: 4, dataflow: ws, clock_mhz: 100, operand_bits: 8, vector_ops_per_cycle: 4}
accumulators: {capacity_kib: 1, bits: 32}
sram:
  clock_mhz: 100
  buffers:
    - {name: buf, capacity_kib: 1, banks: 1, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: [weights]}
    - {name: buf, capacity_kib: 1, banks: 1, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: [inputs, outputs]}
dram: {preset: ddr4-2400}
)";
  // Line 7, "    - {name: " is 13 characters: the second name starts at column 14.
  CHECK_THROWS_WITH(reusesim::config::load_accelerator_text(text, "dup.yaml"),
                    "dup.yaml:8:14: error: sram.buffers.buf.name: duplicate buffer name \"buf\"\n");
}
