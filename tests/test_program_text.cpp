#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "mapping/mapper.h"
#include "program/program_text.h"

// The program text format (program::write_programs / read_programs, docs/program-format.md):
// mapped layers survive a round trip, hand-written files parse into the expected steps and totals,
// and every malformed file gives exactly the messages a user sees, `p.txt:line:col: error: ...`.
//
// Columns are 1-based byte offsets into the line. Error cases spell out the column, e.g. for
// "load weights addr 0x0 bytes 0 after -": load(1-4) weights(6-12) addr(14-17) 0x0(19-21)
// bytes(23-27) 0(29) -> the zero is in column 29.

using reusesim::program::LayerProgram;
using reusesim::program::ProgramFormatError;
using reusesim::program::ProgramRecord;
using reusesim::program::read_programs;
using reusesim::program::Step;
using reusesim::program::StepKind;
using reusesim::program::TensorRole;
using reusesim::program::write_programs;

namespace {

constexpr std::uint64_t kBurst = 64;

// The what() of the ProgramFormatError that reading `text` as p.txt throws; fails the test when it reads.
std::string program_error(const std::string& text, const reusesim::program::StepLimits& limits = {}) {
  try {
    read_programs(text, "p.txt", kBurst, limits);
  } catch (const ProgramFormatError& error) {
    return error.what();
  }
  FAIL("expected a ProgramFormatError");
  return "";
}

// A layer line and its mapping: the lines of a test start at 3.
const std::string kHead = "layer a type conv2d batch 1\nmapping m\n";

Step load(TensorRole role, std::uint64_t address, std::uint64_t bytes, std::vector<std::int32_t> after) {
  Step step;
  step.kind = StepKind::load;
  step.tensor = role;
  step.address = address;
  step.bytes = bytes;
  step.after = std::move(after);
  return step;
}

// A compute step of `gemm` reading `bytes` of SRAM, with the MACs its shape has.
Step compute_step(const reusesim::timing::GemmShape& gemm, std::uint64_t bytes) {
  Step step;
  step.kind = StepKind::compute;
  step.gemm = gemm;
  step.macs = gemm.macs();
  step.bytes = bytes;
  return step;
}

void check_same_program(const ProgramRecord& actual, const ProgramRecord& expected) {
  CHECK(actual.batch == expected.batch);
  const LayerProgram& a = actual.program;
  const LayerProgram& e = expected.program;
  CHECK(a.layer == e.layer);
  CHECK(a.type == e.type);
  CHECK(a.mapping == e.mapping);
  CHECK(a.macs == e.macs);
  CHECK(a.vector_ops == e.vector_ops);
  CHECK(a.dram_read_bytes == e.dram_read_bytes);
  CHECK(a.dram_write_bytes == e.dram_write_bytes);
  REQUIRE(a.steps.size() == e.steps.size());
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    INFO("step " << i);
    const Step& s = a.steps[i];
    const Step& t = e.steps[i];
    CHECK(s.kind == t.kind);
    CHECK(s.bytes == t.bytes);
    CHECK(s.after == t.after);
    CHECK(s.vector_ops == t.vector_ops);
    CHECK(s.macs == t.macs);
    if (s.kind == StepKind::load || s.kind == StepKind::store) {
      CHECK(s.tensor == t.tensor);
      CHECK(s.address == t.address);
    }
    if (s.kind == StepKind::compute) {
      CHECK(s.gemm.m == t.gemm.m);
      CHECK(s.gemm.n == t.gemm.n);
      CHECK(s.gemm.k == t.gemm.k);
      CHECK(s.gemm.groups == t.gemm.groups);
      CHECK(s.stationary_in_inputs == t.stationary_in_inputs);
      CHECK(s.streamed_in_weights == t.streamed_in_weights);
      CHECK(s.unit == t.unit);
      CHECK(s.mac_rate == t.mac_rate);
      CHECK(s.kept_k == t.kept_k);
    }
    if (s.kind == StepKind::vector) CHECK(s.streamed_in_weights == t.streamed_in_weights);
  }
}

}  // namespace

TEST_CASE("mapped layers survive a round trip through the text", "[program-text]") {
  const auto spec = reusesim::config::load_accelerator_file(REUSESIM_SOURCE_DIR "/configs/small.yaml");
  const auto model = reusesim::config::load_model_text(
      "name: tiny\n"
      "precision: int8\n"
      "input: {channels: 3, height: 8, width: 8}\n"
      "layers:\n"
      "  - {name: conv1, type: conv2d, out_channels: 8, kernel: 3, padding: 1, activation: relu}\n"
      "  - {name: dw, type: conv2d, depthwise: true, kernel: 3, padding: 1}\n"
      "  - {name: pool1, type: maxpool, kernel: 2, stride: 2}\n"
      "  - {name: flat, type: flatten}\n"
      "  - {name: fc, type: linear, out_features: 10}\n",
      "tiny.yaml");
  std::vector<ProgramRecord> mapped;
  for (std::int64_t batch : {1, 4}) {
    const auto layouts =
        reusesim::mapping::layout_network(model.network, batch, spec.element_bytes());
    for (std::size_t i = 0; i < model.network.layers.size(); ++i) {
      mapped.push_back({batch, reusesim::mapping::map_layer(model.network.layers[i], batch, spec, layouts[i])});
    }
  }
  REQUIRE(mapped.size() == 10);
  REQUIRE(mapped[0].program.steps.size() > 2);   // conv1 moves data and computes
  REQUIRE(mapped[3].program.steps.empty());      // flatten is a view

  const std::string text = write_programs(mapped);
  const std::vector<ProgramRecord> read = read_programs(text, "tiny.program", static_cast<std::uint64_t>(spec.dram.burst_bytes()));
  REQUIRE(read.size() == mapped.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    INFO("record " << i << ", layer " << mapped[i].program.layer);
    // Every step as mapped, and the totals the reader recomputes are the mapper's.
    check_same_program(read[i], mapped[i]);
  }
  CHECK(write_programs(read) == text);
  CHECK(text.rfind("# reusesim data-movement program, version 1\n", 0) == 0);
  CHECK(text.find("\nlayer conv1 type conv2d batch 1\nmapping gemm ") != std::string::npos);
  // dw's 8 channels (one 9-row block a fold of small's 16 rows) go as one grouped tile.
  CHECK(text.find("compute m 64 n 1 k 9 groups 8 vector_ops 0 ") != std::string::npos);
  CHECK(text.find("\nlayer flat type flatten batch 4\nmapping view of its input: no data moves\nend\n") !=
        std::string::npos);
}

TEST_CASE("a compute step keeps its operands' buffers and its unit through the text", "[program-text]") {
  // A transposed GEMM (the weights stream) on the vector unit, and its default twin.
  Step compute = compute_step({8, 16, 32}, 768);
  compute.stationary_in_inputs = true;
  compute.streamed_in_weights = true;
  compute.unit = reusesim::timing::GemmUnit::vector;
  ProgramRecord record;
  record.program.layer = "fc";
  record.program.type = "linear";
  record.program.steps.push_back(compute);
  Step plain = compute;
  plain.stationary_in_inputs = false;
  plain.streamed_in_weights = false;
  plain.unit = reusesim::timing::GemmUnit::array;
  record.program.steps.push_back(plain);
  record.program.macs = 2 * 8 * 16 * 32;
  const std::string text = write_programs({record});
  CHECK(
      text.find("compute m 8 n 16 k 32 stationary inputs streamed weights unit vector vector_ops 0 bytes 768 after -\n"
                "compute m 8 n 16 k 32 vector_ops 0 bytes 768 after -\n") != std::string::npos);
  const std::vector<ProgramRecord> read = read_programs(text, "t.program", 64);
  REQUIRE(read.size() == 1);
  check_same_program(read.front(), record);
  // The defaults may be written out.
  const std::vector<ProgramRecord> spelled = read_programs(
      "layer fc type linear batch 1\nmapping\ncompute m 8 n 16 k 32 stationary weights streamed inputs unit array "
      "vector_ops 0 bytes 768 after -\nend\n",
      "t.program", 64);
  const Step& step = spelled.front().program.steps.front();
  CHECK((!step.stationary_in_inputs && !step.streamed_in_weights && step.unit == reusesim::timing::GemmUnit::array));
}

// Quantized weights (docs/model-format.md, "Precision per tensor"): a dequantization reads the
// weight buffer, and a tile whose weights the array multiplies natively runs at its MAC rate; both
// survive the text, and the layer's totals follow them (16 dequantized ops; rate 2).
TEST_CASE("a dequantization and a native MAC rate survive the text", "[program-text]") {
  Step dequant;
  dequant.kind = StepKind::vector;
  dequant.vector_ops = 16;
  dequant.bytes = 8;
  dequant.streamed_in_weights = true;
  Step compute = compute_step({1, 4, 4}, 40);
  compute.mac_rate = 2;
  compute.after = {0};
  ProgramRecord record;
  record.program.layer = "fc";
  record.program.type = "linear";
  record.program.steps = {dequant, compute};
  record.program.macs = 16;
  record.program.vector_ops = 16;
  const std::string text = write_programs({record});
  CHECK(text.find("vector ops 16 reads weights bytes 8 after -\n"
                  "compute m 1 n 4 k 4 mac_rate 2 vector_ops 0 bytes 40 after 0\n") != std::string::npos);
  const std::vector<ProgramRecord> read = read_programs(text, "t.program", 64);
  REQUIRE(read.size() == 1);
  check_same_program(read.front(), record);
  CHECK(read.front().program.dequant_vector_ops == 16);
  CHECK(read.front().program.mac_rate == 2);
}

// The native format a layer's tiles multiply in (its MACs' energy, docs/energy-model.md) rides the
// layer line; a word that is no number format is refused there, and one the accelerator's
// technology does not price before a replay.
TEST_CASE("a layer's native MAC format survives the text and is checked against the technology", "[program-text]") {
  ProgramRecord record;
  record.program.layer = "fc";
  record.program.type = "linear";
  record.program.mac_format = "int8";
  Step compute = compute_step({1, 4, 4}, 40);
  record.program.steps = {compute};
  record.program.macs = 16;
  const std::string text = write_programs({record});
  CHECK(text.find("layer fc type linear batch 1 mac_format int8\n") != std::string::npos);
  const std::vector<ProgramRecord> read = read_programs(text, "t.program", 64);
  REQUIRE(read.size() == 1);
  CHECK(read.front().program.mac_format == "int8");
  CHECK(program_error("layer a type linear batch 1 mac_format int3\nmapping m\nend\n") ==
        "p.txt:1:40: error: expected a number format (int4, int8, int16, int32, fp8_e4m3, fp8_e5m2, fp16, bf16, "
        "fp32), got \"int3\"\n");
  // tpu_v1 names 45 nm, which prices int8 MACs (and int32 accumulation); a table without them
  // cannot price the layer.
  reusesim::spec::AcceleratorSpec accelerator =
      reusesim::config::load_accelerator_file(REUSESIM_SOURCE_DIR "/configs/tpu_v1.yaml");
  CHECK_NOTHROW(reusesim::program::check_programs_on(read, accelerator, "t.program"));
  accelerator.technology->multiply_pj.erase("int8");
  try {
    reusesim::program::check_programs_on(read, accelerator, "t.program");
    FAIL("a format the technology does not price was taken");
  } catch (const ProgramFormatError& error) {
    CHECK(std::string(error.what()) ==
          "t.program:4: error: layer fc (batch 1): mac_format int8: technology 45nm of tpu_v1 has no multiply_pj "
          "entry for int8 or no add_pj entry for int32, its accumulator type\n");
  }
}

// N:M sparse weights whose zeros the array skips (docs/model-format.md, "Structured sparsity"): a
// compute step of k 8 at 2:4 sums over kept_k 4, its MACs the dense 1 x 4 x 8 = 32; kept_k
// survives the text, and one above k is refused.
TEST_CASE("a sparse step's kept K survives the text", "[program-text][sparsity]") {
  Step compute = compute_step({1, 4, 8}, 72);
  compute.kept_k = 4;
  ProgramRecord record;
  record.program.layer = "fc";
  record.program.type = "linear";
  record.program.steps = {compute};
  record.program.macs = 32;
  const std::string text = write_programs({record});
  CHECK(text.find("compute m 1 n 4 k 8 kept_k 4 vector_ops 0 bytes 72 after -\n") != std::string::npos);
  const std::vector<ProgramRecord> read = read_programs(text, "t.program", 64);
  REQUIRE(read.size() == 1);
  check_same_program(read.front(), record);
  CHECK(read.front().program.steps.front().computed_gemm().k == 4);
  CHECK(read.front().program.macs == 32);
  std::string above = text;
  above.replace(above.find("kept_k 4"), 8, "kept_k 9");
  CHECK_THAT(program_error(above), Catch::Contains("kept_k 9 is more than the step's k (8)"));
}

TEST_CASE("the writer's text, line by line", "[program-text]") {
  ProgramRecord record;
  record.batch = 2;
  record.program.layer = "conv1";
  record.program.type = "conv2d";
  record.program.mapping = "gemm 8x16x32, weights resident";
  record.program.steps.push_back(load(TensorRole::weights, 0x1000, 512, {}));
  record.program.steps.push_back(load(TensorRole::inputs, 0x0, 256, {}));
  Step compute;
  compute.kind = StepKind::compute;
  compute.gemm = {8, 16, 32};
  compute.macs = 8 * 16 * 32;
  compute.vector_ops = 128;
  compute.bytes = 768;
  compute.after = {0, 1};
  record.program.steps.push_back(compute);
  Step vector;
  vector.kind = StepKind::vector;
  vector.vector_ops = 10;
  vector.bytes = 5;
  vector.after = {2};
  record.program.steps.push_back(vector);
  Step store = load(TensorRole::outputs, 0x2abc, 130, {3, 2});
  store.kind = StepKind::store;
  record.program.steps.push_back(store);
  ProgramRecord odd;
  odd.program.layer = "block 1/\"a\"#\\";
  odd.program.type = "";
  odd.program.mapping = " padded\t";
  ProgramRecord empty_mapping;
  empty_mapping.program.layer = "v";
  empty_mapping.program.type = "flatten";
  ProgramRecord quote_first;
  quote_first.program.layer = "q";
  quote_first.program.type = "t";
  quote_first.program.mapping = "\"quoted\" # and a hash";
  ProgramRecord hash_inside;
  hash_inside.program.layer = "h";
  hash_inside.program.type = "t";
  hash_inside.program.mapping = "tiles #1 and #2";
  const std::vector<ProgramRecord> records{record, odd, empty_mapping, quote_first, hash_inside};
  const std::string text = write_programs(records);
  CHECK(text ==
        "# reusesim data-movement program, version 1\n"
        "# steps are numbered from 0 within each layer; \"after\" lists the earlier steps a step waits for\n"
        "\n"
        "layer conv1 type conv2d batch 2\n"
        "mapping gemm 8x16x32, weights resident\n"
        "load weights addr 0x1000 bytes 512 after -\n"
        "load inputs addr 0x0 bytes 256 after -\n"
        "compute m 8 n 16 k 32 vector_ops 128 bytes 768 after 0,1\n"
        "vector ops 10 bytes 5 after 2\n"
        "store outputs addr 0x2abc bytes 130 after 3,2\n"
        "end\n"
        "\n"
        "layer \"block 1/\\\"a\\\"#\\\\\" type \"\" batch 1\n"
        "mapping \" padded\\t\"\n"
        "end\n"
        "\n"
        "layer v type flatten batch 1\n"
        "mapping\n"
        "end\n"
        "\n"
        "layer q type t batch 1\n"
        "mapping \"\\\"quoted\\\" # and a hash\"\n"
        "end\n"
        "\n"
        "layer h type t batch 1\n"
        "mapping tiles #1 and #2\n"
        "end\n");
  // Reading it back gives the same programs, with the totals recomputed (64-byte bursts).
  const std::vector<ProgramRecord> read = read_programs(text, "p.txt", kBurst);
  REQUIRE(read.size() == 5);
  record.program.macs = 8 * 16 * 32;
  record.program.vector_ops = 138;
  record.program.dram_read_bytes = 512 + 256;
  record.program.dram_write_bytes = 192;  // 0x2abc + 130 B touches the bursts at 0x2a80, 0x2ac0, 0x2b00
  check_same_program(read[0], record);
  check_same_program(read[1], odd);
  check_same_program(read[2], empty_mapping);
  check_same_program(read[3], quote_first);
  check_same_program(read[4], hash_inside);
  CHECK(write_programs(read) == text);
}

TEST_CASE("hand-written programs: comments, blanks, strings, CRLF and burst-widened totals", "[program-text]") {
  const std::string text =
      "# a hand-written program\r\n"                                       // 1
      "\n"                                                                  // 2
      "\t layer \"conv 1\" type conv2d batch 4   # a trailing comment\n"    // 3
      "mapping   gemm 8x16x32 # kept: the mapping runs to the end   \r\n"  // 4
      "load weights addr 0x30 bytes 40 after -#comment\n"                  // 5: bursts 0x0 and 0x40
      "  load\tinputs addr 0X1000 bytes 64 after -   \r\n"                 // 6: one burst
      "compute m 8 n 16 k 32 vector_ops 128 bytes 768 after 0,1\n"         // 7
      "vector ops 0 bytes 5 after 2\n"                                      // 8: ops may be 0 (a gather)
      "store outputs addr 0x2000 bytes 130 after 003,2\n"                  // 9: three bursts; 003 is 3
      "end # done\n"                                                        // 10
      "layer \"q\\\"\\\\\\t\\x01\\xC3\\xa9\" type \"my type\" batch 1000000\n"  // 11: \xC3\xa9 is UTF-8
      "mapping \"  padded  \"   # a comment after a quoted mapping\n"      // 12
      "end\n"                                                               // 13
      "layer \"\" type t batch 1\n"                                         // 14: an empty name
      "mapping\n"                                                           // 15: an empty mapping
      "end";                                                                // 16: no final newline
  const std::vector<ProgramRecord> read = read_programs(text, "p.txt", kBurst);
  REQUIRE(read.size() == 3);
  const LayerProgram& conv = read[0].program;
  CHECK(read[0].batch == 4);
  CHECK(conv.layer == "conv 1");
  CHECK(conv.type == "conv2d");
  CHECK(conv.mapping == "gemm 8x16x32 # kept: the mapping runs to the end");
  REQUIRE(conv.steps.size() == 5);
  CHECK(conv.steps[0].kind == StepKind::load);
  CHECK(conv.steps[0].tensor == TensorRole::weights);
  CHECK(conv.steps[0].address == 0x30);
  CHECK(conv.steps[0].bytes == 40);
  CHECK(conv.steps[0].after.empty());
  CHECK(conv.steps[1].tensor == TensorRole::inputs);
  CHECK(conv.steps[1].address == 0x1000);
  CHECK(conv.steps[2].kind == StepKind::compute);
  CHECK(conv.steps[2].gemm.m == 8);
  CHECK(conv.steps[2].gemm.n == 16);
  CHECK(conv.steps[2].gemm.k == 32);
  CHECK(conv.steps[2].macs == 4096);
  CHECK(conv.steps[2].vector_ops == 128);
  CHECK(conv.steps[2].bytes == 768);
  CHECK(conv.steps[2].after == std::vector<std::int32_t>{0, 1});
  CHECK(conv.steps[3].kind == StepKind::vector);
  CHECK(conv.steps[3].vector_ops == 0);
  CHECK(conv.steps[3].bytes == 5);
  CHECK(conv.steps[4].kind == StepKind::store);
  CHECK(conv.steps[4].tensor == TensorRole::outputs);
  CHECK(conv.steps[4].after == std::vector<std::int32_t>{3, 2});
  CHECK(conv.macs == 4096);
  CHECK(conv.vector_ops == 128);
  CHECK(conv.dram_read_bytes == 128 + 64);
  CHECK(conv.dram_write_bytes == 192);
  CHECK(read[1].program.layer == "q\"\\\t\x01\xc3\xa9");
  CHECK(read[1].program.type == "my type");
  CHECK(read[1].program.mapping == "  padded  ");
  CHECK(read[1].batch == 1'000'000);
  CHECK(read[1].program.steps.empty());
  CHECK(read[2].program.layer.empty());
  CHECK(read[2].program.mapping.empty());
  // The writer's text reads back to the same programs.
  CHECK(write_programs(read_programs(write_programs(read), "p.txt", kBurst)) == write_programs(read));
  // The burst size only changes the DRAM totals.
  const std::vector<ProgramRecord> wide = read_programs(text, "p.txt", 4096);
  CHECK(wide[0].program.dram_read_bytes == 4096 + 4096);
  CHECK(wide[0].program.dram_write_bytes == 4096);
  CHECK_THROWS_AS(read_programs(text, "p.txt", 0), std::invalid_argument);
}

TEST_CASE("the writer refuses programs the format cannot carry", "[program-text]") {
  ProgramRecord record;
  record.program.layer = "a";
  record.program.type = "t";
  Step compute;
  compute.kind = StepKind::compute;
  compute.gemm = {2, 3, 4};
  compute.macs = 23;
  compute.bytes = 10;
  record.program.steps = {compute};
  CHECK_THROWS_WITH(write_programs({record}), "write_programs: layer a, step 0: macs is not m x n x k");
  Step store = load(TensorRole::weights, 0, 64, {});
  store.kind = StepKind::store;
  record.program.steps = {store};
  CHECK_THROWS_WITH(write_programs({record}), "write_programs: layer a, step 0: a store writes outputs");
  Step busy_load = load(TensorRole::inputs, 0, 64, {});
  busy_load.vector_ops = 3;
  record.program.steps = {busy_load};
  CHECK_THROWS_WITH(write_programs({record}), "write_programs: layer a, step 0: a load or store has no MACs or vector ops");
  Step vector;
  vector.kind = StepKind::vector;
  vector.macs = 1;
  vector.bytes = 1;
  record.program.steps = {vector};
  CHECK_THROWS_WITH(write_programs({record}), "write_programs: layer a, step 0: a vector step has no MACs");
}

TEST_CASE("file structure errors", "[program-text]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "p.txt: error: the program has no layers\n"},
      {"# only a comment\n\n  \t\n", "p.txt: error: the program has no layers\n"},
      {kHead + "lod weights addr 0x0 bytes 64 after -\nend\n",
       "p.txt:3:1: error: unknown keyword \"lod\" (a line is layer, mapping, load, store, compute, vector or end)\n"},
      {kHead + "  \"load\" weights\nend\n", "p.txt:3:3: error: expected a keyword, got a string\n"},
      {"load weights addr 0x0 bytes 64 after -\n" + kHead + "end\n",
       "p.txt:1:1: error: \"load\" outside a layer: mapping and step lines go between \"layer\" and \"end\"\n"},
      {kHead + "end\n  vector ops 1 bytes 1 after -\n",
       "p.txt:4:3: error: \"vector\" outside a layer: mapping and step lines go between \"layer\" and \"end\"\n"},
      {"mapping x\n" + kHead + "end\n",
       "p.txt:1:1: error: \"mapping\" outside a layer: mapping and step lines go between \"layer\" and \"end\"\n"},
      {kHead + "end\nend\n", "p.txt:4:1: error: \"end\" without a layer\n"},
      {kHead + "load weights addr 0x0 bytes 64 after -\n", "p.txt:1:1: error: layer \"a\" has no \"end\"\n"},
      {kHead + "layer b type relu batch 1\nmapping x\nend\n",
       "p.txt:1:1: error: layer \"a\" has no \"end\" (the next layer starts on line 3)\n"},
      // A missing mapping line is reported once, where a step or the end comes instead.
      {"layer a type t batch 1\nload weights addr 0x0 bytes 64 after -\nvector ops 1 bytes 1 after 0\nmapping late\nend\n",
       "p.txt:2:1: error: expected \"mapping <text>\" after the layer line, got \"load\"\n"},
      {"layer v type flatten batch 1\nend\n",
       "p.txt:2:1: error: expected \"mapping <text>\" after the layer line, got \"end\"\n"},
      {kHead + "mapping again\nend\n", "p.txt:3:1: error: a layer has one mapping line; the first is on line 2\n"},
      {"layer a type t batch 1\nmapping \"q\" extra\nend\n",
       "p.txt:2:13: error: unexpected \"extra\" after the quoted mapping text (a mapping line is: mapping <text>)\n"},
      {"# reusesim data-movement program, version 2\n" + kHead + "end\n",
       "p.txt:1:43: error: unsupported format version \"2\" (this reader knows version 1)\n"},
      {kHead + "end now\n", "p.txt:3:5: error: unexpected \"now\" (an end line is: end)\n"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    CHECK(program_error(text) == expected);
  }
}

TEST_CASE("layer line and string errors", "[program-text]") {
  const std::string syntax =
      " (a layer line is: layer <name> type <type> batch <n> [onchip_inputs <bytes>] [onchip_outputs <bytes>] [passes "
      "<n>] [mac_format <format>])\n";
  const std::string rest = "mapping m\nend\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"layer\n" + rest, "p.txt:1:6: error: missing the layer name" + syntax},
      {"layer a\n" + rest, "p.txt:1:8: error: missing \"type\"" + syntax},
      {"layer a typ conv2d batch 1\n" + rest, "p.txt:1:9: error: expected \"type\", got \"typ\"" + syntax},
      {"layer a type\n" + rest, "p.txt:1:13: error: missing a value after \"type\"" + syntax},
      {"layer a type conv2d\n" + rest, "p.txt:1:20: error: missing \"batch\"" + syntax},
      {"layer a type conv2d batch 1 extra\n" + rest, "p.txt:1:29: error: unexpected \"extra\"" + syntax},
      {"layer a type conv2d batch \"1\"\n" + rest, "p.txt:1:27: error: only layer names and types may be quoted" + syntax},
      {"layer a type conv2d batch 0\n" + rest, "p.txt:1:27: error: expected a batch size from 1 to 1000000, got \"0\"\n"},
      {"layer a type conv2d batch 1000001\n" + rest,
       "p.txt:1:27: error: expected a batch size from 1 to 1000000, got \"1000001\"\n"},
      {"layer a type conv2d batch -1\n" + rest, "p.txt:1:27: error: expected a batch size from 1 to 1000000, got \"-1\"\n"},
      {"layer \"a type conv2d batch 1\n" + rest, "p.txt:1:7: error: the string has no closing quote\n"},
      {"layer \"a\\\n" + rest, "p.txt:1:7: error: the string has no closing quote\n"},
      {"layer \"a\\q\" type t batch 1\n" + rest,
       "p.txt:1:9: error: unknown escape \"\\q\" in a string (known: \\\" \\\\ \\t \\n \\r \\xHH)\n"},
      {"layer \"a\\x4\" type t batch 1\n" + rest, "p.txt:1:9: error: \\x in a string needs two hexadecimal digits\n"},
      {"layer \"a\"b type t batch 1\n" + rest, "p.txt:1:10: error: expected a space after the closing quote\n"},
      // Names, types and mapping text reach the JSON report, which must be UTF-8 (found by fuzzing).
      {"layer \"a\\xff\" type t batch 1\n" + rest, "p.txt:1:7: error: expected UTF-8 text in the layer name, got the byte 0xff\n"},
      {"layer a type t\xc3 batch 1\n" + rest, "p.txt:1:14: error: expected UTF-8 text in the layer type, got the byte 0xc3\n"},
      {"layer a type t batch 1\nmapping caf\xc3\xa9 \xed\xa0\x80\nend\n",
       "p.txt:2:9: error: expected UTF-8 text in the mapping text, got the byte 0xed\n"},
  };
  for (const auto& [text, expected] : cases) {
    INFO(text);
    CHECK(program_error(text) == expected);
  }
}

TEST_CASE("step line errors", "[program-text]") {
  const std::string load_syntax = " (a load line is: load <tensor> addr 0x<hex> bytes <n> after <steps>)\n";
  const std::string store_syntax = " (a store line is: store outputs addr 0x<hex> bytes <n> after <steps>)\n";
  const std::string compute_syntax =
      " (a compute line is: compute m <m> n <n> k <k> [groups <g>] [k_row <r>] [stationary inputs] [streamed weights] "
      "[unit vector] [mac_rate <r>] [kept_k <k>] vector_ops <ops> [stage_ops <ops>] bytes <n> [psum_read <n>] "
      "[psum_write <n>] "
      "after <steps>)\n";
  const std::string vector_syntax = " (a vector line is: vector ops <ops> [reads weights] bytes <n> after <steps>)\n";
  // Line 3 is the step under test (after kHead); line 4 ends the layer.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"load", "p.txt:3:5: error: missing the tensor" + load_syntax},
      {"load wieghts addr 0x0 bytes 64 after -",
       "p.txt:3:6: error: unknown tensor \"wieghts\" (expected weights, inputs, outputs, state or kv_cache)\n"},
      {"load \"weights\" addr 0x0 bytes 64 after -",
       "p.txt:3:6: error: only layer names and types may be quoted" + load_syntax},
      {"load weights adr 0x0 bytes 64 after -", "p.txt:3:14: error: expected \"addr\", got \"adr\"" + load_syntax},
      {"load weights addr 40 bytes 64 after -",
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"40\"\n"},
      {"load weights addr 0x1000000000000 bytes 64 after -",
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"0x1000000000000\"\n"},
      {"load weights addr 0x1g bytes 64 after -",
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"0x1g\"\n"},
      {"load weights addr 0x bytes 64 after -",
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"0x\"\n"},
      {"load weights addr 0x0 bytes 0 after -",
       "p.txt:3:29: error: bytes is 0: every step moves or reads at least one byte\n"},
      {"load weights addr 0x0 bytes 1099511627777 after -",
       "p.txt:3:29: error: expected a byte count from 1 to 2^40, got \"1099511627777\"\n"},
      {"load weights addr 0x0 bytes 6e4 after -",
       "p.txt:3:29: error: expected a byte count from 1 to 2^40, got \"6e4\"\n"},
      {"load weights addr 0x0 bytes 64", "p.txt:3:31: error: missing \"after\"" + load_syntax},
      {"load weights addr 0x0 bytes 64 after", "p.txt:3:37: error: missing a value after \"after\"" + load_syntax},
      {"load weights addr 0x0 bytes 64 after - more", "p.txt:3:40: error: unexpected \"more\"" + load_syntax},
      // Every wrong value of a line is reported; a missing or misplaced field ends the line.
      {"load wieghts addr zz bytes 0 after 9",
       "p.txt:3:6: error: unknown tensor \"wieghts\" (expected weights, inputs, outputs, state or kv_cache)\n"
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"zz\"\n"
       "p.txt:3:28: error: bytes is 0: every step moves or reads at least one byte\n"
       "p.txt:3:36: error: step 0 cannot wait for step 9: only earlier steps can be listed\n"},
      {"load weights addr zz size 64 after -",
       "p.txt:3:19: error: expected an address 0x<hex> below 2^48, got \"zz\"\n"
       "p.txt:3:22: error: expected \"bytes\", got \"size\"" +
           load_syntax},
      {"store weights addr 0x0 bytes 64 after -", "p.txt:3:7: error: a store writes outputs, got \"weights\"\n"},
      {"store outputs", "p.txt:3:14: error: missing \"addr\"" + store_syntax},
      {"compute m 0 n 4 k 4 vector_ops 0 bytes 32 after -",
       "p.txt:3:11: error: expected m from 1 to 2^50, got \"0\"\n"},
      {"compute m 4 n x k 4 vector_ops 0 bytes 32 after -",
       "p.txt:3:15: error: expected n from 1 to 2^50, got \"x\"\n"},
      {"compute m 4 n 4 k 1125899906842625 vector_ops 0 bytes 32 after -",
       "p.txt:3:19: error: expected k from 1 to 2^50, got \"1125899906842625\"\n"},
      {"compute m 1125899906842624 n 2 k 1 vector_ops 0 bytes 32 after -",
       "p.txt:3:11: error: m x n x k is more than 2^50 MACs\n"},
      {"compute m 1 n 1 k 1 groups 0 vector_ops 0 bytes 1 after -",
       "p.txt:3:28: error: expected groups from 1 to 2^50, got \"0\"\n"},
      {"compute m 1125899906842624 n 1 k 1 groups 2 vector_ops 0 bytes 32 after -",
       "p.txt:3:11: error: groups x m x n x k is more than 2^50 MACs\n"},
      {"compute m 4 n 4 k 4 vector_ops -1 bytes 32 after -",
       "p.txt:3:32: error: expected vector_ops from 0 to 2^50, got \"-1\"\n"},
      {"compute m 1 n 1 k 1", "p.txt:3:20: error: missing \"vector_ops\"" + compute_syntax},
      {"compute m 1 n 1 k 1 unit gpu vector_ops 0 bytes 2 after -",
       "p.txt:3:26: error: unit: expected array or vector, got \"gpu\"\n"},
      {"compute m 1 n 1 k 1 streamed outputs vector_ops 0 bytes 2 after -",
       "p.txt:3:30: error: streamed: expected weights or inputs, got \"outputs\"\n"},
      {"compute m 1 n 1 k 1 vector_ops 0 bytes 0 after -",
       "p.txt:3:40: error: bytes is 0: every step moves or reads at least one byte\n"},
      {"vector", "p.txt:3:7: error: missing \"ops\"" + vector_syntax},
      {"vector ops x bytes 1 after -", "p.txt:3:12: error: expected ops from 0 to 2^50, got \"x\"\n"},
      {"vector ops 1 bytes 0 after -", "p.txt:3:20: error: bytes is 0: every step moves or reads at least one byte\n"},
      {"vector ops 1 bytes 1 after 0",
       "p.txt:3:28: error: step 0 cannot wait for step 0: only earlier steps can be listed\n"},
  };
  for (const auto& [line, expected] : cases) {
    INFO(line);
    CHECK(program_error(kHead + line + "\nend\n") == expected);
  }
}

TEST_CASE("dependency list errors", "[program-text]") {
  // Step 0 is a load (line 3); line 4 is step 1, `vector ops 1 bytes 1 after <list>`, its list in column 28.
  const std::string first = kHead + "load weights addr 0x0 bytes 64 after -\nvector ops 1 bytes 1 after ";
  const std::string list_message = "p.txt:4:28: error: expected earlier step numbers separated by commas, or \"-\", got ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"1", "p.txt:4:28: error: step 1 cannot wait for step 1: only earlier steps can be listed\n"},
      {"0,5", "p.txt:4:30: error: step 1 cannot wait for step 5: only earlier steps can be listed\n"},
      {"0,99999999999999999999999", "p.txt:4:30: error: step 1 cannot wait for step 99999999999999999999999: only earlier steps can be listed\n"},
      {"0,0", "p.txt:4:30: error: step 0 is listed twice\n"},
      {"0,00", "p.txt:4:30: error: step 00 is listed twice\n"},
      {"0;1", list_message + "\"0;1\"\n"},
      {",0", list_message + "\",0\"\n"},
      {"0,", list_message + "\"0,\"\n"},
      {"0,,1", list_message + "\"0,,1\"\n"},
      {"-1", list_message + "\"-1\"\n"},
      {"-,0", list_message + "\"-,0\"\n"},
  };
  for (const auto& [list, expected] : cases) {
    INFO(list);
    CHECK(program_error(first + list + "\nend\n") == expected);
  }
  // A malformed step still takes its index: step 1 may wait for it.
  CHECK(program_error(kHead + "load bogus addr 0x0 bytes 64 after -\nvector ops 1 bytes 1 after 0\nend\n") ==
        "p.txt:3:6: error: unknown tensor \"bogus\" (expected weights, inputs, outputs, state or kv_cache)\n");
}

TEST_CASE("layer totals beyond 2^62 are errors", "[program-text]") {
  // 4097 steps of 2^50 MACs and 2^50 vector ops each: 4097 x 2^50 > 2^62 = 4096 x 2^50.
  std::string text = kHead;
  for (int i = 0; i < 4097; ++i) text += "compute m 1125899906842624 n 1 k 1 vector_ops 1125899906842624 bytes 1 after -\n";
  text += "end\n";
  CHECK(program_error(text) ==
        "p.txt:4100:1: error: the layer's MACs add up to more than 2^62\n"
        "p.txt:4100:1: error: the layer's vector ops add up to more than 2^62\n");
  // 4096 such steps are exactly 2^62: allowed.
  text = kHead;
  for (int i = 0; i < 4096; ++i) text += "compute m 1125899906842624 n 1 k 1 vector_ops 0 bytes 1 after -\n";
  text += "end\n";
  CHECK(read_programs(text, "p.txt", kBurst).front().program.macs == std::int64_t{1} << 62);
}

TEST_CASE("errors come in line order, at most 20", "[program-text]") {
  // An unclosed layer is found at the end of the file but reported at its own line, first.
  std::string text = kHead;
  for (int i = 0; i < 25; ++i) text += "load weights addr 0x0 bytes 0 after -\n";
  const std::string message = program_error(text);
  std::string expected = "p.txt:1:1: error: layer \"a\" has no \"end\"\n";
  for (int line = 3; line < 3 + 19; ++line) {
    expected += "p.txt:" + std::to_string(line) + ":29: error: bytes is 0: every step moves or reads at least one byte\n";
  }
  CHECK(message == expected);
  try {
    read_programs(text, "p.txt", kBurst);
  } catch (const ProgramFormatError& error) {
    CHECK(error.messages().size() == 20);
    CHECK(error.messages().front() == "p.txt:1:1: error: layer \"a\" has no \"end\"");
  }
}

TEST_CASE("a program beyond the step limits is refused at the first step past them", "[program-text]") {
  // Limits of 2 steps per layer and 3 in all (run's are 4,000,000 and 8,000,000). Lines: 1 layer,
  // 2 mapping, 3-4 steps 0-1, 5 end, 6 layer, 7 mapping, 8 step 0 (the third in all), 9 step 1
  // (the fourth: refused), and what follows is never read (its error would be reported).
  const std::string step = "vector ops 1 bytes 1 after -\n";
  const std::string two_layers = "layer a type relu batch 1\nmapping m\n" + step + step + "end\n" +
                                 "layer b type relu batch 1\nmapping m\n" + step + step + "oops\nend\n";
  const reusesim::program::StepLimits limits{2, 3};
  CHECK(program_error(two_layers, limits) ==
        "p.txt:9:1: error: the program has more than 3 steps, the limit of one replay (as of one reusesim run); "
        "split it into several files\n");
  // Line 5 is a layer's third step.
  const std::string long_layer = "layer a type relu batch 1\nmapping m\n" + step + step + step + "end\n";
  CHECK(program_error(long_layer, limits) ==
        "p.txt:5:1: error: layer \"a\" has more than 2 steps, the limit of one layer (as in reusesim run); "
        "split it into several layers\n");
  // At the limits, the program reads.
  CHECK(read_programs("layer a type relu batch 1\nmapping m\n" + step + step + "end\n", "p.txt", kBurst, limits).size() == 1);
  const reusesim::program::StepLimits defaults;
  CHECK(defaults.layer_steps == 4'000'000);
  CHECK(defaults.total_steps == 8'000'000);
}

// A GEMM on the vector unit carries the output path's busiest stage and partial sums in the output
// buffer too (a K-tiled tile's: the vector unit has no accumulators), and a transposed one its
// buffers: every optional field of a compute line, in the order of the syntax, on one line.
TEST_CASE("a compute line with its unit, operand buffers, stage ops and partial sums round trips", "[program-text]") {
  const std::string line =
      "compute m 1 n 4 k 16 groups 2 stationary inputs streamed weights unit vector vector_ops 8 stage_ops 4 bytes 160 "
      "psum_read 32 psum_write 32 after -";
  const std::vector<ProgramRecord> records =
      read_programs("layer a type matmul batch 1\nmapping m\n" + line + "\nend\n", "p.txt", kBurst);
  const Step& step = records.at(0).program.steps.at(0);
  CHECK(step.unit == reusesim::timing::GemmUnit::vector);
  CHECK((step.stationary_in_inputs && step.streamed_in_weights));
  CHECK(std::make_tuple(step.stage_ops, step.psum_read_bytes, step.psum_write_bytes) ==
        std::make_tuple(std::int64_t{4}, std::uint64_t{32}, std::uint64_t{32}));
  CHECK(write_programs(records).find("\n" + line + "\nend\n") != std::string::npos);
}

TEST_CASE("output-path stages, spilled partial sums and sub-batch passes round trip and are checked",
          "[program-text]") {
  // A layer in 2 passes (sub-batches) of 2 steps: each a compute step whose output path's busiest
  // stage has 64 of its 96 ops, and which reads back and writes 512 bytes of partial sums.
  const std::string text =
      "layer a type conv2d batch 2 passes 2\nmapping m\n"
      "load weights addr 0x0 bytes 64 after -\n"
      "compute m 1 n 4 k 16 vector_ops 96 stage_ops 64 bytes 80 psum_read 512 psum_write 512 after 0\n"
      "load weights addr 0x0 bytes 64 after -\n"
      "compute m 1 n 4 k 16 vector_ops 96 stage_ops 64 bytes 80 psum_read 512 psum_write 512 after 2\n"
      "end\n";
  const std::vector<ProgramRecord> records = read_programs(text, "p.txt", kBurst);
  REQUIRE(records.size() == 1);
  const LayerProgram& program = records.front().program;
  CHECK(program.passes == 2);
  const Step& compute = program.steps[1];
  CHECK(compute.stage_ops == 64);
  CHECK(compute.busiest_stage_ops() == 64);
  CHECK(compute.psum_read_bytes == 512);
  CHECK(compute.psum_write_bytes == 512);
  CHECK(write_programs(records) ==
        "# reusesim data-movement program, version 1\n"
        "# steps are numbered from 0 within each layer; \"after\" lists the earlier steps a step waits for\n\n" +
            text);
  // Without stage_ops every vector op is in one stage.
  CHECK(read_programs(kHead + "compute m 1 n 1 k 1 vector_ops 7 bytes 2 after -\nend\n", "p.txt", kBurst)
            .front()
            .program.steps.front()
            .busiest_stage_ops() == 7);
  CHECK(program_error(kHead + "compute m 1 n 1 k 1 vector_ops 7 stage_ops 8 bytes 2 after -\nend\n") ==
        "p.txt:3:44: error: stage_ops 8 is more than the step's vector_ops (7)\n");
  CHECK(
      program_error("layer a type conv2d batch 2 passes 2\nmapping m\nload weights addr 0x0 bytes 64 after -\nend\n") ==
      "p.txt:1:36: error: passes 2 does not divide the layer's 1 steps into equal parts\n");
  ProgramRecord uneven = records.front();
  uneven.program.passes = 3;
  CHECK_THROWS_WITH(write_programs({uneven}), "write_programs: layer a: passes 3 does not divide its 4 steps");
}
