// Error reporting of model files: every class of mistake in a model file must produce exactly the
// message a user should see (file:line:col: error: key.path: message), and valid files must load.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include "input_error_text.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"

using reusesim::util::InputError;
using reusesim::config::LoadedModel;
using reusesim::config::load_model_text;

namespace {

// The full error text of loading `text` as model.yaml; fails the test when it loads.
std::string load_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { load_model_text(text, "model.yaml", overrides); });
}

// A model whose `layers:` key is on line 4, so the first layer is on line 5.
std::string image_model(const std::string& layers) {
  return "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nlayers:\n" + layers;
}

// A model with a two-layer block `bott(mid, out)` on lines 4-9; `layers:` is line 10.
std::string block_model(const std::string& layers) {
  return "name: m\n"
         "precision: fp32\n"
         "input: {channels: 3, height: 8, width: 8}\n"
         "blocks:\n"
         "  bott:\n"
         "    parameters: [mid, out]\n"
         "    layers:\n"
         "      - {name: a, type: conv2d, out_channels: $mid, kernel: 1}\n"
         "      - {name: b, type: conv2d, out_channels: $out, kernel: 3, padding: 1}\n"
         "layers:\n" +
         layers;
}

const reusesim::workload::NetworkLayer& layer_named(const LoadedModel& model, const std::string& name) {
  for (const auto& layer : model.network.layers) {
    if (layer.spec.name == name) return layer;
  }
  FAIL("no layer named " << name);
  throw std::logic_error("unreachable");
}

std::vector<std::string> layer_names(const LoadedModel& model) {
  std::vector<std::string> names;
  for (const auto& layer : model.network.layers) names.push_back(layer.spec.name);
  return names;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// YAML level

// A YAML syntax error is reported with the line and column yaml-cpp found it at.
TEST_CASE("model: YAML syntax error", "[model-errors]") {
  CHECK(load_error("name: m\n  precision: fp32\n") == "model.yaml:2:12: error: YAML syntax error: illegal map value\n");
}

// A tab used for indentation is a syntax error at the tab.
TEST_CASE("model: tab indentation is a syntax error", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\n\tinput: 3\n") ==
        "model.yaml:3:1: error: YAML syntax error: illegal tab when looking for indentation\n");
}

// Two YAML documents in one file are rejected at the "---" that starts the second one.
TEST_CASE("model: several YAML documents", "[model-errors]") {
  CHECK(load_error("name: a\n---\nname: b\n") == "model.yaml:2:1: error: expected one YAML document, found 2\n");
}

// yaml-cpp 0.7's LoadAll loops forever, eating memory, on a "," that follows a complete document;
// the loader reports it as a syntax error at the comma (found by fuzzing).
TEST_CASE("model: stray comma after a document", "[model-errors]") {
  CHECK(load_error("[1, 2],\n") == "model.yaml:1:7: error: YAML syntax error: unexpected \",\"\n");
  CHECK(load_error("- a\n,\n") == "model.yaml:2:1: error: YAML syntax error: unexpected \",\"\n");
}

// The same in a --set value: reported at the --set argument.
TEST_CASE("model: stray comma in a --set value", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: fc, type: linear, out_features: 2}\n"), {"layers.fc.out_features=[3],"}) ==
        "--set layers.fc.out_features=[3],: error: layers.fc.out_features: YAML syntax error: unexpected \",\"\n");
}

// Names end up in JSON reports, which must be UTF-8: other bytes are refused where they are
// (found by fuzzing: the footprint report threw).
TEST_CASE("model: text that is not UTF-8", "[model-errors]") {
  CHECK(load_error("name: m\xff\n") == "model.yaml:1:8: error: expected UTF-8 text, got the byte 0xff\n");
  CHECK(load_error("name: caf\xc3\xa9\n# \xe2\x82\n") ==
        "model.yaml:2:3: error: expected UTF-8 text, got the byte 0xe2\n");
  CHECK(load_error("name: \xc0\xaf\n") == "model.yaml:1:7: error: expected UTF-8 text, got the byte 0xc0\n");
}

// Control characters are not YAML (1.2, section 5.1); yaml-cpp turned "m<00>_x" into bytes that
// are not UTF-8, and the JSON report threw (found by fuzzing). Tab and CR stay allowed.
TEST_CASE("model: a control character", "[model-errors]") {
  const std::string expected_tail = ", a control character (YAML allows only tab, line feed and carriage return)\n";
  CHECK(load_error(std::string("name: m\0_x\n", 11)) ==
        "model.yaml:1:8: error: expected YAML text, got the byte 0x00" + expected_tail);
  CHECK(load_error("name: m\n# \x04\n") == "model.yaml:2:3: error: expected YAML text, got the byte 0x04" + expected_tail);
  CHECK(load_error("name: m\x7f\n") == "model.yaml:1:8: error: expected YAML text, got the byte 0x7f" + expected_tail);
  // Windows line ends and a tab before a comment still load.
  const LoadedModel model = load_model_text(
      "name: m\r\nprecision: fp32\t# comment\r\ninput: {features: 4}\r\n"
      "layers:\r\n  - {name: fc, type: linear, out_features: 2}\r\n",
      "model.yaml");
  CHECK(model.network.layers.size() == 1);
}

// yaml-cpp stops deep nesting itself ("bad file"); it gets the loader's own message.
TEST_CASE("model: nesting too deep for yaml-cpp", "[model-errors]") {
  CHECK(load_error("name: " + std::string(3000, '[')) ==
        "model.yaml:1:1: error: document too large or too deeply nested (limits: 1000000 values, depth 64)\n");
}

// Inputs are regular files. /dev/zero (or a path mistaken for a model) filled memory before and
// ended as an internal error; `check` on a FIFO that nobody writes blocked forever in open().
TEST_CASE("model: a device, a FIFO or a directory given as the file", "[model-errors]") {
  CHECK(input_error_text([] { reusesim::config::load_model_file("/dev/zero"); }) ==
        "/dev/zero: error: is a character device, not a regular file; inputs are read from regular files\n");
  const std::string directory = std::string(REUSESIM_SOURCE_DIR) + "/models";
  CHECK(input_error_text([&] { reusesim::config::load_model_file(directory); }) ==
        directory + ": error: is a directory, not a regular file; inputs are read from regular files\n");
  char scratch[] = "/tmp/reusesim-fifo-XXXXXX";
  REQUIRE(mkdtemp(scratch) != nullptr);
  const std::string fifo = std::string(scratch) + "/model.yaml";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(input_error_text([&] { reusesim::config::load_model_file(fifo); }) ==
        fifo + ": error: is a FIFO (named pipe), not a regular file; inputs are read from regular files\n");
  std::filesystem::remove_all(scratch);
}

// The file is checked again as it is read: a file that grows past the limit still ends there.
TEST_CASE("model: a file larger than 64 MiB", "[model-errors]") {
  char scratch[] = "/tmp/reusesim-big-XXXXXX";
  REQUIRE(mkdtemp(scratch) != nullptr);
  const std::string big = std::string(scratch) + "/model.yaml";
  std::ofstream(big).close();
  std::filesystem::resize_file(big, (std::uintmax_t{64} << 20) + 1);
  CHECK(input_error_text([&] { reusesim::config::load_model_file(big); }) ==
        big + ": error: larger than 64 MiB, the most an input file of its kind may have\n");
  std::filesystem::remove_all(scratch);
}

// YAML merge keys: yaml-cpp keeps "<<" as a plain key and merges nothing, so the layer lost its
// type and out_features without a word about why. "  - {name: fc, " is 15 characters: column 16.
TEST_CASE("model: a YAML merge key is refused", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 10}\nlayers:\n"
                   "  - {name: fc, <<: {type: linear, out_features: 4}}\n") ==
        "model.yaml:5:16: error: layers.fc.<<: YAML merge keys (<<) are not supported: write the keys out "
        "(a model can share layers through blocks)\n");
}

// A document that is a list, not a mapping, is rejected with no key path.
TEST_CASE("model: document that is a list", "[model-errors]") {
  CHECK(load_error("- a\n- b\n") == "model.yaml:1:1: error: expected a mapping (key: value lines), got a list\n");
}

// A document that is a single scalar is rejected and the scalar is quoted.
TEST_CASE("model: document that is a scalar", "[model-errors]") {
  CHECK(load_error("hello\n") == "model.yaml:1:1: error: expected a mapping (key: value lines), got \"hello\"\n");
}

// An empty file is "nothing", not a crash.
TEST_CASE("model: empty file", "[model-errors]") {
  CHECK(load_error("") == "model.yaml:1:1: error: expected a mapping (key: value lines), got nothing\n");
}

// A duplicate top-level key points at the second one and names the line of the first.
TEST_CASE("model: duplicate top-level key", "[model-errors]") {
  CHECK(load_error("name: a\nprecision: fp32\nname: b\n") ==
        "model.yaml:3:1: error: name: duplicate key (first given at line 1)\n");
}

// Every one of 20,000 duplicates of a key is reported. Finding duplicates and repeated messages
// used to scan every earlier key and message: a 5 KB file of 2,858 errors took 10 s in the fuzzer.
TEST_CASE("model: thousands of duplicate keys", "[model-errors]") {
  std::string text = "name: a\n";
  for (int i = 0; i < 20'000; ++i) text += "precision: fp32\n";
  try {
    load_model_text(text, "model.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    REQUIRE(error.diagnostics().size() == 19'999);
    CHECK(error.diagnostics().back().location.line == 20'001);
    CHECK(error.diagnostics().back().message == "duplicate key (first given at line 2)");
  }
}

// A duplicate key inside a layer carries the layer's name in the key path.
TEST_CASE("model: duplicate key inside a layer", "[model-errors]") {
  CHECK(load_error(image_model("  - name: conv1\n"
                               "    type: conv2d\n"
                               "    kernel: 3\n"
                               "    out_channels: 4\n"
                               "    kernel: 5\n")) ==
        "model.yaml:9:5: error: layers.conv1.kernel: duplicate key (first given at line 7)\n");
}

// A duplicate key inside a one-line (flow) layer points at the exact column of the repeat.
TEST_CASE("model: duplicate key inside a flow-style layer", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, kernel: 3, out_channels: 4, kernel: 5}\n")) ==
        "model.yaml:5:61: error: layers.conv1.kernel: duplicate key (first given at line 5)\n");
}

// ---------------------------------------------------------------------------------------------
// Keys

// An unknown top-level key close to a known one gets a "did you mean" hint.
TEST_CASE("model: unknown top-level key with hint", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nsorce: paper\n"
                   "layers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:4:1: error: sorce: unknown key (did you mean \"source\"?)\n");
}

// An unknown layer key close to a field of that layer type gets a hint.
TEST_CASE("model: unknown layer key with hint", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, strid: 2}\n")) ==
        "model.yaml:5:57: error: layers.c.strid: unknown key (did you mean \"stride\"?)\n");
}

// An unknown layer key with no close match gets no hint.
TEST_CASE("model: unknown layer key without a close match", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, colour: red}\n")) ==
        "model.yaml:5:57: error: layers.c.colour: unknown key\n");
}

// An unknown top-level key with no close match gets no hint.
TEST_CASE("model: unknown top-level key without a close match", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nzzz: 1\n"
                   "layers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:4:1: error: zzz: unknown key\n");
}

// An unknown key inside `input` is reported with its key path.
TEST_CASE("model: unknown key in input", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8, depth: 3}\n"
                   "layers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:3:43: error: input.depth: unknown key\n");
}

// All three required top-level keys are reported missing at once, in the order of the format.
TEST_CASE("model: missing name, precision and layers", "[model-errors]") {
  CHECK(load_error("source: x\n") ==
        "model.yaml:1:1: error: name: missing required key\n"
        "model.yaml:1:1: error: precision: missing required key\n"
        "model.yaml:1:1: error: layers: missing required key\n");
}

// `input` is needed only by a layer that takes the model input; a layer with its own `input`
// reads no other layer.
TEST_CASE("model: layers with their own input", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:4:5: error: layers.r.inputs: takes the model input, but the model has none (give the model an "
        "`input:` or the layer its own)\n");
  CHECK(load_error("name: m\nprecision: fp32\nlayers:\n"
                   "  - {name: a, type: relu, input: {features: 4}}\n"
                   "  - {name: b, type: relu, input: {features: 4}, inputs: [a]}\n"
                   "  - {name: c, type: relu, input: {feature: 4}}\n") ==
        "model.yaml:5:57: error: layers.b.inputs: a layer with its own `input` reads no other layer; give one or the other\n"
        "model.yaml:6:34: error: layers.c.input: expected {channels, height, width} (image), {features} (vector), "
        "{sequence, features} (sequence) or {sequence} (token ids)\n"
        "model.yaml:6:35: error: layers.c.input.feature: unknown key (did you mean \"features\"?)\n");
  // Two independent layers: a 3x3 conv on its own 3x8x8 image (6x6 outputs x 27 MACs x 4 channels =
  // 3,888 MACs) and a 16 -> 8 linear (128 MACs), neither fed by the other.
  const LoadedModel model = load_model_text(
      "name: m\nprecision: int8\nlayers:\n"
      "  - {name: a, type: conv2d, input: {channels: 3, height: 8, width: 8}, out_channels: 4, kernel: 3}\n"
      "  - {name: b, type: linear, input: {features: 16}, out_features: 8}\n",
      "model.yaml");
  REQUIRE(model.network.layers.size() == 2);
  CHECK(!model.network.input);
  CHECK(model.network.layers[0].counts.macs == 3888);
  CHECK(model.network.layers[1].input_shapes.front() == reusesim::workload::Shape::vector(16));
  CHECK(model.network.layers[1].counts.macs == 128);
  CHECK(model.network.data_input_elems() == 3 * 8 * 8 + 16);
}

// A misspelt required key is both missing and unknown, and the unknown one hints at the right name.
TEST_CASE("model: misspelt required key", "[model-errors]") {
  CHECK(load_error("name: m\nprecison: fp32\ninput: {features: 3}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:1:1: error: precision: missing required key\n"
        "model.yaml:2:1: error: precison: unknown key (did you mean \"precision\"?)\n");
}

// A layer without `type` is reported at the layer.
TEST_CASE("model: layer without type", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: r}\n")) == "model.yaml:5:5: error: layers.r.type: missing required key\n");
}

// A layer without `name` is addressed by its index.
TEST_CASE("model: layer without name", "[model-errors]") {
  CHECK(load_error(image_model("  - {type: relu}\n")) == "model.yaml:5:5: error: layers.0.name: missing required key\n");
}

// conv2d without out_channels and kernel reports both.
TEST_CASE("model: conv2d without out_channels and kernel", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d}\n")) ==
        "model.yaml:5:5: error: layers.c.out_channels: missing required key\n"
        "model.yaml:5:5: error: layers.c.kernel: missing required key\n");
}

// ---------------------------------------------------------------------------------------------
// Types and ranges

// A word where an integer is expected.
TEST_CASE("model: word where an integer is expected", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: eight, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected a positive integer, got \"eight\"\n");
}

// A decimal number where an integer is expected.
TEST_CASE("model: decimal where an integer is expected", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4.0, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected a positive integer, got \"4.0\"\n");
}

// A list where an integer is expected.
TEST_CASE("model: list where an integer is expected", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: [4, 8], kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected a positive integer, got a list\n");
}

// A list where a string is expected.
TEST_CASE("model: list where a string is expected", "[model-errors]") {
  CHECK(load_error("name: [a, b]\nprecision: fp32\ninput: {features: 4}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:1:7: error: name: expected a non-empty string, got a list\n");
}

// "yes" is not a boolean: only true and false are.
TEST_CASE("model: yes for a boolean", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, bias: yes}\n")) ==
        "model.yaml:5:63: error: layers.c.bias: expected true or false, got \"yes\"\n");
}

// layernorm takes `bias` (false: a scale per feature alone, 4 parameters here, where 2 x 4 with it);
// rmsnorm has no shift to drop, so the key is unknown there.
TEST_CASE("model: bias on layernorm, not on rmsnorm", "[model-errors]") {
  const std::string model = "name: m\nprecision: fp32\ninput: {sequence: 3, features: 4}\nlayers:\n";
  const LoadedModel loaded = load_model_text(model + "  - {name: n, type: layernorm, bias: false}\n", "model.yaml");
  CHECK(layer_named(loaded, "n").counts.params == 4);
  CHECK(load_error(model + "  - {name: n, type: layernorm, bias: 0}\n") ==
        "model.yaml:5:38: error: layers.n.bias: expected true or false, got \"0\"\n");
  CHECK(load_error(model + "  - {name: n, type: rmsnorm, bias: false}\n") ==
        "model.yaml:5:30: error: layers.n.bias: unknown key\n");
}

// A kernel of 0 is out of range.
TEST_CASE("model: kernel 0", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 0}\n")) ==
        "model.yaml:5:54: error: layers.c.kernel: expected a positive integer, got 0\n");
}

// A negative stride is out of range.
TEST_CASE("model: stride -1", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, stride: -1}\n")) ==
        "model.yaml:5:65: error: layers.c.stride: expected a positive integer, got -1\n");
}

// out_channels 0 is out of range.
TEST_CASE("model: out_channels 0", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 0, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected a positive integer, got 0\n");
}

// A negative padding in a [height, width] pair is reported at the element.
TEST_CASE("model: negative padding", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, padding: [1, -2]}\n")) ==
        "model.yaml:5:70: error: layers.c.padding.1: expected a non-negative integer, got -2\n");
}

// A value above the dimension cap names the cap.
TEST_CASE("model: dimension above the cap", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 2000000000000, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected at most 1099511627776, got 2000000000000\n");
}

// A kernel list that is not a pair says how long it was.
TEST_CASE("model: kernel list of one", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: [3]}\n")) ==
        "model.yaml:5:54: error: layers.c.kernel: expected an integer or a [height, width] pair, got a list of 1\n");
}

// An unknown precision lists the valid ones.
TEST_CASE("model: unknown precision", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp64\ninput: {features: 4}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:2:12: error: precision: expected one of fp32, fp16, bf16, int16, int8, got \"fp64\"\n");
}

// An unknown precision close to a valid one also gets a hint.
TEST_CASE("model: unknown precision with hint", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: int4\ninput: {features: 4}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:2:12: error: precision: expected one of fp32, fp16, bf16, int16, int8, got \"int4\" "
        "(did you mean \"int8\"?)\n");
}

// An unknown layer type gets a hint.
TEST_CASE("model: unknown layer type with hint", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2, out_channels: 4, kernel: 3}\n")) ==
        "model.yaml:5:21: error: layers.c.type: unknown layer type \"conv2\" (did you mean \"conv2d\"?)\n");
}

// An unknown fused activation lists the valid ones.
TEST_CASE("model: unknown activation", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, activation: swish}\n")) ==
        "model.yaml:5:69: error: layers.c.activation: expected one of none, relu, relu6, sigmoid, tanh, gelu, "
        "silu, got \"swish\"\n");
}

// An input that mixes image and vector keys lists the valid forms.
TEST_CASE("model: input with an invalid key combination", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, features: 10}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:3:8: error: input: expected {channels, height, width} (image), {features} (vector), "
        "{sequence, features} (sequence) or {sequence} (token ids)\n");
}

// An image input without width is not a valid form either.
TEST_CASE("model: incomplete image input", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 10}\nlayers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:3:8: error: input: expected {channels, height, width} (image), {features} (vector), "
        "{sequence, features} (sequence) or {sequence} (token ids)\n");
}

// A layer name with '/' is rejected: '/' separates block instances from their layers.
TEST_CASE("model: layer name with a slash", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a/b, type: relu}\n")) ==
        "model.yaml:5:12: error: layers.a/b.name: a layer name cannot contain '/', '.' or '$' ('/' separates block "
        "instances from their layers, '.' key paths, '$' parameters and $input)\n");
}

// A layer called TOTAL could not be told from the network's row in `run`'s CSV.
TEST_CASE("model: a layer named TOTAL", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: TOTAL, type: relu}\n")) ==
        "model.yaml:5:12: error: layers.TOTAL.name: \"TOTAL\" names the whole network's row in reports; choose "
        "another layer name\n");
}

// A name with a line break or a tab splits table rows.
TEST_CASE("model: names with control characters", "[model-errors]") {
  CHECK(load_error("name: \"a\\tb\"\nprecision: fp32\ninput: {features: 4}\nlayers:\n"
                   "  - {name: \"fc\\n2\", type: linear, out_features: 2}\n") ==
        "model.yaml:1:7: error: name: a name is one line of printable text; this one holds the byte 0x09, a "
        "control character\n"
        "model.yaml:5:12: error: layers.fc\\n2.name: a name is one line of printable text; this one holds the byte "
        "0x0a, a control character\n");
}

// 23 digits do not fit 64 bits: that is "too large", not "expected a positive integer".
TEST_CASE("model: an integer too large for 64 bits", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 12345678901234567890123, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected at most 1099511627776, got "
        "12345678901234567890123 (too large for a 64-bit integer)\n");
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: -12345678901234567890123, kernel: 3}\n")) ==
        "model.yaml:5:43: error: layers.c.out_channels: expected a positive integer, got "
        "-12345678901234567890123 (too small for a 64-bit integer)\n");
}

// An accelerator file given as the model got a list of missing and unknown keys.
TEST_CASE("model: an accelerator file given as the model", "[model-errors]") {
  const std::string small = std::string(REUSESIM_SOURCE_DIR) + "/configs/small.yaml";
  CHECK(input_error_text([&] { reusesim::config::load_model_file(small); }) ==
        small + ":5:1: error: this is an accelerator file (it has `compute:`), not a model file\n");
}

// ---------------------------------------------------------------------------------------------
// Shapes

// A kernel larger than the padded input.
TEST_CASE("model: kernel larger than the padded input", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 9}\n")) ==
        "model.yaml:5:54: error: layers.c.kernel: kernel 9x9 is larger than the padded input 8x8\n");
}

// A dilated kernel that outgrows the input mentions its dilated size.
TEST_CASE("model: dilated kernel larger than the padded input", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, dilation: 4}\n")) ==
        "model.yaml:5:54: error: layers.c.kernel: kernel 3x3 (9x9 dilated) is larger than the padded input 8x8\n");
}

// groups must divide the input channels.
TEST_CASE("model: groups that do not divide the input channels", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 3, groups: 2}\n")) ==
        "model.yaml:5:65: error: layers.c.groups: groups 2 does not divide the 3 input channels\n");
}

// groups must divide the output channels.
TEST_CASE("model: groups that do not divide the output channels", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 4, height: 8, width: 8}\nlayers:\n"
                   "  - {name: c, type: conv2d, out_channels: 3, kernel: 3, groups: 2}\n") ==
        "model.yaml:5:65: error: layers.c.groups: groups 2 does not divide the 3 output channels\n");
}

// depthwise and groups together are contradictory.
TEST_CASE("model: depthwise together with groups", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, depthwise: true, groups: 3, kernel: 3}\n")) ==
        "model.yaml:5:54: error: layers.c.groups: depthwise sets groups to the input channels; give one or the other\n");
}

// A depthwise conv's out_channels must be a multiple of its input channels.
TEST_CASE("model: depthwise out_channels not a multiple of the input channels", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, depthwise: true, out_channels: 4, kernel: 3}\n")) ==
        "model.yaml:5:60: error: layers.c.out_channels: groups 3 does not divide the 4 output channels\n");
}

// A conv whose in_channels check does not match what it is fed.
TEST_CASE("model: in_channels mismatch", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c1, type: conv2d, out_channels: 8, kernel: 3}\n"
                               "  - {name: c2, type: conv2d, in_channels: 16, out_channels: 8, kernel: 3}\n")) ==
        "model.yaml:6:43: error: layers.c2.in_channels: expects 16 input channels but is fed image 8x6x6\n");
}

// A linear layer whose in_features check does not match what it is fed.
TEST_CASE("model: in_features mismatch", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 10}\nlayers:\n"
                   "  - {name: fc1, type: linear, out_features: 20}\n"
                   "  - {name: fc2, type: linear, in_features: 30, out_features: 5}\n") ==
        "model.yaml:6:44: error: layers.fc2.in_features: expects 30 input features but is fed vector 20\n");
}

// A linear layer fed an image suggests a flatten layer.
TEST_CASE("model: linear fed an image", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: fc, type: linear, out_features: 10}\n")) ==
        "model.yaml:5:5: error: layers.fc: linear needs a vector or sequence input, got image 3x8x8 "
        "(add a flatten layer)\n");
}

// A recurrent layer fed an image suggests a to_sequence layer.
TEST_CASE("model: recurrent layer fed an image", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: rnn, type: lstm, hidden_size: 10}\n")) ==
        "model.yaml:5:5: error: layers.rnn: lstm needs a sequence input, got image 3x8x8 (add a to_sequence layer)\n");
}

// add of two differently shaped images.
TEST_CASE("model: add with mismatching shapes", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: conv2d, out_channels: 4, kernel: 3}\n"
                               "  - {name: b, type: conv2d, inputs: [$input], out_channels: 4, kernel: 1}\n"
                               "  - {name: sum, type: add, inputs: [a, b]}\n")) ==
        "model.yaml:7:36: error: layers.sum.inputs: cannot add image 4x6x6 and image 4x8x8 "
        "(element-wise add needs equal shapes)\n");
}

// concat of two images with different heights.
TEST_CASE("model: concat with mismatching heights", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: conv2d, out_channels: 4, kernel: 3}\n"
                               "  - {name: b, type: conv2d, inputs: [$input], out_channels: 4, kernel: 1}\n"
                               "  - {name: cat, type: concat, inputs: [a, b]}\n")) ==
        "model.yaml:7:39: error: layers.cat.inputs: cannot concatenate image 4x6x6 with image 4x8x8 "
        "(images need the same height and width, sequences the same length)\n");
}

// add with a single input.
TEST_CASE("model: add with one input", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu}\n  - {name: sum, type: add, inputs: [a]}\n")) ==
        "model.yaml:6:36: error: layers.sum.inputs: add takes two or more inputs, got 1\n");
}

// add without `inputs` takes only the previous layer, which is one input.
TEST_CASE("model: add without inputs", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu}\n  - {name: sum, type: add}\n")) ==
        "model.yaml:6:5: error: layers.sum.inputs: add takes two or more inputs, got 1\n");
}

// Several shape errors in independent layers are all reported.
TEST_CASE("model: several shape errors at once", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, out_channels: 4, kernel: 9}\n"
                               "  - {name: side, type: linear, inputs: $input, out_features: 3}\n"
                               "  - {name: after, type: relu, inputs: c}\n")) ==
        "model.yaml:5:54: error: layers.c.kernel: kernel 9x9 is larger than the padded input 8x8\n"
        "model.yaml:6:5: error: layers.side: linear needs a vector or sequence input, got image 3x8x8 "
        "(add a flatten layer)\n");
}

// A product that does not fit in 64 bits (2^40 x 2^40 weights) is a clean error, not a crash.
TEST_CASE("model: count overflow", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 1099511627776}\nlayers:\n"
                   "  - {name: fc, type: linear, out_features: 1099511627776}\n") ==
        "model.yaml:5:5: error: layers.fc: count overflow: 1099511627776 x 1099511627776 does not fit in 64 bits\n");
}

// An overflow inside a block instance names the instance.
TEST_CASE("model: count overflow inside a block", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 1099511627776}\n"
                   "blocks:\n  b:\n    layers:\n      - {name: fc, type: linear, out_features: 1099511627776}\n"
                   "layers:\n  - {name: r, block: b}\n") ==
        "model.yaml:7:9: error: blocks.b.layers.fc: in r/fc: count overflow: 1099511627776 x 1099511627776 "
        "does not fit in 64 bits\n");
}

// ---------------------------------------------------------------------------------------------
// The graph

// Two forward references that feed each other form a cycle.
TEST_CASE("model: cycle of two layers", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu, inputs: [b]}\n  - {name: b, type: relu, inputs: [a]}\n")) ==
        "model.yaml:5:35: error: layers.a.inputs: the layer graph has a cycle: a <- b <- a\n");
}

// A three-layer cycle names every layer on it, in input order.
TEST_CASE("model: cycle of three layers", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: first, type: relu}\n"
                               "  - {name: a, type: relu, inputs: [c]}\n"
                               "  - {name: b, type: relu, inputs: [a]}\n"
                               "  - {name: c, type: relu, inputs: [b]}\n")) ==
        "model.yaml:6:35: error: layers.a.inputs: the layer graph has a cycle: a <- c <- b <- a\n");
}

// A cycle closed by the implicit "previous layer" input is found too.
TEST_CASE("model: cycle through a default input", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu, inputs: [b]}\n  - {name: b, type: relu}\n")) ==
        "model.yaml:5:35: error: layers.a.inputs: the layer graph has a cycle: a <- b <- a\n");
}

// A layer that feeds itself.
TEST_CASE("model: layer that is its own input", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu, inputs: a}\n")) ==
        "model.yaml:5:35: error: layers.a.inputs: the layer graph has a cycle: a <- a\n");
}

// An unknown input layer gets a hint.
TEST_CASE("model: unknown input layer with hint", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"
                               "  - {name: r, type: relu, inputs: [conv]}\n")) ==
        "model.yaml:6:35: error: layers.r.inputs: unknown layer \"conv\" (did you mean \"conv1\"?)\n");
}

// Two layers with the same name: the second is reported.
TEST_CASE("model: duplicate layer name", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"
                               "  - {name: conv1, type: relu}\n")) ==
        "model.yaml:6:12: error: layers.conv1.name: duplicate layer name \"conv1\"\n");
}

// A layer name that repeats a block instance's name.
TEST_CASE("model: layer named like an earlier block instance", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott, args: {mid: 4, out: 8}}\n  - {name: r, type: relu}\n")) ==
        "model.yaml:12:12: error: layers.r.name: duplicate layer name \"r\"\n");
}

// An empty `inputs` list.
TEST_CASE("model: empty inputs list", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: a, type: relu, inputs: []}\n")) ==
        "model.yaml:5:35: error: layers.a.inputs: expected a string or a non-empty list of strings, got an empty list\n");
}

// ---------------------------------------------------------------------------------------------
// Parameters and blocks

// An unknown $parameter close to a defined one gets a hint (written with the $).
TEST_CASE("model: unknown parameter with hint", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nparameters: {width: 16}\n"
                   "layers:\n  - {name: c, type: conv2d, out_channels: $widh, kernel: 3}\n") ==
        "model.yaml:6:43: error: layers.c.out_channels: unknown parameter \"$widh\" (did you mean \"$width\"?)\n");
}

// An unknown $parameter with nothing close.
TEST_CASE("model: unknown parameter without a close match", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nparameters: {width: 16}\n"
                   "layers:\n  - {name: c, type: conv2d, out_channels: $qq, kernel: 3}\n") ==
        "model.yaml:6:43: error: layers.c.out_channels: unknown parameter \"$qq\"\n");
}

// An unknown block gets a hint.
TEST_CASE("model: unknown block with hint", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: botl, args: {mid: 4, out: 8}}\n")) ==
        "model.yaml:11:22: error: layers.r.block: unknown block \"botl\" (did you mean \"bott\"?)\n");
}

// An argument the block does not declare gets a hint.
TEST_CASE("model: unknown block argument", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott, args: {mid: 4, out: 8, midd: 3}}\n")) ==
        "model.yaml:11:51: error: layers.r.args.midd: unknown key (did you mean \"mid\"?)\n");
}

// A block whose layers instantiate another block.
TEST_CASE("model: block instantiating a block", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
                   "blocks:\n"
                   "  inner:\n    layers:\n      - {name: a, type: relu}\n"
                   "  outer:\n    layers:\n      - {name: x, block: inner}\n"
                   "layers:\n  - {name: r, block: outer}\n") ==
        "model.yaml:10:9: error: blocks.outer.layers.x: a block cannot instantiate another block\n");
}

// A name inside a block cannot refer to a top-level layer.
TEST_CASE("model: block layer referring to a top-level layer", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
                   "blocks:\n  b:\n    layers:\n      - {name: a, type: relu, inputs: [conv1]}\n"
                   "layers:\n"
                   "  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"
                   "  - {name: r, block: b}\n") ==
        "model.yaml:7:39: error: blocks.b.layers.a.inputs: unknown layer \"conv1\" (inside a block, names refer "
        "to the block's own layers or $input)\n");
}

// A block instance's input must be written before it (it is resolved while expanding).
TEST_CASE("model: block instance fed by a later layer", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott, inputs: c, args: {mid: 4, out: 8}}\n"
                               "  - {name: c, type: relu}\n")) ==
        "model.yaml:11:36: error: layers.r.inputs: unknown layer \"c\" (a block instance's input must be written "
        "before it)\n");
}

// repeat: 0 is out of range.
TEST_CASE("model: block repeat 0", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott, repeat: 0, args: {mid: 4, out: 8}}\n")) ==
        "model.yaml:11:36: error: layers.r.repeat: expected a positive integer, got 0\n");
}

// Six instances of a 2-layer block, 10,000 copies each, would be 120,000 layers: the sixth (line
// 16) goes beyond the 100,000 a model may have. An 800-byte file of repeats made 400,000 layers,
// 10 s and over a gigabyte in the model fuzz target before.
TEST_CASE("model: block repeats beyond 100,000 layers", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: s, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: t, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: u, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: v, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: w, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n")) ==
        "model.yaml:16:5: error: layers.w: the model has more than 100000 layers once blocks are expanded, the "
        "most a model may have\n");
  // Where a repeat takes the model past the limit, the repeat is at fault (line 11, column 36).
  CHECK(load_error(block_model("  - {name: r, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: s, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: t, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: u, block: bott, repeat: 10000, args: {mid: 4, out: 3}}\n"
                               "  - {name: v, block: bott, repeat: 9999, args: {mid: 4, out: 3}}\n"
                               "  - {name: w, block: bott, repeat: 2, args: {mid: 4, out: 3}}\n")) ==
        "model.yaml:16:36: error: layers.w.repeat: the model has more than 100000 layers once blocks are expanded, "
        "the most a model may have\n");
  // Written out, the 100,001st layer (line 100,005) is one too many.
  std::string layers;
  for (int i = 0; i <= 100'000; ++i) layers += "  - {name: r" + std::to_string(i) + ", type: relu}\n";
  CHECK(load_error(image_model(layers)) == "model.yaml:100005:5: error: layers.r100000: the model has more than 100000 "
                                           "layers once blocks are expanded, the most a model may have\n");
}

// A shape error in the second copy of a repeated block names that copy.
TEST_CASE("model: shape error inside a repeated block", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
                   "blocks:\n  b:\n    layers:\n      - {name: a, type: conv2d, out_channels: 4, kernel: 5}\n"
                   "layers:\n  - {name: r, block: b, repeat: 3}\n") ==
        "model.yaml:7:58: error: blocks.b.layers.a.kernel: in r_2/a: kernel 5x5 is larger than the padded input 4x4\n");
}

// Two layers with the same name inside one block.
TEST_CASE("model: duplicate layer name inside a block", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
                   "blocks:\n  b:\n    layers:\n      - {name: a, type: relu}\n      - {name: a, type: relu}\n"
                   "layers:\n  - {name: r, block: b}\n") ==
        "model.yaml:8:16: error: blocks.b.layers.a.name: duplicate layer name \"r/a\"\n");
}

// ---------------------------------------------------------------------------------------------
// --set overrides

// A path into a list element that does not exist gets a hint and the --set argument as origin.
TEST_CASE("model: --set into a missing list element", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv2.kernel=5"}) ==
        "--set layers.conv2.kernel=5: error: layers.conv2: no list element named or numbered \"conv2\" "
        "(did you mean \"conv1\"?)\n");
}

// A bad value given with --set is reported at the --set argument.
TEST_CASE("model: bad value via --set", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.kernel=eight"}) ==
        "--set layers.conv1.kernel=eight: error: layers.conv1.kernel: expected a positive integer, got \"eight\"\n");
}

// A shape error caused by a --set value is also placed at the --set argument.
TEST_CASE("model: shape error caused by --set", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.kernel=99"}) ==
        "--set layers.conv1.kernel=99: error: layers.conv1.kernel: kernel 99x99 is larger than the padded input 8x8\n");
}

// A key added by --set is validated like a key in the file.
TEST_CASE("model: unknown key added by --set", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.strid=2"}) ==
        "--set layers.conv1.strid=2: error: layers.conv1.strid: unknown key (did you mean \"stride\"?)\n");
}

// A --set argument without '='.
TEST_CASE("model: --set without a value", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.kernel"}) ==
        "--set layers.conv1.kernel: error: expected key.path=value\n");
}

// Several bad --set values are all reported, in command-line order.
TEST_CASE("model: several bad --set values", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.kernel=eight", "layers.conv1.stride=0"}) ==
        "--set layers.conv1.kernel=eight: error: layers.conv1.kernel: expected a positive integer, got \"eight\"\n"
        "--set layers.conv1.stride=0: error: layers.conv1.stride: expected a positive integer, got 0\n");
}

// ---------------------------------------------------------------------------------------------
// Several errors at once

// Independent mistakes in one file are all reported together, in file order.
TEST_CASE("model: several errors in one file", "[model-errors]") {
  const std::string text =
      "name: m\n"
      "precision: fp64\n"
      "input: {channels: 3, height: 8, width: 8}\n"
      "layers:\n"
      "  - {name: c, type: conv2d, out_channels: 4, kernel: 0}\n"
      "  - {name: d, type: conv2d, out_channels: eight, kernel: 3}\n"
      "  - {name: e, type: maxpol, kernel: 2}\n"
      "  - {name: f, type: relu, inputs: [nothere]}\n";
  CHECK(load_error(text) ==
        "model.yaml:2:12: error: precision: expected one of fp32, fp16, bf16, int16, int8, got \"fp64\"\n"
        "model.yaml:5:54: error: layers.c.kernel: expected a positive integer, got 0\n"
        "model.yaml:6:43: error: layers.d.out_channels: expected a positive integer, got \"eight\"\n"
        "model.yaml:7:21: error: layers.e.type: unknown layer type \"maxpol\" (did you mean \"maxpool\"?)\n"
        "model.yaml:8:35: error: layers.f.inputs: unknown layer \"nothere\"\n");
  try {
    load_model_text(text, "model.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& error) {
    const auto& diagnostics = error.diagnostics();
    REQUIRE(diagnostics.size() == 5);
    const std::vector<std::string> paths{"precision", "layers.c.kernel", "layers.d.out_channels", "layers.e.type",
                                         "layers.f.inputs"};
    const std::vector<int> lines{2, 5, 6, 7, 8};
    for (std::size_t i = 0; i < diagnostics.size(); ++i) {
      CHECK(diagnostics[i].key_path == paths[i]);
      CHECK(diagnostics[i].location.line == lines[i]);
      CHECK(diagnostics[i].location.file == "model.yaml");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Valid models

// A layer may name inputs that are written after it; the network is ordered topologically.
TEST_CASE("model: forward references are allowed", "[model-errors]") {
  const LoadedModel model =
      load_model_text(image_model("  - {name: cat, type: concat, inputs: [a, b]}\n"
                                  "  - {name: a, type: conv2d, inputs: $input, out_channels: 4, kernel: 1}\n"
                                  "  - {name: b, type: conv2d, inputs: $input, out_channels: 2, kernel: 1}\n"),
                      "model.yaml");
  CHECK(layer_names(model) == std::vector<std::string>{"a", "b", "cat"});
  CHECK(layer_named(model, "cat").output_shape.describe() == "image 6x8x8");
}

// $input is the block's input inside a block and the model input at top level.
TEST_CASE("model: $input inside and outside blocks", "[model-errors]") {
  const LoadedModel model = load_model_text(
      "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
      "blocks:\n  b:\n    layers:\n"
      "      - {name: a, type: conv2d, out_channels: 4, kernel: 1}\n"
      "      - {name: s, type: conv2d, inputs: [$input], out_channels: 4, kernel: 1}\n"
      "      - {name: add, type: add, inputs: [a, s]}\n"
      "layers:\n"
      "  - {name: c, type: conv2d, out_channels: 6, kernel: 3}\n"
      "  - {name: r, block: b}\n"
      "  - {name: side, type: relu, inputs: $input}\n",
      "model.yaml");
  CHECK(layer_names(model) == std::vector<std::string>{"c", "r/a", "r/s", "r/add", "side"});
  // Inside the block, $input is c's 6x6x6 output; at top level it is the 3x8x8 model input.
  CHECK(layer_named(model, "r/s").input_shapes.front().describe() == "image 6x6x6");
  CHECK(layer_named(model, "r/add").output_shape.describe() == "image 4x6x6");
  CHECK(layer_named(model, "side").input_shapes.front().describe() == "image 3x8x8");
  CHECK(layer_named(model, "side").input_ids == std::vector<int>{-1});
}

// repeat: N names the copies <name>_1 ... <name>_N and chains each to the one before.
TEST_CASE("model: repeat naming and chaining", "[model-errors]") {
  const LoadedModel model = load_model_text(
      "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n"
      "blocks:\n  b:\n    parameters: [c]\n    layers:\n"
      "      - {name: a, type: conv2d, out_channels: $c, kernel: 3, padding: 1, stride: 2}\n"
      "layers:\n"
      "  - {name: res, block: b, repeat: 2, args: {c: 5}}\n"
      "  - {name: out, type: relu}\n"
      "  - {name: first, type: relu, inputs: res_1}\n",
      "model.yaml");
  CHECK(layer_names(model) == std::vector<std::string>{"res_1/a", "res_2/a", "out", "first"});
  CHECK(layer_named(model, "res_1/a").output_shape.describe() == "image 5x4x4");
  CHECK(layer_named(model, "res_2/a").input_shapes.front().describe() == "image 5x4x4");  // fed by res_1
  CHECK(layer_named(model, "res_2/a").output_shape.describe() == "image 5x2x2");
  CHECK(layer_named(model, "out").input_shapes.front().describe() == "image 5x2x2");    // the instance's output
  CHECK(layer_named(model, "first").output_shape.describe() == "image 5x4x4");
}

// --set parameters.seq_len=200 changes the sequence length everywhere $seq_len is used.
TEST_CASE("model: parameter overridden with --set", "[model-errors]") {
  const std::string text =
      "name: m\nprecision: fp32\nparameters: {seq_len: 100}\ninput: {sequence: $seq_len, features: 8}\n"
      "layers:\n  - {name: rnn, type: lstm, hidden_size: 16}\n";
  const LoadedModel base = load_model_text(text, "model.yaml");
  const LoadedModel longer = load_model_text(text, "model.yaml", {"parameters.seq_len=200"});
  CHECK(layer_named(base, "rnn").output_shape.describe() == "sequence 100x16");
  CHECK(layer_named(longer, "rnn").output_shape.describe() == "sequence 200x16");
  // LSTM MACs per step: 4 gates x 16 x (8 + 16).
  CHECK(layer_named(base, "rnn").counts.macs == 100 * 4 * 16 * 24);
  CHECK(layer_named(longer, "rnn").counts.macs == 200 * 4 * 16 * 24);
}

// --set can add a field the file did not write: stride 2 halves the output.
TEST_CASE("model: --set adds a field", "[model-errors]") {
  const std::string text = image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3, padding: 1}\n");
  CHECK(layer_named(load_model_text(text, "model.yaml"), "conv1").output_shape.describe() == "image 4x8x8");
  CHECK(layer_named(load_model_text(text, "model.yaml", {"layers.conv1.stride=2"}), "conv1").output_shape.describe() ==
        "image 4x4x4");
}

// Regressions for problems a review of the loader found.

// A dilation large enough to overflow the kernel's reach is refused, not wrapped into a valid shape.
TEST_CASE("model errors: a dilated kernel whose reach overflows 64 bits", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {channels: 1, height: 4, width: 4}\nlayers:\n"
                   "  - {name: c, type: conv2d, out_channels: 1, kernel: [16777217, 1], dilation: 1099511627776}\n") ==
        "model.yaml:5:5: error: layers.c: count overflow: 1099511627776 x 16777216 does not fit in 64 bits\n");
}

// A block instance may not take a name already used by a layer (it would silently shadow it).
TEST_CASE("model errors: a block instance reusing a layer's name", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, type: relu}\n  - {name: r, block: bott, args: {mid: 4, out: 8}}\n"
                               "  - {name: t, type: relu, inputs: r}\n")) ==
        "model.yaml:12:12: error: layers.r.name: duplicate layer name \"r\"\n");
  // Two instances of one name are reported at the second instance, not inside the block.
  CHECK(load_error(block_model("  - {name: r, block: bott, args: {mid: 4, out: 8}}\n"
                               "  - {name: r, block: bott, args: {mid: 4, out: 8}}\n")) ==
        "model.yaml:12:12: error: layers.r.name: duplicate layer name \"r\"\n");
  // A repeated instance's generated names cannot take an existing layer's name either.
  CHECK(load_error(block_model("  - {name: r_1, type: relu}\n  - {name: r, block: bott, repeat: 2, args: {mid: 4, out: 8}}\n")) ==
        "model.yaml:12:12: error: layers.r.name: repeat instance \"r_1\" has the name of another layer\n");
}

// A missing or invalid argument is reported once, without follow-on "unknown parameter" errors.
TEST_CASE("model errors: argument problems are reported once", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: bott}\n")) ==
        "model.yaml:11:5: error: layers.r.args: missing required key (block bott takes parameters)\n");
  CHECK(load_error(block_model("  - {name: r, block: bott, args: {mid: 4, out: $mdi}}\n")) ==
        "model.yaml:11:48: error: layers.r.args.out: unknown parameter \"$mdi\"\n");
  CHECK(load_error("name: m\nprecision: fp32\nparameters: {seq_len: 10}\ninput: {sequence: $seq_len, features: 4}\n"
                   "layers:\n  - {name: r, type: relu}\n",
                   {"parameters.seq_len=-5"}) ==
        "--set parameters.seq_len=-5: error: parameters.seq_len: expected a non-negative integer, got -5\n");
}

// A reference to an instance whose block is unknown adds no second error.
TEST_CASE("model errors: no follow-on error after an unknown block", "[model-errors]") {
  CHECK(load_error(block_model("  - {name: r, block: botl, args: {mid: 4, out: 8}}\n  - {name: t, type: relu, inputs: r}\n")) ==
        "model.yaml:11:22: error: layers.r.block: unknown block \"botl\" (did you mean \"bott\"?)\n");
}

// "Did you mean" never proposes the layer itself (a self-loop), and finds swapped letters.
TEST_CASE("model errors: hints skip the layer itself and catch swapped letters", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: y2, type: relu, inputs: [y3]}\n")) ==
        "model.yaml:5:36: error: layers.y2.inputs: unknown layer \"y3\"\n");
  CHECK(load_error("name: m\nprecision: fp32\nparameters: {width: 8}\ninput: {channels: 3, height: 8, width: $widht}\n"
                   "layers:\n  - {name: r, type: relu}\n") ==
        "model.yaml:4:40: error: input.width: unknown parameter \"$widht\" (did you mean \"$width\"?)\n");
}

// $input is reserved: a layer cannot be named so.
TEST_CASE("model errors: reserved characters in layer names", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: $input, type: relu}\n")) ==
        "model.yaml:5:12: error: layers.$input.name: a layer name cannot contain '/', '.' or '$' ('/' separates block "
        "instances from their layers, '.' key paths, '$' parameters and $input)\n");
}

// A YAML syntax error in a --set value names the argument and the key path, without a line.
TEST_CASE("model errors: a syntax error in a --set value", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n"),
                   {"layers.conv1.kernel=[3"}) ==
        "--set layers.conv1.kernel=[3: error: layers.conv1.kernel: YAML syntax error: end of sequence flow not found\n");
}

// Errors come out in file order, whatever order the fields are read in.
TEST_CASE("model errors: several errors in file order", "[model-errors]") {
  CHECK(load_error(image_model("  - {name: c, type: conv2d, activation: swish, out_channels: eight, kernel: 3}\n")) ==
        "model.yaml:5:41: error: layers.c.activation: expected one of none, relu, relu6, sigmoid, tanh, gelu, silu, "
        "got \"swish\"\n"
        "model.yaml:5:62: error: layers.c.out_channels: expected a positive integer, got \"eight\"\n");
}

// A pinned tiling needs all of m, n, k and a known loop order.
TEST_CASE("model errors: a pinned tiling with a bad order and a missing size", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 8}\nlayers:\n"
                   "  - {name: fc, type: linear, out_features: 4, tiling: {m: 1, n: 4, order: k-m}}\n") ==
        "model.yaml:5:55: error: layers.fc.tiling.k: missing required key\n"
        "model.yaml:5:75: error: layers.fc.tiling.order: expected one of n-m, m-n, got \"k-m\" (did you mean \"n-m\"?)\n");
}

// A pinned partition is one of the GEMM's and only a GEMM layer's.
TEST_CASE("model errors: a pinned partition that is not one, or on a layer without a GEMM", "[model-errors]") {
  CHECK(load_error("name: m\nprecision: fp32\ninput: {features: 8}\nlayers:\n"
                   "  - {name: fc, type: linear, out_features: 4, partition: diagonal}\n"
                   "  - {name: act, type: relu, partition: rows}\n") ==
        "model.yaml:5:58: error: layers.fc.partition: expected one of rows, columns, groups, k, got \"diagonal\"\n"
        "model.yaml:6:29: error: layers.act.partition: unknown key\n");
}

// Ideal memory (dram: {ideal: ...}): an accelerator whose `dram:` key is on line 25 of
// configs/small.yaml's text, so the ideal memory's lines start at 26.
namespace {

std::string accelerator_with_dram(const std::string& dram_lines) {
  std::ifstream file(std::string(REUSESIM_SOURCE_DIR) + "/configs/small.yaml");
  const std::string small((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return small.substr(0, small.find("\ndram:")) + "\ndram:\n" + dram_lines;
}

std::string ideal_memory_error(const std::string& dram_lines, const std::vector<std::string>& overrides = {}) {
  return input_error_text(
      [&] { reusesim::config::load_accelerator_text(accelerator_with_dram(dram_lines), "acc.yaml", overrides); });
}

}  // namespace

TEST_CASE("ideal memory: a preset beside it", "[accelerator-errors][ideal-memory]") {
  CHECK(ideal_memory_error("  preset: ddr4-2400\n  ideal: unlimited\n") ==
        "acc.yaml:28:3: error: dram.preset: an ideal memory takes no DRAM timings, preset or organisation beside it "
        "(only capacity_gib); remove this key or dram.ideal\n");
}

TEST_CASE("ideal memory: DRAM timings beside it", "[accelerator-errors][ideal-memory]") {
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: 10, latency_ns: 50}\n  trcd: 17\n") ==
        "acc.yaml:29:3: error: dram.trcd: an ideal memory takes no DRAM timings, preset or organisation beside it "
        "(only capacity_gib); remove this key or dram.ideal\n");
}

TEST_CASE("ideal memory: made ideal by --set beside a preset", "[accelerator-errors][ideal-memory]") {
  const std::string error = ideal_memory_error("  preset: ddr4-2400\n", {"dram.ideal=unlimited"});
  CHECK(error.find("acc.yaml:28:3: error: dram.preset: an ideal memory takes no DRAM timings") == 0);
}

TEST_CASE("ideal memory: a bandwidth that is zero, negative or not a number", "[accelerator-errors][ideal-memory]") {
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: 0, latency_ns: 50}\n") ==
        "acc.yaml:28:27: error: dram.ideal.bandwidth_gbps: expected a number from 0.001 to 1e+06, got 0\n");
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: -3, latency_ns: 50}\n") ==
        "acc.yaml:28:27: error: dram.ideal.bandwidth_gbps: expected a number from 0.001 to 1e+06, got -3\n");
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: fast, latency_ns: 50}\n") ==
        "acc.yaml:28:27: error: dram.ideal.bandwidth_gbps: expected a number from 0.001 to 1e+06, got \"fast\"\n");
}

TEST_CASE("ideal memory: a missing key, an unknown key, a word other than unlimited", "[accelerator-errors][ideal-memory]") {
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: 10}\n") ==
        "acc.yaml:28:10: error: dram.ideal.latency_ns: missing required key\n");
  CHECK(ideal_memory_error("  ideal: {bandwidth_gbps: 10, latency_ns: 5, tcl: 3}\n").find(
            "error: dram.ideal.tcl: unknown key") != std::string::npos);
  CHECK(ideal_memory_error("  ideal: infinite\n") ==
        "acc.yaml:28:10: error: dram.ideal: expected unlimited or {bandwidth_gbps: <GB/s>, latency_ns: <ns>}, got "
        "\"infinite\"\n");
}

TEST_CASE("ideal memory: a DRAM preset or file cannot be ideal", "[accelerator-errors][ideal-memory]") {
  CHECK(input_error_text([] { reusesim::config::load_dram_text("ideal: unlimited\n", "dram.yaml"); }) ==
        "dram.yaml:1:8: error: ideal: an ideal memory goes in an accelerator file, as dram: {ideal: ...} alone; a "
        "DRAM preset or file (and so memtest) takes real DRAM timings\n");
}

TEST_CASE("ideal memory: a valid one loads", "[accelerator-errors][ideal-memory]") {
  const auto spec = reusesim::config::load_accelerator_text(
      accelerator_with_dram("  ideal: {bandwidth_gbps: 34.1, latency_ns: 100}\n"), "acc.yaml");
  REQUIRE(spec.dram.ideal);
  CHECK(spec.dram.ideal->bandwidth_gbps == 34.1);
  CHECK(spec.dram.ideal->latency_ns == 100);
  CHECK(spec.dram.peak_bytes_per_second() == Approx(34.1e9));
  CHECK(reusesim::config::load_accelerator_text(accelerator_with_dram("  ideal: unlimited\n"), "acc.yaml").dram.ideal->unlimited);
}

TEST_CASE("hints: a key in another case, without its unit, or with another unit", "[model-errors][hints]") {
  using reusesim::util::closest_match;
  using reusesim::util::did_you_mean;
  const std::vector<std::string> keys{"bank_groups", "bank_width_bytes", "banks", "capacity_kib",
                                      "clock_mhz",   "tccd_l",           "tccd_s"};
  // Four substitutions away from "tccd_l" (and "tccd_s"), past the edit-distance limit of
  // (6 + 1) / 3 = 2: found by case alone.
  CHECK(did_you_mean("tCCD_L", keys) == " (did you mean \"tccd_l\"? names are case-sensitive)");
  // "bank_width" is "bank_width_bytes" less its unit (6 edits, limit (10 + 1) / 3 = 3), not
  // "bank_groups" (also 6), which only shares the stem "bank".
  CHECK(closest_match("bank_width", keys) == "bank_width_bytes");
  CHECK(did_you_mean("bank_width", keys) == " (did you mean \"bank_width_bytes\"?)");
  // Another unit on the same name: "capacity_bytes" is 5 edits from "capacity_kib" (limit
  // (14 + 1) / 3 = 5); "clock_frequency" is 9 from "clock_mhz" (limit 5), found by its stem "clock".
  CHECK(closest_match("capacity_bytes", keys) == "capacity_kib");
  CHECK(closest_match("clock_frequency", keys) == "clock_mhz");
  // A typo is still a typo, and nothing close is no hint.
  CHECK(closest_match("chanels", {"channels", "ranks"}) == "channels");
  CHECK(did_you_mean("xyz", keys).empty());
  CHECK(did_you_mean("modle", {"name", "compute", "model"}) == " (did you mean \"model\"?)");
}

TEST_CASE("overrides: a --set that sets nothing is an error", "[model-errors][overrides]") {
  const std::string model = image_model("  - {name: fc, type: linear, out_features: 4}\n");
  CHECK(load_error(model, {"layers.fc={}"}) ==
        "--set layers.fc={}: error: layers.fc: {} (an empty mapping) sets nothing: an override changes the fields it "
        "names, as layers.fc.<key>=value, and cannot empty a mapping (one given over a preset's merges into it)\n");
  CHECK(load_error(model, {"layers.fc.out_features="}) ==
        "--set layers.fc.out_features=: error: layers.fc.out_features: the override sets nothing: expected a value "
        "after the = (an override changes a field; it cannot remove one)\n");
}
