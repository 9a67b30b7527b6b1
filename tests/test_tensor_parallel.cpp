// Megatron-style tensor parallelism (parallel/tensor_parallel.h): each chip's share of every layer
// and the collectives that put the shares together, on the shipped transformers.
#include <catch2/catch.hpp>

#include <string>

#include "config/model_loader.h"
#include "parallel/pipeline_parallel.h"
#include "parallel/tensor_parallel.h"

using namespace reusesim;
using Catch::Matchers::Contains;

namespace {

// A decode step at 512 cached tokens of one decoder layer of models/NAME.yaml.
config::LoadedModel one_layer(const std::string& name) {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/" + name + ".yaml",
                                 {"parameters.layers=1"}, config::Phase{0, 512});
}

parallel::TensorParallelSplit split(const config::LoadedModel& model, std::int64_t degree) {
  return parallel::split_tensor_parallel(model.spec, model.network, degree, 512);
}

const workload::NetworkLayer& layer(const workload::Network& network, const std::string& name) {
  for (const workload::NetworkLayer& layer : network.layers) {
    if (layer.spec.name == name) return layer;
  }
  FAIL("no layer " << name);
  return network.layers.front();
}

std::string split_error(const config::LoadedModel& model, std::int64_t degree) {
  try {
    parallel::split_tensor_parallel(model.spec, model.network, degree, 0);
  } catch (const parallel::PlanError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tensor parallel: Llama-2-7B on 8 chips, column- then row-parallel, two all-reduces a layer",
          "[tensor_parallel]") {
  const config::LoadedModel model = one_layer("llama2_7b");
  const parallel::TensorParallelSplit tp = split(model, 8);
  const workload::Network& chip = tp.chip_network;
  // q, k, v: 4,096 / 8 = 512 output features (4 of the 32 heads of 128); the MLP's gate and up
  // 11,008 / 8 = 1,376; o and down keep 4,096 outputs over 512 and 1,376 inputs.
  CHECK(layer(chip, "layers/q").spec.linear.out_features == 512);
  CHECK(layer(chip, "layers/k").spec.linear.out_features == 512);
  CHECK(layer(chip, "layers/v").spec.linear.out_features == 512);
  CHECK(layer(chip, "layers/scores").spec.matmul.heads == 4);
  CHECK(layer(chip, "layers/gate").spec.linear.out_features == 1376);
  CHECK(layer(chip, "layers/o").input_shapes.front().features == 512);
  CHECK(layer(chip, "layers/o").spec.linear.out_features == 4096);
  CHECK(layer(chip, "layers/down").input_shapes.front().features == 1376);
  // A chip holds an eighth of every split weight: o 512 x 4,096 = 2,097,152 of 16,777,216.
  CHECK(layer(chip, "layers/o").counts.params == 2'097'152);
  // The embedding is whole on every chip; the head's 32,000 logits split, 4,000 a chip.
  CHECK(layer(chip, "embed_tokens").counts.params == 131'072'000);
  CHECK(layer(chip, "lm_head").spec.linear.out_features == 4000);
  // All-reduces of the partial sums where a whole tensor is needed: after add_1 (o's sum and the
  // residual; post_norm needs it) and add_2 (the down projection's; the final norm needs it), 4,096
  // elements a token each; the logits all-gathered, 32,000 a token.
  REQUIRE(tp.collectives.size() == 3);
  CHECK(chip.layers[tp.collectives[0].after_layer].spec.name == "layers/add_1");
  CHECK(tp.collectives[0].kind == parallel::CollectiveKind::all_reduce);
  CHECK(tp.collectives[0].elements_per_sample == 4096);
  CHECK(chip.layers[tp.collectives[1].after_layer].spec.name == "layers/add_2");
  CHECK(tp.collectives[1].elements_per_sample == 4096);
  CHECK(chip.layers[tp.collectives[2].after_layer].spec.name == "lm_head");
  CHECK(tp.collectives[2].kind == parallel::CollectiveKind::all_gather);
  CHECK(tp.collectives[2].elements_per_sample == 32000);
}

TEST_CASE("tensor parallel: grouped-query attention on more chips than key/value heads", "[tensor_parallel]") {
  const config::LoadedModel model = one_layer("llama2_70b");
  // 64 query heads and 8 key/value heads of 128. On 4 chips: 16 query heads and 2 key/value heads
  // each (k: 2 x 128 = 256 features). On 16: 4 query heads, which share one key/value head: each
  // chip computes that one head (k: 128), two chips the same.
  const parallel::TensorParallelSplit four = split(model, 4);
  CHECK(layer(four.chip_network, "layers/k").spec.linear.out_features == 256);
  CHECK(layer(four.chip_network, "layers/scores").spec.matmul.heads == 16);
  CHECK(layer(four.chip_network, "layers/scores").spec.matmul.kv_heads == 2);
  const parallel::TensorParallelSplit sixteen = split(model, 16);
  CHECK(layer(sixteen.chip_network, "layers/k").spec.linear.out_features == 128);
  CHECK(layer(sixteen.chip_network, "layers/scores").spec.matmul.heads == 4);
  CHECK(layer(sixteen.chip_network, "layers/scores").spec.matmul.kv_heads == 1);
  // The KV cache a chip reads in the decode step: 512 cached tokens of its one head of 128 (and
  // the new token's): 513 x 128 elements.
  CHECK(layer(sixteen.chip_network, "layers/scores").cached_elements() == 512 * 128);
}

TEST_CASE("tensor parallel: PaLM's multi-query attention and parallel block, one all-reduce a layer",
          "[tensor_parallel]") {
  const config::LoadedModel model = one_layer("palm_540b");
  const parallel::TensorParallelSplit tp = split(model, 4);
  const workload::Network& chip = tp.chip_network;
  // 48 heads of 256: 12 a chip; the one key/value head (256 features) on every chip.
  CHECK(layer(chip, "layers/q").spec.linear.out_features == 3072);
  CHECK(layer(chip, "layers/k").spec.linear.out_features == 256);
  CHECK(layer(chip, "layers/scores").spec.matmul.heads == 12);
  CHECK(layer(chip, "layers/scores").spec.matmul.kv_heads == 1);
  // o's and down's partial sums meet in the block's one add (with the residual): one all-reduce of
  // 18,432 elements after it. PaLM has no output head in the file: the final norm ends the model.
  REQUIRE(tp.collectives.size() == 1);
  CHECK(chip.layers[tp.collectives[0].after_layer].spec.name == "layers/add");
  CHECK(tp.collectives[0].elements_per_sample == 18432);
}

TEST_CASE("tensor parallel: a plan the model cannot take names the layer and why", "[tensor_parallel]") {
  CHECK_THAT(split_error(one_layer("llama2_7b"), 3),
             Contains("plan.tensor: 3 chips cannot split layer layers/scores (matmul): 32 heads do not divide among "
                      "the chips"));
  const config::LoadedModel resnet =
      config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/resnet50.yaml");
  CHECK_THAT(split_error(resnet, 2),
             Contains("cannot split layer conv1 (conv2d): tensor parallelism splits linear and attention layers"));
  // 12 heads over 4 key/value heads on 6 chips: 2 query heads a chip, but 4 key/value heads
  // neither divide among 6 chips nor divide 6.
  const config::LoadedModel odd = config::load_model_text(R"(
name: odd_gqa
precision: fp16
input: {sequence: 4}
layers:
  - {name: q, type: linear, out_features: 768, bias: false}
  - {name: k, type: linear, out_features: 256, bias: false, inputs: [$input]}
  - {name: scores, type: matmul, heads: 12, kv_heads: 4, transpose_b: true, inputs: [q, k]}
)",
                                                          "odd_gqa.yaml");
  CHECK_THAT(split_error(odd, 6), Contains("cannot split layer k (linear): 4 key/value heads neither divide among the "
                                           "chips nor divide them"));
}

TEST_CASE("tensor parallel: a row-parallel layer's fused activation waits for the whole sum", "[tensor_parallel]") {
  // models/mlp.yaml: 1000-100-100-100-100-10, ReLU fused into fc1 to fc4. On 2 chips fc1 is
  // column-parallel (50 outputs a chip), fc2 row-parallel: its ReLU needs the whole sum, so the
  // all-reduce of its 100 outputs comes right after it; fc3 and fc4 likewise; fc5's 10 outputs,
  // 5 a chip, are all-gathered.
  const config::LoadedModel mlp = config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/mlp.yaml");
  const parallel::TensorParallelSplit tp = parallel::split_tensor_parallel(mlp.spec, mlp.network, 2, 0);
  REQUIRE(tp.collectives.size() == 3);
  CHECK(tp.chip_network.layers[tp.collectives[0].after_layer].spec.name == "fc2");
  CHECK(tp.collectives[0].elements_per_sample == 100);
  CHECK(tp.chip_network.layers[tp.collectives[1].after_layer].spec.name == "fc4");
  CHECK(tp.chip_network.layers[tp.collectives[2].after_layer].spec.name == "fc5");
  CHECK(tp.collectives[2].kind == parallel::CollectiveKind::all_gather);
  CHECK(tp.collectives[2].elements_per_sample == 10);
  CHECK(layer(tp.chip_network, "fc5").spec.linear.out_features == 5);
}

TEST_CASE("pipeline parallel: stages cut where one tensor crosses, balanced by MACs", "[tensor_parallel]") {
  // Llama-2-7B, 4 decoder layers, a decode step at 512 cached tokens: a decoder layer multiplies
  // B = 202,375,168 + 2 x 513 x 4,096 = 206,577,664 MACs a token, of which its attention half (to
  // its first add) A = 4 x 16,777,216 + 2 x 513 x 4,096 = 71,303,168, and the head
  // H = 131,072,000. Half of 4 B + H is 2 B + H / 2 = 2 B + 65,536,000: the cut after layer 3's
  // first add (2 B + A before it, 5,767,168 away) beats the one after layer 2 (65,536,000 away).
  // Stage 1 starts at layer 3's post-attention norm, fed the 4,096 features of that add.
  const config::LoadedModel model = config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/llama2_7b.yaml",
                                                            {"parameters.layers=4"}, config::Phase{0, 512});
  const std::vector<parallel::PipelineStage> stages = parallel::split_pipeline(model.spec, model.network, 2, 512);
  REQUIRE(stages.size() == 2);
  CHECK(stages[0].network.layers.back().spec.name == "layers_3/add_1");
  CHECK(stages[1].network.layers.front().spec.name == "layers_3/post_norm");
  CHECK(stages[1].network.layers.back().spec.name == "lm_head");
  CHECK(stages[1].input_elements_per_sample == 4096);
  CHECK(stages[0].network.total_macs() + stages[1].network.total_macs() == model.network.total_macs());
  // models/mlp.yaml has 4 cuts, one between each two of its 5 layers.
  const config::LoadedModel mlp = config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/mlp.yaml");
  CHECK(parallel::split_pipeline(mlp.spec, mlp.network, 5, 0).size() == 5);
  try {
    parallel::split_pipeline(mlp.spec, mlp.network, 6, 0);
    FAIL("6 stages of a 5-layer MLP");
  } catch (const parallel::PlanError& error) {
    CHECK_THAT(error.what(), Contains("plan.pipeline: 6 stages need 5 places to cut model mlp, which has 4"));
  }
}
