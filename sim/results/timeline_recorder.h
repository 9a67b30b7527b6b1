#pragma once
// What `reusesim run --timeline` draws, recorded while the replay runs: layer boundaries, what
// each core's compute array does (work, a stall by cause, or waiting for the chip's other cores),
// each core's DMA transfers, and DRAM channel activity; on a system of chips also each link
// between chips' transfers and, after the replay, each chip's segments.
// Modules hold a pointer to a recorder that is null unless a timeline was asked for, so the
// simulation pays one pointer test per hook when it is off. Records are simulated picoseconds
// (DRAM: channel cycles) kept in plain vectors, without SystemC; sim/report/timeline_report forms
// the JSON afterwards.
//
// Spans are merged as they come, which keeps the records small: contiguous spans of one kind on
// the array and DMA tracks join; DRAM requests join into busy spans when the gap between them is
// at most a threshold, which doubles whenever the channels together hold too many spans.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "program/program.h"
#include "results/system_result.h"

namespace reusesim::results {

constexpr std::uint64_t kPicosecondsPerMicrosecond = 1'000'000;

// What the compute array waits for; indexes the accelerator's stall counters.
// noc: the part of a wait on a load its data spent crossing a network-on-chip.
enum class StallCause { weights, inputs, output_drain, sram, vector, noc };
constexpr std::size_t kStallCauses = 6;

// A span of the compute-array track: a stall (the causes first, in StallCause order), work, or
// (on a chip of several cores) sync: done with the layer's pass, waiting for the cores still working.
enum class ArrayActivity {
  stall_weights,
  stall_inputs,
  stall_output_drain,
  stall_sram,
  stall_vector,
  stall_noc,
  compute,
  vector,
  sync
};
constexpr ArrayActivity stall_activity(StallCause cause) { return static_cast<ArrayActivity>(cause); }

enum class DmaTrack { load, store };

struct LayerSpan {
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
};

struct ArraySpan {
  ArrayActivity activity = ArrayActivity::compute;
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
  std::int64_t steps = 0;  // compute and vector spans: the program steps merged into the span
};

struct TransferSpan {
  program::TensorRole tensor = program::TensorRole::inputs;
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
  std::int64_t transfers = 0;
  std::int64_t bytes = 0;  // as DRAM moves them: whole bursts
};

// A DRAM channel's busy span, or a network-on-chip link's: a link's requests are its transfers,
// from the first one's head entering the link to the last one's tail leaving it, its read bytes
// reads' data going to cores and its write bytes stores' data.
struct ChannelSpan {
  std::int64_t start_cycle = 0;  // the first request's arrival
  std::int64_t end_cycle = 0;    // the last request's data end
  std::int64_t requests = 0;
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
};

// Transfers of one link program (a collective or a transfer between stages) back to back on a link
// between chips: from the first one entering the link until the last one's last byte left it.
struct ChipLinkSpan {
  std::size_t link_program = 0;  // its index in the system's program (program::SystemProgram)
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
  std::int64_t transfers = 0;
  std::int64_t bytes = 0;
};

// One of a system chip's segments (program::ChipWork), from when the chip reached it to when it
// finished it: a run of layers (`layers` of them, `first_layer` to `last_layer`), or its part of a
// link program (`link`).
struct ChipSegmentSpan {
  std::size_t batch = 0;  // its place in the run's batch sizes
  std::uint64_t start_ps = 0;
  std::uint64_t end_ps = 0;
  std::int64_t layers = 0;
  std::string first_layer, last_layer;
  bool is_link = false;
  CollectiveResult link;
};

class TimelineRecorder {
 public:
  static constexpr std::int64_t kDefaultDramJoinGapCycles = 64;
  static constexpr std::size_t kDefaultMaxDramSpans = 1 << 15;

  explicit TimelineRecorder(std::int64_t dram_join_gap_cycles = kDefaultDramJoinGapCycles,
                            std::size_t max_dram_spans = kDefaultMaxDramSpans);

  // Set up by the modules when they are given the recorder.
  void set_compute_period_ps(std::uint64_t period_ps) { compute_period_ps_ = period_ps; }
  // Returns the core's index: cores are added in the chip's order (core, core_1, ...).
  std::size_t add_core();
  // Returns the channel's track index.
  std::size_t add_dram_channel(std::uint64_t period_ps);
  // Returns the link's track index; its spans join and coarsen as the DRAM channels' do, in its
  // own clock.
  std::size_t add_noc_link(std::string name, std::uint64_t period_ps);

  // Layers are the chip's: every core's spans between begin and end belong to the layer.
  void begin_layer(std::uint64_t start_ps);
  void end_layer(std::uint64_t end_ps);
  // [start, end) of core `core`'s array; empty spans are dropped.
  void array_span(std::size_t core, ArrayActivity activity, std::uint64_t start_ps, std::uint64_t end_ps);
  // A transfer handed to one of core `core`'s DMA engines at `submitted`, finished at `done`
  // (called when it finishes). Engines work through their queue in order, so its span starts no
  // earlier than the last one on the track ended.
  void transfer(std::size_t core, DmaTrack track, program::TensorRole tensor, std::uint64_t submitted_ps,
                std::uint64_t done_ps, std::int64_t bytes);
  // A request that arrived at `arrival_cycle` and whose data ends at `data_end_cycle`.
  void dram_request(std::size_t channel, std::int64_t arrival_cycle, std::int64_t data_end_cycle, std::int64_t bytes,
                    bool is_write);
  // A transfer that held link `link` over [start_cycle, end_cycle) (its clock): a store's data, or
  // a read's.
  void noc_transfer(std::size_t link, std::int64_t start_cycle, std::int64_t end_cycle, std::int64_t bytes,
                    bool is_store);

  // A system's links between chips. Returns the link's track index.
  std::size_t add_chip_link(std::string name);
  // The names of the system's link programs, by index (ChipLinkSpan::link_program).
  void set_link_programs(std::vector<std::string> names) { link_programs_ = std::move(names); }
  // A transfer of `link_program` that held link `link` over [start, end): joins the track's last
  // span when it is the same program's and ends where this one starts.
  void chip_link_transfer(std::size_t link, std::size_t link_program, std::uint64_t start_ps, std::uint64_t end_ps,
                          std::int64_t bytes);
  // Chip `chip`'s next segment (after the replay: the chips' controllers keep their times).
  void chip_segment(std::size_t chip, ChipSegmentSpan span);

  std::uint64_t compute_period_ps() const { return compute_period_ps_; }
  const std::vector<LayerSpan>& layers() const { return layers_; }
  std::size_t cores() const { return cores_.size(); }
  const std::vector<ArraySpan>& array(std::size_t core) const { return cores_[core].array; }
  const std::vector<TransferSpan>& transfers(std::size_t core, DmaTrack track) const {
    return cores_[core].transfers[static_cast<std::size_t>(track)];
  }
  std::size_t dram_channels() const { return channels_.size(); }
  std::uint64_t dram_period_ps(std::size_t channel) const { return channels_[channel].period_ps; }
  const std::vector<ChannelSpan>& dram_spans(std::size_t channel) const { return channels_[channel].spans; }
  std::size_t noc_links() const { return links_.size(); }
  const std::string& noc_link_name(std::size_t link) const { return links_[link].name; }
  std::uint64_t noc_period_ps(std::size_t link) const { return links_[link].period_ps; }
  const std::vector<ChannelSpan>& noc_spans(std::size_t link) const { return links_[link].spans; }
  std::size_t chip_links() const { return chip_links_.size(); }
  const std::string& chip_link_name(std::size_t link) const { return chip_links_[link].name; }
  const std::vector<ChipLinkSpan>& chip_link_spans(std::size_t link) const { return chip_links_[link].spans; }
  const std::string& link_program_name(std::size_t link_program) const { return link_programs_.at(link_program); }
  // Chips with segments: 0 unless the replay was a system's.
  std::size_t chips() const { return chip_segments_.size(); }
  const std::vector<ChipSegmentSpan>& chip_segments(std::size_t chip) const { return chip_segments_[chip]; }
  // Requests closer than this (in DRAM cycles) share a span.
  std::int64_t dram_join_gap_cycles() const { return dram_join_gap_cycles_; }

 private:
  // One core's tracks.
  struct CoreTracks {
    std::vector<ArraySpan> array;
    std::vector<TransferSpan> transfers[2];
  };
  struct Channel {
    std::uint64_t period_ps = 0;
    std::vector<ChannelSpan> spans;  // in time order, gaps above the join threshold
    std::string name;                // a link's
  };

  struct ChipLink {
    std::string name;
    std::vector<ChipLinkSpan> spans;  // in time order: a link serves transfers in the order offered
  };

  // Adds `span` to `channel`'s spans, joining them under the threshold; coarsens every track's when
  // there are too many.
  void add_span(Channel& channel, const ChannelSpan& span);
  // Adds `span` to `spans`, joining every span it comes within the threshold of.
  void join_dram_span(std::vector<ChannelSpan>& spans, ChannelSpan span) const;
  void coarsen_dram_spans();

  std::int64_t dram_join_gap_cycles_;
  std::size_t max_dram_spans_;
  std::size_t dram_span_count_ = 0;
  std::uint64_t compute_period_ps_ = 0;
  std::uint64_t layer_start_ps_ = 0;
  std::vector<LayerSpan> layers_;
  std::vector<CoreTracks> cores_;
  std::vector<Channel> channels_;
  std::vector<Channel> links_;
  std::vector<ChipLink> chip_links_;
  std::vector<std::string> link_programs_;
  std::vector<std::vector<ChipSegmentSpan>> chip_segments_;
};

}  // namespace reusesim::results
