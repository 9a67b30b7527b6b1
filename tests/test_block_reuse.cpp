// Block reuse (workload/block_reuse.h, simulate/block_reuse.h): a model's repeated blocks cut to
// two copies, and the rows of the copies left out made from the second's.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "config/model_loader.h"
#include "simulate/block_reuse.h"
#include "workload/block_reuse.h"

using namespace reusesim;

namespace {

config::LoadedModel llama(std::int64_t layers) {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/llama2_7b.yaml",
                                 {"parameters.layers=" + std::to_string(layers)}, config::Phase{0, 512});
}

const workload::LayerSpec& layer_named(const workload::ModelSpec& model, const std::string& name) {
  for (const workload::LayerSpec& layer : model.layers) {
    if (layer.name == name) return layer;
  }
  FAIL("no layer " << name);
  return model.layers.front();
}

}  // namespace

TEST_CASE("a repeated block keeps two copies and the layers after it read the second", "[block_reuse]") {
  const config::LoadedModel model = llama(5);
  // The loader records the block: after embed_tokens, 5 copies of 15 layers.
  REQUIRE(model.spec.repeated_blocks.size() == 1);
  const workload::RepeatedBlock& block = model.spec.repeated_blocks.front();
  CHECK(block.name == "layers");
  CHECK(block.first_layer == 1);
  CHECK(block.layers_per_copy == 15);
  CHECK(block.copies == 5);
  const workload::ReducedModel reduced = workload::reduce_repeated_blocks(model.spec);
  // embed_tokens, 2 x 15, norm, lm_head = 33 of 1 + 75 + 2 = 78.
  CHECK(model.spec.layers.size() == 78);
  CHECK(reduced.model.layers.size() == 33);
  CHECK(reduced.model.layers[31].name == "norm");
  CHECK(layer_named(reduced.model, "norm").inputs == std::vector<std::string>{"layers_2/add_2"});
  // The second copy still reads the first's output.
  CHECK(layer_named(reduced.model, "layers_2/add_1").inputs ==
        std::vector<std::string>{"layers_2/o", "layers_1/add_2"});
  REQUIRE(reduced.reused.size() == 1);
  CHECK(reduced.reused.front().copies == 5);
  CHECK(reduced.reused.front().description() == "layers_3 to layers_5 repeat layers_2");
  CHECK(workload::build_network(reduced.model, 512).network.has_value());
}

TEST_CASE("a block of two copies, or one read inside an earlier copy, is simulated whole", "[block_reuse]") {
  CHECK(workload::reduce_repeated_blocks(llama(2).spec).reused.empty());
  const std::string text = R"(name: skip
precision: fp16
input: {features: 8}
blocks:
  b:
    layers:
      - {name: fc, type: linear, out_features: 8}
layers:
  - {name: stack, block: b, repeat: 4}
  - {name: join, type: add, inputs: [stack_2, stack_4]}
)";
  const config::LoadedModel model = config::load_model_text(text, "skip.yaml");
  const workload::ReducedModel reduced = workload::reduce_repeated_blocks(model.spec);
  CHECK(reduced.reused.empty());
  CHECK(reduced.model.layers.size() == 5);
}

TEST_CASE("the left-out copies' rows repeat the second copy's and add to the batch's DRAM", "[block_reuse]") {
  // Rows of a block of 3 copies of one layer, then a head: x_1/fc, x_2/fc, head.
  std::vector<results::LayerResult> rows(3);
  rows[0].layer = "x_1/fc";
  rows[1].layer = "x_2/fc";
  rows[1].cycles = 70;
  rows[1].dram.counters.activates = 4;
  rows[1].dram.read_latency.count = 10;
  rows[1].dram.read_latency.total_cycles = 300;
  rows[1].dram.read_latency.p99_cycles = 50;
  rows[2].layer = "head";
  rows[2].batch_dram = results::BatchDram{};
  rows[2].batch_dram->total.counters.activates = 9;
  rows[2].batch_dram->total.read_latency = {20, 500, 25, 40};
  CHECK(simulate::insert_reused_copies(rows, {workload::ReusedBlock{"x", 3}}).empty());
  REQUIRE(rows.size() == 4);
  CHECK(rows[2].layer == "x_3/fc");
  CHECK(rows[2].cycles == 70);
  CHECK(rows[2].mapping == "repeats x_2/fc (--reuse-blocks)");
  CHECK_FALSE(rows[2].batch_dram);
  REQUIRE(rows[3].batch_dram);
  // 9 + 4 activates; 20 + 10 reads of 500 + 300 cycles; the percentiles stay the simulated ones.
  CHECK(rows[3].batch_dram->total.counters.activates == 13);
  CHECK(rows[3].batch_dram->total.read_latency.count == 30);
  CHECK(rows[3].batch_dram->total.read_latency.total_cycles == 800);
  CHECK(rows[3].batch_dram->total.read_latency.p99_cycles == 40);
}
