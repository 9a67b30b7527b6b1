// The ONNX importer (docs/import.md) on small graphs written here in ONNX's text format: what it
// checks before handing a graph to ONNX's shape inference, what it refuses and how it says so, and
// that the model file it writes holds exactly the network it imported.
#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>

#include "import/import_error.h"
#include "import/model_writer.h"
#include "import/onnx_import.h"

using namespace reusesim;

namespace {

// A tensor's declaration: float (elem_type 1) unless said, dimensions numbers or names.
std::string tensor_type(const std::vector<std::string>& dims, int element_type = 1) {
  std::string text = "type { tensor_type { elem_type: " + std::to_string(element_type) + " shape {";
  for (const std::string& dim : dims) {
    const bool named = !dim.empty() && (dim[0] < '0' || dim[0] > '9') && dim[0] != '-';
    text += named ? " dim { dim_param: \"" + dim + "\" }" : " dim { dim_value: " + dim + " }";
  }
  return text + " } } }";
}
std::string input(const std::string& name, const std::vector<std::string>& dims, int element_type = 1) {
  return "input { name: \"" + name + "\" " + tensor_type(dims, element_type) + " }\n";
}
std::string output(const std::string& name) { return "output { name: \"" + name + "\" }\n"; }

// A node; `attributes` in the text format, e.g. ints("strides", {0, 0}).
std::string node(const std::string& op, const std::vector<std::string>& inputs, const std::string& out,
                 const std::string& name, const std::string& attributes = "") {
  std::string text = "node {";
  for (const std::string& in : inputs) text += " input: \"" + in + "\"";
  return text + " output: \"" + out + "\" name: \"" + name + "\" op_type: \"" + op + "\" " + attributes + " }\n";
}
std::string ints(const std::string& name, const std::vector<long long>& values) {
  std::string text = "attribute { name: \"" + name + "\" type: INTS";
  for (const long long value : values) text += " ints: " + std::to_string(value);
  return text + " } ";
}
std::string int_attribute(const std::string& name, long long value) {
  return "attribute { name: \"" + name + "\" type: INT i: " + std::to_string(value) + " } ";
}

std::string model_text(const std::string& graph, const std::string& producer = "test") {
  return "ir_version: 8 producer_name: \"" + producer + "\" opset_import { version: 17 }\ngraph {\n name: \"g\"\n" +
         graph + "}\n";
}

std::string onnx_bytes(const std::string& text) {
  onnx::ModelProto model;
  if (!google::protobuf::TextFormat::ParseFromString(text, &model)) FAIL("not ONNX text:\n" << text);
  return model.SerializeAsString();
}

import::ImportedModel import_text(const std::string& text, const std::string& batch_dim = ""){
    return import::import_onnx(onnx_bytes(text), "t.onnx", import::OnnxOptions{batch_dim});
}  // namespace

// The importer's message for `text`, without the file's name, or "imported".
std::string refusal(const std::string& text, const std::string& batch_dim = "") {
  try {
    import_text(text, batch_dim);
  } catch (const import::ImportError& error) {
    const std::string message = error.what();
    return message.rfind("t.onnx: ", 0) == 0 ? message.substr(8) : message;
  }
  return "imported";
}

// Conv 3 -> 4 channels, 3x3, on a 1x3x8x8 image, with `attributes`.
std::string conv_model(const std::string& attributes, const std::string& weight = "4, 3, 3, 3") {
  std::vector<std::string> weight_dims;
  for (std::size_t at = 0; at < weight.size();) {
    const std::size_t comma = weight.find(", ", at);
    weight_dims.push_back(weight.substr(at, comma - at));
    at = comma == std::string::npos ? weight.size() : comma + 2;
  }
  return model_text(node("Conv", {"x", "w"}, "y", "c", attributes) + input("x", {"1", "3", "8", "8"}) +
                    input("w", weight_dims) + output("y"));
}

std::string pool_model(const std::string& op, const std::string& attributes) {
  return model_text(node(op, {"x"}, "y", "p", attributes) + input("x", {"1", "3", "8", "8"}) + output("y"));
}

const std::string kKernel = ints("kernel_shape", {3, 3});

}  // namespace

TEST_CASE("ONNX: the attributes shape inference divides by are checked before it runs", "[import]") {
  // ONNX 1.12's convPoolShapeInference divides by each stride (SIGFPE at 0), Conv's by group.
  CHECK(refusal(conv_model(kKernel + ints("strides", {0, 0}))) ==
        "node c (Conv): strides [0, 0]: each value must be 1..1099511627776");
  CHECK(refusal(pool_model("MaxPool", kKernel + ints("strides", {0, 0}))) ==
        "node p (MaxPool): strides [0, 0]: each value must be 1..1099511627776");
  CHECK(refusal(pool_model("AveragePool", kKernel + ints("strides", {0, 0}))) ==
        "node p (AveragePool): strides [0, 0]: each value must be 1..1099511627776");
  CHECK(refusal(conv_model(kKernel + int_attribute("group", 0))) ==
        "node c (Conv): group 0: each value must be 1..1099511627776");
  CHECK(refusal(conv_model(kKernel + ints("dilations", {0, 1}))) ==
        "node c (Conv): dilations [0, 1]: each value must be 1..1099511627776");
  CHECK(refusal(pool_model("MaxPool", ints("kernel_shape", {0, 0}))) ==
        "node p (MaxPool): kernel_shape [0, 0]: each value must be 1..1099511627776");
  CHECK(refusal(conv_model(kKernel + ints("pads", {-1, -1, -1, -1}))) ==
        "node c (Conv): pads [-1, -1, -1, -1]: each value must be 0..1099511627776");
  CHECK(refusal(conv_model(kKernel + ints("strides", {1, 1, 1}))) ==
        "node c (Conv): strides [1, 1, 1]: expected 2 values");
  // A Conv without kernel_shape takes its weight's; a weight of another rank is refused first.
  CHECK(refusal(conv_model("", "4, 3, 3, 3, 3")) ==
        "node c (Conv): only 2-D convolutions map (the weight has [4, 3, 3, 3, 3])");
  // Transpose indexes the input's dimensions with perm.
  CHECK(refusal(model_text(node("Transpose", {"x"}, "y", "t", ints("perm", {0, 7})) + input("x", {"1", "4"}) +
                           output("y"))) == "node t (Transpose): perm [0, 7] is not a permutation of the axes 0..1");
}

TEST_CASE("ONNX: a node must match ONNX's definition of its operator before shape inference reads it", "[import]") {
  // Conv without its weight, Relu without an output, strides given as one INT.
  CHECK(refusal(model_text(node("Conv", {"x"}, "y", "c", kKernel) + input("x", {"1", "3", "8", "8"}) + output("y"))) ==
        "node c (Conv): does not match ONNX's definition of Conv at opset 17: Node (c) has input size 1 not in range "
        "[min=2, max=3].");
  CHECK(refusal(model_text("node { input: \"x\" name: \"r\" op_type: \"Relu\" }\n" + input("x", {"1", "8"}))) ==
        "node r (Relu): does not match ONNX's definition of Relu at opset 17: Node (r) has output size 0 not in range "
        "[min=1, max=1].");
  CHECK(refusal(conv_model(kKernel + int_attribute("strides", 2))) ==
        "node c (Conv): does not match ONNX's definition of Conv at opset 17: Mismatched attribute type in 'c : "
        "strides'");
  CHECK(refusal("ir_version: 8 graph { " + node("Relu", {"x"}, "y", "r") + input("x", {"1", "8"}) + output("y") +
                "}") == "the model imports no version of ONNX's operator set (opset_import)");
  // LSTM-1's shape inference read three dimensions of a rank-1 input (SIGSEGV).
  const std::string lstm = node("LSTM", {"x", "w", "r"}, "y", "l", int_attribute("hidden_size", 2)) +
                           input("x", {"4"}) + input("w", {"1", "8", "3"}) + input("r", {"1", "8", "2"}) + output("y");
  CHECK(refusal("ir_version: 8 opset_import { version: 1 } graph { " + lstm + "}") ==
        "opset 1: ReuseSim reads opset 7 (ONNX 1.2, 2018) and later, whose shape inference checks the ranks it reads "
        "(before, LSTM's did not)");
}

TEST_CASE("ONNX: a constant must hold the values its dimensions say before shape inference reads it", "[import]") {
  // ConstantOfShape of an int64 [2] initializer of 2 raw bytes (16 expected): libonnx read past them (SIGSEGV).
  const std::string shape = "initializer { name: \"s\" data_type: 7 dims: 2 raw_data: \"\\000\\106\" }\n";
  CHECK(refusal(model_text(node("ConstantOfShape", {"s"}, "y", "c") + shape + input("x", {"1", "8"}) + output("y"))) ==
        "the initializer s [2] holds 2 bytes of int64, not the 2 values its dimensions say");
  const std::string three =
      "initializer { name: \"s\" data_type: 7 dims: 2 int64_data: 1 int64_data: 2 int64_data: 3 }\n";
  CHECK(refusal(model_text(node("ConstantOfShape", {"s"}, "y", "c") + three + input("x", {"1", "8"}) + output("y"))) ==
        "the initializer s [2] holds 3 values, not the 2 values its dimensions say");
}

TEST_CASE("ONNX: declared ranks and shape inputs are bounded before shape inference builds them", "[import]") {
  // ConstantOfShape of a shape declared with 2^62 values: shape inference added 2^62 dimensions.
  CHECK(refusal(model_text(node("ConstantOfShape", {"s"}, "y", "c") + input("s", {"4611686018427387904"}, 7) +
                           input("x", {"1", "8"}) + output("y"))) ==
        "node c (ConstantOfShape): its shape input s has 4611686018427387904 values, a rank over 64");
  std::vector<std::string> dims(65, "1");
  CHECK(refusal(model_text(node("Relu", {"x"}, "y", "r") + input("x", dims) + output("y"))) ==
        "the tensor x is declared with 65 dimensions, more than 64");
}

TEST_CASE("ONNX: a zero kernel or channel count is refused with the node, never written", "[import]") {
  CHECK(refusal(conv_model(ints("kernel_shape", {0, 3}), "4, 3, 0, 3")) ==
        "node c (Conv): kernel_shape [0, 3]: each value must be 1..1099511627776");
  CHECK(refusal(conv_model(kKernel, "0, 3, 3, 3")) ==
        "node c (Conv): the weight w [0, 3, 3, 3]: dimension 0 is 0; a size must be 1..1099511627776");
  CHECK(refusal(model_text(node("Relu", {"x"}, "y", "r") + input("x", {"1", "0", "8", "8"}) + output("y"))) ==
        "the graph input x [1, 0, 8, 8]: dimension 1 is 0; a size must be 1..1099511627776");
  // A negative size is said to be one, not taken for a dynamic dimension.
  CHECK(refusal(model_text(node("Relu", {"x"}, "y", "r") + input("x", {"1", "-3"}) + output("y"))) ==
        "the graph input x [1, -3]: dimension 1 is -3; a size must be 1..1099511627776");
}

TEST_CASE("ONNX: a model of more layers than a model file holds is refused at the node that passes it", "[import]") {
  // 100,001 ReLUs in a row: layer 100,001 is one too many (config::kMaxModelLayers).
  std::string graph;
  for (int i = 1; i <= 100'001; ++i) {
    graph +=
        node("Relu", {i == 1 ? "x" : "t" + std::to_string(i - 1)}, "t" + std::to_string(i), "r" + std::to_string(i));
  }
  CHECK(refusal(model_text(graph + input("x", {"1", "4"}) + output("t100001"))) ==
        "node r100001 (Relu): makes layer 100001; a model file may have at most 100000");
}

TEST_CASE("ONNX: names and the producer are escaped in the comments the model file keeps", "[import]") {
  // A node name with a line break that wrote a layer of 8 -> 1,000,000 (8,000,000 MACs) into the
  // file, a producer name that wrote a key, and a control character: each stays in its comment.
  const std::string evil = "r1\\n  - {name: evil, type: linear, out_features: 1000000}";
  const std::string text = model_text(
      node("Relu", {"x"}, "a", evil) + node("Relu", {"a"}, "b", "r2\\001") + input("x", {"1", "8"}) + output("b"),
      "torch\\nprecision: int8");
  const import::ImportedModel model = import_text(text);
  const std::string yaml = import::model_yaml(model);
  CHECK(yaml.find("\n  - {name: evil") == std::string::npos);
  CHECK(yaml.find("\nprecision: int8") == std::string::npos);
  CHECK(yaml.find("# node r1\\x0A  - {name: evil, type: linear, out_features: 1000000} (Relu)") != std::string::npos);
  CHECK(yaml.find("(written by torch\\x0Aprecision: int8, opset 17)") != std::string::npos);
  CHECK(yaml.find("# node r2\\x01 (Relu)") != std::string::npos);
  const workload::Network written = import::load_back(model, yaml, "t.yaml");
  REQUIRE(written.layers.size() == 2);
  CHECK(written.total_macs() == 0);
  CHECK(written.precision == workload::Precision::fp32);
}

TEST_CASE("ONNX comments: UTF-8 stays, line separators, controls and stray bytes are escaped", "[import]") {
  CHECK(import::comment_text("conv ü 中") == "conv ü 中");
  CHECK(import::comment_text("a\r\nb\\c") == "a\\x0D\\x0Ab\\\\c");
  CHECK(import::comment_text("x\xe2\x80\xa8y\xc2\x85z") == "x\\xE2\\x80\\xA8y\\xC2\\x85z");  // U+2028, U+0085
  CHECK(import::comment_text("\xff\xef\xbb\xbf") == "\\xFF\\xEF\\xBB\\xBF");                 // not UTF-8, BOM
}

TEST_CASE("ONNX: the written model must load back as the network imported", "[import]") {
  const import::ImportedModel model = import_text(
      model_text(node("Gemm", {"x", "w"}, "y", "fc") + input("x", {"1", "8"}) + input("w", {"8", "4"}) + output("y")));
  const std::string yaml = import::model_yaml(model);
  CHECK(import::load_back(model, yaml, "t.yaml").total_macs() == 32);  // 8 x 4
  // The same file with another layer count, another layer, or one that does not load: invariant broken.
  CHECK_THROWS_AS(import::load_back(model, yaml + "  - {name: more, type: relu}\n", "t.yaml"),
                  import::ImportInvariantError);
  std::string wider = yaml;
  wider.replace(wider.find("out_features: 4"), 15, "out_features: 5");
  CHECK_THROWS_WITH(import::load_back(model, wider, "t.yaml"),
                    "the imported model does not load back from t.yaml as imported: layer 1 is fc (linear, vector 5, "
                    "40 MACs, 40 parameters), not fc (linear, vector 4, 32 MACs, 32 parameters)");
  CHECK_THROWS_AS(import::load_back(model, "layers: [", "t.yaml"), import::ImportInvariantError);
}

TEST_CASE("ONNX: the precision is the data input's, and a type no precision holds is refused", "[import]") {
  // A stripped int8 weight listed before the fp32 data input.
  const std::string linear =
      node("MatMul", {"x", "w"}, "y", "fc") + input("w", {"8", "4"}, 3) + input("x", {"1", "8"}) + output("y");
  CHECK(import_text(model_text(linear)).spec.precision == workload::Precision::fp32);
  const std::string fp64 = node("Relu", {"x"}, "y", "r") + input("x", {"1", "8"}, 11) + output("y");
  CHECK(refusal(model_text(fp64)) ==
        "the data input x is double (fp64), which no precision of ReuseSim holds (float, float16, bfloat16, int16, "
        "int8 or uint8 map to fp32, fp16, bf16, int16, int8)");
  // Token ids (int64) take the embedding table's type.
  const std::string tokens = node("Gather", {"table", "ids"}, "e", "embed") + input("table", {"100", "16"}, 10) +
                             input("ids", {"1", "12"}, 7) + output("e");
  CHECK(import_text(model_text(tokens)).spec.precision == workload::Precision::fp16);
  const std::string fp64_table = node("Gather", {"table", "ids"}, "e", "embed") + input("table", {"100", "16"}, 11) +
                                 input("ids", {"1", "12"}, 7) + output("e");
  CHECK(refusal(model_text(fp64_table)) ==
        "node embed (Gather): the embedding table table is double (fp64), which no precision of ReuseSim holds "
        "(float, float16, bfloat16, int16, int8 or uint8 map to fp32, fp16, bf16, int16, int8)");
}

TEST_CASE("ONNX: a weight must fit its input (group for Conv, transB for Gemm)", "[import]") {
  // [8, 5, 3, 3] on 3 channels: 360 weights in the file, 216 counted before.
  CHECK(refusal(conv_model(kKernel, "8, 5, 3, 3")) ==
        "node c (Conv): the weight w [8, 5, 3, 3] does not fit 3 input channels in group 1 with kernel_shape [3, 3]: "
        "expected [M, 3, 3, 3] with M a multiple of 1");
  // Depthwise: group 3, weight [3, 1, 3, 3] fits; [3, 3, 3, 3] does not.
  CHECK(refusal(conv_model(kKernel + int_attribute("group", 3), "3, 1, 3, 3")) == "imported");
  CHECK(refusal(conv_model(kKernel + int_attribute("group", 3), "3, 3, 3, 3")) ==
        "node c (Conv): the weight w [3, 3, 3, 3] does not fit 3 input channels in group 3 with kernel_shape [3, 3]: "
        "expected [M, 1, 3, 3] with M a multiple of 3");
  CHECK(refusal(conv_model(ints("kernel_shape", {1, 1}))) ==
        "node c (Conv): the weight w [4, 3, 3, 3] does not fit 3 input channels in group 1 with kernel_shape [1, 1]: "
        "expected [M, 3, 1, 1] with M a multiple of 1");
  const auto gemm = [](const std::string& attributes) {
    return model_text(node("Gemm", {"x", "w"}, "y", "fc", attributes) + input("x", {"1", "16"}) +
                      input("w", {"10", "20"}) + output("y"));
  };
  CHECK(refusal(gemm("")) ==
        "node fc (Gemm): the weight w [10, 20] does not fit the input's 16 features: expected [16, 20]");
  CHECK(refusal(gemm(int_attribute("transB", 1))) ==
        "node fc (Gemm): the weight w [10, 20] does not fit the input's 16 features: expected [10, 16] (transB 1)");
}

TEST_CASE("ONNX: recurrent and normalization parameters must fit their input", "[import]") {
  // GRU, hidden 4, on [T 5, N 1, F 6] (time-major): W [1, 3 x 4, 6], R [1, 12, 4].
  const auto gru = [](const std::string& w, const std::string& r) {
    return model_text(node("GRU", {"x", "w", "r"}, "y", "gru", int_attribute("hidden_size", 4)) +
                      input("x", {"5", "N", "6"}) + input("w", {"1", "12", w}) + input("r", {"1", "12", r}) +
                      output("y"));
  };
  CHECK(refusal(gru("6", "4"), "N") == "imported");
  CHECK(
      refusal(gru("7", "4"), "N") ==
      "node gru (GRU): the weight w [1, 12, 7] does not fit 6 input features, direction forward: expected [1, 12, 6]");
  CHECK(refusal(gru("6", "5"), "N") ==
        "node gru (GRU): the recurrence weight r [1, 12, 5] does not fit hidden_size 4, direction forward: expected "
        "[1, 12, 4]");
  // LayerNormalization over 64 features with a scale of 32: 2 x 64 parameters counted, 32 + 64 in
  // the file (ONNX's own inference checks BatchNormalization's, not these).
  const std::string ln =
      model_text(node("LayerNormalization", {"x", "s", "b"}, "y", "ln") + input("x", {"1", "10", "64"}) +
                 input("s", {"32"}) + input("b", {"64"}) + output("y"));
  CHECK(refusal(ln) ==
        "node ln (LayerNormalization): the parameter s [32] does not fit the input's 64 features: expected [64]");
}

TEST_CASE("ONNX: LayerNormalization without its bias B is a layernorm without bias", "[import]") {
  // Over 64 features: the scale alone is 64 parameters, scale and bias 2 x 64 = 128.
  const auto layer_norm = [](const std::vector<std::string>& inputs) {
    std::string graph = node("LayerNormalization", inputs, "y", "ln") + input("x", {"1", "10", "64"});
    for (std::size_t i = 1; i < inputs.size(); ++i) graph += input(inputs[i], {"64"});
    return import_text(model_text(graph + output("y")));
  };
  const import::ImportedModel scale_only = layer_norm({"x", "s"});
  const std::string yaml = import::model_yaml(scale_only);
  CHECK(yaml.find("{name: ln, type: layernorm, bias: false}") != std::string::npos);
  CHECK(import::load_back(scale_only, yaml, "t.yaml").total_params() == 64);
  const import::ImportedModel with_bias = layer_norm({"x", "s", "b"});
  CHECK(import::load_back(with_bias, import::model_yaml(with_bias), "t.yaml").total_params() == 128);
}

TEST_CASE("ONNX: an operator that reads the data input and has no layer is named", "[import]") {
  const std::string x = input("x", {"1", "8"}) + input("w", {"8", "8"});
  CHECK(refusal(model_text(node("Sub", {"x", "w"}, "y", "s") + x + output("y"))) ==
        "node s (Sub): the operator Sub has no layer in ReuseSim's layer library; docs/import.md lists the operators "
        "that map");
  CHECK(refusal(model_text(node("Frobnicate", {"x"}, "y", "f") + x + output("y"))) ==
        "node f (Frobnicate): the operator Frobnicate has no layer in ReuseSim's layer library; docs/import.md lists "
        "the operators that map");
  const std::string where =
      ", and no operator reads a graph input where only data can be (input 0 of Conv, Gemm, MatMul, pooling, "
      "normalization, activations, recurrent layers and views, the indices of Gather, the inputs of Concat); a "
      "ReuseSim model needs its data input";
  CHECK(refusal(model_text(node("Add", {"x", "x"}, "y", "a") + x + output("y"))) ==
        "node a (Add): reads the graph input x as input 0, where a Add may take a parameter" + where);
  // W x with W in the file: x sits where a MatMul takes its weight.
  std::string w = "initializer { name: \"w\" data_type: 1 dims: 4 dims: 8";
  for (int i = 0; i < 32; ++i) w += " float_data: 0";
  w += " }\n";
  CHECK(refusal(model_text(node("MatMul", {"w", "x2"}, "y", "m") + w + input("x2", {"8", "2"}) + output("y"))) ==
        "node m (MatMul): reads the graph input x2 as input 1, where a MatMul may take a parameter" + where);
  CHECK(refusal(model_text(node("Relu", {"b"}, "a", "r1") + node("Relu", {"a"}, "b", "r2") + x + output("b"))) ==
        "node r1 (Relu): reads b before node r2 (Relu) computes it: the graph has a cycle or is not sorted (ONNX "
        "requires every node after those it reads)");
}

TEST_CASE("ONNX: a layer the library refuses names its node once", "[import]") {
  // BatchNormalization of a vector: the layer library's batchnorm takes images.
  const std::string text =
      model_text(node("BatchNormalization", {"x", "s", "b", "m", "v"}, "y", "bn") + input("x", {"1", "8"}) +
                 input("s", {"8"}) + input("b", {"8"}) + input("m", {"8"}) + input("v", {"8"}) + output("y"));
  CHECK(refusal(text) ==
        "node bn (BatchNormalization): the layer library refuses it: batchnorm needs an image input, got vector 8");
}

TEST_CASE("ONNX: Clip's bounds are read in every float type, fp16 ReLU6 as in MobileNets", "[import]") {
  // Clip(0, 6) with float16 bounds: 0 = 0x0000, 6 = 0x4600 (exponent 17, mantissa 512: 1.5 x 2^2),
  // as raw little-endian bytes, and as int32_data; and with double bounds.
  const auto clip = [](int element_type, const std::string& zero, const std::string& six) {
    const auto constant = [&](const std::string& name, const std::string& value) {
      return "initializer { name: \"" + name + "\" data_type: " + std::to_string(element_type) + " " + value + " }\n";
    };
    return model_text(node("Clip", {"x", "lo", "hi"}, "y", "relu6") + input("x", {"1", "3", "4", "4"}, element_type) +
                      constant("lo", zero) + constant("hi", six) + output("y"));
  };
  CHECK(import_text(clip(10, "raw_data: \"\\000\\000\"", "raw_data: \"\\000\\106\"")).spec.layers.at(0).type ==
        workload::LayerType::relu6);
  CHECK(import_text(clip(10, "int32_data: 0", "int32_data: 17920")).spec.layers.at(0).type ==
        workload::LayerType::relu6);
  CHECK(import_text(clip(16, "int32_data: 0", "int32_data: 16576")).spec.layers.at(0).type ==
        workload::LayerType::relu6);  // bfloat16 6.0: 0x40C0
  const std::string fp64 = clip(11, "double_data: 0", "double_data: 6");
  CHECK(refusal(fp64) ==
        "the data input x is double (fp64), which no precision of ReuseSim holds (float, float16, bfloat16, int16, "
        "int8 or uint8 map to fp32, fp16, bf16, int16, int8)");
  // fp16 6.5 (0x4680) is no ReLU6.
  CHECK(refusal(clip(10, "int32_data: 0", "int32_data: 18048")) ==
        "node relu6 (Clip): only Clip(0, 6) (ReLU6) and Clip(0) (ReLU) have a layer");
}
