// The replay's timeline (run --timeline): exact spans of a hand-made program with the arithmetic
// in comments, and on a mapped network the spans agree with the per-layer results.
// ctest runs each case in its own process (one SystemC elaboration per process).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "config/model_loader.h"
#include "fixtures.h"
#include "replay_harness.h"
#include "report/timeline_report.h"
#include "simulate/plan.h"
#include "simulate/replay.h"

using namespace reusesim;

namespace {

// Nanoseconds as the recorder keeps time: picoseconds.
std::uint64_t ns(std::uint64_t value) { return value * 1000; }

std::int64_t cycles_of(std::uint64_t ps, std::uint64_t period_ps) {
  return static_cast<std::int64_t>(std::llround(static_cast<double>(ps) / static_cast<double>(period_ps)));
}

}  // namespace

TEST_CASE("timeline: a hand-made load, compute, store program gives its spans exactly", "[timeline]") {
  // small (16 x 16 weight-stationary array at 1 GHz) with its DDR4-2400 channel clocked at 1 ns,
  // so DRAM and compute cycles share edges; DDR4-2400's cycle counts: tRCD 17, CL 17, CWL 12,
  // a 64-byte burst holds the bus BL/2 = 4 clocks; address bits ro,ra,ba,co,bg: 0x40 is bank group 1.
  const spec::AcceleratorSpec spec =
      fixtures::shipped_accelerator("small", {"dram.tck_ns=1"});
  const program::LayerProgram program = fixtures::load_compute_store_program();  // one burst each way
  results::TimelineRecorder timeline;
  const simulate::Replay replay = simulate::replay(spec, {program::LayerRun{1, program, false, {}, {}}}, &timeline);
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const results::LayerResult& result = replay.results.front();

  // The load reaches an idle channel at 0: ACT at 0, RD at tRCD = 17, data 17 + CL 17 = 34 to 38.
  // The compute step waits for it: [0, 38) is a weights stall. Its SRAM reads (64 B of weights,
  // 64 B of inputs, 16 B a cycle each) take 4 cycles, hidden behind the array's ws fold:
  // folds = ceil(K 4 / 16) * ceil(N 16 / 16) = 1, 2R + C + M - 2 = 32 + 16 + 16 - 2 = 62 cycles:
  // compute [38, 100). The store reaches the channel at 100: ACT at 100 (bank group 1 is closed),
  // WR at 117, data 117 + CWL 12 = 129 to 133. The layer ends at 133 and the array's tail
  // [100, 133) is output drain.
  CHECK(result.cycles == 133);
  CHECK(result.compute_cycles == 62);
  CHECK(result.stall_weights == 38);
  CHECK(result.stall_output_drain == 33);
  REQUIRE(timeline.layers().size() == 1);
  CHECK(timeline.layers()[0].start_ps == 0);
  CHECK(timeline.layers()[0].end_ps == ns(133));
  const std::vector<results::ArraySpan>& array = timeline.array(0);
  REQUIRE(array.size() == 3);
  CHECK(array[0].activity == results::ArrayActivity::stall_weights);
  CHECK(array[0].start_ps == 0);
  CHECK(array[0].end_ps == ns(38));
  CHECK(array[1].activity == results::ArrayActivity::compute);
  CHECK(array[1].start_ps == ns(38));
  CHECK(array[1].end_ps == ns(100));
  CHECK(array[1].steps == 1);
  CHECK(array[2].activity == results::ArrayActivity::stall_output_drain);
  CHECK(array[2].start_ps == ns(100));
  CHECK(array[2].end_ps == ns(133));
  // DMA: each engine's one transfer, from its submission to its last data.
  const std::vector<results::TransferSpan>& loads = timeline.transfers(0, results::DmaTrack::load);
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].tensor == program::TensorRole::weights);
  CHECK(loads[0].start_ps == 0);
  CHECK(loads[0].end_ps == ns(38));
  CHECK(loads[0].bytes == 64);
  const std::vector<results::TransferSpan>& stores = timeline.transfers(0, results::DmaTrack::store);
  REQUIRE(stores.size() == 1);
  CHECK(stores[0].tensor == program::TensorRole::outputs);
  CHECK(stores[0].start_ps == ns(100));
  CHECK(stores[0].end_ps == ns(133));
  // DRAM: requests [0, 38] and [100, 133]; the 62-cycle gap is within the default join gap of
  // 64 cycles, so the channel shows one span of both.
  REQUIRE(timeline.dram_channels() == 1);
  REQUIRE(timeline.dram_spans(0).size() == 1);
  const results::ChannelSpan& channel = timeline.dram_spans(0)[0];
  CHECK(channel.start_cycle == 0);
  CHECK(channel.end_cycle == 133);
  CHECK(channel.requests == 2);
  CHECK(channel.read_bytes == 64);
  CHECK(channel.write_bytes == 64);

  // The JSON: times in microseconds, exact (38 ns = 0.038 us).
  const report::RunReport run{spec.name, "tiny", spec, {replay.results}};
  const std::string json = report::render_timeline(run, timeline);
  CHECK_THAT(json, Catch::Contains(R"({"name":"stall: weights","cat":"array","ph":"X","pid":1,"tid":2,"ts":0,)"
                                   R"("dur":0.038,"args":{"cycles":38}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"compute","cat":"array","ph":"X","pid":1,"tid":2,"ts":0.038,)"
                                   R"("dur":0.062,"args":{"cycles":62,"steps":1}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"read+write","cat":"dram","ph":"X","pid":2,"tid":5,"ts":0,)"
                                   R"("dur":0.133,"args":{"requests":2,"read_bytes":64,"write_bytes":64,)"
                                   R"("gbps":0.962}})"));
  // One core: its tracks are the accelerator's, as before chips had cores; no core processes.
  CHECK_THAT(json, !Catch::Contains(R"("args":{"name":"core"})"));
  CHECK_THAT(json, !Catch::Contains(R"("cores":)"));
}

TEST_CASE("timeline: the spans of a network agree with its per-layer results", "[timeline]") {
  results::TimelineRecorder timeline;
  const Replayed replayed = replay("small", {}, kChainModel, {1, 4}, &timeline);
  const std::uint64_t period = timeline.compute_period_ps();
  REQUIRE(timeline.layers().size() == replayed.results.size());
  std::int64_t read_bytes = 0, write_bytes = 0, requests = 0;
  for (std::size_t i = 0; i < replayed.results.size(); ++i) {
    const results::LayerResult& result = replayed.results[i];
    const results::LayerSpan& layer = timeline.layers()[i];
    INFO(result.layer << " batch " << result.batch);
    read_bytes += result.dram_read_bytes;
    write_bytes += result.dram_write_bytes;
    requests += result.dram.counters.reads + result.dram.counters.writes;
    CHECK(cycles_of(layer.end_ps - layer.start_ps, period) == result.cycles);
    // The array's spans tile the layer, and each kind adds up to its column.
    std::uint64_t covered = layer.start_ps;
    std::uint64_t by_activity[static_cast<int>(results::ArrayActivity::vector) + 1] = {};
    for (const results::ArraySpan& span : timeline.array(0)) {
      if (span.start_ps < layer.start_ps || span.end_ps > layer.end_ps) continue;
      CHECK(span.start_ps == covered);
      covered = span.end_ps;
      by_activity[static_cast<int>(span.activity)] += span.end_ps - span.start_ps;
    }
    CHECK(covered == layer.end_ps);
    const auto cycles = [&](results::ArrayActivity activity) { return cycles_of(by_activity[static_cast<int>(activity)], period); };
    CHECK(cycles(results::ArrayActivity::compute) + cycles(results::ArrayActivity::vector) == result.compute_cycles);
    // The result rounds each cause's end, not each cause (results/cycle_count.h): each is within a
    // cycle of its spans rounded on their own, and together they are the layer's cycles.
    CHECK(std::abs(cycles(results::ArrayActivity::stall_weights) - result.stall_weights) <= 1);
    CHECK(std::abs(cycles(results::ArrayActivity::stall_inputs) - result.stall_inputs) <= 1);
    CHECK(std::abs(cycles(results::ArrayActivity::stall_sram) - result.stall_sram) <= 1);
    CHECK(std::abs(cycles(results::ArrayActivity::stall_vector) - result.stall_vector) <= 1);
    CHECK(std::abs(cycles(results::ArrayActivity::stall_output_drain) - result.stall_output_drain) <= 1);
    CHECK(result.compute_cycles + result.stall_cycles() == result.cycles);
  }
  // DMA spans follow each other; together they moved what the DRAM saw.
  for (const results::DmaTrack track : {results::DmaTrack::load, results::DmaTrack::store}) {
    const std::vector<results::TransferSpan>& spans = timeline.transfers(0, track);
    std::int64_t bytes = 0;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      CHECK(spans[i].start_ps <= spans[i].end_ps);
      if (i > 0) CHECK(spans[i - 1].end_ps <= spans[i].start_ps);
      bytes += spans[i].bytes;
    }
    CHECK(bytes == (track == results::DmaTrack::load ? read_bytes : write_bytes));
  }
  // DRAM spans are apart by more than the join gap and count every request.
  const std::vector<results::ChannelSpan>& channel = timeline.dram_spans(0);
  std::int64_t channel_requests = 0, channel_bytes = 0;
  for (std::size_t i = 0; i < channel.size(); ++i) {
    CHECK(channel[i].start_cycle < channel[i].end_cycle);
    if (i > 0) CHECK(channel[i].start_cycle > channel[i - 1].end_cycle + timeline.dram_join_gap_cycles());
    channel_requests += channel[i].requests;
    channel_bytes += channel[i].read_bytes + channel[i].write_bytes;
  }
  CHECK(channel_requests == requests);
  CHECK(channel_bytes == read_bytes + write_bytes);
}

TEST_CASE("timeline: each core of a chip draws its share of the batch, and waits for the others as sync",
          "[timeline]") {
  // test_cores' uneven batch: kSmallLinear (64 -> 32, int8) at batch 3 on two cores of small, data parallel
  // (16 x 16 ws at 1 GHz) with an unlimited ideal memory, so every transfer takes no time. Core 0
  // takes two samples: ceil(64/16) x ceil(32/16) = 8 folds of 2 x 16 + 16 + 2 - 2 = 48 cycles,
  // one compute step [0, 384) ns; core 1 one sample: 8 x 47 = 376 cycles [0, 376), then sync until
  // the layer ends at 384.
  spec::AcceleratorSpec chip = fixtures::small_with_dram("  ideal: unlimited\n");
  chip.cores = 2;
  chip.core_partition = spec::CorePartition::samples;
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "model.yaml");
  simulate::RunPlan plan = simulate::plan_inference(chip, model.network, {3}, {0}, "chip");
  results::TimelineRecorder timeline;
  const simulate::Replay replay = simulate::replay(chip, std::move(plan.runs), &timeline);
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  REQUIRE(timeline.cores() == 2);
  REQUIRE(timeline.layers().size() == 1);
  CHECK(timeline.layers()[0].end_ps == ns(384));
  const std::vector<results::ArraySpan>& first = timeline.array(0);
  REQUIRE(first.size() == 1);
  CHECK(first[0].activity == results::ArrayActivity::compute);
  CHECK(first[0].end_ps == ns(384));
  CHECK(first[0].steps == 1);
  const std::vector<results::ArraySpan>& second = timeline.array(1);
  REQUIRE(second.size() == 2);
  CHECK(second[0].activity == results::ArrayActivity::compute);
  CHECK(second[0].end_ps == ns(376));
  CHECK(second[1].activity == results::ArrayActivity::sync);
  CHECK(second[1].start_ps == ns(376));
  CHECK(second[1].end_ps == ns(384));
  // Each core loads the 2,048 weight bytes and its samples' 64-byte inputs at 0, and stores its
  // outputs when its compute ends: core 0 two samples' 32 bytes, core 1 one sample's 32 bytes
  // widened to the ideal memory's 64-byte burst.
  const auto bytes = [&](std::size_t core, results::DmaTrack track) {
    std::vector<std::int64_t> moved;
    for (const results::TransferSpan& span : timeline.transfers(core, track)) moved.push_back(span.bytes);
    return moved;
  };
  CHECK(bytes(0, results::DmaTrack::load) == std::vector<std::int64_t>{2048, 2 * 64});
  CHECK(bytes(1, results::DmaTrack::load) == std::vector<std::int64_t>{2048, 64});
  CHECK(bytes(0, results::DmaTrack::store) == std::vector<std::int64_t>{64});
  CHECK(bytes(1, results::DmaTrack::store) == std::vector<std::int64_t>{64});
  CHECK(timeline.transfers(0, results::DmaTrack::store)[0].start_ps == ns(384));
  CHECK(timeline.transfers(1, results::DmaTrack::store)[0].start_ps == ns(376));

  // The JSON: the layers in the accelerator's process (pid 1, tid 1), each core a process named
  // as its SystemC module with its array and DMA tracks (core: pid 2, tids 2-4; core_1: pid 3,
  // tids 5-7), the memory last (pid 4), once.
  const report::RunReport run{chip.name, model.network.name, chip, {replay.results}};
  const std::string json = report::render_timeline(run, timeline);
  CHECK_THAT(json, Catch::Contains(R"({"name":"process_name","ph":"M","pid":2,"tid":0,"args":{"name":"core"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"process_name","ph":"M","pid":3,"tid":0,"args":{"name":"core_1"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"thread_name","ph":"M","pid":3,"tid":7,"args":{"name":"DMA store"}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"compute","cat":"array","ph":"X","pid":2,"tid":2,"ts":0,)"
                                   R"("dur":0.384,"args":{"cycles":384,"steps":1}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"sync","cat":"array","ph":"X","pid":3,"tid":5,"ts":0.376,)"
                                   R"("dur":0.008,"args":{"cycles":8}})"));
  CHECK_THAT(json, Catch::Contains(R"({"name":"process_name","ph":"M","pid":4,"tid":0,)"));
  CHECK_THAT(json, Catch::Contains(R"("compute_clock_mhz":1000.000,"cores":2,)"));
}
