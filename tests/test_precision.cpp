// Precision per tensor (docs/model-format.md, "Precision per tensor"): a model's precision block,
// the bytes each tensor takes at its format, quantized weights' scales, the KV cache at its own
// width; every figure derived by hand.
#include <catch2/catch.hpp>

#include "config/model_loader.h"
#include "input_error_text.h"
#include "report/analyze_report.h"
#include "workload/footprint.h"
#include "workload/precision.h"

using namespace reusesim;

namespace {

// One 4,096 x 4,096 linear layer without a bias (a Llama-2-7B projection), at `precision`.
config::LoadedModel projection(const std::string& precision, const std::vector<std::string>& overrides = {}) {
  return config::load_model_text("name: projection\nprecision: " + precision +
                                     "\ninput: {features: 4096}\n"
                                     "layers:\n  - {name: q, type: linear, out_features: 4096, bias: false}\n",
                                 "projection.yaml", overrides);
}

// The error text without its final newline.
std::string model_error(const std::string& precision, const std::vector<std::string>& overrides = {}) {
  std::string text = input_error_text([&] { projection(precision, overrides); });
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// The parameter bytes of a model of one layer, at `precision`.
workload::ParameterBytes one_layer_bytes(const std::string& precision, const std::string& input,
                                         const std::string& layer) {
  const workload::Network network =
      config::load_model_text(
          "name: one\nprecision: " + precision + "\ninput: " + input + "\nlayers:\n  - " + layer + "\n", "one.yaml")
          .network;
  // The layer's weight matrices and other parameters add up to its parameters.
  const workload::NetworkLayer& only = network.layers.at(0);
  std::int64_t matrix_elements = 0;
  for (const workload::WeightMatrix& matrix : workload::weight_matrices(only)) {
    matrix_elements += matrix.k * matrix.n * matrix.count;
  }
  CHECK(matrix_elements <= only.counts.params);
  return workload::parameter_bytes(only, network.model_widths());
}

std::string llama_path() { return std::string(REUSESIM_SOURCE_DIR) + "/models/llama2_7b.yaml"; }

}  // namespace

TEST_CASE("a precision block reads each tensor's format; absent ones take the activations'", "[precision]") {
  const workload::Network block =
      projection("{activations: bf16, weights: int4, kv_cache: fp8_e4m3, weight_group_size: 64}").network;
  REQUIRE(block.formats.has_value());
  CHECK(block.formats->activations == workload::NumberFormat::bf16);
  CHECK(block.formats->weights == workload::NumberFormat::int4);
  CHECK(block.formats->kv_cache == workload::NumberFormat::fp8_e4m3);
  CHECK(block.formats->weight_group_size == 64);
  const workload::Network defaults = projection("{activations: fp16}").network;
  REQUIRE(defaults.formats.has_value());
  CHECK(defaults.formats->weights == workload::NumberFormat::fp16);
  CHECK(defaults.formats->kv_cache == workload::NumberFormat::fp16);
  CHECK(defaults.formats->weight_group_size == 0);
  // A scalar precision has no block: every tensor at one size, as before.
  CHECK_FALSE(projection("fp16").network.formats.has_value());
}

TEST_CASE("an override of precision.weights turns a one-word precision into a block around it", "[precision]") {
  // precision: fp16 with weights int8 set: activations and the KV cache stay at the word's fp16.
  const workload::Network set = projection("fp16", {"precision.weights=int8"}).network;
  REQUIRE(set.formats.has_value());
  CHECK(set.formats->activations == workload::NumberFormat::fp16);
  CHECK(set.formats->weights == workload::NumberFormat::int8);
  CHECK(set.formats->kv_cache == workload::NumberFormat::fp16);
  // Other overrides leave a one-word precision alone.
  CHECK_FALSE(projection("fp16", {"name=other"}).network.formats.has_value());
}

TEST_CASE("a precision block's errors name the file, line, column and key", "[precision]") {
  CHECK(model_error("{activations: fp16, weights: int3}") ==
        "projection.yaml:2:41: error: precision.weights: expected one of int4, int8, int16, fp8_e4m3, fp8_e5m2, fp16, "
        "bf16, fp32, got \"int3\" (did you mean \"int4\"?)");
  CHECK(model_error("{weights: int4}") == "projection.yaml:2:12: error: precision.activations: missing required key");
  CHECK(model_error("{activations: fp16, weight_group_size: 128}") ==
        "projection.yaml:2:51: error: precision.weight_group_size: a group size applies to int4 and int8 weights (one "
        "fp16 scale per group); weights are fp16");
  CHECK(model_error("{activations: fp16, weights: int4, weight_group_size: 0}") ==
        "projection.yaml:2:66: error: precision.weight_group_size: expected a positive integer, got 0");
  CHECK(model_error("{activations: fp16, wieghts: int4}") ==
        "projection.yaml:2:32: error: precision.wieghts: unknown key (did you mean \"weights\"?)");
  CHECK(model_error("fp16", {"precision.kv_cache=int2"}) ==
        "--set precision.kv_cache=int2: error: precision.kv_cache: expected one of int4, int8, int16, fp8_e4m3, "
        "fp8_e5m2, fp16, bf16, fp32, got \"int2\" (did you mean \"int4\"?)");
}

TEST_CASE("int4 weights of a 4096 x 4096 linear layer with fp16 scales per group of 128", "[precision]") {
  const workload::Network network = projection("{activations: fp16, weights: int4, weight_group_size: 128}").network;
  const workload::ParameterBytes bytes = workload::parameter_bytes(network.layers[0], network.model_widths());
  // 4,096 x 4,096 = 16,777,216 weights at 4 bits: 16,777,216 / 2 = 8,388,608 B.
  CHECK(bytes.weights == 8'388'608);
  // 4,096 / 128 = 32 groups along K per output column, 4,096 columns: 131,072 scales x 2 B = 262,144 B.
  CHECK(bytes.scales == 262'144);
  CHECK(bytes.other == 0);  // no bias
  // analyze's compulsory traffic at batch 1: weights 8,388,608 + 262,144 = 8,650,752 B; the input
  // and the output 4,096 fp16 each = 8,192 B.
  const workload::TrafficBytes traffic = workload::compulsory_traffic(network.layers[0], 1, network.model_widths());
  CHECK(traffic.weight == 8'650'752);
  CHECK(traffic.input == 8'192);
  CHECK(traffic.output == 8'192);
  // One scale per output channel without a group size: 4,096 x 2 B = 8,192 B.
  const workload::Network per_channel = projection("{activations: fp16, weights: int4}").network;
  CHECK(workload::parameter_bytes(per_channel.layers[0], per_channel.model_widths()).scales == 8'192);
  // A group that does not divide K: ceil(4,096 / 100) = 41 groups per column, 41 x 4,096 x 2 = 335,872 B.
  const workload::Network ragged = projection("{activations: fp16, weights: int8, weight_group_size: 100}").network;
  const workload::ParameterBytes int8 = workload::parameter_bytes(ragged.layers[0], ragged.model_widths());
  CHECK(int8.weights == 16'777'216);
  CHECK(int8.scales == 335'872);
  // fp8 weights carry no scales: 16,777,216 B.
  const workload::Network fp8 = projection("{activations: fp16, weights: fp8_e4m3}").network;
  CHECK(workload::parameter_bytes(fp8.layers[0], fp8.model_widths()).total() == 16'777'216);
}

TEST_CASE("int4 rounds a tensor up to whole bytes once; biases stay at the activations' width", "[precision]") {
  // 3 inputs x 5 outputs = 15 int4 weights = 60 bits -> 8 B (7.5 rounded up once), 5 scales per
  // channel x 2 B = 10 B, and the 5 biases at bf16 = 10 B.
  const workload::ParameterBytes bytes = one_layer_bytes("{activations: bf16, weights: int4}", "{features: 3}",
                                                         "{name: fc, type: linear, out_features: 5}");
  CHECK(bytes.weights == 8);
  CHECK(bytes.scales == 10);
  CHECK(bytes.other == 10);
  CHECK(workload::packed_bytes(15, 4) == 8);
  CHECK(workload::packed_bytes(16, 4) == 8);
  // Counted without forming elements x bits: 2^61 int4 values are 2^60 bytes (2^61 x 4 bits passes 2^63).
  CHECK(workload::packed_bytes(std::int64_t{1} << 61, 4) == std::int64_t{1} << 60);
  CHECK(workload::packed_bytes(std::int64_t{1} << 61, 16) == std::int64_t{1} << 62);
}

TEST_CASE("weight matrices of a grouped convolution and a stacked bidirectional LSTM", "[precision]") {
  // conv 3x3, 64 -> 128 channels in 4 groups: 4 matrices of K = 3 x 3 x 16 = 144, N = 32; int4
  // group 64: ceil(144 / 64) = 3 groups x 32 columns x 4 = 384 scales = 768 B; weights 144 x 32 x 4
  // = 18,432 x 4 bits = 9,216 B; 128 biases at fp16 = 256 B.
  const workload::ParameterBytes conv = one_layer_bytes(
      "{activations: fp16, weights: int4, weight_group_size: 64}", "{channels: 64, height: 8, width: 8}",
      "{name: conv, type: conv2d, out_channels: 128, kernel: 3, groups: 4}");
  CHECK(conv.weights == 9'216);
  CHECK(conv.scales == 768);
  CHECK(conv.other == 256);
  // LSTM, 2 layers, bidirectional, hidden 8, input 10: layer 1 K = 10 + 8 = 18, layer 2 K = 16 + 8
  // = 24, N = 4 x 8 = 32, 2 directions each: (18 + 24) x 32 x 2 = 2,688 int8 weights; per-channel
  // scales 32 x 2 x 2 = 128 x 2 B = 256 B; biases 2 x 2 x 4 x 2 x 8 = 256 at fp16 = 512 B.
  const workload::ParameterBytes lstm =
      one_layer_bytes("{activations: fp16, weights: int8}", "{sequence: 5, features: 10}",
                      "{name: lstm, type: lstm, hidden_size: 8, num_layers: 2, bidirectional: true}");
  CHECK(lstm.weights == 2'688);
  CHECK(lstm.scales == 256);
  CHECK(lstm.other == 512);
}

TEST_CASE("Llama-2-7B decode at context 4,095: the KV cache at int8 is half the fp16 one", "[precision]") {
  // Per layer the step reads the keys and values of L + 1 = 4,096 tokens, 4,096 elements each:
  // 2 x 4,096 x 4,096 = 33,554,432 elements; over 32 layers 1,073,741,824. At fp16 2 B each =
  // 2,147,483,648 B (2 GiB); at int8 1 B each = 1,073,741,824 B (1 GiB).
  const config::Phase decode{0, 4095};
  const workload::Network fp16 = config::load_model_file(llama_path(), {}, decode).network;
  const workload::Network int8 = config::load_model_file(llama_path(), {"precision.kv_cache=int8"}, decode).network;
  report::AnalyzeOptions options;
  const report::Table fp16_table = report::analyze_table(fp16, options);
  const report::Table int8_table = report::analyze_table(int8, options);
  const auto total = [](const report::Table& table, const std::string& column) {
    const nlohmann::ordered_json rows = table.to_json();
    return rows.back().at(column).get<std::int64_t>();
  };
  CHECK(total(fp16_table, "kv_cache_read_bytes") == 2'147'483'648LL);
  CHECK(total(int8_table, "kv_cache_read_bytes") == 1'073'741'824LL);
  // Weights stay at fp16 and unscaled: the same bytes both ways.
  CHECK(total(int8_table, "weight_bytes") == total(fp16_table, "weight_bytes"));
  CHECK(total(int8_table, "weight_scale_bytes") == 0);
  // The input bytes of a step: the cache reads are among them, so they fall by the 1 GiB saved.
  CHECK(total(fp16_table, "input_bytes") - total(int8_table, "input_bytes") == 1'073'741'824LL);
  // footprint holds the L = 4,095 cached tokens: 32 x 2 x 4,095 x 4,096 = 1,073,479,680 elements,
  // 2,146,959,360 B at fp16, 1,073,479,680 B at int8.
  workload::FootprintOptions footprint;
  footprint.dtype = workload::Precision::fp16;
  CHECK(workload::compute_footprint(fp16, footprint).kv_cache_bytes == 2'146'959'360LL);
  footprint.formats = int8.formats;
  CHECK(workload::compute_footprint(int8, footprint).kv_cache_bytes == 1'073'479'680LL);
}

TEST_CASE("footprint sizes an int4 model's weights with their scales and its activations at fp16", "[precision]") {
  const workload::Network network = projection("{activations: fp16, weights: int4, weight_group_size: 128}").network;
  workload::FootprintOptions options;
  options.formats = network.formats;
  options.batch = 3;
  const workload::Footprint footprint = workload::compute_footprint(network, options);
  // Weights 8,388,608 + scales 262,144 = 8,650,752 B; input and output 4,096 x 3 x 2 B = 24,576 B each.
  CHECK(footprint.weight_bytes == 8'650'752);
  CHECK(footprint.input_bytes == 24'576);
  CHECK(footprint.activation_bytes == 2 * 24'576);
}

TEST_CASE("one element size for everything gives the bytes of before", "[precision]") {
  // TensorWidths::uniform is how the scalar precision and the accelerator's operand width count:
  // a 4,096 x 4,096 linear at 2 B is 33,554,432 B of weights, no scales.
  const workload::Network network = projection("fp16").network;
  const workload::TrafficBytes traffic = workload::compulsory_traffic(network.layers[0], 2, 2);
  CHECK(traffic.weight == 33'554'432);
  CHECK(traffic.input == 2 * 4'096 * 2);
  CHECK(workload::parameter_bytes(network.layers[0], workload::TensorWidths::uniform(2)).scales == 0);
}

TEST_CASE("a 2:4 sparse 4096 x 4096 fp16 layer stores half its weights and 2 bits of metadata each",
          "[precision][sparsity]") {
  const workload::ParameterBytes bytes = one_layer_bytes(
      "fp16", "{features: 4096}", "{name: q, type: linear, out_features: 4096, bias: false, sparsity: \"2:4\"}");
  // 4,096 columns x 4,096 / 4 blocks x 2 kept = 8,388,608 values x 2 B = 16,777,216 B.
  CHECK(bytes.weights == 16'777'216);
  // 8,388,608 kept values x ceil(log2 4) = 2 bits = 16,777,216 bits / 8 = 2,097,152 B.
  CHECK(bytes.metadata == 2'097'152);
  CHECK(bytes.total() == 18'874'368);
  // int4 weights, 1:8: 4,096 x 512 kept = 2,097,152 values x 4 bits = 1,048,576 B; metadata 3 bits
  // each = 786,432 B; one fp16 scale a column (along the dense K), 8,192 B.
  const workload::ParameterBytes int4 =
      one_layer_bytes("{activations: fp16, weights: int4}", "{features: 4096}",
                      "{name: q, type: linear, out_features: 4096, bias: false, sparsity: \"1:8\"}");
  CHECK(int4.weights == 1'048'576);
  CHECK(int4.metadata == 786'432);
  CHECK(int4.scales == 8'192);
}

TEST_CASE("a K that M does not divide ends in a short block keeping min(N, its length)", "[precision][sparsity]") {
  // conv 7x7 over 3 channels: K = 147 = 36 blocks of 4 + 3, kept 36 x 2 + min(2, 3) = 74 a column;
  // 64 columns: 4,736 values x 2 B = 9,472 B, 4,736 x 2 bits = 1,184 B of metadata; the bias at fp16.
  const workload::ParameterBytes bytes = one_layer_bytes(
      "fp16", "{channels: 3, height: 224, width: 224}",
      "{name: conv1, type: conv2d, out_channels: 64, kernel: 7, stride: 2, padding: 3, sparsity: \"2:4\"}");
  CHECK(bytes.weights == 9'472);
  CHECK(bytes.metadata == 1'184);
  CHECK(bytes.other == 128);
  const workload::Sparsity two_of_four{2, 4};
  CHECK(two_of_four.kept(147) == 74);
  CHECK(two_of_four.kept(145) == 73);  // a short block of 1 keeps 1
  CHECK(two_of_four.index_bits() == 2);
  CHECK(workload::Sparsity{1, 8}.index_bits() == 3);
  CHECK(workload::Sparsity{3, 5}.index_bits() == 3);
  // Which patterns a 2:4 array skips: at most 2 nonzeros in every 4.
  CHECK(workload::Sparsity{1, 4}.runs_on(two_of_four));
  CHECK(workload::Sparsity{2, 8}.runs_on(two_of_four));
  CHECK(workload::Sparsity{1, 2}.runs_on(two_of_four));
  CHECK_FALSE(workload::Sparsity{3, 4}.runs_on(two_of_four));
  CHECK_FALSE(workload::Sparsity{3, 8}.runs_on(two_of_four));
  CHECK_FALSE(workload::Sparsity{1, 3}.runs_on(two_of_four));
  CHECK_FALSE(two_of_four.runs_on(workload::Sparsity{}));
}
