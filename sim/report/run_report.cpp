#include "report/run_report.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>

#include "report/dram_stats_report.h"
#include "report/energy_report.h"

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "1 MAC = 2 ops; cycles in the compute clock; gops = achieved 1e9 ops/s over the layer's time; efficiency = "
    "achieved / peak ops/s; arithmetic intensity = ops per DRAM byte (reads + writes, as the channels saw them); "
    "dram_gbps = DRAM bytes / dram_span_s, the time they moved in (the layer's, and its weights' prefetch during the "
    "layer before); GB/s = 1e9 bytes/s; stalls are cycles the array waited, by cause; tensors are sized at "
    "element_bytes, the accelerator's operand_bits rounded up to bytes (analyze and footprint size them by the "
    "model's precision)";

using results::LayerResult;

// A column the TOTAL adds up: the result's field.
template <typename T>
RunColumn summed(const char* name, const char* unit, const char* description, T LayerResult::*field,
                 int decimals = 0, Legend legend = {}) {
  return {name, unit, description, Total::sum, decimals,
          [field](const LayerResult& r, const RunRow&) { return Cell(r.*field); },
          [field](LayerResult& total, const LayerResult& layer) { total.*field += layer.*field; }, std::move(legend)};
}

RunColumn derived(const char* name, const char* unit, const char* description, Total total, int decimals,
                  std::function<Cell(const LayerResult&, const RunRow&)> value, Legend legend = {}) {
  return {name, unit, description, total, decimals, std::move(value), {}, std::move(legend)};
}

double ops_of(const LayerResult& r) { return 2.0 * static_cast<double>(r.macs); }
std::int64_t dram_bytes_of(const LayerResult& r) { return r.dram_read_bytes + r.dram_write_bytes; }  // its own traffic

// A DRAM statistic's cell: empty for an ideal memory, which issues no DRAM commands.
Cell dram_stat_cell(const DramStatColumn& stat, const results::DramFigures& figures, const spec::AcceleratorSpec& spec) {
  return spec.dram.ideal ? Cell() : stat.value(figures, spec.dram.timing.tck_ns);
}

// The layer's (TOTAL's: the batch's) DRAM statistics.
std::vector<RunColumn> layer_dram_stats(const std::vector<DramStatColumn>& stats, const std::string& prefix,
                                        Legend line) {
  return under_one_line(nested<LayerResult, RunRow>(stats, prefix, Total::batch,
                                                    [](const DramStatColumn& stat, const LayerResult& r, const RunRow& row) {
                                                      return dram_stat_cell(stat, r.dram, row.report.spec);
                                                    }),
                        std::move(line));
}

// Columns without a line in stats.txt: one would change the file, which stays as it was.
const Legend kUnlisted{Legend::unlisted, "", "", {}};
// Columns a group's line explains.
const Legend kCovered{Legend::covered, "", "", {}};

// J per token of a transformer's phase: the TOTAL's energy over its tokens (the batch's samples x
// each sample's tokens: one a decode step, the sequence a prefill).
double tokens_of(const LayerResult& r, const RunRow& row) {
  return static_cast<double>(r.batch) * static_cast<double>(row.report.tokens_per_sample);
}

std::vector<RunColumn> make_run_columns(bool training, spec::Fidelity fidelity, bool shared_memory, bool noc,
                                        bool skipped_zeros, bool tokens) {
  std::vector<RunColumn> columns{
      {"batch", "samples", "samples per run", Total::same, 0,
       [](const LayerResult& r, const RunRow&) { return Cell(r.batch); },
       [](LayerResult& total, const LayerResult& layer) { total.batch = layer.batch; }, {}},
      derived("layer", "name", "the layer's name; TOTAL after a batch's layers", Total::label, 0,
              [](const LayerResult& r, const RunRow& row) { return Cell(row.total() ? std::string("TOTAL") : r.layer); },
              kUnlisted),
      derived("type", "name", "the layer's type (conv, matmul, ...)", Total::empty, 0,
              [](const LayerResult& r, const RunRow&) { return Cell(r.type); }, kUnlisted),
      summed("macs", "MACs", "multiply-accumulates replayed (1 MAC = 2 ops)", &LayerResult::macs),
      summed("cycles", "cycles", "compute-clock cycles from the layer's start to its last store", &LayerResult::cycles),
      summed("time_s", "s", "seconds", &LayerResult::seconds, 9),
      summed("compute_cycles", "cycles", "cycles the array (or the vector unit, for layers without MACs) was busy",
             &LayerResult::compute_cycles),
      derived("stall_cycles", "cycles",
              "cycles - compute_cycles, split by cause into weights, inputs, output_drain, sram, vector",
              Total::recompute, 0, [](const LayerResult& r, const RunRow&) { return Cell(r.stall_cycles()); }),
      summed("stall_weights_cycles", "cycles", "stall cycles while the memory delivered weights",
             &LayerResult::stall_weights, 0, kCovered),
      summed("stall_inputs_cycles", "cycles", "stall cycles while the memory delivered inputs",
             &LayerResult::stall_inputs, 0, kCovered),
      summed("stall_output_drain_cycles", "cycles", "stall cycles waiting for stores (and after the array's last step)",
             &LayerResult::stall_output_drain, 0, kCovered),
      summed("stall_sram_cycles", "cycles", "stall cycles the SRAM took beyond the array's own", &LayerResult::stall_sram,
             0, kCovered),
      summed("stall_vector_cycles", "cycles", "stall cycles of vector work beyond the array's own",
             &LayerResult::stall_vector, 0, kCovered),
      summed("vector_ops", "ops", "element operations on the vector unit", &LayerResult::vector_ops, 0, kUnlisted),
      summed("dram_read_bytes", "bytes", "bytes the layer's loads read", &LayerResult::dram_read_bytes, 0,
             {Legend::line, "dram_*_bytes",
              "bytes the layer's own loads and stores moved (burst-widened, as the DRAM sees them), whenever they "
              "moved: weights prefetched during the layer before count for the layer that uses them",
              {}}),
      summed("dram_write_bytes", "bytes", "bytes the layer's stores wrote", &LayerResult::dram_write_bytes, 0, kCovered),
      summed("dram_read_weight_bytes", "bytes", "of dram_read_bytes, the weights'", &LayerResult::dram_read_weight_bytes,
             0, kCovered),
      summed("dram_read_input_bytes", "bytes", "of dram_read_bytes, the inputs' (a recurrent layer's state and outputs read back included)",
             &LayerResult::dram_read_input_bytes, 0, kCovered),
      // Every store is an output's: dram_write_bytes again (the TOTAL's from the summed dram_write_bytes).
      derived("dram_write_output_bytes", "bytes", "of dram_write_bytes, the outputs': all of it", Total::recompute, 0,
              [](const LayerResult& r, const RunRow&) { return Cell(r.dram_write_bytes); }, kCovered),
      summed("prefetched_weight_bytes", "bytes",
             "of dram_read_weight_bytes, bytes loaded during the layer before (weight prefetch)",
             &LayerResult::prefetched_weight_bytes),
      summed("onchip_read_input_bytes", "bytes",
             "bytes of input tensors (each once) read where an earlier layer kept them on chip, instead of from DRAM",
             &LayerResult::onchip_read_input_bytes),
      summed("onchip_kept_output_bytes", "bytes",
             "bytes of the output kept on chip for the layers that consume it, instead of stored to DRAM",
             &LayerResult::onchip_kept_output_bytes),
      summed("sram_read_bytes", "bytes", "bytes read from the SRAM buffers", &LayerResult::sram_read_bytes, 0,
             {Legend::line, "sram_*_bytes", "bytes read from and written to the SRAM buffers", {}}),
      summed("sram_write_bytes", "bytes", "bytes written to the SRAM buffers", &LayerResult::sram_write_bytes, 0,
             kCovered),
      derived("dram_gbps", "GB/s", "1e9 bytes/s of the layer's own DRAM traffic over dram_span_s, the time it moved in",
              Total::recompute, 3,
              [](const LayerResult& r, const RunRow& row) {
                const double span = results::dram_span_seconds(r, row.total());
                return span > 0 ? Cell(static_cast<double>(dram_bytes_of(r)) / span / 1e9) : Cell();
              }),
      derived("dram_span_s", "s",
              "seconds in which the layer's own DRAM traffic moved: time_s, plus, when its weights were prefetched "
              "during the layer before, the time from the prefetch's start to its last load's arrival (or to the "
              "layer's start); on TOTAL the batch's time",
              Total::recompute, 9,
              [](const LayerResult& r, const RunRow& row) { return Cell(results::dram_span_seconds(r, row.total())); },
              {Legend::joined, "", "", {}})};
  append(columns, layer_dram_stats(named(dram_stat_columns(), {"row_hit_rate"}), "",
                                   {Legend::line, "",
                                    "DRAM column commands (bursts) that found their row open, per column command; the "
                                    "first column after an activate misses; over the layer's time; empty for an ideal "
                                    "memory",
                                    {}}));
  append(columns,
         {derived("arithmetic_intensity", "ops/byte", "ops per DRAM byte", Total::recompute, 3,
                  [](const LayerResult& r, const RunRow&) {
                    const std::int64_t bytes = dram_bytes_of(r);
                    return bytes > 0 ? Cell(ops_of(r) / static_cast<double>(bytes)) : Cell();
                  }),
          derived("gops", "Gop/s", "1e9 ops/s achieved", Total::recompute, 3,
                  [](const LayerResult& r, const RunRow&) {
                    return r.seconds > 0 ? Cell(ops_of(r) / r.seconds / 1e9) : Cell();
                  }),
          // The peak at the layer's MAC rate (LayerResult::mac_rate; docs/accelerator-format.md).
          derived("efficiency", "fraction", "achieved ops/s / peak ops/s", Total::recompute, 4,
                  [](const LayerResult& r, const RunRow& row) {
                    return r.seconds > 0 ? Cell(2.0 * static_cast<double>(r.effective_macs()) / r.seconds /
                                                row.report.spec.peak_ops_per_second() / static_cast<double>(r.mac_rate))
                                         : Cell();
                  }),
          derived("element_bytes", "bytes", "bytes per tensor element in the run, from the accelerator's operand_bits",
                  Total::same, 0,
                  [](const LayerResult&, const RunRow& row) { return Cell(row.report.spec.element_bytes()); }),
          derived("mapping", "text",
                  "the mapper's tiling and loop order; the layers its output path runs; \"fused into P's output path\" "
                  "for a layer that runs in P's (its row has no cycles and no bytes)",
                  Total::empty, 0, [](const LayerResult& r, const RunRow&) { return Cell(r.mapping); })});
  append(columns,
         layer_dram_stats(all_but(dram_stat_columns(), {"row_hit_rate"}), "dram_",
                          {Legend::line, "dram_activates ... dram_write_latency_p99_ns (after mapping)",
                           "what the DRAM did over the layer's time, whichever layer it was for (docs/dram-model.md, "
                           "\"Statistics\"): commands by kind (activates, precharges, refreshes, read_commands and "
                           "write_commands, one burst each), row_hits + row_misses + row_conflicts = column commands, "
                           "turnarounds (column commands whose direction differs from the one before), write_drains "
                           "(drains the write-drain policy started), read and write latency in ns (mean, p50, p99: from "
                           "a request's arrival at its channel to the end of its data); empty for an ideal memory",
                           "arithmetic_intensity"}));
  append(columns,
         nested<LayerResult, RunRow>(layer_energy_columns(shared_memory, noc), "", Total::recompute,
                                     [](const LayerEnergyColumn& column, const LayerResult& r, const RunRow& row) {
                                       return row.energy ? column.value(*row.energy, r) : Cell();
                                     }));
  if (tokens && training) {
    columns.push_back(derived("uj_per_sample", "uJ/sample",
                              "microjoules per sample of the training step (energy_total_uj over the batch), on TOTAL "
                              "rows (a training step with a technology: after power_w)",
                              Total::only, 3, [](const LayerResult& r, const RunRow& row) {
                                if (!row.total() || !row.energy || r.batch <= 0) return Cell();
                                return Cell(row.energy->total_pj() / 1e6 / static_cast<double>(r.batch));
                              }));
  } else if (tokens) {
    const auto per_token = [](const LayerResult& r, const RunRow& row, bool joules_per_token) {
      const double tokens_run = tokens_of(r, row);
      if (!row.total() || !row.energy || tokens_run <= 0 || row.energy->total_pj() <= 0) return Cell();
      const double uj = row.energy->total_pj() / 1e6;
      return Cell(joules_per_token ? uj / tokens_run : tokens_run / (uj * 1e-6));
    };
    append(columns,
           {derived("uj_per_token", "uJ/token",
                    "microjoules per token of the batch (energy_total_uj over batch tokens in a decode step, batch x "
                    "sequence in a prefill), on TOTAL rows (a transformer's run with a technology: after power_w)",
                    Total::only, 3,
                    [per_token](const LayerResult& r, const RunRow& row) { return per_token(r, row, true); }),
            derived("tokens_per_joule", "tokens/J", "tokens per joule, on TOTAL rows", Total::only, 3,
                    [per_token](const LayerResult& r, const RunRow& row) { return per_token(r, row, false); },
                    {Legend::joined, "", "", {}})});
  }
  columns.push_back(summed("dram_read_kv_cache_bytes", "bytes",
                           "bytes a decode step's attention read of the keys and values of the tokens before it (the KV "
                           "cache); part of dram_read_bytes, not of dram_read_input_bytes",
                           &LayerResult::dram_read_kv_cache_bytes, 0,
                           {Legend::line, "dram_read_kv_cache_bytes (the last column)", "", "prefetched_weight_bytes"}));
  if (shared_memory) {
    columns.push_back(
        summed("shared_read_bytes", "bytes",
               "bytes of the layer's loads the chip's shared memory served instead of the DRAM "
               "(docs/accelerator-format.md, \"Shared memory\"); not in dram_read_bytes, whose bytes the "
               "DRAM read",
               &LayerResult::shared_read_bytes, 0,
               {Legend::line, "shared_read_bytes (a chip with a shared memory: after dram_read_kv_cache_bytes)", "",
                "dram_read_kv_cache_bytes"}));
  }
  if (noc) {
    columns.push_back(
        summed("multicast_read_bytes", "bytes",
               "bytes of the layer's loads that came as copies of another core's read of the same bytes, "
               "the network-on-chip multicasting the memory's one answer (noc.multicast; "
               "docs/accelerator-format.md, \"Network-on-chip\"); not in dram_read_bytes or "
               "shared_read_bytes",
               &LayerResult::multicast_read_bytes, 0,
               {Legend::line, "multicast_read_bytes (a chip with a network-on-chip: before stall_noc_cycles)", "",
                "dram_read_kv_cache_bytes"}));
    columns.push_back(summed("stall_noc_cycles", "cycles",
                             "stall cycles while a load's data crossed the network-on-chip: the end of a wait on a "
                             "load that its last request spent in the network (docs/accelerator-format.md, "
                             "\"Network-on-chip\"); part of stall_cycles, the other causes' share of the wait before it",
                             &LayerResult::stall_noc, 0,
                             {Legend::line, "stall_noc_cycles (a chip with a network-on-chip: the last column but "
                                            "fidelity)", "", "stall_cycles"}));
  }
  if (fidelity == spec::Fidelity::fast) {
    columns.push_back(derived("fidelity", "name",
                              "fast: a timed DRAM timed by the fast memory, transfers on channel servers calibrated on "
                              "the exact controller (an ideal memory is timed as in the exact mode); bytes, requests, "
                              "bursts and MACs exact, times within the bound of docs/performance.md (\"Fast mode\"), "
                              "DRAM commands, standby, refreshes and latencies estimated",
                              Total::same, 0,
                              [](const LayerResult&, const RunRow&) { return Cell(std::string("fast")); },
                              {Legend::line, "fidelity (the last column of a fast run)", "", ""}));
  }
  if (skipped_zeros) {
    const auto after_macs =
        std::find_if(columns.begin(), columns.end(), [](const RunColumn& column) { return column.name == "macs"; });
    columns.insert(
        after_macs + 1,
        derived("effective_macs", "MACs",
                "of macs, those the array did: N:M sparse layers' MACs of zero weights it skipped are not "
                "(docs/model-format.md, \"Structured sparsity\"); efficiency is at these",
                Total::recompute, 0, [](const LayerResult& r, const RunRow&) { return Cell(r.effective_macs()); },
                {Legend::line, "effective_macs (after macs, a run whose array skipped zero weights)", "", "macs"}));
  }
  if (!training) return columns;
  // A training step's lines come first in the legend.
  columns.insert(columns.begin() + 2,
                 derived("phase", "name",
                         "a training step's forward, recompute (a checkpointed segment's forward again), dgrad (input "
                         "gradients: a GEMM, or a vector layer's backward), wgrad (weight gradients) or update (the "
                         "optimizer's); step on TOTAL (docs/training.md)",
                         Total::label, 0,
                         [](const LayerResult&, const RunRow& row) {
                           const std::vector<std::string>& phases = row.report.phases;
                           return Cell(row.position < phases.size() ? phases[row.position] : "step");
                         },
                         {Legend::line, "phase (after layer)", "", ""}));
  columns.push_back(derived("peak_memory_bytes", "bytes",
                            "bytes the training step holds at its peak, walked from its programs; footprint --mode "
                            "train derives the same from the network at element_bytes",
                            Total::only, 0,
                            [](const LayerResult&, const RunRow& row) {
                              return row.total() ? Cell(row.report.peak_memory_bytes[row.batch]) : Cell();
                            },
                            {Legend::line, "peak_memory_bytes (the last column, on TOTAL)", "", ""}));
  return columns;
}

// The run table's columns for `report`'s run.
const std::vector<RunColumn>& columns_of(const RunReport& report) {
  return run_columns(report.training.has_value(), report.fidelity, report.spec.shared_memory.has_value(),
                     report.spec.noc.has_value(), skipped_zeros(report), has_token_columns(report));
}

// The links `layers` moved data over, each link's counters added up, in link order.
std::vector<results::NocLinkFigures> links_added_up(const std::vector<LayerResult>& layers) {
  std::map<std::int64_t, results::NocLinkFigures> by_index;
  for (const LayerResult& layer : layers) {
    for (const results::NocLinkFigures& link : layer.noc_links) {
      results::NocLinkFigures& sum =
          by_index.emplace(link.index, results::NocLinkFigures{link.index, link.link}).first->second;
      sum.transfers += link.transfers;
      sum.bytes += link.bytes;
      sum.busy_cycles += link.busy_cycles;
      sum.waited_cycles += link.waited_cycles;
    }
  }
  std::vector<results::NocLinkFigures> links;
  for (const auto& [index, link] : by_index) links.push_back(link);
  return links;
}

// A batch's TOTAL: the columns' sums, the batch's DRAM statistics (they come with its last layer:
// counters equal to the layers' sum, latency percentiles over the whole batch), and the counts the
// energy reads that no column shows.
LayerResult total_of(const std::vector<RunColumn>& columns, const std::vector<LayerResult>& layers) {
  LayerResult total;
  for (const LayerResult& layer : layers) {
    accumulate(columns, total, layer);
    if (layer.batch_dram) {
      total.dram = layer.batch_dram->total;
      total.dram_channels = layer.batch_dram->channels;
    }
    total.sram_words.resize(layer.sram_words.size());
    for (std::size_t i = 0; i < layer.sram_words.size(); ++i) {
      total.sram_words[i].read_words += layer.sram_words[i].read_words;
      total.sram_words[i].write_words += layer.sram_words[i].write_words;
    }
    total.accumulator_updates += layer.accumulator_updates;
    total.skipped_macs += layer.skipped_macs;
    total.mac_rate = std::max(total.mac_rate, layer.mac_rate);
    for (const auto& [format, macs] : layer.native_macs) total.native_macs[format] += macs;
    total.shared_bank_read_bytes += layer.shared_bank_read_bytes;
    total.shared_bank_write_bytes += layer.shared_bank_write_bytes;
  }
  total.noc_links = links_added_up(layers);
  return total;
}

// Every layer of every batch, each batch followed by its TOTAL row.
template <typename Visit>
void for_each_row(const RunReport& report, const std::vector<RunColumn>& columns, Visit visit) {
  for (std::size_t b = 0; b < report.batches.size(); ++b) {
    const std::vector<LayerResult>& layers = report.batches[b];
    for (std::size_t i = 0; i < layers.size(); ++i) visit(layers[i], RunRow{report, b, i, std::nullopt});
    visit(total_of(columns, layers), RunRow{report, b, layers.size(), std::nullopt});
  }
}

// Each layer's (and each TOTAL's) share of every channel.
Table channel_table(const RunReport& report) {
  const std::vector<RunColumn>& run = columns_of(report);
  const std::vector<ChannelColumn> columns = channel_columns(report.training.has_value(), report.fidelity);
  Table table = table_of(columns);
  for_each_row(report, run, [&](const LayerResult& r, const RunRow& row) {
    for (std::size_t i = 0; i < r.dram_channels.size(); ++i) {
      table.add_row(cells_of(columns, r.dram_channels[i], ChannelRow{r, row, static_cast<std::int64_t>(i)}));
    }
  });
  return table;
}

// Each layer's share of every core (TOTAL rows have none).
Table core_table(const RunReport& report) {
  const std::vector<RunColumn>& run = columns_of(report);
  const std::vector<CoreColumn> columns = core_columns(report.spec.noc.has_value());
  Table table = table_of(columns);
  for_each_row(report, run, [&](const LayerResult& r, const RunRow& row) {
    for (std::size_t i = 0; i < r.cores.size(); ++i) {
      table.add_row(cells_of(columns, r.cores[i], CoreRow{row, static_cast<std::int64_t>(i)}));
    }
  });
  return table;
}

// Each layer's links that moved data; each TOTAL's, every layer's of its batch added up by link (total_of).
Table link_table(const RunReport& report) {
  const std::vector<RunColumn>& run = columns_of(report);
  const std::vector<LinkColumn> columns = link_columns();
  Table table = table_of(columns);
  for_each_row(report, run, [&](const LayerResult& r, const RunRow& row) {
    for (const results::NocLinkFigures& link : r.noc_links) table.add_row(cells_of(columns, link, LinkRow{r, row}));
  });
  return table;
}

// A per-core or per-link file's column of one integer counter, as it is.
template <typename Figures, typename Row>
ResultColumn<Figures, Row> counter_column(const char* name, const char* unit, const char* description,
                                          std::int64_t Figures::*field) {
  return {name, unit, description, Total::none, 0,
          [field](const Figures& figures, const Row&) { return Cell(figures.*field); }, {}, {}};
}

// dram_channels.csv's line in stats.txt, after the DRAM statistics'.
const LegendLine kChannelsLine{"dram_channels.csv",
                               "dram_channels.csv (and dram_channels in results.json): the same per DRAM channel, one "
                               "row per batch, layer (TOTAL included) and channel",
                               "dram_activates"};

}  // namespace

const std::vector<RunColumn>& run_columns(bool training, spec::Fidelity fidelity, bool shared_memory, bool noc,
                                          bool skipped_zeros, bool tokens) {
  // Each table made once, on first use (references stay valid: a map's elements never move).
  static std::map<std::array<bool, 6>, std::vector<RunColumn>> tables;
  const std::array<bool, 6> key{training, fidelity == spec::Fidelity::fast, shared_memory, noc, skipped_zeros, tokens};
  auto table = tables.find(key);
  if (table == tables.end()) {
    table = tables.emplace(key, make_run_columns(training, fidelity, shared_memory, noc, skipped_zeros, tokens)).first;
  }
  return table->second;
}

bool has_token_columns(const RunReport& report) {
  return (report.tokens_per_sample > 0 || report.training.has_value()) && report.spec.technology.has_value();
}

bool skipped_zeros(const RunReport& report) {
  for (const std::vector<LayerResult>& batch : report.batches) {
    for (const LayerResult& layer : batch) {
      if (layer.skipped_macs > 0) return true;
    }
  }
  return false;
}

std::vector<ChannelColumn> channel_columns(bool training, spec::Fidelity fidelity) {
  const auto from_run = [&](const std::vector<std::string>& names) {
    return nested<results::DramFigures, ChannelRow>(
        named(run_columns(training, fidelity), names), "", std::nullopt,
        [](const RunColumn& column, const results::DramFigures&, const ChannelRow& row) {
          return column.value(row.layer, row.run);
        });
  };
  std::vector<ChannelColumn> columns = from_run({"batch", "layer", "phase"});
  columns.push_back({"channel", "index", "the DRAM channel (or pseudo-channel) whose share the row is", Total::same, 0,
                     [](const results::DramFigures&, const ChannelRow& row) { return Cell(row.channel); }, {}, {}});
  append(columns, nested<results::DramFigures, ChannelRow>(
                      dram_stat_columns(), "dram_", Total::batch,
                      [](const DramStatColumn& stat, const results::DramFigures& figures, const ChannelRow& row) {
                        return dram_stat_cell(stat, figures, row.run.report.spec);
                      }));
  // A fast run's counters are estimates: its rows say so, as the run's own do.
  if (fidelity == spec::Fidelity::fast) append(columns, from_run({"fidelity"}));
  return columns;
}

Table run_table(const RunReport& report) {
  const std::vector<RunColumn>& columns = columns_of(report);
  Table table = table_of(columns);
  for_each_row(report, columns, [&](const LayerResult& r, RunRow row) {
    row.energy = layer_energy_of(report.spec, r);
    table.add_row(cells_of(columns, r, row));
  });
  return table;
}

std::string render_dram_channels(const RunReport& report) { return channel_table(report).to_csv(); }

std::string render_cores(const RunReport& report) {
  return report.spec.cores > 1 ? core_table(report).to_csv() : std::string();
}

std::string render_noc_links(const RunReport& report) {
  return report.spec.noc ? link_table(report).to_csv() : std::string();
}

std::vector<LinkColumn> link_columns() {
  const auto count = &counter_column<results::NocLinkFigures, LinkRow>;
  std::vector<LinkColumn> columns =
      nested<results::NocLinkFigures, LinkRow>(named(run_columns(false), {"batch", "layer"}), "", std::nullopt,
                                               [](const RunColumn& column, const results::NocLinkFigures&,
                                                  const LinkRow& row) { return column.value(row.layer, row.run); });
  columns.push_back({"link",
                     "text",
                     "a directed link of the network-on-chip, \"n<from> -> n<to>\" (nodes numbered row by row; a "
                     "crossbar's links go up to its switch and down from it)",
                     Total::none,
                     0,
                     [](const results::NocLinkFigures& link, const LinkRow&) { return Cell(link.link); },
                     {},
                     {}});
  columns.push_back(count("transfers", "transfers", "reads' data coming back and stores' data going out over the link",
                          &results::NocLinkFigures::transfers));
  columns.push_back(count("bytes", "bytes", "what the link moved", &results::NocLinkFigures::bytes));
  columns.push_back(count("busy_cycles", "cycles", "NoC clocks the link moved flits (link_bytes a clock)",
                          &results::NocLinkFigures::busy_cycles));
  columns.push_back(count("waited_cycles", "cycles",
                          "NoC clocks transfers waited for the link while an earlier one held it, summed over them",
                          &results::NocLinkFigures::waited_cycles));
  columns.push_back({"utilization",
                     "fraction",
                     "busy_cycles over the row's time in NoC clocks",
                     Total::none,
                     4,
                     [](const results::NocLinkFigures& link, const LinkRow& row) {
                       const double cycles = row.layer.seconds * row.run.report.spec.noc->clock_mhz * 1e6;
                       return Cell(cycles > 0 ? static_cast<double>(link.busy_cycles) / cycles : 0.0);
                     },
                     {},
                     {}});
  return columns;
}

std::vector<CoreColumn> core_columns(bool noc) {
  const auto count = &counter_column<results::CoreFigures, CoreRow>;
  // batch and layer read the row of the run table the core's row belongs to.
  std::vector<CoreColumn> columns = nested<results::CoreFigures, CoreRow>(
      named(run_columns(false), {"batch", "layer"}), "", std::nullopt,
      [](const RunColumn& column, const results::CoreFigures&, const CoreRow& row) {
        return column.value(row.run.report.batches[row.run.batch][row.run.position], row.run);
      });
  columns.push_back({"core",
                     "index",
                     "the core whose share the row is (0 first)",
                     Total::none,
                     0,
                     [](const results::CoreFigures&, const CoreRow& row) { return Cell(row.core); },
                     {},
                     {}});
  columns.push_back({"part",
                     "text",
                     "the core's part of the layer: its samples (data parallel), or the rows, columns or groups of "
                     "its GEMM or the elements of a layer without one (a layer split over the cores), \"none\"",
                     Total::none,
                     0,
                     [](const results::CoreFigures& core, const CoreRow&) { return Cell(core.part); },
                     {},
                     {}});
  columns.push_back(count("samples", "samples",
                          "the samples of the batch the core's part covers (all of them in a split layer, 0 for none)",
                          &results::CoreFigures::samples));
  columns.push_back(count("compute_cycles", "cycles", "the core's array (or vector unit) busy, compute clock",
                          &results::CoreFigures::compute_cycles));
  columns.push_back(count("stall_cycles", "cycles",
                          "the core's array waiting until the core's last step, split by cause as the run table's "
                          "stall columns (stall_weights_cycles ... stall_vector_cycles, and stall_noc_cycles with a "
                          "network-on-chip, follow it)",
                          &results::CoreFigures::stall_cycles));
  // The run table's stall causes, on the core's own cycles.
  std::vector<std::string> causes{"stall_weights_cycles", "stall_inputs_cycles", "stall_output_drain_cycles",
                                  "stall_sram_cycles", "stall_vector_cycles"};
  if (noc) causes.push_back("stall_noc_cycles");
  std::vector<CoreColumn> stalls = nested<results::CoreFigures, CoreRow>(
      named(run_columns(false, spec::Fidelity::exact, false, noc), causes), "", std::nullopt,
      [](const RunColumn& column, const results::CoreFigures& core, const CoreRow& row) {
        LayerResult own;
        own.stall_weights = core.stall_weights;
        own.stall_inputs = core.stall_inputs;
        own.stall_output_drain = core.stall_output_drain;
        own.stall_sram = core.stall_sram;
        own.stall_vector = core.stall_vector;
        own.stall_noc = core.stall_noc;
        return column.value(own, row.run);
      });
  for (CoreColumn& column : stalls) column.legend = {Legend::covered, "", "", {}};
  append(columns, std::move(stalls));
  columns.push_back(count("sync_cycles", "cycles",
                          "after the core's last step, waiting for the cores still working on the layer; "
                          "compute + stall + sync = the layer's cycles",
                          &results::CoreFigures::sync_cycles));
  columns.push_back(count("macs", "MACs", "the core's multiply-accumulates", &results::CoreFigures::macs));
  columns.push_back(count("dram_read_bytes", "bytes", "what the core's loads read from DRAM, burst-widened",
                          &results::CoreFigures::dram_read_bytes));
  columns.push_back(count("dram_write_bytes", "bytes", "what the core's stores wrote to DRAM, burst-widened",
                          &results::CoreFigures::dram_write_bytes));
  return columns;
}

namespace {

// A file's lines in stats.txt: what it holds, then its columns', each keyed by the file's name.
void add_file_legend(std::vector<LegendLine>& lines, const std::string& file, const std::string& intro,
                     const std::vector<LegendLine>& columns) {
  lines.push_back({file, intro, {}});
  for (LegendLine line : columns) {
    line.key = file + " " + line.key;
    line.text = file + " " + line.text;
    lines.push_back(line);
  }
}

}  // namespace

std::string run_stats_legend(bool training, spec::Fidelity fidelity, bool cores, bool shared_memory, bool noc,
                             bool skipped_zeros, bool tokens) {
  std::vector<LegendLine> lines =
      legend_lines(run_columns(training, fidelity, shared_memory, noc, skipped_zeros, tokens));
  lines.push_back(kChannelsLine);
  if (cores) {
    add_file_legend(lines, "cores.csv",
                    "cores.csv (and cores in results.json): each core's share of a layer row on a chip of several "
                    "cores, one row per batch, layer and core, after its batch and layer:",
                    legend_lines(all_but(core_columns(noc), {"batch", "layer"})));
  }
  if (noc) {
    add_file_legend(lines, "noc_links.csv",
                    "noc_links.csv (and noc_links in results.json): each link of the network-on-chip that moved data "
                    "during a layer row (TOTAL included), one row per batch, layer and link, after its batch and "
                    "layer:",
                    legend_lines(all_but(link_columns(), {"batch", "layer"})));
  }
  return std::string(kConventions) + "\n" + legend_text(lines);
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
    if (report.fidelity == spec::Fidelity::fast) document["fidelity"] = util::name(report.fidelity);
    for (const workload::ReusedBlock& block : report.reused_blocks)
      document["reused_blocks"].push_back(block.description());
    document["peak_gops"] = report.spec.peak_ops_per_second() / 1e9;
    document["peak_dram_gbps"] = report.spec.dram.peak_bytes_per_second() / 1e9;
    document["element_bytes"] = report.spec.element_bytes();
    if (report.kv_cache_element_bytes) document["kv_cache_element_bytes"] = *report.kv_cache_element_bytes;
    document["area"] = area_json(report.spec);
    document["conventions"] = kConventions;
    document["rows"] = table.to_json();
    document["dram_channels"] = channel_table(report).to_json();
    if (report.spec.cores > 1) document["cores"] = core_table(report).to_json();
    if (report.spec.noc) document["noc_links"] = link_table(report).to_json();
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
  if (report.fidelity == spec::Fidelity::fast) step += ", fast fidelity (docs/performance.md, \"Fast mode\")";
  for (const workload::ReusedBlock& block : report.reused_blocks)
    step += ", " + block.description() + " (--reuse-blocks, docs/performance.md \"Block reuse\")";
  return "accelerator " + report.accelerator + ", model " + report.model + step + ", " +
         std::to_string(report.spec.element_bytes()) + "-byte elements" +
         (report.kv_cache_element_bytes ? " (the KV cache " + std::to_string(*report.kv_cache_element_bytes) + "-byte)"
                                        : "") +
         (area.empty() ? "" : ", " + area) + "\n" + kConventions + "\n\n" + table.to_text();
}

}  // namespace reusesim::report
