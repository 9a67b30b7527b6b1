#include "report/timeline_report.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace reusesim::report {

namespace {

// Processes: the accelerator's (the layers), each core's, the DRAM channels', a network-on-chip's
// links and, in a system's run, the chips' segments and the links between chips. A chip of one
// core draws its tracks in the accelerator's process, as before chips had cores. Thread ids are
// unique across the file (some viewers key threads by tid alone): the layers, each core's three
// tracks, the channels, the links, each chip's segments, then the links between chips; sort
// indexes keep processes and tracks in this order.
constexpr int kAcceleratorPid = 1;
constexpr int kLayersTid = 1;
constexpr int kTracksPerCore = 3;
enum CoreTrack { kArrayTrack, kLoadTrack, kStoreTrack };

class Layout {
 public:
  Layout(std::size_t cores, std::size_t channels, std::size_t noc_links, std::size_t chips)
      : cores_(static_cast<int>(cores)),
        channels_(static_cast<int>(channels)),
        noc_links_(static_cast<int>(noc_links)),
        chips_(static_cast<int>(chips)) {}
  int core_pid(std::size_t core) const {
    return cores_ == 1 ? kAcceleratorPid : kAcceleratorPid + 1 + static_cast<int>(core);
  }
  int core_tid(std::size_t core, CoreTrack track) const {
    return kLayersTid + 1 + kTracksPerCore * static_cast<int>(core) + track;
  }
  int dram_pid() const { return cores_ == 1 ? kAcceleratorPid + 1 : kAcceleratorPid + 1 + cores_; }
  int channel_tid(std::size_t channel) const {
    return kLayersTid + 1 + kTracksPerCore * cores_ + static_cast<int>(channel);
  }
  int noc_pid() const { return dram_pid() + 1; }
  int link_tid(std::size_t link) const {
    return channel_tid(static_cast<std::size_t>(channels_)) + static_cast<int>(link);
  }
  int chips_pid() const { return noc_pid() + 1; }
  int chip_tid(std::size_t chip) const {
    return link_tid(static_cast<std::size_t>(noc_links_)) + static_cast<int>(chip);
  }
  int chip_links_pid() const { return chips_pid() + 1; }
  int chip_link_tid(std::size_t link) const {
    return chip_tid(static_cast<std::size_t>(chips_)) + static_cast<int>(link);
  }

 private:
  int cores_;
  int channels_;
  int noc_links_;
  int chips_;
};

// Most names are plain ASCII and need no escapes; nlohmann escapes the rest (bytes that are not
// UTF-8 become U+FFFD, as in json_document_text).
std::string quoted(const std::string& text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  return plain ? "\"" + text + "\""
               : nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The members of one JSON object, in the order added.
class Members {
 public:
  Members& add(const char* key, std::int64_t value) { return raw(key, std::to_string(value)); }
  Members& add(const char* key, const std::string& value) { return raw(key, quoted(value)); }
  Members& raw(const char* key, const std::string& json) {
    text_ += text_.empty() ? "\"" : ",\"";
    text_ += key;
    text_ += "\":";
    text_ += json;
    return *this;
  }
  std::string object() const { return "{" + text_ + "}"; }

 private:
  std::string text_;
};

// Appends trace events, one a line. Times are exact: picoseconds printed as decimal microseconds.
class TraceWriter {
 public:
  TraceWriter() : ticks_per_us_(results::kPicosecondsPerMicrosecond) {
    for (std::uint64_t unit = ticks_per_us_; unit > 1; unit /= 10) ++fraction_digits_;
  }

  void name_process(int pid, const std::string& name) {
    metadata(pid, 0, "process_name", Members().add("name", name));
    metadata(pid, 0, "process_sort_index", Members().add("sort_index", pid));
  }
  void name_thread(int pid, int tid, const std::string& name) {
    metadata(pid, tid, "thread_name", Members().add("name", name));
    metadata(pid, tid, "thread_sort_index", Members().add("sort_index", tid));
  }
  // A complete event from `start_ticks` to `end_ticks` (picoseconds).
  void complete(int pid, int tid, const std::string& name, const char* category, std::uint64_t start_ticks,
                std::uint64_t end_ticks, const Members& args) {
    event(Members().add("name", name).add("cat", category).add("ph", "X").add("pid", pid).add("tid", tid)
              .raw("ts", microseconds(start_ticks)).raw("dur", microseconds(end_ticks - start_ticks))
              .raw("args", args.object()));
  }
  double seconds(std::uint64_t ticks) const { return static_cast<double>(ticks) / static_cast<double>(ticks_per_us_) * 1e-6; }
  // 1234567 ticks of 1 ps -> "1.234567"; trailing zeros dropped.
  std::string microseconds(std::uint64_t ticks) const {
    std::string text = std::to_string(ticks / ticks_per_us_);
    std::string fraction = std::to_string(ticks % ticks_per_us_);
    fraction.insert(0, fraction_digits_ - fraction.size(), '0');
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    return fraction.empty() ? text : text + "." + fraction;
  }

  // The whole file; the writer is spent. The text is built in place: it can be tens of megabytes.
  std::string finish(const Members& other_data) {
    text_ += "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":" + other_data.object() + "}\n";
    return std::move(text_);
  }

 private:
  void metadata(int pid, int tid, const char* name, const Members& args) {
    event(Members().add("name", name).add("ph", "M").add("pid", pid).add("tid", tid).raw("args", args.object()));
  }
  void event(const Members& members) {
    if (events_ > 0) text_ += ",\n";
    text_ += members.object();
    ++events_;
  }
  std::uint64_t ticks_per_us_;
  std::size_t fraction_digits_ = 0;
  std::string text_ = "{\"traceEvents\":[\n";
  std::size_t events_ = 0;
};

std::string activity_name(results::ArrayActivity activity) {
  switch (activity) {
    case results::ArrayActivity::stall_weights: return "stall: weights";
    case results::ArrayActivity::stall_inputs: return "stall: inputs";
    case results::ArrayActivity::stall_output_drain: return "stall: output drain";
    case results::ArrayActivity::stall_sram: return "stall: sram";
    case results::ArrayActivity::stall_vector: return "stall: vector";
    case results::ArrayActivity::stall_noc: return "stall: noc";
    case results::ArrayActivity::compute: return "compute";
    case results::ArrayActivity::sync:
      return "sync";
    default: return "vector";
  }
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void write_layers(TraceWriter& writer, const RunReport& report, const results::TimelineRecorder& timeline) {
  const std::vector<results::LayerSpan>& spans = timeline.layers();
  std::size_t layer_count = 0;
  for (const std::vector<results::LayerResult>& batch : report.batches) layer_count += batch.size();
  if (spans.size() != layer_count) {
    throw std::logic_error("the timeline recorded " + std::to_string(spans.size()) + " layers, the run has " +
                           std::to_string(layer_count));
  }
  // Each batch size's pass encloses its layers, so viewers nest the layers under it.
  std::size_t next = 0;
  for (const std::vector<results::LayerResult>& batch : report.batches) {
    if (batch.empty()) continue;
    std::int64_t cycles = 0, macs = 0;
    for (const results::LayerResult& layer : batch) {
      cycles += layer.cycles;
      macs += layer.macs;
    }
    const std::int64_t size = batch.front().batch;
    writer.complete(kAcceleratorPid, kLayersTid, "batch " + std::to_string(size), "batch", spans[next].start_ps,
                    spans[next + batch.size() - 1].end_ps,
                    Members().add("batch", size).add("layers", static_cast<std::int64_t>(batch.size()))
                        .add("cycles", cycles).add("macs", macs));
    for (const results::LayerResult& layer : batch) {
      const results::LayerSpan& span = spans[next++];
      Members members;
      members.add("batch", layer.batch).add("type", layer.type).add("macs", layer.macs)
          .add("cycles", layer.cycles).add("compute_cycles", layer.compute_cycles)
          .add("stall_cycles", layer.stall_cycles()).add("stall_weights_cycles", layer.stall_weights)
          .add("stall_inputs_cycles", layer.stall_inputs)
          .add("stall_output_drain_cycles", layer.stall_output_drain)
          .add("stall_sram_cycles", layer.stall_sram).add("stall_vector_cycles", layer.stall_vector);
      if (report.spec.noc) members.add("stall_noc_cycles", layer.stall_noc);
      writer.complete(kAcceleratorPid, kLayersTid, layer.layer, "layer", span.start_ps, span.end_ps,
                      members.add("mapping", layer.mapping));
    }
  }
}

void write_array(TraceWriter& writer, const results::TimelineRecorder& timeline, const Layout& layout,
                 std::size_t core) {
  const std::uint64_t period_ticks = timeline.compute_period_ps();
  for (const results::ArraySpan& span : timeline.array(core)) {
    const std::uint64_t ticks = span.end_ps - span.start_ps;
    Members args;
    args.add("cycles", static_cast<std::int64_t>((ticks + period_ticks / 2) / period_ticks));
    if (span.steps > 0) args.add("steps", span.steps);
    writer.complete(layout.core_pid(core), layout.core_tid(core, kArrayTrack), activity_name(span.activity), "array",
                    span.start_ps, span.end_ps, args);
  }
}

void write_transfers(TraceWriter& writer, const results::TimelineRecorder& timeline, const Layout& layout,
                     std::size_t core, results::DmaTrack track) {
  const int tid = layout.core_tid(core, track == results::DmaTrack::load ? kLoadTrack : kStoreTrack);
  for (const results::TransferSpan& span : timeline.transfers(core, track)) {
    writer.complete(layout.core_pid(core), tid, program::role_name(span.tensor), "dma", span.start_ps, span.end_ps,
                    Members().add("transfers", span.transfers).add("bytes", span.bytes));
  }
}

// 1e9 bytes/s over [start, end) (picoseconds); 0 over none (a link's transfer of an empty chunk).
double gbps_over(const TraceWriter& writer, std::int64_t bytes, std::uint64_t start, std::uint64_t end) {
  return end > start ? static_cast<double>(bytes) / writer.seconds(end - start) / 1e9 : 0.0;
}

// A DRAM channel's spans, or a link's (`pid`, `tid`, its clock and category).
void write_busy_spans(TraceWriter& writer, const std::vector<results::ChannelSpan>& spans, std::uint64_t period_ticks,
                      int pid, int tid, const char* category, const char* count_name) {
  for (const results::ChannelSpan& span : spans) {
    const auto start = static_cast<std::uint64_t>(span.start_cycle) * period_ticks;
    const auto end = static_cast<std::uint64_t>(span.end_cycle) * period_ticks;
    const std::string name = span.write_bytes == 0 ? "read" : span.read_bytes == 0 ? "write" : "read+write";
    const double gbps = gbps_over(writer, span.read_bytes + span.write_bytes, start, end);
    writer.complete(pid, tid, name, category, start, end,
                    Members()
                        .add(count_name, span.requests)
                        .add("read_bytes", span.read_bytes)
                        .add("write_bytes", span.write_bytes)
                        .raw("gbps", fixed(gbps, 3)));
  }
}

// Each chip's segments: its runs of layers and its parts of collectives and transfers, with what
// it waited for bytes, so that the gaps and waits show where a chip waits on its links or peers.
void write_chip_segments(TraceWriter& writer, const results::TimelineRecorder& timeline, const Layout& layout,
                         const SystemTimeline& system) {
  writer.name_process(layout.chips_pid(), "chips of " + system.system);
  for (std::size_t chip = 0; chip < timeline.chips(); ++chip)
    writer.name_thread(layout.chips_pid(), layout.chip_tid(chip), "chip " + std::to_string(chip));
  for (std::size_t chip = 0; chip < timeline.chips(); ++chip) {
    for (const results::ChipSegmentSpan& span : timeline.chip_segments(chip)) {
      Members args;
      args.add("batch", system.batches.at(span.batch));
      if (span.is_link) {
        args.raw("wait_us", writer.microseconds(span.link.receive_wait_ps))
            .add("reduce_cycles", span.link.reduce_cycles)
            .add("sent_bytes", span.link.sent_bytes);
        writer.complete(layout.chips_pid(), layout.chip_tid(chip), span.link.name, "link program", span.start_ps,
                        span.end_ps, args);
        continue;
      }
      const std::string name =
          span.layers == 1 ? span.first_layer : "layers " + span.first_layer + " .. " + span.last_layer;
      writer.complete(layout.chips_pid(), layout.chip_tid(chip), name, "layers", span.start_ps, span.end_ps,
                      args.add("layers", span.layers));
    }
  }
}

// Each link between chips that carried data: its transfers, named by the link program that sent them.
void write_chip_links(TraceWriter& writer, const results::TimelineRecorder& timeline, const Layout& layout) {
  writer.name_process(layout.chip_links_pid(), "links between chips");
  for (std::size_t link = 0; link < timeline.chip_links(); ++link) {
    if (timeline.chip_link_spans(link).empty()) continue;
    writer.name_thread(layout.chip_links_pid(), layout.chip_link_tid(link), timeline.chip_link_name(link));
    for (const results::ChipLinkSpan& span : timeline.chip_link_spans(link)) {
      writer.complete(layout.chip_links_pid(), layout.chip_link_tid(link),
                      timeline.link_program_name(span.link_program), "chip link", span.start_ps, span.end_ps,
                      Members()
                          .add("transfers", span.transfers)
                          .add("bytes", span.bytes)
                          .raw("gbps", fixed(gbps_over(writer, span.bytes, span.start_ps, span.end_ps), 3)));
    }
  }
}

}  // namespace

std::string render_timeline(const RunReport& report, const results::TimelineRecorder& timeline,
                            const SystemTimeline* system) {
  const std::size_t cores = timeline.cores();
  if (cores == 0) throw std::logic_error("the timeline recorded no core");
  const Layout layout(cores, timeline.dram_channels(), timeline.noc_links(), timeline.chips());
  TraceWriter writer;
  writer.name_process(kAcceleratorPid, "accelerator " + report.accelerator + ", model " + report.model);
  writer.name_thread(kAcceleratorPid, kLayersTid, "layers");
  for (std::size_t core = 0; core < cores; ++core) {
    // Named as the chip's SystemC modules are: core, core_1, core_2, ...
    if (cores > 1) writer.name_process(layout.core_pid(core), core == 0 ? "core" : "core_" + std::to_string(core));
    writer.name_thread(layout.core_pid(core), layout.core_tid(core, kArrayTrack), "compute array");
    writer.name_thread(layout.core_pid(core), layout.core_tid(core, kLoadTrack), "DMA load");
    writer.name_thread(layout.core_pid(core), layout.core_tid(core, kStoreTrack), "DMA store");
  }
  writer.name_process(layout.dram_pid(), "DRAM " + report.spec.dram.name);
  for (std::size_t channel = 0; channel < timeline.dram_channels(); ++channel) {
    writer.name_thread(layout.dram_pid(), layout.channel_tid(channel), "DRAM channel " + std::to_string(channel));
  }
  write_layers(writer, report, timeline);
  for (std::size_t core = 0; core < cores; ++core) {
    write_array(writer, timeline, layout, core);
    write_transfers(writer, timeline, layout, core, results::DmaTrack::load);
    write_transfers(writer, timeline, layout, core, results::DmaTrack::store);
  }
  for (std::size_t channel = 0; channel < timeline.dram_channels(); ++channel) {
    write_busy_spans(writer, timeline.dram_spans(channel), timeline.dram_period_ps(channel), layout.dram_pid(),
                     layout.channel_tid(channel), "dram", "requests");
  }
  // A network's links that moved data (a store's data is a write, a read's a read).
  if (timeline.noc_links() > 0) writer.name_process(layout.noc_pid(), "network-on-chip");
  for (std::size_t link = 0; link < timeline.noc_links(); ++link) {
    if (timeline.noc_spans(link).empty()) continue;
    writer.name_thread(layout.noc_pid(), layout.link_tid(link), "link " + timeline.noc_link_name(link));
    write_busy_spans(writer, timeline.noc_spans(link), timeline.noc_period_ps(link), layout.noc_pid(),
                     layout.link_tid(link), "noc", "transfers");
  }
  if (system != nullptr) {
    write_chip_segments(writer, timeline, layout, *system);
    write_chip_links(writer, timeline, layout);
  }
  Members metadata;
  if (system != nullptr) metadata.add("system", system->system).add("chips", system->chips);
  metadata.add("accelerator", report.accelerator)
      .add("model", report.model)
      .raw("compute_clock_mhz", fixed(report.spec.compute.clock_mhz, 3));
  if (cores > 1) metadata.add("cores", static_cast<std::int64_t>(cores));
  metadata.add("dram", report.spec.dram.name)
      .add("dram_join_gap_cycles", timeline.dram_join_gap_cycles())
      .add("units",
           "ts and dur in microseconds; cycles in the compute clock; bytes as DRAM moves them (whole "
           "bursts); gbps = 1e9 bytes/s over the span");
  // A fast run's DRAM has no per-request tracks, and its times are the fast memory's.
  if (report.fidelity == spec::Fidelity::fast) metadata.add("fidelity", util::name(report.fidelity));
  return writer.finish(metadata);
}

}  // namespace reusesim::report
