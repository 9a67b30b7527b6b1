// A model run on a system of chips (hw::System through simulate::replay_system): each chip's share
// of its layers, then the collectives over the links between them, in one simulation.
#include <catch2/catch.hpp>

#include "config/model_loader.h"
#include "fixtures.h"
#include "results/timeline_recorder.h"
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

TEST_CASE("system run with a timeline: chip 0's layers, each chip's segments, each link's chunks", "[system_run]") {
  // The MLP of check_mlp_run, its layers L ps on chip 0 (chip 1 its twin). Each chip sends its
  // reduce-scatter chunk at L, holding its link [L, L + 20,480); the chunk it receives arrives at
  // L + 520,480 and takes 32,000 ps to add, so it sends its all-gather chunk at L + 552,480,
  // holding the link until L + 572,960. Segments: the layers [0, L), the all-reduce
  // [L, L + 1,072,960) of which 1,040,960 ps waiting.
  const spec::SystemSpec system = two_chips();
  const config::LoadedModel model = config::load_model_text(kMlp, "tp_mlp.yaml");
  simulate::SystemRunPlan plan =
      simulate::plan_system_inference(system, model.spec, model.network, 0, {16}, "two_chips.yaml", false);
  REQUIRE(plan.twins);
  results::TimelineRecorder timeline;
  const simulate::SystemReplay replay =
      simulate::replay_system(system, std::move(plan.program), spec::Fidelity::exact, &timeline);
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const std::vector<results::LayerResult>& layers = replay.chip_results.front();
  REQUIRE(layers.size() == 2);
  const auto l_ps = static_cast<std::uint64_t>((layers[0].cycles + layers[1].cycles) * 1000);
  REQUIRE(timeline.layers().size() == 2);  // chip 0's, recorded as one chip's run records them
  CHECK(timeline.layers()[0].start_ps == 0);
  CHECK(timeline.layers()[1].end_ps == l_ps);
  CHECK(timeline.cores() == 1);
  REQUIRE(timeline.chip_links() == 2);  // a ring of two: one bundle, each way
  for (std::size_t link = 0; link < 2; ++link) {
    const std::vector<results::ChipLinkSpan>& spans = timeline.chip_link_spans(link);
    REQUIRE(spans.size() == 2);
    CHECK(spans[0].start_ps == l_ps);
    CHECK(spans[0].end_ps == l_ps + 20'480);
    CHECK(spans[1].start_ps == l_ps + 552'480);
    CHECK(spans[1].end_ps == l_ps + 572'960);
    CHECK(spans[0].bytes + spans[1].bytes == 1024);
    CHECK(timeline.link_program_name(spans[0].link_program) == replay.collectives[0].name);
  }
  CHECK(timeline.chip_link_name(1) == "chip1 -> chip0");
  REQUIRE(timeline.chips() == 2);
  for (std::size_t chip = 0; chip < 2; ++chip) {
    const std::vector<results::ChipSegmentSpan>& segments = timeline.chip_segments(chip);
    REQUIRE(segments.size() == 2);
    CHECK_FALSE(segments[0].is_link);
    CHECK(segments[0].layers == 2);
    CHECK(segments[0].first_layer == "fc1");
    CHECK(segments[0].last_layer == "fc2");
    CHECK(segments[0].end_ps == l_ps);
    CHECK(segments[1].is_link);
    CHECK(segments[1].start_ps == l_ps);
    CHECK(segments[1].end_ps == l_ps + 1'072'960);
    CHECK(segments[1].link.receive_wait_ps == 1'040'960);
  }
}

TEST_CASE("system run: a pipeline of 2 stages and 4 micro-batches", "[system_run]") {
  // fc1 on chip 0, fc2 on chip 1 (the one cut, which halves the MACs), batch 16 in 4 micro-batches
  // of 4. Each micro-batch's fc1 and fc2 are the same 4 x 64 x 64 GEMM, C ps on the ideal memory.
  // Chip 0 sends each micro-batch's 4 x 64 B = 256 B as it finishes: 256 / 25e9 s = 10,240 ps on
  // the link after the 500,000 ps hop, so micro-batch m arrives at (m + 1) C + 510,240 ps, just
  // as chip 1 finishes micro-batch m - 1: chip 1 waits only for the first, and the batch ends at
  // 4 C + 510,240 + C ps.
  spec::SystemSpec system = two_chips();
  system.plan = spec::ParallelPlan{1, 2, 1, 4};  // tensor, pipeline, data, micro-batches
  const config::LoadedModel model = config::load_model_text(kMlp, "tp_mlp.yaml");
  simulate::SystemRunPlan plan =
      simulate::plan_system_inference(system, model.spec, model.network, 0, {16}, "two_chips.yaml", false);
  REQUIRE(plan.stages.size() == 2);
  CHECK(plan.stages[0].network.layers.size() == 1);
  CHECK(plan.stages[1].network.layers.front().spec.name == "fc2");
  const simulate::SystemReplay replay = simulate::replay_system(system, std::move(plan.program));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const std::vector<results::LayerResult>& stage0 = replay.chip_results[0];
  const std::vector<results::LayerResult>& stage1 = replay.chip_results[1];
  REQUIRE(stage0.size() == 4);  // fc1 for each micro-batch
  REQUIRE(stage1.size() == 4);
  CHECK(stage0[0].macs == 4 * 64 * 64);
  const auto c_ps = static_cast<std::uint64_t>(stage0[0].cycles * 1000);
  for (std::size_t m = 0; m < 4; ++m) {
    CHECK(stage0[m].cycles * 1000 == static_cast<std::int64_t>(c_ps));
    CHECK(stage1[m].cycles * 1000 == static_cast<std::int64_t>(c_ps));
  }
  REQUIRE(replay.collectives.size() == 8);  // each transfer: chip 0's send, chip 1's receive
  for (std::size_t m = 0; m < 4; ++m) {
    const results::CollectiveResult& send = replay.collectives[m];
    const results::CollectiveResult& receive = replay.collectives[4 + m];
    CHECK(send.chip == 0);
    CHECK(send.start_ps == (m + 1) * c_ps);
    CHECK(send.end_ps == send.start_ps);  // a send does not wait for its bytes to arrive
    CHECK(send.sent_bytes == 256);
    CHECK(receive.chip == 1);
    CHECK(receive.end_ps == (m + 1) * c_ps + 510'240);
  }
  CHECK(replay.collectives[4].receive_wait_ps == c_ps + 510'240);  // chip 1 waits for the first only
  for (std::size_t m = 1; m < 4; ++m) CHECK(replay.collectives[4 + m].receive_wait_ps == 0);
  REQUIRE(replay.batches.size() == 1);
  CHECK(replay.batches[0].end_ps == 5 * c_ps + 510'240);
}
