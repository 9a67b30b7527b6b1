// A training step's programs: the MACs of its GEMMs, their shapes and the optimizer's traffic,
// derived by hand for the MLP 1000-100-100-100-100-10 (models/mlp.yaml). Plain C++ (no simulation).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <utility>

#include "config/model_loader.h"
#include "fixtures.h"
#include "mapping/training_mapper.h"
#include "workload/training.h"

using namespace reusesim;

namespace {

workload::Network zoo(const std::string& name) {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/" + name + ".yaml").network;
}

// Snowflake: 16-bit operands, so every tensor of the step has 2-byte elements.
spec::AcceleratorSpec snowflake() {
  return fixtures::shipped_accelerator("snowflake");
}

std::map<mapping::TrainingPhase, std::int64_t> macs_by_phase(const std::vector<mapping::TrainingProgram>& step) {
  std::map<mapping::TrainingPhase, std::int64_t> macs;
  for (const mapping::TrainingProgram& program : step) macs[program.phase] += program.program.macs;
  return macs;
}

// Bytes the update programs load and store (before burst widening).
struct Moved {
  std::int64_t loaded = 0, stored = 0, weights_loaded = 0;
};

Moved update_bytes(workload::Optimizer optimizer, bool mixed_precision = false) {
  Moved moved;
  for (const mapping::TrainingProgram& program :
       mapping::map_training_step(zoo("mlp"), 256, snowflake(), workload::TrainingOptions{optimizer, 1, mixed_precision})) {
    if (program.phase != mapping::TrainingPhase::update) continue;
    for (const program::Step& step : program.program.steps) {
      const auto bytes = static_cast<std::int64_t>(step.bytes);
      if (step.kind == program::StepKind::load) moved.loaded += bytes;
      if (step.kind == program::StepKind::load && step.tensor == program::TensorRole::weights) moved.weights_loaded += bytes;
      if (step.kind == program::StepKind::store) moved.stored += bytes;
    }
  }
  return moved;
}

// The MLP's parameters at 2 bytes: 131,410 x 2 = 262,820 bytes per parameter-sized tensor.
constexpr std::int64_t kParameterBytes = 131'410 * 2;

}  // namespace

TEST_CASE("MLP training step at batch 256: three times the forward MACs less fc1's dgrad", "[training]") {
  // Forward: 131,000 MACs per sample (1000x100 + 3 x 100x100 + 100x10) x 256 = 33,536,000.
  // wgrad: every layer's K x M . M x N, as many MACs as its forward: 33,536,000.
  // dgrad: fc2..fc5 only (fc1 is fed by the data, whose gradient nobody needs):
  //   (3 x 100x100 + 100x10) x 256 = 31,000 x 256 = 7,936,000 = 33,536,000 - fc1's 100,000 x 256.
  // Step: 3 x 33,536,000 - 25,600,000 = 75,008,000.
  const workload::Network network = zoo("mlp");
  const std::vector<mapping::TrainingProgram> step =
      mapping::map_training_step(network, 256, snowflake(), workload::TrainingOptions{workload::Optimizer::sgd, 1, false});
  const auto macs = macs_by_phase(step);
  CHECK(macs.at(mapping::TrainingPhase::forward) == 33'536'000);
  CHECK(macs.at(mapping::TrainingPhase::wgrad) == 33'536'000);
  CHECK(macs.at(mapping::TrainingPhase::dgrad) == 33'536'000 - 25'600'000);
  CHECK(macs.at(mapping::TrainingPhase::update) == 0);
  CHECK(workload::training_step_macs(network, 256, 1) == 75'008'000);
}

TEST_CASE("dgrad and wgrad are GEMMs of their own shapes", "[training]") {
  // A linear layer at batch B, F in, O out: forward B x F . F x O, dgrad B x O . O x F (gemm
  // M x N x K = B x F x O), wgrad F x B . B x O (gemm F x O x B). fc5: B 256, F 100, O 10.
  std::map<std::pair<std::string, mapping::TrainingPhase>, std::string> mappings;
  for (const mapping::TrainingProgram& program :
       mapping::map_training_step(zoo("mlp"), 256, snowflake(), workload::TrainingOptions{workload::Optimizer::sgd, 1, false})) {
    mappings[{program.program.layer, program.phase}] = program.program.mapping;
  }
  CHECK(mappings.at({"fc5", mapping::TrainingPhase::forward}).rfind("gemm 256x10x100,", 0) == 0);
  CHECK(mappings.at({"fc5", mapping::TrainingPhase::dgrad}).rfind("dgrad gemm 256x100x10,", 0) == 0);
  CHECK(mappings.at({"fc5", mapping::TrainingPhase::wgrad}).rfind("wgrad gemm 100x10x256,", 0) == 0);
  // fc4's fused ReLU is undone first (dY times its derivative at fc4's stored output), then its dgrad.
  CHECK(mappings.at({"fc4", mapping::TrainingPhase::dgrad}).find("relu backward") == 0);
  CHECK(mappings.at({"fc4", mapping::TrainingPhase::dgrad}).find("then dgrad gemm 256x100x100,") != std::string::npos);
  // fc1's dgrad row is its ReLU's backward only: no GEMM for the data's gradient.
  CHECK(mappings.at({"fc1", mapping::TrainingPhase::dgrad}).find("gemm") == std::string::npos);
  CHECK(mappings.at({"fc1", mapping::TrainingPhase::wgrad}).rfind("wgrad gemm 1000x100x256,", 0) == 0);
}

TEST_CASE("Adam's update reads w, m, v and g and writes w, m and v", "[training]") {
  // Per parameter tensor at 2 bytes (262,820 B): reads of w, m, v and g = 4 x 262,820 = 1,051,280;
  // writes of w, m and v = 3 x 262,820 = 788,460; of the reads, w goes to the weight buffer.
  const Moved adam = update_bytes(workload::Optimizer::adam);
  CHECK(adam.loaded == 4 * kParameterBytes);
  CHECK(adam.stored == 3 * kParameterBytes);
  CHECK(adam.weights_loaded == kParameterBytes);
  // SGD reads w and g and writes w; momentum adds one state tensor read and written.
  const Moved sgd = update_bytes(workload::Optimizer::sgd);
  CHECK(sgd.loaded == 2 * kParameterBytes);
  CHECK(sgd.stored == kParameterBytes);
  const Moved momentum = update_bytes(workload::Optimizer::momentum);
  CHECK(momentum.loaded == 3 * kParameterBytes);
  CHECK(momentum.stored == 2 * kParameterBytes);
}

TEST_CASE("mixed precision: Adam updates fp32 master weights and state, then the 2-byte copy", "[training]") {
  // Per parameter: reads of the fp32 master weight, m and v (4 B each) and the 2-byte gradient,
  // 14 B; writes of the master weight, m and v and the 2-byte weight the layers compute with, 14 B.
  // 131,410 x 14 = 1,839,740 each way; of the reads, the master weights (525,640) go to the weight
  // buffer. Footprint counts the master copy and the state as optimizer bytes: 3 x 4 = 12 B a
  // parameter beside 2-byte weights and gradients, 131,410 x 16 = 2,102,560 B of parameter state.
  const Moved adam = update_bytes(workload::Optimizer::adam, true);
  CHECK(adam.loaded == 131'410 * 14);
  CHECK(adam.stored == 131'410 * 14);
  CHECK(adam.weights_loaded == 131'410 * 4);
  workload::FootprintOptions options;
  options.mode = workload::FootprintMode::train;
  options.optimizer = workload::Optimizer::adam;
  options.dtype = workload::Precision::fp16;
  options.mixed_precision = true;
  const workload::Footprint footprint = workload::compute_footprint(zoo("mlp"), options);
  CHECK(footprint.optimizer_bytes == 131'410 * 12);
  CHECK(footprint.weight_bytes + footprint.gradient_bytes + footprint.optimizer_bytes == 2'102'560);
}

TEST_CASE("a layer without a backward pass is named", "[training]") {
  CHECK(workload::backward_problem(zoo("mlp")).empty());
  CHECK(workload::backward_problem(zoo("resnet50")).empty());
  // The LSTM language model starts with an embedding gather.
  const std::string problem = workload::backward_problem(zoo("lstm_lm"));
  CHECK(problem.find("layer embedding (type embedding) has no backward pass") == 0);
}

TEST_CASE("a residual tensor's gradient is written once and accumulated once", "[training]") {
  // ResNet-50 at batch 1: each block's input feeds conv1 and the shortcut (the add, or the
  // downsample conv); the later consumer writes the gradient and conv1's dgrad adds to it.
  // The step's MACs: 3 x 4,089,184,256 less conv1's dgrad (118,013,952 MACs: 64 x 112 x 112
  // outputs x 147 taps) = 12,149,538,816.
  const std::vector<mapping::TrainingProgram> step =
      mapping::map_training_step(zoo("resnet50"), 1, snowflake(), workload::TrainingOptions{workload::Optimizer::sgd, 1, false});
  std::int64_t macs = 0;
  for (const mapping::TrainingProgram& program : step) macs += program.program.macs;
  CHECK(macs == 12'149'538'816);
  std::int64_t accumulated_ops = -1;
  for (const mapping::TrainingProgram& program : step) {
    if (program.program.layer == "layer1_1/conv1" && program.phase == mapping::TrainingPhase::dgrad) {
      accumulated_ops = program.program.vector_ops;
    }
  }
  // 56 x 56 x 256 gradient elements read and added in the output path.
  CHECK(accumulated_ops == 56 * 56 * 256);
}

namespace {

// A chain of four linear layers, 64 -> 256 -> 32 -> 256 -> 10, for checkpointing by hand.
workload::Network narrow_waist() {
  return config::load_model_text("name: waist\nprecision: fp16\ninput: {features: 64}\nlayers:\n"
                                 "  - {name: fc1, type: linear, out_features: 256}\n"
                                 "  - {name: fc2, type: linear, out_features: 32}\n"
                                 "  - {name: fc3, type: linear, out_features: 256}\n"
                                 "  - {name: fc4, type: linear, out_features: 10}\n",
                                 "waist.yaml")
      .network;
}

}  // namespace

TEST_CASE("checkpointing keeps the segment boundaries and one segment's activations", "[training]") {
  // Two segments, {fc1, fc2} and {fc3, fc4}: the input (64) and fc2's output (32, read by fc3 in the
  // next segment) are kept; segment 0 recomputes fc1's 256, segment 1 (the last) keeps fc3's 256
  // and fc4's 10. Per sample 64 + 32 + max(256, 266) = 362 elements, against 618 without; at
  // batch 4 and 2 bytes: 2,896 and 4,944 bytes.
  const workload::Network network = narrow_waist();
  workload::FootprintOptions options;
  options.batch = 4;
  options.mode = workload::FootprintMode::train;
  options.dtype = workload::Precision::fp16;
  CHECK(workload::compute_footprint(network, options).peak_activation_bytes == 4'944);
  options.checkpoint_segments = 2;
  const workload::Footprint checkpointed = workload::compute_footprint(network, options);
  CHECK(checkpointed.peak_activation_bytes == 2'896);
  CHECK(checkpointed.activation_bytes == 4'944);  // the column still sums every stored output
  // Forward MACs per sample 64 x 256 + 256 x 32 + 32 x 256 + 256 x 10 = 35,328, x 4 = 141,312.
  // The step runs fc1 and fc2 forward again before fc2's backward, (64 x 256 + 256 x 32) x 4 =
  // 98,304 MACs, beside 3 x 141,312 less fc1's dgrad 64 x 256 x 4 = 65,536:
  // 423,936 - 65,536 + 98,304 = 456,704.
  CHECK(workload::training_step_macs(network, 4, 2) == 456'704);
  std::vector<std::string> order;
  std::int64_t macs = 0;
  for (const mapping::TrainingProgram& program :
       mapping::map_training_step(network, 4, snowflake(), workload::TrainingOptions{workload::Optimizer::sgd, 2, false})) {
    order.push_back(program.program.layer + " " + mapping::phase_name(program.phase));
    macs += program.program.macs;
  }
  CHECK(macs == 456'704);
  CHECK(order == std::vector<std::string>{"fc1 forward", "fc2 forward", "fc3 forward", "fc4 forward", "fc4 dgrad",
                                          "fc4 wgrad", "fc3 dgrad", "fc3 wgrad", "fc1 recompute", "fc2 recompute",
                                          "fc2 dgrad", "fc2 wgrad", "fc1 wgrad", "fc1 update", "fc2 update",
                                          "fc3 update", "fc4 update"});
  CHECK(workload::checkpoint_problem(network, 3) ==
        "3 segments do not divide model waist's 4 layers into equal runs; expected one of 1, 2, 4");
}

TEST_CASE("stored activations stay on chip where the accelerator keeps activations", "[training]") {
  // TPU v1 keeps activations in its 24 MiB unified buffer; the MLP's outputs at batch 256 and 1-byte
  // elements are 410 x 256 = 104,960 bytes, well within half of it: every forward program keeps its
  // output on chip (no stores) and fc2's wgrad reads fc1's output (100 x 256 = 25,600 B) there.
  // Snowflake keeps nothing across layers: every output is stored.
  const spec::AcceleratorSpec tpu =
      fixtures::shipped_accelerator("tpu_v1");
  for (const auto& [spec, kept_bytes] : {std::pair<spec::AcceleratorSpec, std::int64_t>{tpu, 104'960},
                                         std::pair<spec::AcceleratorSpec, std::int64_t>{snowflake(), 0}}) {
    std::int64_t kept = 0, stores = 0, wgrad_onchip = -1;
    for (const mapping::TrainingProgram& program :
         mapping::map_training_step(zoo("mlp"), 256, spec, workload::TrainingOptions{workload::Optimizer::sgd, 1, false})) {
      if (program.phase == mapping::TrainingPhase::wgrad && program.program.layer == "fc2") {
        wgrad_onchip = program.program.onchip_input_bytes;
      }
      if (program.phase != mapping::TrainingPhase::forward) continue;
      kept += program.program.onchip_output_bytes;
      for (const program::Step& step : program.program.steps) stores += step.kind == program::StepKind::store ? 1 : 0;
    }
    CHECK(kept == kept_bytes);
    CHECK((stores == 0) == (kept_bytes > 0));
    CHECK(wgrad_onchip == (kept_bytes > 0 ? 25'600 : 0));
  }
}

namespace {

// The step's peak from its programs (mapping::training_live_bytes) and from the network alone
// (footprint --mode train), at snowflake's 2-byte elements.
std::pair<std::int64_t, std::int64_t> step_and_footprint_peaks(const workload::Network& network, std::int64_t batch,
                                                               const workload::TrainingOptions& training) {
  const std::vector<std::int64_t> live = mapping::training_live_bytes(
      network, batch, 2, training, mapping::map_training_step(network, batch, snowflake(), training));
  workload::FootprintOptions options;
  options.batch = batch;
  options.mode = workload::FootprintMode::train;
  options.optimizer = training.optimizer;
  options.dtype = workload::Precision::fp16;
  options.checkpoint_segments = training.checkpoint_segments;
  options.mixed_precision = training.mixed_precision;
  return {*std::max_element(live.begin(), live.end()), workload::compute_footprint(network, options).peak_bytes};
}

}  // namespace

TEST_CASE("the step's live bytes, program by program, for the MLP with Adam", "[training]") {
  // Batch 256 at 2 bytes: a 100-wide activation or gradient is 51,200 B, fc5's 10-wide 5,120 B, the
  // input 512,000 B; every stored activation 1,410 x 512 = 721,920 B. Held throughout: w, g, m and
  // v, 4 x 262,820 = 1,051,280 B. Programs: fc1..fc5 forward (0-4), fc5 dgrad (5) and wgrad (6),
  // fc4 dgrad (7) and wgrad (8), ..., fc1 wgrad (14), five updates (15-19).
  const std::vector<std::int64_t> live = mapping::training_live_bytes(
      zoo("mlp"), 256, 2, workload::TrainingOptions{workload::Optimizer::adam, 1, false},
      mapping::map_training_step(zoo("mlp"), 256, snowflake(), workload::TrainingOptions{workload::Optimizer::adam, 1, false}));
  REQUIRE(live.size() == 20);
  // fc1's forward: the state, the input and fc1's output, 1,051,280 + 512,000 + 51,200.
  CHECK(live[0] == 1'614'480);
  // The backward pass starts: every activation, the loss's dY5 and the dY4 fc5's dgrad writes,
  // 1,051,280 + 721,920 + 5,120 + 51,200; fc5's wgrad still reads dY5.
  CHECK(live[5] == 1'829'520);
  CHECK(live[6] == 1'829'520);
  // fc4's dgrad: dY5 is gone, dY4 and dY3 are live: 1,051,280 + 721,920 + 2 x 51,200, the peak.
  CHECK(live[7] == 1'875'600);
  CHECK(*std::max_element(live.begin(), live.end()) == 1'875'600);
  // The updates: the parameters, their gradients, the moments and the input (held for the step).
  CHECK(live[19] == 1'051'280 + 512'000);
}

TEST_CASE("the step's peak from its programs agrees with footprint's", "[training]") {
  using workload::Optimizer;
  for (const workload::TrainingOptions& training :
       {workload::TrainingOptions{Optimizer::sgd, 1, false}, workload::TrainingOptions{Optimizer::momentum, 1, false},
        workload::TrainingOptions{Optimizer::adam, 1, false}, workload::TrainingOptions{Optimizer::adam, 1, true},
        workload::TrainingOptions{Optimizer::sgd, 5, false}}) {
    const auto [step, footprint] = step_and_footprint_peaks(zoo("mlp"), 256, training);
    CHECK(step == footprint);
  }
  // Five one-layer segments keep fc1..fc4's outputs, and fc5's (the last segment's) only until
  // fc5's backward is done: at fc4's dgrad, 525,640 of w and g + (1,400 + 200) x 512.
  CHECK(step_and_footprint_peaks(zoo("mlp"), 256, workload::TrainingOptions{Optimizer::sgd, 5, false}).first ==
        1'344'840);
  const auto [waist_step, waist_footprint] =
      step_and_footprint_peaks(narrow_waist(), 4, workload::TrainingOptions{Optimizer::sgd, 2, false});
  CHECK(waist_step == waist_footprint);
  // ResNet-50: residual adds hold a block input's gradient across the branch until conv1's dgrad
  // adds to it, batch-norms read their inputs, and flatten shares avgpool's buffer.
  const auto [resnet_step, resnet_footprint] =
      step_and_footprint_peaks(zoo("resnet50"), 2, workload::TrainingOptions{Optimizer::adam, 1, false});
  CHECK(resnet_step == resnet_footprint);
  CHECK(resnet_step == 364'935'296);
}

TEST_CASE("a residual branch holds the gradient its add wrote until the branch's first layer adds to it", "[training]") {
  // fc1 8 -> 64 feeds fc2 (64 -> 256, fc3 256 -> 64) and the add. The add's backward writes dY1
  // and dY3 (64 each); fc3's backward then holds dY3, the dY2 it writes (256) and dY1, waiting for
  // fc2's dgrad to add to it: 384 elements, more than any one layer's own (the add's 3 x 64, fc2's
  // 256 + 64). At batch 1 and 2 bytes, with SGD: w and g of 576 + 16,640 + 16,448 = 33,664
  // parameters, 4 x 33,664 = 134,656; every activation (8 + 64 + 256 + 64 + 64) x 2 = 912; the
  // gradients 384 x 2 = 768: 136,336.
  const workload::Network network =
      config::load_model_text("name: branch\nprecision: fp16\ninput: {features: 8}\nlayers:\n"
                              "  - {name: fc1, type: linear, out_features: 64}\n"
                              "  - {name: fc2, type: linear, out_features: 256}\n"
                              "  - {name: fc3, type: linear, out_features: 64}\n"
                              "  - {name: add, type: add, inputs: [fc3, fc1]}\n",
                              "branch.yaml")
          .network;
  const auto [step, footprint] =
      step_and_footprint_peaks(network, 1, workload::TrainingOptions{workload::Optimizer::sgd, 1, false});
  CHECK(step == 136'336);
  CHECK(footprint == 136'336);
}
