// DRAM capacity: what a run holds at once against what its memory holds (simulate/capacity.h),
// derived by hand.
#include <catch2/catch.hpp>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "simulate/capacity.h"

using namespace reusesim;

namespace {

workload::Network mlp() {
  return config::load_model_file(std::string(REUSESIM_SOURCE_DIR) + "/models/mlp.yaml").network;
}

spec::DramSpec holding(std::int64_t bytes) {
  spec::DramSpec dram = config::load_dram("ddr4-2400");
  dram.given_capacity_bytes = bytes;
  return dram;
}

}  // namespace

TEST_CASE("an MLP's inference holds its weights and its largest live activations", "[capacity]") {
  // 1-byte elements, batch 4. Weights: 1000 x 100 + 3 x 100 x 100 + 100 x 10 = 131,000 plus
  // 4 x 100 + 10 = 410 biases: 131,410 B. Running fc1 holds the input and fc1's output,
  // (1,000 + 100) x 4 = 4,400 B, the most at any step. No KV cache: no part for one.
  const simulate::DramNeed need = simulate::dram_need(mlp(), 4, 1, nullptr);
  REQUIRE(need.parts.size() == 2);
  CHECK(need.parts[0].name == "weights");
  CHECK(need.parts[0].bytes == 131'410);
  CHECK(need.parts[1].name == "activations");
  CHECK(need.parts[1].bytes == 4'400);
  CHECK(need.total_bytes() == 135'810);
}

TEST_CASE("a training step also holds gradients, optimizer state and activation gradients", "[capacity]") {
  // fp32 (4-byte elements), batch 256, Adam: 131,410 parameters x 4 B = 525,640 B of weights, as
  // many of gradients, two moments 1,051,280 B. Activations: the input and every output are kept,
  // (1,000 + 410) x 256 x 4 = 1,443,840 B, and the backward of fc2 holds its output's gradient and
  // fc1's, 200 x 256 x 4 = 204,800 B: 1,648,640 B (tests/test_footprint.cpp's peak).
  workload::TrainingOptions training;
  training.optimizer = workload::Optimizer::adam;
  const simulate::DramNeed need = simulate::dram_need(mlp(), 256, 4, &training);
  REQUIRE(need.parts.size() == 4);
  CHECK(need.parts[0].bytes == 525'640);
  CHECK(need.parts[1].name == "gradients");
  CHECK(need.parts[1].bytes == 525'640);
  CHECK(need.parts[2].name == "optimizer state");
  CHECK(need.parts[2].bytes == 1'051'280);
  CHECK(need.parts[3].name == "activations and their gradients");
  CHECK(need.parts[3].bytes == 1'648'640);
  CHECK(need.total_bytes() == 3'751'200);
}

TEST_CASE("a run fits with room to spare or to the byte, and is short by one byte past it", "[capacity]") {
  const workload::Network network = mlp();
  const simulate::DramNeed need = simulate::dram_need(network, 4, 1, nullptr);  // 135,810 B, as above
  CHECK(simulate::capacity_problem(network, 4, need, holding(135'811)).empty());
  CHECK(simulate::capacity_problem(network, 4, need, holding(135'810)).empty());
  // 135,810 B = 0.1295 MiB, 131,410 B = 0.1253 MiB, 4,400 B = 4.3 KiB.
  CHECK(simulate::capacity_problem(network, 4, need, holding(135'809)) ==
        "model mlp at batch 4 needs 0.13 MiB (135,810 bytes) of DRAM: weights 0.13 MiB, activations 4.3 KiB; its "
        "DRAM (dram.capacity_gib) holds 0.13 MiB (135,809 bytes), short by 1 B; lower the batch size (or the "
        "context or sequence length), store the weights narrower (the model's precision block), or give the memory "
        "more room (dram.capacity_gib)");
}

TEST_CASE("a DRAM's capacity is its organisation's unless given; an ideal memory's unlimited unless given",
          "[capacity]") {
  // ddr4-2400: 1 channel x 2 ranks x 4 bank groups x 4 banks x 65,536 rows x 8,192 B = 2^34 = 16 GiB.
  spec::DramSpec dram = config::load_dram("ddr4-2400");
  CHECK(dram.capacity_bytes() == std::int64_t{16} << 30);
  dram.given_capacity_bytes = 1000;
  CHECK(dram.capacity_bytes() == 1000);
  spec::DramSpec ideal;
  ideal.ideal = spec::IdealMemorySpec{true, 0, 0};
  CHECK_FALSE(ideal.capacity_bytes().has_value());
  const simulate::DramNeed need = simulate::dram_need(mlp(), 4, 1, nullptr);
  CHECK(simulate::capacity_problem(mlp(), 4, need, ideal).empty());
  ideal.given_capacity_bytes = 100;
  CHECK_FALSE(simulate::capacity_problem(mlp(), 4, need, ideal).empty());
}

TEST_CASE("byte counts in the unit that keeps them short", "[capacity]") {
  CHECK(simulate::short_bytes(0) == "0 B");
  CHECK(simulate::short_bytes(1023) == "1023 B");
  CHECK(simulate::short_bytes(1024) == "1.0 KiB");
  // 104,857 B is just under a tenth of a MiB (104,857.6 B): still KiB.
  CHECK(simulate::short_bytes(104'857) == "102.4 KiB");
  CHECK(simulate::short_bytes(104'858) == "0.10 MiB");
  CHECK(simulate::short_bytes((std::int64_t{1} << 30) - 1) == "1024.00 MiB");
  CHECK(simulate::short_bytes(std::int64_t{3} << 29) == "1.50 GiB");
}
