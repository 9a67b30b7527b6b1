#include "results/timeline_recorder.h"

#include <algorithm>

namespace reusesim::results {

TimelineRecorder::TimelineRecorder(std::int64_t dram_join_gap_cycles, std::size_t max_dram_spans)
    : dram_join_gap_cycles_(std::max<std::int64_t>(dram_join_gap_cycles, 0)),
      max_dram_spans_(std::max<std::size_t>(max_dram_spans, 1)) {}

std::size_t TimelineRecorder::add_core() {
  cores_.emplace_back();
  return cores_.size() - 1;
}

std::size_t TimelineRecorder::add_dram_channel(std::uint64_t period_ps) {
  channels_.push_back(Channel{period_ps, {}, ""});
  return channels_.size() - 1;
}

std::size_t TimelineRecorder::add_noc_link(std::string name, std::uint64_t period_ps) {
  links_.push_back(Channel{period_ps, {}, std::move(name)});
  return links_.size() - 1;
}

std::size_t TimelineRecorder::add_chip_link(std::string name) {
  chip_links_.push_back(ChipLink{std::move(name), {}});
  return chip_links_.size() - 1;
}

void TimelineRecorder::chip_link_transfer(std::size_t link, std::size_t link_program, std::uint64_t start_ps,
                                          std::uint64_t end_ps, std::int64_t bytes) {
  std::vector<ChipLinkSpan>& spans = chip_links_[link].spans;
  if (!spans.empty() && spans.back().link_program == link_program && spans.back().end_ps == start_ps) {
    spans.back().end_ps = end_ps;
    ++spans.back().transfers;
    spans.back().bytes += bytes;
    return;
  }
  spans.push_back(ChipLinkSpan{link_program, start_ps, end_ps, 1, bytes});
}

void TimelineRecorder::chip_segment(std::size_t chip, ChipSegmentSpan span) {
  if (chip_segments_.size() <= chip) chip_segments_.resize(chip + 1);
  chip_segments_[chip].push_back(std::move(span));
}

void TimelineRecorder::begin_layer(std::uint64_t start_ps) { layer_start_ps_ = start_ps; }

void TimelineRecorder::end_layer(std::uint64_t end_ps) { layers_.push_back(LayerSpan{layer_start_ps_, end_ps}); }

void TimelineRecorder::array_span(std::size_t core, ArrayActivity activity, std::uint64_t start_ps,
                                  std::uint64_t end_ps) {
  if (end_ps <= start_ps) return;
  std::vector<ArraySpan>& spans = cores_[core].array;
  const std::int64_t steps = activity == ArrayActivity::compute || activity == ArrayActivity::vector ? 1 : 0;
  // Joins within a layer only, so each layer's spans add up to its own cycles.
  if (!spans.empty() && spans.back().activity == activity && spans.back().end_ps == start_ps &&
      spans.back().start_ps >= layer_start_ps_) {
    spans.back().end_ps = end_ps;
    spans.back().steps += steps;
    return;
  }
  spans.push_back(ArraySpan{activity, start_ps, end_ps, steps});
}

void TimelineRecorder::transfer(std::size_t core, DmaTrack track, program::TensorRole tensor,
                                std::uint64_t submitted_ps, std::uint64_t done_ps, std::int64_t bytes) {
  std::vector<TransferSpan>& spans = cores_[core].transfers[static_cast<std::size_t>(track)];
  const std::uint64_t start_ps = spans.empty() ? submitted_ps : std::max(submitted_ps, spans.back().end_ps);
  if (!spans.empty() && spans.back().tensor == tensor && spans.back().end_ps == start_ps) {
    spans.back().end_ps = done_ps;
    ++spans.back().transfers;
    spans.back().bytes += bytes;
    return;
  }
  spans.push_back(TransferSpan{tensor, start_ps, done_ps, 1, bytes});
}

void TimelineRecorder::dram_request(std::size_t channel, std::int64_t arrival_cycle, std::int64_t data_end_cycle,
                                    std::int64_t bytes, bool is_write) {
  add_span(channels_[channel],
           ChannelSpan{arrival_cycle, data_end_cycle, 1, is_write ? 0 : bytes, is_write ? bytes : 0});
}

void TimelineRecorder::noc_transfer(std::size_t link, std::int64_t start_cycle, std::int64_t end_cycle,
                                    std::int64_t bytes, bool is_store) {
  add_span(links_[link], ChannelSpan{start_cycle, end_cycle, 1, is_store ? 0 : bytes, is_store ? bytes : 0});
}

void TimelineRecorder::add_span(Channel& channel, const ChannelSpan& span) {
  const std::size_t before = channel.spans.size();
  join_dram_span(channel.spans, span);
  dram_span_count_ = dram_span_count_ + channel.spans.size() - before;
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
    for (std::vector<Channel>* tracks : {&channels_, &links_}) {
      for (Channel& channel : *tracks) {
        std::vector<ChannelSpan> joined;
        for (const ChannelSpan& span : channel.spans) join_dram_span(joined, span);
        channel.spans = std::move(joined);
        dram_span_count_ += channel.spans.size();
      }
    }
  }
}

}  // namespace reusesim::results
