// The network-level planner: tensors kept on chip across layers (residency.h) and layers fused
// into their producer's output path (fusion.h), with byte counts derived by hand. Plain C++.
#include <catch2/catch.hpp>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "fixtures.h"
#include "mapping/mapper.h"
#include "program/program_text.h"
#include "timing/array_timing.h"

using namespace reusesim;

namespace {

using fixtures::keeping_accelerator;

// An int8 model of `layers` (YAML list items) on an 8 x 8 x 16 map.
config::LoadedModel map_model(const std::string& layers) {
  return config::load_model_text("name: m\nprecision: int8\ninput: {channels: 16, height: 8, width: 8}\nlayers:\n" + layers,
                                 "m.yaml");
}

// A ResNet bottleneck: the skip tensor (relu1's) is read by conv2 and, two convolutions later, by the add.
constexpr const char* kBlock = R"(
  - {name: conv1, type: conv2d, out_channels: 16, kernel: 1, bias: false}
  - {name: bn1, type: batchnorm}
  - {name: relu1, type: relu}
  - {name: conv2, type: conv2d, out_channels: 16, kernel: 3, padding: 1, bias: false}
  - {name: bn2, type: batchnorm}
  - {name: relu2, type: relu}
  - {name: conv3, type: conv2d, out_channels: 16, kernel: 1, bias: false}
  - {name: bn3, type: batchnorm}
  - {name: add, type: add, inputs: [bn3, relu1]}
  - {name: relu3, type: relu}
)";

struct Moved {
  std::int64_t weights = 0, inputs = 0, stores = 0;
};

Moved moved(const program::LayerProgram& program) {
  Moved bytes;
  for (const program::Step& step : program.steps) {
    const auto b = static_cast<std::int64_t>(step.bytes);
    if (step.kind == program::StepKind::store) bytes.stores += b;
    if (step.kind == program::StepKind::load) (step.tensor == program::TensorRole::weights ? bytes.weights : bytes.inputs) += b;
  }
  return bytes;
}

std::int64_t vector_cycles(const spec::AcceleratorSpec& spec, const program::LayerProgram& program) {
  std::int64_t cycles = 0;
  for (const program::Step& step : program.steps) cycles += timing::vector_cycles(spec.compute, step.vector_ops);
  return cycles;
}

}  // namespace

TEST_CASE("residency: a bottleneck block that fits moves only its input, weights and output through DRAM") {
  const spec::AcceleratorSpec spec = keeping_accelerator(64, "[activation, batchnorm, add]");
  const config::LoadedModel model = map_model(kBlock);
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, spec);
  const auto& p = mapped.programs;
  // Programs: conv1 (bn1, relu1), conv2 (bn2, relu2), conv3 (bn3, add, relu3); the rest fused.
  for (std::size_t i : {1, 2, 4, 5, 7, 8, 9}) {
    INFO(p[i].layer);
    CHECK(p[i].steps.empty());
    CHECK(p[i].mapping == "fused into conv" + std::to_string(i < 4 ? 1 : i < 7 ? 2 : 3) + "'s output path");
  }
  CHECK(p[6].mapping.find("output path runs bn3, add, relu3") != std::string::npos);
  // Every map is 8 x 8 x 16 int8 = 1024 bytes. Only conv1 loads an input (the network's); conv3
  // stores the network's output; relu1's tensor stays on chip from conv1 to conv3 (the add).
  // Weights: a fused batch-norm's shift becomes a bias column, so K + 1 rows of 16 outputs:
  // conv1 and conv3 (1x1) 17 x 16 = 272 bytes, conv2 (3x3) (9 x 16 + 1) x 16 = 2320 bytes.
  CHECK(moved(p[0]).inputs == 1024);
  CHECK(moved(p[0]).weights == 272);
  CHECK(moved(p[0]).stores == 0);
  CHECK(moved(p[3]).inputs == 0);
  CHECK(moved(p[3]).weights == 2320);
  CHECK(moved(p[3]).stores == 0);
  CHECK(moved(p[6]).inputs == 0);
  CHECK(moved(p[6]).weights == 272);
  CHECK(moved(p[6]).stores == 1024);
  // On chip: conv1 keeps 1024; conv2 reads 1024 and keeps 1024; conv3 reads conv2's and the skip.
  CHECK(p[0].onchip_output_bytes == 1024);
  CHECK(p[3].onchip_input_bytes == 1024);
  CHECK(p[3].onchip_output_bytes == 1024);
  CHECK(p[6].onchip_input_bytes == 2048);
  CHECK(p[6].onchip_output_bytes == 0);
  // While conv2 runs, both relu1's tensor (held for the add) and conv2's own are resident.
  CHECK(mapped.plans[3].resident_bytes == 2048);
  // Vector work moves to the producers: relu and a two-input add 1 op an element. A folded batch-norm's 2 ops an element are done before the run. conv1 and conv2 run relu:
  // 1 x 1024 = 1024 ops, 1024 / 16 a cycle = 64 cycles; conv3 add and relu: 2 x 1024 = 2048 ops,
  // 128 cycles. The network's total plus the folded 2 x 1024 of each of the three batch-norms is
  // the analysis's.
  CHECK(p[0].vector_ops == 1024);
  CHECK(vector_cycles(spec, p[0]) == 64);
  CHECK(p[6].vector_ops == 2048);
  CHECK(vector_cycles(spec, p[6]) == 128);
  // The output path's stages are a pipeline, each its own unit: conv3's add and relu, 1,024 ops
  // each, take the busiest stage's 1,024 ops (1,024 / 16 = 64 cycles over the layer, not 128).
  // conv1 has one stage (relu): all its ops are its busiest stage's.
  std::int64_t busiest = 0;
  for (const program::Step& step : p[6].steps) busiest += step.busiest_stage_ops();
  CHECK(busiest == 1024);
  for (const program::Step& step : p[0].steps) CHECK(step.busiest_stage_ops() == step.vector_ops);
  std::int64_t analysed = 0, programmed = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    analysed += model.network.layers[i].counts.vector_ops;
    programmed += p[i].vector_ops;
    CHECK(mapping::compulsory_traffic_problem(model.network.layers[i], 1, 1, p[i], mapped.plans[i]) == "");
  }
  CHECK(programmed + 3 * 2 * 1024 == analysed);
  CHECK(mapping::vector_ops_problem(model.network, 1, mapped) == "");
}

TEST_CASE("residency: without keeping or an output path every layer goes through DRAM as before") {
  const spec::AcceleratorSpec spec = config::load_accelerator_text(R"(
name: plain
compute: {type: systolic, rows: 16, cols: 16, dataflow: ws, clock_mhz: 1000, operand_bits: 8,
          vector_ops_per_cycle: 16}
sram:
  clock_mhz: 1000
  buffers:
    - {name: weights, capacity_kib: 32, banks: 4, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: weights}
    - {name: activations, capacity_kib: 64, banks: 4, bank_width_bytes: 16, read_ports: 1, write_ports: 1,
       holds: [inputs, outputs], keeps: []}
dram: {preset: ddr4-2400}
accumulators: {capacity_kib: 64, bits: 32}
)", "plain.yaml");
  const config::LoadedModel model = map_model(kBlock);
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, spec);
  for (const program::LayerProgram& program : mapped.programs) {
    INFO(program.layer);
    CHECK(moved(program).stores >= 1024);  // every layer's 1024-byte output is stored
    CHECK(program.onchip_input_bytes == 0);
    CHECK(program.onchip_output_bytes == 0);
  }
}

TEST_CASE("residency: a tensor whose consumer's tiles no longer fit beside it goes to DRAM") {
  // conv1 (1x1, 16 -> 64 channels) makes 8 x 8 x 64 = 4096 bytes, which exactly fill a 4 KiB
  // buffer: room for it, none left for conv1's own tiles. It goes to DRAM and conv2 loads it.
  const spec::AcceleratorSpec spec = keeping_accelerator(4, "[]");
  const config::LoadedModel model = map_model(R"(
  - {name: conv1, type: conv2d, out_channels: 64, kernel: 1, bias: false}
  - {name: conv2, type: conv2d, out_channels: 16, kernel: 1, bias: false}
)");
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, spec);
  const auto& p = mapped.programs;
  // Without resident tensors the buffer gives 2 KiB to inputs and 2 KiB to outputs, so both
  // layers tile M, but each tensor still moves once: conv1 reads 1024 and writes 4096 bytes,
  // conv2 reads those 4096 and writes 8 x 8 x 16 = 1024. Weights 16 x 64 = 1024 bytes each.
  CHECK_FALSE(mapped.plans[0].output_on_chip);
  CHECK(moved(p[0]).inputs == 1024);
  CHECK(moved(p[0]).stores == 4096);
  CHECK(moved(p[1]).inputs == 4096);
  CHECK(moved(p[1]).stores == 1024);
  CHECK(moved(p[0]).weights + moved(p[1]).weights == 2048);
  CHECK(p[1].onchip_input_bytes == 0);
}

TEST_CASE("fusion: an add whose skip operand is in DRAM loads it tile by tile in the output path") {
  // keeps: [] sends every tensor to DRAM; conv3 then loads relu1's 1024 bytes for the add.
  const spec::AcceleratorSpec spec = keeping_accelerator(64, "[activation, batchnorm, add]");
  spec::AcceleratorSpec no_keep = spec;
  no_keep.sram.buffers[1].keeps_activations = false;
  const config::LoadedModel model = map_model(kBlock);
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, no_keep);
  // conv3 loads conv2's 1024-byte tensor (its input) and relu1's 1024 (the add's other operand).
  CHECK(moved(mapped.programs[6]).inputs == 2048);
  CHECK(moved(mapped.programs[6]).stores == 1024);
  CHECK(moved(mapped.programs[0]).stores == 1024);
}

TEST_CASE("fusion: only what the output path lists fuses, and a tensor read twice does not") {
  const config::LoadedModel model = map_model(kBlock);
  // Activations only: relu1 cannot fuse (bn1 sits between it and conv1, and bn1 does not fuse);
  // relu3 fuses into nothing either (the add before it runs on its own).
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, keeping_accelerator(64, "[activation]"));
  for (const program::LayerProgram& program : mapped.programs) {
    INFO(program.layer);
    CHECK(program.mapping.find("fused") == std::string::npos);
  }
  // With pooling listed, a maxpool after a conv whose output also feeds another layer stays a layer.
  const config::LoadedModel branch = map_model(R"(
  - {name: conv, type: conv2d, out_channels: 16, kernel: 1, activation: relu}
  - {name: pool, type: maxpool, kernel: 2}
  - {name: side, type: maxpool, kernel: 2, inputs: [conv]}
)");
  const mapping::NetworkMapping branched =
      mapping::map_network(branch.network, 1, keeping_accelerator(64, "[activation, pooling]"));
  CHECK(branched.programs[1].mapping.find("fused") == std::string::npos);
}

namespace {

std::string accelerator_error(const std::string& compute_extra, const std::string& activation_buffer_extra) {
  const std::string text = R"(name: bad
compute: {type: systolic, rows: 4, cols: 4, dataflow: ws, clock_mhz: 100, operand_bits: 8, vector_ops_per_cycle: 4)" +
                           compute_extra + R"(}
sram:
  clock_mhz: 100
  buffers:
    - {name: w, capacity_kib: 1, banks: 1, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: [weights]}
    - {name: i, capacity_kib: 1, banks: 1, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: [inputs])" +
                           activation_buffer_extra + R"(}
    - {name: o, capacity_kib: 1, banks: 1, bank_width_bytes: 4, read_ports: 1, write_ports: 1, holds: [outputs]}
dram: {preset: ddr4-2400}
accumulators: {capacity_kib: 64, bits: 32}
)";
  try {
    config::load_accelerator_text(text, "bad.yaml");
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

}  // namespace

// Line 7: the keeps list starts at column 120; line 2: the output_path list at column 152.
TEST_CASE("accelerator: keeps on a buffer that does not hold inputs and outputs is an error", "[accelerator]") {
  CHECK(accelerator_error("", ", keeps: [activations]") ==
        "bad.yaml:7:120: error: sram.buffers.i.keeps: buffer \"i\" cannot keep activations: it must hold both inputs "
        "and outputs, so that the layer that consumes a tensor reads it where its producer wrote it\n");
  CHECK(accelerator_error("", ", keeps: [weights]") ==
        "bad.yaml:7:120: error: sram.buffers.i.keeps: expected activations, got \"weights\"\n");
  CHECK(accelerator_error("", ", keeps: []").empty());
}

TEST_CASE("accelerator: an unknown or repeated output_path stage is an error", "[accelerator]") {
  CHECK(accelerator_error(", output_path: [activation, pool]", "") ==
        "bad.yaml:2:130: error: compute.output_path: expected activation, batchnorm, add or pooling, got \"pool\"\n");
  CHECK(accelerator_error(", output_path: [add, add]", "") ==
        "bad.yaml:2:130: error: compute.output_path: \"add\" is listed twice\n");
  CHECK(accelerator_error(", output_path: [activation, batchnorm, add, pooling]", "").empty());
}

TEST_CASE("program text: on-chip bytes survive a round trip, and a bad count is an error", "[program-text]") {
  const spec::AcceleratorSpec spec = keeping_accelerator(64, "[activation, batchnorm, add]");
  const config::LoadedModel model = map_model(kBlock);
  const mapping::NetworkMapping mapped = mapping::map_network(model.network, 1, spec);
  std::vector<program::ProgramRecord> records;
  for (const program::LayerProgram& program : mapped.programs) records.push_back(program::ProgramRecord{1, program, {}});
  const std::string text = program::write_programs(records);
  // conv2 reads relu1's 1024 bytes on chip and keeps its own 1024.
  CHECK(text.find("\nlayer conv2 type conv2d batch 1 onchip_inputs 1024 onchip_outputs 1024\n") != std::string::npos);
  const std::vector<program::ProgramRecord> read = program::read_programs(text, "p.txt", 64);
  REQUIRE(read.size() == records.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    CHECK(read[i].program.onchip_input_bytes == records[i].program.onchip_input_bytes);
    CHECK(read[i].program.onchip_output_bytes == records[i].program.onchip_output_bytes);
  }
  CHECK(program::write_programs(read) == text);
  CHECK_THROWS_WITH(program::read_programs("layer a type relu batch 1 onchip_inputs -4\nmapping m\nend\n", "p.txt", 64),
                    "p.txt:1:41: error: expected a byte count from 0 to 2^62, got \"-4\"\n");
}

// Two 1x1 convolutions 16 -> 16 (no bias: 16 x 16 = 256 bytes of weights each) on an 8 x 8 x 16
// int8 map (1,024 bytes a sample), at batch 4, with a 3 KiB activation buffer that keeps
// activations and a 4.27 GB/s DDR3-1066 (4.27 bytes a cycle at 1 GHz). At batch 4 conv1's output,
// 4,096 bytes, does not fit the buffer: it goes to DRAM and back, 16,896 bytes through DRAM in all
// (4,096 in, 256 + 4,096 out; 4,096 in, 256 + 4,096 out), about 3,960 cycles of DRAM time. In two
// sub-batches of 2 its 2,048 bytes stay on chip: per pass conv1 loads 2,048 input and 256 weight
// bytes and conv2 loads 256 weight bytes and stores 2,048: 9,216 bytes, about 2,160 cycles, each
// weight loaded twice. Sub-batches of 1 would move 4 x (1,024 + 256 + 256 + 1,024) = 10,240 bytes
// (about 2,400 cycles). The estimate picks 2 sub-batches of 2; with a 64 KiB buffer the tensor
// fits at batch 4 and nothing is split.
TEST_CASE("sub-batches: a batch whose activations do not fit the keeping buffer runs in sub-batches that do",
          "[network-plan][sub-batches]") {
  const config::LoadedModel model = map_model(R"(
  - {name: conv1, type: conv2d, out_channels: 16, kernel: 1, bias: false}
  - {name: conv2, type: conv2d, out_channels: 16, kernel: 1, bias: false}
)");
  const mapping::NetworkMapping split =
      mapping::map_network(model.network, 4, keeping_accelerator(3, "[]", "ddr3-1066"));
  const auto& p = split.programs;
  for (const program::LayerProgram& program : p) {
    INFO(program.mapping);
    CHECK(program.passes == 2);
    CHECK(program.mapping.size() > std::string("; in 2 sub-batches of 2").size());
    CHECK(program.mapping.substr(program.mapping.size() - 23) == "; in 2 sub-batches of 2");
    CHECK(program.macs == 4 * 64 * 16 * 16);
  }
  CHECK(moved(p[0]).inputs == 4096);
  CHECK(moved(p[0]).weights == 2 * 256);
  CHECK(moved(p[0]).stores == 0);
  CHECK(p[0].onchip_output_bytes == 4096);
  CHECK(moved(p[1]).inputs == 0);
  CHECK(moved(p[1]).weights == 2 * 256);
  CHECK(moved(p[1]).stores == 4096);
  CHECK(p[1].onchip_input_bytes == 4096);
  // Each pass's steps wait only for steps of their own pass: the second half of a program starts
  // with no waits on the first.
  for (const program::LayerProgram& program : p) {
    const std::size_t half = program.steps.size() / 2;
    for (std::size_t i = half; i < program.steps.size(); ++i) {
      for (std::int32_t before : program.steps[i].after) CHECK(static_cast<std::size_t>(before) >= half);
    }
  }
  const mapping::NetworkMapping whole =
      mapping::map_network(model.network, 4, keeping_accelerator(64, "[]", "ddr3-1066"));
  CHECK(whole.programs[0].passes == 1);
  CHECK(moved(whole.programs[0]).weights == 256);
  CHECK(whole.programs[0].onchip_output_bytes == 4096);
}
