#pragma once
// What `reusesim run --timeline` draws, recorded while the replay runs: layer boundaries, what
// the compute array does (work, or a stall by cause), DMA transfers and DRAM channel activity.
// Modules hold a pointer to a recorder that is null unless a timeline was asked for, so the
// simulation pays one pointer test per hook when it is off. Records are sc_time values (DRAM:
// channel cycles) kept in plain vectors; sim/report/timeline_report forms the JSON afterwards.
//
// Spans are merged as they come, which keeps the records small: contiguous spans of one kind on
// the array and DMA tracks join; DRAM requests join into busy spans when the gap between them is
// at most a threshold, which doubles whenever the channels together hold too many spans.

#include <systemc>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "program/program.h"

namespace reusesim::hw {

// What the compute array waits for; indexes the accelerator's stall counters.
enum class StallCause { weights, inputs, output_drain, sram, vector };
constexpr std::size_t kStallCauses = 5;

// A span of the compute-array track: a stall (the causes first, in StallCause order) or work.
enum class ArrayActivity { stall_weights, stall_inputs, stall_output_drain, stall_sram, stall_vector, compute, vector };
constexpr ArrayActivity stall_activity(StallCause cause) { return static_cast<ArrayActivity>(cause); }

enum class DmaTrack { load, store };

struct LayerSpan {
  sc_core::sc_time start;
  sc_core::sc_time end;
};

struct ArraySpan {
  ArrayActivity activity = ArrayActivity::compute;
  sc_core::sc_time start;
  sc_core::sc_time end;
  std::int64_t steps = 0;  // compute and vector spans: the program steps merged into the span
};

struct TransferSpan {
  program::TensorRole tensor = program::TensorRole::inputs;
  sc_core::sc_time start;
  sc_core::sc_time end;
  std::int64_t transfers = 0;
  std::int64_t bytes = 0;  // as DRAM moves them: whole bursts
};

struct ChannelSpan {
  std::int64_t start_cycle = 0;  // the first request's arrival
  std::int64_t end_cycle = 0;    // the last request's data end
  std::int64_t requests = 0;
  std::int64_t read_bytes = 0;
  std::int64_t write_bytes = 0;
};

class TimelineRecorder {
 public:
  static constexpr std::int64_t kDefaultDramJoinGapCycles = 64;
  static constexpr std::size_t kDefaultMaxDramSpans = 1 << 15;

  explicit TimelineRecorder(std::int64_t dram_join_gap_cycles = kDefaultDramJoinGapCycles,
                            std::size_t max_dram_spans = kDefaultMaxDramSpans);

  // Set up by the modules when they are given the recorder.
  void set_compute_period(const sc_core::sc_time& period) { compute_period_ = period; }
  // Returns the channel's track index.
  std::size_t add_dram_channel(const sc_core::sc_time& period);

  void begin_layer(const sc_core::sc_time& start);
  void end_layer(const sc_core::sc_time& end);
  // [start, end) of the array; empty spans are dropped.
  void array_span(ArrayActivity activity, const sc_core::sc_time& start, const sc_core::sc_time& end);
  // A transfer handed to a DMA engine at `submitted`, finished at `done` (called when it finishes).
  // Engines work through their queue in order, so its span starts no earlier than the last one
  // on the track ended.
  void transfer(DmaTrack track, program::TensorRole tensor, const sc_core::sc_time& submitted,
                const sc_core::sc_time& done, std::int64_t bytes);
  // A request that arrived at `arrival_cycle` and whose data ends at `data_end_cycle`.
  void dram_request(std::size_t channel, std::int64_t arrival_cycle, std::int64_t data_end_cycle, std::int64_t bytes,
                    bool is_write);

  const sc_core::sc_time& compute_period() const { return compute_period_; }
  const std::vector<LayerSpan>& layers() const { return layers_; }
  const std::vector<ArraySpan>& array() const { return array_; }
  const std::vector<TransferSpan>& transfers(DmaTrack track) const { return transfers_[static_cast<std::size_t>(track)]; }
  std::size_t dram_channels() const { return channels_.size(); }
  const sc_core::sc_time& dram_period(std::size_t channel) const { return channels_[channel].period; }
  const std::vector<ChannelSpan>& dram_spans(std::size_t channel) const { return channels_[channel].spans; }
  // Requests closer than this (in DRAM cycles) share a span.
  std::int64_t dram_join_gap_cycles() const { return dram_join_gap_cycles_; }

 private:
  struct Channel {
    sc_core::sc_time period;
    std::vector<ChannelSpan> spans;  // in time order, gaps above the join threshold
  };

  // Adds `span` to `spans`, joining every span it comes within the threshold of.
  void join_dram_span(std::vector<ChannelSpan>& spans, ChannelSpan span) const;
  void coarsen_dram_spans();

  std::int64_t dram_join_gap_cycles_;
  std::size_t max_dram_spans_;
  std::size_t dram_span_count_ = 0;
  sc_core::sc_time compute_period_;
  sc_core::sc_time layer_start_;
  std::vector<LayerSpan> layers_;
  std::vector<ArraySpan> array_;
  std::vector<TransferSpan> transfers_[2];
  std::vector<Channel> channels_;
};

}  // namespace reusesim::hw
