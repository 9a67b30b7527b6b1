#include "report/run_report.h"


#include "report/dram_stats_report.h"
#include "report/energy_report.h"

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "1 MAC = 2 ops; cycles in the compute clock; gops = achieved 1e9 ops/s over the layer's time; efficiency = "
    "achieved / peak ops/s; arithmetic intensity = ops per DRAM byte (reads + writes, as the channels saw them); "
    "GB/s = 1e9 bytes/s; stalls are cycles the array waited, by cause; tensors are sized at element_bytes, the "
    "accelerator's operand_bits rounded up to bytes (analyze and footprint size them by the model's precision)";

const std::vector<Column> kLeadingColumns{
    {"batch"}, {"layer"}, {"type"}, {"macs"}, {"cycles"}, {"time_s", 9}, {"compute_cycles"}, {"stall_cycles"},
    {"stall_weights_cycles"}, {"stall_inputs_cycles"}, {"stall_output_drain_cycles"}, {"stall_sram_cycles"},
    {"stall_vector_cycles"}, {"vector_ops"}, {"dram_read_bytes"}, {"dram_write_bytes"}, {"dram_read_weight_bytes"},
    {"dram_read_input_bytes"}, {"dram_write_output_bytes"}, {"prefetched_weight_bytes"}, {"onchip_read_input_bytes"},
    {"onchip_kept_output_bytes"}, {"sram_read_bytes"}, {"sram_write_bytes"},
    {"dram_gbps", 3}, {"row_hit_rate", 4}, {"arithmetic_intensity", 3}, {"gops", 3}, {"efficiency", 4},
    {"element_bytes"}, {"mapping"}};

// The DRAM statistics after the columns above (row_hit_rate has its place among them).
const std::vector<std::string> kDramStats = names_except(dram_stat_names(), {"row_hit_rate"});

results::LayerResult add(results::LayerResult total, const results::LayerResult& layer) {
  total.cycles += layer.cycles;
  total.compute_cycles += layer.compute_cycles;
  total.stall_weights += layer.stall_weights;
  total.stall_inputs += layer.stall_inputs;
  total.stall_output_drain += layer.stall_output_drain;
  total.stall_sram += layer.stall_sram;
  total.stall_vector += layer.stall_vector;
  total.macs += layer.macs;
  total.vector_ops += layer.vector_ops;
  total.dram_read_weight_bytes += layer.dram_read_weight_bytes;
  total.dram_read_input_bytes += layer.dram_read_input_bytes;
  total.dram_read_kv_cache_bytes += layer.dram_read_kv_cache_bytes;
  total.dram_write_output_bytes += layer.dram_write_output_bytes;
  total.prefetched_weight_bytes += layer.prefetched_weight_bytes;
  total.onchip_read_input_bytes += layer.onchip_read_input_bytes;
  total.onchip_kept_output_bytes += layer.onchip_kept_output_bytes;
  total.dram_read_bytes += layer.dram_read_bytes;
  total.dram_write_bytes += layer.dram_write_bytes;
  total.sram_read_bytes += layer.sram_read_bytes;
  total.sram_write_bytes += layer.sram_write_bytes;
  total.sram_words.resize(layer.sram_words.size());
  for (std::size_t i = 0; i < layer.sram_words.size(); ++i) {
    total.sram_words[i].read_words += layer.sram_words[i].read_words;
    total.sram_words[i].write_words += layer.sram_words[i].write_words;
  }
  total.accumulator_updates += layer.accumulator_updates;
  total.seconds += layer.seconds;
  return total;
}

// Every layer of every batch, each batch followed by its TOTAL row: visit(row, batch index, position
// of the row in its batch, layers.size() for TOTAL).
template <typename Visit>
void for_each_row(const RunReport& report, Visit visit) {
  for (std::size_t b = 0; b < report.batches.size(); ++b) {
    const std::vector<results::LayerResult>& layers = report.batches[b];
    results::LayerResult total;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const results::LayerResult& layer = layers[i];
      visit(layer, b, i);
      total = add(total, layer);
      total.batch = layer.batch;
      // The batch's DRAM statistics come with its last layer: counters equal to the layers' sum,
      // and latency percentiles over the whole batch.
      if (layer.batch_dram) {
        total.dram = layer.batch_dram->total;
        total.dram_channels = layer.batch_dram->channels;
      }
    }
    total.layer = "TOTAL";
    visit(total, b, layers.size());
  }
}

// The DRAM statistics of `stats` for the columns `names`: empty for an ideal memory.
std::vector<Cell> dram_cells(const std::vector<std::string>& names, const results::DramFigures& stats,
                             const spec::AcceleratorSpec& spec) {
  return dram_stat_cells(names, spec.dram.ideal ? nullptr : &stats, spec.dram.timing.tck_ns);
}

std::vector<Cell> cells(const results::LayerResult& r, const spec::AcceleratorSpec& spec) {
  const double ops = 2.0 * static_cast<double>(r.macs);
  const std::int64_t dram_bytes = r.dram_read_bytes + r.dram_write_bytes;  // the layer's own traffic
  const bool timed = r.seconds > 0;
  const Cell gops = timed ? Cell(ops / r.seconds / 1e9) : Cell();
  std::vector<Cell> row{r.batch, r.layer, r.type, r.macs, r.cycles, r.seconds, r.compute_cycles, r.stall_cycles(),
          r.stall_weights, r.stall_inputs, r.stall_output_drain, r.stall_sram, r.stall_vector, r.vector_ops,
          r.dram_read_bytes, r.dram_write_bytes, r.dram_read_weight_bytes, r.dram_read_input_bytes,
          r.dram_write_output_bytes, r.prefetched_weight_bytes, r.onchip_read_input_bytes, r.onchip_kept_output_bytes,
          r.sram_read_bytes, r.sram_write_bytes,
          timed ? Cell(static_cast<double>(dram_bytes) / r.seconds / 1e9) : Cell(),
          dram_cells({"row_hit_rate"}, r.dram, spec).front(),
          dram_bytes > 0 ? Cell(ops / static_cast<double>(dram_bytes)) : Cell(), gops,
          timed ? Cell(ops / r.seconds / spec.compute.peak_ops_per_second()) : Cell(), spec.element_bytes(),
          r.mapping};
  for (Cell& cell : dram_cells(kDramStats, r.dram, spec)) row.push_back(std::move(cell));
  for (Cell& cell : layer_energy_cells(spec, r)) row.push_back(std::move(cell));
  row.emplace_back(r.dram_read_kv_cache_bytes);
  return row;
}

// A training step's phase of the row at `position` in its batch ("step" for TOTAL).
std::string phase_of(const RunReport& report, std::size_t position) {
  return position < report.phases.size() ? report.phases[position] : "step";
}

// The leading columns, a training step's phase after the layer.
std::vector<Column> with_phase(const RunReport& report, std::vector<Column> columns) {
  if (report.training) columns.insert(columns.begin() + 2, Column{"phase"});
  return columns;
}

std::vector<Cell> with_phase(const RunReport& report, std::vector<Cell> row, std::size_t position) {
  if (report.training) row.insert(row.begin() + 2, phase_of(report, position));
  return row;
}

// Each layer's (and each TOTAL's) share of every channel: batch, layer, channel, then the counters.
Table channel_table(const RunReport& report) {
  std::vector<Column> columns = with_phase(report, {{"batch"}, {"layer"}, {"channel"}});
  for (Column& column : dram_stat_columns(dram_stat_names(), "dram_")) columns.push_back(std::move(column));
  Table table(columns);
  const auto add_rows = [&](const results::LayerResult& r, std::size_t, std::size_t position) {
    for (std::size_t i = 0; i < r.dram_channels.size(); ++i) {
      std::vector<Cell> row = with_phase(report, {r.batch, r.layer, static_cast<std::int64_t>(i)}, position);
      for (Cell& cell : dram_cells(dram_stat_names(), r.dram_channels[i], report.spec)) row.push_back(std::move(cell));
      table.add_row(std::move(row));
    }
  };
  for_each_row(report, add_rows);
  return table;
}

}  // namespace

Table run_table(const RunReport& report) {
  std::vector<Column> columns = with_phase(report, kLeadingColumns);
  for (Column& column : dram_stat_columns(kDramStats, "dram_")) columns.push_back(std::move(column));
  for (Column& column : layer_energy_columns()) columns.push_back(std::move(column));
  columns.push_back({"dram_read_kv_cache_bytes"});
  if (report.training) columns.push_back({"peak_memory_bytes"});
  Table table(columns);
  for_each_row(report, [&](const results::LayerResult& r, std::size_t batch, std::size_t position) {
    std::vector<Cell> row = with_phase(report, cells(r, report.spec), position);
    if (report.training) {
      row.emplace_back();
      if (position == report.batches[batch].size()) row.back() = report.peak_memory_bytes[batch];
    }
    table.add_row(std::move(row));
  });
  return table;
}

std::string render_dram_channels(const RunReport& report) { return channel_table(report).to_csv(); }

std::string run_stats_legend(bool training) {
  const std::string step =
      training ? "phase (after layer): a training step's forward, recompute (a checkpointed segment's forward again), "
                 "dgrad (input gradients: a GEMM, or a vector layer's backward), wgrad (weight gradients) or update "
                 "(the optimizer's); step on TOTAL (docs/training.md)\n"
                 "peak_memory_bytes (the last column, on TOTAL): bytes the training step holds at its peak, walked "
                 "from its programs; footprint --mode train derives the same from the network at element_bytes\n"
               : "";
  return std::string(kConventions) + "\n" + step +
         "batch: samples per run\n"
         "macs: multiply-accumulates replayed (1 MAC = 2 ops)\n"
         "cycles: compute-clock cycles from the layer's start to its last store\n"
         "time_s: seconds\n"
         "compute_cycles: cycles the array (or the vector unit, for layers without MACs) was busy\n"
         "stall_cycles: cycles - compute_cycles, split by cause into weights, inputs, output_drain, sram, vector\n"
         "dram_*_bytes: bytes the layer's own loads and stores moved (burst-widened, as the DRAM sees them), whenever "
         "they moved: weights prefetched during the layer before count for the layer that uses them\n"
         "prefetched_weight_bytes: of dram_read_weight_bytes, bytes loaded during the layer before (weight prefetch)\n"
         "dram_read_kv_cache_bytes (the last column): bytes a decode step's attention read of the keys and values of the "
         "tokens before it (the KV cache); part of dram_read_bytes, not of dram_read_input_bytes\n"
         "onchip_read_input_bytes: bytes of input tensors (each once) read where an earlier layer kept them on chip, "
         "instead of from DRAM\n"
         "onchip_kept_output_bytes: bytes of the output kept on chip for the layers that consume it, instead of "
         "stored to DRAM\n"
         "sram_*_bytes: bytes read from and written to the SRAM buffers\n"
         "dram_gbps: 1e9 bytes/s of the layer's own DRAM traffic over the layer's time\n"
         "row_hit_rate: DRAM column commands (bursts) that found their row open, per column command; the first "
         "column after an activate misses; over the layer's time; empty for an ideal memory\n"
         "arithmetic_intensity: ops per DRAM byte\n"
         "dram_activates ... dram_write_latency_p99_ns (after mapping): what the DRAM did over the layer's time, "
         "whichever layer it was for (docs/dram-model.md, \"Statistics\"): commands by kind (activates, precharges, "
         "refreshes, read_commands and write_commands, one burst each), row_hits + row_misses + row_conflicts = "
         "column commands, turnarounds (column commands whose direction differs from the one before), write_drains "
         "(drains the write-drain policy started), read and write latency in ns (mean, p50, p99: from a request's "
         "arrival at its channel to the end of its data); empty for an ideal memory\n"
         "dram_channels.csv (and dram_channels in results.json): the same per DRAM channel, one row per batch, layer "
         "(TOTAL included) and channel\n"
         "gops: 1e9 ops/s achieved\n"
         "efficiency: achieved ops/s / peak ops/s\n"
         "element_bytes: bytes per tensor element in the run, from the accelerator's operand_bits\n"
         "mapping: the mapper's tiling and loop order; the layers its output path runs; \"fused into P's output path\" "
         "for a layer that runs in P's (its row has no cycles and no bytes)\n" +
         energy_legend();
}

std::string render_run(const RunReport& report, Format format) {
  const Table table = run_table(report);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document;
    document["accelerator"] = report.accelerator;
    document["model"] = report.model;
    if (report.training) {
      document["optimizer"] = util::name(report.training->optimizer);
      if (report.training->checkpoint_segments > 1) document["checkpoint_segments"] = report.training->checkpoint_segments;
      if (report.training->mixed_precision) document["mixed_precision"] = true;
    }
    document["peak_gops"] = report.spec.compute.peak_ops_per_second() / 1e9;
    document["peak_dram_gbps"] = report.spec.dram.peak_bytes_per_second() / 1e9;
    document["element_bytes"] = report.spec.element_bytes();
    document["area"] = area_json(report.spec);
    document["conventions"] = kConventions;
    document["rows"] = table.to_json();
    document["dram_channels"] = channel_table(report).to_json();
    return json_document_text(document);
  }
  const std::string area = area_summary(report.spec);
  std::string step;
  if (report.training) {
    const workload::TrainingOptions& training = *report.training;
    step = ", training step with " + util::name(training.optimizer);
    if (training.checkpoint_segments > 1) step += ", " + std::to_string(training.checkpoint_segments) + " checkpoint segments";
    if (training.mixed_precision) step += ", mixed precision (fp32 master weights and state)";
  }
  return "accelerator " + report.accelerator + ", model " + report.model + step + ", " +
         std::to_string(report.spec.element_bytes()) + "-byte elements" + (area.empty() ? "" : ", " + area) +
         "\n" + kConventions + "\n\n" + table.to_text();
}

}  // namespace reusesim::report
