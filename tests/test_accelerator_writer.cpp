#include <catch2/catch.hpp>
#include "input_error_text.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "config/accelerator_writer.h"

// config.json, the accelerator as resolved: config::accelerator_json writes every field of the
// spec in the loader's keys and units, so that loading what it wrote gives the same spec back, for
// every shipped accelerator, every DRAM preset and every kind of --set override.

namespace config = reusesim::config;
namespace spec = reusesim::spec;

namespace {

const std::string kSource = REUSESIM_SOURCE_DIR;

std::vector<std::string> yaml_stems(const std::string& directory) {
  std::vector<std::string> stems;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().extension() == ".yaml") stems.push_back(entry.path().stem().string());
  }
  return stems;
}

// load(write(spec)) == spec, and writing the reloaded spec gives the same text (a fixed point).
void check_round_trip(const spec::AcceleratorSpec& accelerator) {
  const std::string written = config::accelerator_json(accelerator);
  INFO(written);
  const spec::AcceleratorSpec reloaded = config::load_accelerator_text(written, "config.json");
  CHECK(config::accelerator_json(reloaded) == written);
  CHECK(reloaded == accelerator);
}

void check_file_round_trip(const std::string& file, const std::vector<std::string>& overrides = {}) {
  INFO(file);
  for (const std::string& assignment : overrides) UNSCOPED_INFO("--set " + assignment);
  check_round_trip(config::load_accelerator_file(kSource + "/configs/" + file, overrides));
}

}  // namespace

TEST_CASE("config.json of every shipped accelerator loads back as the same spec", "[accelerator_writer]") {
  const std::vector<std::string> accelerators = yaml_stems(kSource + "/configs");
  REQUIRE(accelerators.size() >= 4);
  for (const std::string& name : accelerators) check_file_round_trip(name + ".yaml");
}

TEST_CASE("config.json of every DRAM preset loads back as the same spec", "[accelerator_writer]") {
  const std::vector<std::string> presets = yaml_stems(config::dram_preset_directory());
  REQUIRE(presets.size() >= 10);
  for (const std::string& preset : presets) {
    INFO(preset);
    const spec::AcceleratorSpec accelerator =
        config::load_accelerator_file(kSource + "/configs/small.yaml", {"dram.preset=" + preset});
    // The accelerator's DRAM is the preset as the DRAM loader reads it.
    CHECK(accelerator.dram == config::load_dram(preset));
    check_round_trip(accelerator);
  }
}

TEST_CASE("config.json keeps every kind of --set override", "[accelerator_writer]") {
  // Numbers, booleans and words of the compute array and the accumulators.
  check_file_round_trip("small.yaml", {"compute.rows=32", "compute.dataflow=os", "compute.clock_mhz=1234.5",
                                       "accumulators.capacity_kib=128", "accumulators.bits=24"});
  check_file_round_trip("small.yaml", {"compute.dataflow=is", "compute.double_buffered_stationary=true"});
  check_file_round_trip("small.yaml", {"compute.number_format=fp", "compute.operand_bits=16"});
  check_file_round_trip("snowflake.yaml", {"compute.lane_dimension=output_channels", "compute.units=8"});
  // Lists: the output path, a buffer's holds and keeps (a buffer reached by name).
  check_file_round_trip("small.yaml", {"compute.output_path=[add, activation]"});
  check_file_round_trip("tpu_v1.yaml", {"compute.output_path=[]", "sram.buffers.unified_buffer.keeps=[]"});
  check_file_round_trip("small.yaml", {"sram.buffers.weights.capacity_kib=48", "sram.clock_mhz=800",
                                       "sram.buffers.inputs.holds=outputs", "sram.buffers.outputs.holds=inputs"});
  // Native weight formats, a map of format to MAC rate.
  check_file_round_trip("small.yaml", {"compute.native_formats={int8: 2, fp8_e4m3: 4}"});
  // The N:M pattern whose zeros the array skips.
  check_file_round_trip("small.yaml", {"compute.sparsity={n: 2, m: 4}"});
  check_file_round_trip("small.yaml", {"dma.outstanding_requests=256"});
  check_file_round_trip("small.yaml", {"dram.interleave_bytes=256"});
  check_file_round_trip("small.yaml", {"cores.count=4", "compute.arrays=2"});
  check_file_round_trip("small.yaml",
                        {"cores.count=2", "shared_memory.name=l2", "shared_memory.capacity_kib=1024",
                         "shared_memory.line_bytes=128", "shared_memory.banks=8", "shared_memory.bank_width_bytes=32",
                         "shared_memory.clock_mhz=1000", "shared_memory.latency_cycles=12"});
  const std::string chip =
      config::accelerator_json(config::load_accelerator_file(kSource + "/configs/small.yaml", {"cores.count=4"}));
  CHECK(chip.find("\"cores\": {\n    \"count\": 4\n  }") != std::string::npos);
  // DRAM: organisation, timings, mapping, hash, and each controller policy.
  check_file_round_trip("small.yaml", {"dram.channels=4", "dram.tck_ns=0.9", "dram.trefi=7800",
                                       "dram.address_mapping=ch,ra,bg,ba,ro,co", "dram.address_hash=xor"});
  check_file_round_trip("small.yaml", {"dram.controller.write_drain=drain_all", "dram.controller.posted_writes=true",
                                       "dram.controller.command_queue_depth=8",
                                       "dram.controller.frontend_latency_cycles=3",
                                       "dram.controller.page_policy=closed", "dram.controller.refresh=off"});
  check_file_round_trip("small.yaml", {"dram.controller.write_drain={high: 16, low: 4}",
                                       "dram.controller.read_queue_depth=16"});
  check_file_round_trip("small.yaml", {"dram.preset=lpddr5-6400", "dram.controller.refresh=per_bank",
                                       "dram.trfc_pb=180"});
  // A map merges into the preset's key by key: the other rails and entries stay.
  check_file_round_trip("tpu_v1.yaml", {"dram.power={io_read_pj_per_bit: 2.5, rails: {vdd: {idd0: 80}}}"});
  // The per-access form (hbm2's), with an entry changed.
  check_file_round_trip("tpu_v4.yaml", {"dram.power.activate_pj=2000", "dram.power.refresh_pj=50000"});
  // An ideal memory, both kinds, with and without a capacity.
  check_file_round_trip("small.yaml", {"dram={ideal: unlimited}"});
  check_file_round_trip("small.yaml", {"dram={ideal: {bandwidth_gbps: 34.1, latency_ns: 100}}"});
  check_file_round_trip("small.yaml", {"dram={ideal: unlimited, capacity_gib: 24}"});
  // The capacity: the rows of the organisation, or given in GiB (any whole bytes: 0.3 GiB is
  // 322,122,547.2 B, held as 322,122,547 and written as that over 2^30).
  check_file_round_trip("small.yaml", {"dram.rows=1024"});
  check_file_round_trip("small.yaml", {"dram.capacity_gib=0.3"});
  check_file_round_trip("wormhole_n150.yaml", {"dram.capacity_gib=24"});
  // The technology table: a preset with entries overridden, and a whole other preset.
  check_file_round_trip("tpu_v1.yaml", {"technology={preset: 45nm, multiply_pj: {int8: 0.15}, node_nm: 40}"});
  check_file_round_trip("snowflake.yaml", {"technology=7nm"});
}

// config.json is an accelerator file like any other: a bad value in it is reported at its line
// and column.
TEST_CASE("an error in a loaded config.json names its file, line and column", "[accelerator_writer]") {
  std::string text = config::accelerator_json(config::load_accelerator_file(kSource + "/configs/small.yaml"));
  const std::string rows = "\"rows\": 16";
  const std::size_t at = text.find(rows);
  REQUIRE(at != std::string::npos);
  text.replace(at, rows.size(), "\"rows\": 0");
  const long line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  const std::size_t column = at - text.rfind('\n', at) + std::string("\"rows\": ").size();
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "reusesim_test_config.json";
  std::ofstream(file) << text;
  const std::string error = input_error_text([&] { config::load_accelerator_file(file.string()); });
  std::filesystem::remove(file);
  CHECK_THAT(error, Catch::Matchers::StartsWith(file.string() + ":" + std::to_string(line) + ":" +
                                                std::to_string(column) + ": error: compute.rows: "));
}
