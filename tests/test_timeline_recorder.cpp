// The timeline recorder's merging rules, fed by hand (no simulation runs).
#include <catch2/catch.hpp>

#include "results/timeline_recorder.h"

using namespace reusesim;

namespace {

// Nanoseconds as the recorder keeps time: picoseconds.
std::uint64_t ns(std::uint64_t value) { return value * 1000; }

}  // namespace

TEST_CASE("timeline recorder: array spans join when contiguous and alike, within a layer", "[timeline]") {
  results::TimelineRecorder timeline;
  const std::size_t core = timeline.add_core();
  timeline.begin_layer(ns(0));
  timeline.array_span(core, results::ArrayActivity::compute, ns(0), ns(10));
  timeline.array_span(core, results::ArrayActivity::compute, ns(10), ns(25));     // joins: 2 steps
  timeline.array_span(core, results::ArrayActivity::stall_sram, ns(25), ns(25));  // empty: dropped
  timeline.array_span(core, results::ArrayActivity::compute, ns(30), ns(40));     // a gap: its own span
  timeline.end_layer(ns(40));
  timeline.begin_layer(ns(40));
  timeline.array_span(core, results::ArrayActivity::compute, ns(40), ns(50));  // another layer: its own span
  timeline.end_layer(ns(50));
  const std::vector<results::ArraySpan>& spans = timeline.array(core);
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].end_ps == ns(25));
  CHECK(spans[0].steps == 2);
  CHECK(spans[1].start_ps == ns(30));
  CHECK(spans[2].start_ps == ns(40));
  REQUIRE(timeline.layers().size() == 2);
  CHECK(timeline.layers()[1].start_ps == ns(40));
  CHECK(timeline.layers()[1].end_ps == ns(50));
}

TEST_CASE("timeline recorder: a DMA span starts when the one before it ended", "[timeline]") {
  results::TimelineRecorder timeline;
  const std::size_t core = timeline.add_core();
  // Submitted at 5 while the engine was busy until 10: the engine works on it from 10.
  timeline.transfer(core, results::DmaTrack::load, program::TensorRole::weights, ns(0), ns(10), 64);
  timeline.transfer(core, results::DmaTrack::load, program::TensorRole::inputs, ns(5), ns(20), 32);
  timeline.transfer(core, results::DmaTrack::load, program::TensorRole::inputs, ns(15), ns(30), 32);  // joins
  timeline.transfer(core, results::DmaTrack::load, program::TensorRole::inputs, ns(40), ns(50), 32);  // after a gap
  const std::vector<results::TransferSpan>& spans = timeline.transfers(core, results::DmaTrack::load);
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].tensor == program::TensorRole::weights);
  CHECK(spans[1].start_ps == ns(10));
  CHECK(spans[1].end_ps == ns(30));
  CHECK(spans[1].transfers == 2);
  CHECK(spans[1].bytes == 64);
  CHECK(spans[2].start_ps == ns(40));
  CHECK(timeline.transfers(core, results::DmaTrack::store).empty());
}

TEST_CASE("timeline recorder: DRAM requests join across gaps up to the threshold, even late ones", "[timeline]") {
  results::TimelineRecorder timeline(64);
  const std::size_t channel = timeline.add_dram_channel(ns(1));
  timeline.dram_request(channel, 0, 38, 64, false);
  timeline.dram_request(channel, 200, 230, 64, true);  // 162 cycles later: a span of its own
  REQUIRE(timeline.dram_spans(channel).size() == 2);
  // A request that arrived at 100 and waited until 240 covers the gap to the second span, and
  // comes within 64 cycles of the first: all three are one span.
  timeline.dram_request(channel, 100, 240, 64, false);
  const std::vector<results::ChannelSpan>& spans = timeline.dram_spans(channel);
  REQUIRE(spans.size() == 1);
  CHECK(spans[0].start_cycle == 0);
  CHECK(spans[0].end_cycle == 240);
  CHECK(spans[0].requests == 3);
  CHECK(spans[0].read_bytes == 128);
  CHECK(spans[0].write_bytes == 64);
}

TEST_CASE("timeline recorder: too many DRAM spans double the join gap until half remain", "[timeline]") {
  // At most 4 spans, join gap 1. Requests [0, 4], [10, 14], [30, 34], [70, 74], [150, 154]: gaps
  // 6, 16, 36, 76. The fifth span is one too many: the gap doubles to 2, 4, 8 (4 spans: 6 joins),
  // 16 (3 spans: 16 joins), 32 (still 3), 64 (2 spans: 36 joins), which is half of 4.
  results::TimelineRecorder timeline(1, 4);
  const std::size_t channel = timeline.add_dram_channel(ns(1));
  for (std::int64_t start : {0, 10, 30, 70, 150}) timeline.dram_request(channel, start, start + 4, 64, false);
  CHECK(timeline.dram_join_gap_cycles() == 64);
  const std::vector<results::ChannelSpan>& spans = timeline.dram_spans(channel);
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].start_cycle == 0);
  CHECK(spans[0].end_cycle == 74);
  CHECK(spans[0].requests == 4);
  CHECK(spans[1].start_cycle == 150);
}
