#include "hw/timeline_recorder.h"

#include <algorithm>

namespace reusesim::hw {

TimelineRecorder::TimelineRecorder(std::int64_t dram_join_gap_cycles, std::size_t max_dram_spans)
    : dram_join_gap_cycles_(std::max<std::int64_t>(dram_join_gap_cycles, 0)),
      max_dram_spans_(std::max<std::size_t>(max_dram_spans, 1)) {}

std::size_t TimelineRecorder::add_dram_channel(const sc_core::sc_time& period) {
  channels_.push_back(Channel{period, {}});
  return channels_.size() - 1;
}

void TimelineRecorder::begin_layer(const sc_core::sc_time& start) { layer_start_ = start; }

void TimelineRecorder::end_layer(const sc_core::sc_time& end) { layers_.push_back(LayerSpan{layer_start_, end}); }

void TimelineRecorder::array_span(ArrayActivity activity, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  if (end <= start) return;
  const std::int64_t steps = activity == ArrayActivity::compute || activity == ArrayActivity::vector ? 1 : 0;
  // Joins within a layer only, so each layer's spans add up to its own cycles.
  if (!array_.empty() && array_.back().activity == activity && array_.back().end == start &&
      array_.back().start >= layer_start_) {
    array_.back().end = end;
    array_.back().steps += steps;
    return;
  }
  array_.push_back(ArraySpan{activity, start, end, steps});
}

void TimelineRecorder::transfer(DmaTrack track, program::TensorRole tensor, const sc_core::sc_time& submitted,
                                const sc_core::sc_time& done, std::int64_t bytes) {
  std::vector<TransferSpan>& spans = transfers_[static_cast<std::size_t>(track)];
  const sc_core::sc_time start = spans.empty() ? submitted : std::max(submitted, spans.back().end);
  if (!spans.empty() && spans.back().tensor == tensor && spans.back().end == start) {
    spans.back().end = done;
    ++spans.back().transfers;
    spans.back().bytes += bytes;
    return;
  }
  spans.push_back(TransferSpan{tensor, start, done, 1, bytes});
}

void TimelineRecorder::dram_request(std::size_t channel, std::int64_t arrival_cycle, std::int64_t data_end_cycle,
                                    std::int64_t bytes, bool is_write) {
  std::vector<ChannelSpan>& spans = channels_[channel].spans;
  const std::size_t before = spans.size();
  join_dram_span(spans, ChannelSpan{arrival_cycle, data_end_cycle, 1, is_write ? 0 : bytes, is_write ? bytes : 0});
  dram_span_count_ = dram_span_count_ + spans.size() - before;
  if (dram_span_count_ > max_dram_spans_) coarsen_dram_spans();
}

void TimelineRecorder::join_dram_span(std::vector<ChannelSpan>& spans, ChannelSpan span) const {
  // Requests are recorded as their last burst issues, so a span ends after every earlier span
  // starts; one that waited long in the queue may reach back over several of them.
  while (!spans.empty() && span.start_cycle <= spans.back().end_cycle + dram_join_gap_cycles_) {
    const ChannelSpan& last = spans.back();
    span.start_cycle = std::min(span.start_cycle, last.start_cycle);
    span.end_cycle = std::max(span.end_cycle, last.end_cycle);
    span.requests += last.requests;
    span.read_bytes += last.read_bytes;
    span.write_bytes += last.write_bytes;
    spans.pop_back();
  }
  spans.push_back(span);
}

void TimelineRecorder::coarsen_dram_spans() {
  // Joining with a wider gap gives what that gap would have given from the start: spans joined
  // under the narrower gap stay joined.
  while (dram_span_count_ > max_dram_spans_ / 2) {
    dram_join_gap_cycles_ = std::max<std::int64_t>(1, 2 * dram_join_gap_cycles_);
    dram_span_count_ = 0;
    for (Channel& channel : channels_) {
      std::vector<ChannelSpan> joined;
      for (const ChannelSpan& span : channel.spans) join_dram_span(joined, span);
      channel.spans = std::move(joined);
      dram_span_count_ += channel.spans.size();
    }
  }
}

}  // namespace reusesim::hw
