// Memory footprint: training and inference accounting, derived by hand.
#include <catch2/catch.hpp>

#include "config/model_loader.h"
#include "workload/footprint.h"

using namespace reusesim;

namespace {

workload::Network mlp() {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/mlp.yaml").network;
}

workload::FootprintOptions train(workload::Optimizer optimizer, std::int64_t batch) {
  workload::FootprintOptions options;
  options.batch = batch;
  options.mode = workload::FootprintMode::train;
  options.optimizer = optimizer;
  return options;
}

}  // namespace

TEST_CASE("MLP 1000-100-100-100-100-10, batch 256, SGD, fp32", "[footprint]") {
  const workload::Footprint footprint = workload::compute_footprint(mlp(), train(workload::Optimizer::sgd, 256));
  // Stored activations: input 1,000 + outputs 4*100 + 10 = 1,410 elements per sample.
  // Activation gradients: the 410 layer outputs. 1,820 elements per sample; x 256 = 465,920.
  CHECK(footprint.activation_bytes == 1410 * 256 * 4);
  CHECK(footprint.activation_gradient_bytes == 410 * 256 * 4);
  CHECK(footprint.activation_bytes + footprint.activation_gradient_bytes == 465'920 * 4);
  // 131,410 parameters and as many gradients; plain SGD keeps no state.
  CHECK(footprint.weight_bytes == 131'410 * 4);
  CHECK(footprint.gradient_bytes == 131'410 * 4);
  CHECK(footprint.optimizer_bytes == 0);
  CHECK(footprint.total_bytes == 2 * 525'640 + 1'863'680);
  // Peak: all parameters, gradients and stored activations, plus one layer's backward step;
  // the largest is fc2 (or fc3/fc4): its output gradient and fc1's, 200 * 256 * 4 = 204,800.
  CHECK(footprint.peak_bytes == 2 * 525'640 + 1'443'840 + 204'800);
}

TEST_CASE("optimizer state: momentum keeps one value per parameter, Adam two", "[footprint]") {
  CHECK(workload::compute_footprint(mlp(), train(workload::Optimizer::momentum, 1)).optimizer_bytes == 525'640);
  CHECK(workload::compute_footprint(mlp(), train(workload::Optimizer::adam, 1)).optimizer_bytes == 2 * 525'640);
  workload::FootprintOptions half = train(workload::Optimizer::adam, 1);
  half.dtype = workload::Precision::fp16;
  CHECK(workload::compute_footprint(mlp(), half).optimizer_bytes == 2 * 131'410 * 2);
}

TEST_CASE("inference keeps a tensor only until its last consumer", "[footprint]") {
  workload::FootprintOptions options;
  const workload::Footprint footprint = workload::compute_footprint(mlp(), options);
  // Running fc1 holds the input (1,000) and fc1's output (100): 1,100 elements = 4,400 bytes,
  // the most at any step (later steps hold 100 + 100 or 100 + 10).
  CHECK(footprint.peak_activation_bytes == 4'400);
  CHECK(footprint.peak_bytes == 525'640 + 4'400);
  // The activation column, and the total that holds everything at once, sum every tensor: the
  // input 1,000 + 4 x 100 + 10 = 1,410 elements = 5,640 bytes (the TOTAL row used to show 4,400
  // under a heading that says it sums the column).
  CHECK(footprint.activation_bytes == 5'640);
  CHECK(footprint.gradient_bytes == 0);
  CHECK(footprint.total_bytes == 525'640 + 5'640);
}

TEST_CASE("im2col workspace expands a k x k convolution's input k^2 times", "[footprint]") {
  const config::LoadedModel model = config::load_model_text(R"(
name: conv
precision: fp32
input: {channels: 192, height: 13, width: 13}
layers:
  - {name: conv, type: conv2d, out_channels: 192, kernel: 3, padding: 1}
  - {name: relu, type: relu}
)", "conv.yaml");
  workload::FootprintOptions options;
  options.im2col = true;
  const workload::Footprint footprint = workload::compute_footprint(model.network, options);
  // Input 192*13*13 = 32,448 elements; lowered: 3*3*192 rows x 13*13 columns = 292,032 = 9 x 32,448.
  CHECK(footprint.layers[0].im2col_bytes == 292'032 * 4);
  CHECK(footprint.im2col_bytes == 292'032 * 4);
  // Inference peak: input + conv output + workspace while conv runs = (32,448 * 2 + 292,032) * 4.
  CHECK(footprint.peak_bytes == footprint.weight_bytes + (2 * 32'448 + 292'032) * 4);
}

TEST_CASE("in-place activations store no second tensor", "[footprint]") {
  const config::LoadedModel model = config::load_model_text(R"(
name: chain
precision: fp32
input: {features: 100}
layers:
  - {name: fc, type: linear, out_features: 50}
  - {name: relu, type: relu}
  - {name: out, type: linear, out_features: 10}
)", "chain.yaml");
  workload::FootprintOptions options = train(workload::Optimizer::sgd, 1);
  const workload::Footprint separate = workload::compute_footprint(model.network, options);
  options.inplace_activations = true;
  const workload::Footprint inplace = workload::compute_footprint(model.network, options);
  // Stored: input 100 + fc 50 + relu 50 + out 10 = 210 elements; in place, relu's 50 are fc's buffer.
  CHECK(separate.activation_bytes == 210 * 4);
  CHECK(inplace.activation_bytes == 160 * 4);
  // Inference in place: relu's output lives in fc's buffer, which must then live until `out` runs:
  // the largest step is fc (input 100 + output 50 = 150 elements).
  options.mode = workload::FootprintMode::infer;
  CHECK(workload::compute_footprint(model.network, options).peak_activation_bytes == 150 * 4);
}
