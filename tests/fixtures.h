#pragma once
// Shared by the tests: the shipped accelerators and the small models many tests build on.

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "config/accelerator_loader.h"
#include "program/program.h"
#include "spec/accelerator_spec.h"
#include "spec/system_spec.h"

namespace fixtures {

// A network-on-chip of 32-byte links at 1,000 MHz (32e9 bytes/s a link each way, 1 ns a clock),
// 2 cycles a hop, the memory at `memory_nodes`.
inline reusesim::spec::NocSpec noc_spec(reusesim::spec::NocTopology topology, std::int64_t columns, std::int64_t rows,
                                        std::vector<std::int64_t> memory_nodes) {
  reusesim::spec::NocSpec spec;
  spec.topology = topology;
  spec.columns = columns;
  spec.rows = rows;
  spec.link_bytes = 32;
  spec.clock_mhz = 1000;
  spec.router_latency_cycles = 2;
  spec.memory_nodes = std::move(memory_nodes);
  return spec;
}

// configs/NAME.yaml with `overrides` applied as `--set` applies them.
inline reusesim::spec::AcceleratorSpec shipped_accelerator(const std::string& name,
                                                           const std::vector<std::string>& overrides = {}) {
  return reusesim::config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/" + name + ".yaml",
                                                 overrides);
}

// `chips` of configs/small.yaml (1,000 MHz, 16 vector ops a cycle) whose links move 25 GB/s each
// way with 500 ns latency, `per_chip` links each.
inline reusesim::spec::SystemSpec system_spec(reusesim::spec::ChipTopology topology, std::int64_t chips,
                                              std::int64_t per_chip, std::vector<std::int64_t> torus_dimensions = {}) {
  reusesim::spec::SystemSpec spec;
  spec.name = "test_system";
  spec.chip = shipped_accelerator("small");
  spec.chips = chips;
  spec.topology = topology;
  spec.torus_dimensions = std::move(torus_dimensions);
  spec.link = {25, 500, per_chip};
  return spec;
}

// A 16 x 16 int8 array whose one activation buffer holds inputs and outputs (so it keeps
// activations), a 32 KiB weight buffer, and an output path that runs `output_path`.
inline reusesim::spec::AcceleratorSpec keeping_accelerator(std::int64_t activation_kib, const std::string& output_path,
                                                           const std::string& dram_preset = "ddr4-2400") {
  return reusesim::config::load_accelerator_text(R"(
name: keeper
compute: {type: systolic, rows: 16, cols: 16, dataflow: ws, clock_mhz: 1000, operand_bits: 8,
          vector_ops_per_cycle: 16, output_path: )" + output_path +
                                                     R"(}
sram:
  clock_mhz: 1000
  buffers:
    - {name: weights, capacity_kib: 32, banks: 4, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: weights}
    - {name: activations, capacity_kib: )" + std::to_string(activation_kib) +
                                                     R"(, banks: 4, bank_width_bytes: 16,
       read_ports: 1, write_ports: 1, holds: [inputs, outputs]}
dram: {preset: )" + dram_preset + R"(}
accumulators: {capacity_kib: 64, bits: 32}
)",
                                                 "keeper.yaml");
}

// configs/small.yaml (a 16 x 16 int8 weight-stationary array at 1 GHz, 2 x 256 x 1e9 = 512e9
// ops/s) with its `dram:` section replaced by `dram_section`, e.g. an ideal memory of 1 GB/s:
// "  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n".
inline reusesim::spec::AcceleratorSpec small_with_dram(const std::string& dram_section) {
  std::ifstream file(std::string(REUSESIM_SOURCE_DIR) + "/configs/small.yaml");
  std::stringstream text;
  text << file.rdbuf();
  const std::string small = text.str();
  return reusesim::config::load_accelerator_text(small.substr(0, small.find("\ndram:")) + "\ndram:\n" + dram_section,
                                                 "small-ideal.yaml");
}

// A 64 -> 32 linear layer without bias at int8: 2,048 MACs and 2,048 weight bytes, 32 output
// bytes a sample.
constexpr const char* kSmallLinear = R"(
name: small_linear
precision: int8
input: {features: 64}
layers:
  - {name: fc, type: linear, out_features: 32, bias: false}
)";

// A hand-made layer for configs/small.yaml: a 64-byte weight load at address 0, then a 16 x 16 x 4
// GEMM (1,024 MACs; its 4 x 16 weight tile and a 16 x 4 input tile, 128 B at int8), then a 64-byte
// store of outputs at 0x40 (bank group 1 of small's DDR4-2400 channel): one burst each way.
inline reusesim::program::LayerProgram load_compute_store_program() {
  namespace program = reusesim::program;
  program::LayerProgram layer;
  layer.layer = "tiny";
  layer.type = "linear";
  layer.mapping = "hand-made";
  program::Step load;
  load.kind = program::StepKind::load;
  load.tensor = program::TensorRole::weights;
  load.address = 0;
  load.bytes = 64;
  program::Step compute;
  compute.kind = program::StepKind::compute;
  compute.gemm = {16, 16, 4};  // m, n, k
  compute.macs = 16 * 16 * 4;
  compute.bytes = 128;
  compute.after = {0};
  program::Step store;
  store.kind = program::StepKind::store;
  store.tensor = program::TensorRole::outputs;
  store.address = 0x40;
  store.bytes = 64;
  store.after = {1};
  layer.steps = {load, compute, store};
  layer.macs = compute.macs;
  layer.dram_read_bytes = 64;
  layer.dram_write_bytes = 64;
  return layer;
}

}  // namespace fixtures
