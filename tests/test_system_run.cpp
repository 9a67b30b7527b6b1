// A model run on a system of chips (hw::System through simulate::replay_system): each chip's share
// of its layers, then the collectives over the links between them, in one simulation.
#include <catch2/catch.hpp>

#include "config/model_loader.h"
#include "fixtures.h"
#include "simulate/replay.h"
#include "simulate/system_plan.h"

using namespace reusesim;

namespace {

// A Megatron MLP at int8: fc1 64 -> 64 column-parallel, fc2 64 -> 64 row-parallel. On 2 chips each
// runs fc1 64 -> 32 and fc2 32 -> 64, and the two partial sums of fc2 are all-reduced.
constexpr const char* kMlp = R"(
name: tp_mlp
precision: int8
input: {features: 64}
layers:
  - {name: fc1, type: linear, out_features: 64, bias: false}
  - {name: fc2, type: linear, out_features: 64, bias: false}
)";

// Two small chips with an ideal memory on a ring (one 25 GB/s link each way, 500 ns a hop),
// tensor parallel over both.
spec::SystemSpec two_chips() {
  spec::SystemSpec system = fixtures::system_spec(spec::ChipTopology::ring, 2, 1);
  system.chip = fixtures::small_with_dram("  ideal: unlimited\n");
  system.plan = spec::ParallelPlan{2};
  return system;
}

// Batch 16: the all-reduce of fc2's 16 x 64 = 1,024 one-byte elements, in chunks of 512 B.
//   reduce-scatter, 1 step: 512 B hold the link 512 / 25e9 s = 20,480 ps, after the 500,000 ps hop:
//     the chunk arrives 520,480 ps after it left; adding its 512 elements at 16 ops a cycle is 32
//     cycles of 1 ns, 32,000 ps;
//   all-gather, 1 step: another 520,480 ps.
//   1,072,960 ps on each chip, of which 2 x 520,480 = 1,040,960 ps waiting for bytes.
void check_mlp_run(bool every_chip) {
  const spec::SystemSpec system = two_chips();
  const config::LoadedModel model = config::load_model_text(kMlp, "tp_mlp.yaml");
  simulate::SystemRunPlan plan =
      simulate::plan_system_inference(system, model.spec, model.network, 0, {16}, "two_chips.yaml", every_chip);
  CHECK(plan.twins == !every_chip);
  REQUIRE(plan.program.link_programs.size() == 1);
  const simulate::SystemReplay replay = simulate::replay_system(system, std::move(plan.program));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const std::vector<results::LayerResult>& layers = replay.chip_results.front();
  REQUIRE(layers.size() == 2);
  // Each chip's share: 16 x 64 x 32 = 32,768 MACs in each layer.
  CHECK(layers[0].macs == 32'768);
  CHECK(layers[1].macs == 32'768);
  // The all-reduce starts when chip 0's layers end (the ideal memory leaves no gap between them).
  const auto layers_ps = static_cast<std::uint64_t>((layers[0].cycles + layers[1].cycles) * 1000);
  REQUIRE(replay.collectives.size() == 2);
  for (const results::CollectiveResult& part : replay.collectives) {
    CHECK(part.start_ps == layers_ps);
    CHECK(part.end_ps - part.start_ps == 1'072'960);
    CHECK(part.receive_wait_ps == 1'040'960);
    CHECK(part.reduce_cycles == 32);
    CHECK(part.sent_bytes == 1024);  // a chunk each phase
  }
  REQUIRE(replay.batches.size() == 1);
  CHECK(replay.batches[0].start_ps == 0);
  CHECK(replay.batches[0].end_ps == layers_ps + 1'072'960);
  CHECK(replay.batches[0].layers_ps == layers_ps);
  CHECK(replay.batches[0].collectives_ps == 1'072'960);
  // Each direction of the ring's one bundle carried two chunks: 1,024 B, busy 2 x 20,480 ps.
  REQUIRE(replay.links.size() == 2);
  for (const results::ChipLinkFigures& link : replay.links) {
    CHECK(link.bytes == 1024);
    CHECK(link.busy_ps == 40'960);
    CHECK(link.waited_ps == 0);
  }
}

}  // namespace

TEST_CASE("system run: a tensor-parallel MLP on 2 chips with its all-reduce after the row-parallel layer",
          "[system_run]") {
  check_mlp_run(false);
}

// The same numbers when chip 1 is replayed on its own instead of as chip 0's twin.
TEST_CASE("system run: every chip replayed gives what the twins gave", "[system_run]") { check_mlp_run(true); }
