// The replay's timeline (run --timeline): exact spans of a hand-made program with the arithmetic
// in comments, and on a mapped network the spans agree with the per-layer results.
// ctest runs each case in its own process (one SystemC elaboration per process).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "fixtures.h"
#include "replay_harness.h"
#include "report/timeline_report.h"

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
  const std::vector<results::ArraySpan>& array = timeline.array();
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
  const std::vector<results::TransferSpan>& loads = timeline.transfers(results::DmaTrack::load);
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].tensor == program::TensorRole::weights);
  CHECK(loads[0].start_ps == 0);
  CHECK(loads[0].end_ps == ns(38));
  CHECK(loads[0].bytes == 64);
  const std::vector<results::TransferSpan>& stores = timeline.transfers(results::DmaTrack::store);
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
    for (const results::ArraySpan& span : timeline.array()) {
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
    const std::vector<results::TransferSpan>& spans = timeline.transfers(track);
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
