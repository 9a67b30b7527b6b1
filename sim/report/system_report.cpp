#include "report/system_report.h"

#include "report/columns.h"

namespace reusesim::report {

namespace {

double seconds(std::uint64_t ps) { return static_cast<double>(ps) * 1e-12; }

struct BatchRow {
  const SystemReport& report;
  std::size_t batch;
};
using SystemColumn = ResultColumn<results::SystemBatch, BatchRow>;
using CollectiveColumn = ResultColumn<results::CollectiveResult, SystemReport>;
using ChipLinkColumn = ResultColumn<results::ChipLinkFigures, SystemReport>;

template <typename Result, typename Context>
ResultColumn<Result, Context> column(std::string name, std::string unit, std::string description, int decimals,
                                     std::function<Cell(const Result&, const Context&)> value) {
  return {std::move(name), std::move(unit), std::move(description), Total::none, decimals, std::move(value), {}, {}};
}

std::vector<SystemColumn> system_columns() {
  const auto time = [](const results::SystemBatch& batch) { return seconds(batch.end_ps - batch.start_ps); };
  return {
      column<results::SystemBatch, BatchRow>(
          "batch", "samples", "the batch size", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.batches[row.batch]); }),
      column<results::SystemBatch, BatchRow>(
          "chips", "chips", "chips in the system", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.chips); }),
      column<results::SystemBatch, BatchRow>(
          "tensor_parallel", "chips", "chips each layer is split over (Megatron-style tensor parallelism)", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.plan.tensor); }),
      column<results::SystemBatch, BatchRow>(
          "pipeline_stages", "stages", "consecutive parts of the layers, each on chips of its own", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.plan.pipeline); }),
      column<results::SystemBatch, BatchRow>(
          "data_parallel", "replicas", "copies of the model, each on a share of the batch", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.plan.data); }),
      column<results::SystemBatch, BatchRow>(
          "micro_batches", "parts", "equal parts of the batch that flow through the stages in turn", 0,
          [](const results::SystemBatch&, const BatchRow& row) { return Cell(row.report.plan.micro_batches); }),
      column<results::SystemBatch, BatchRow>(
          "time_s", "s", "the batch on the system: from the first chip's start to the last chip's end", 9,
          [time](const results::SystemBatch& batch, const BatchRow&) { return Cell(time(batch)); }),
      column<results::SystemBatch, BatchRow>(
          "layers_s", "s", "chip 0's time on its layers (its share of each)", 9,
          [](const results::SystemBatch& batch, const BatchRow&) { return Cell(seconds(batch.layers_ps)); }),
      column<results::SystemBatch, BatchRow>(
          "collectives_s", "s",
          "chip 0's time in collectives and transfers: on the links, waiting for its peers' bytes (or the stage "
          "before's), adding on its vector units",
          9, [](const results::SystemBatch& batch, const BatchRow&) { return Cell(seconds(batch.collectives_ps)); }),
      column<results::SystemBatch, BatchRow>("collective_share", "fraction", "collectives_s over time_s", 4,
                                             [time](const results::SystemBatch& batch, const BatchRow&) {
                                               return Cell(time(batch) > 0 ? seconds(batch.collectives_ps) / time(batch)
                                                                           : 0.0);
                                             }),
      column<results::SystemBatch, BatchRow>(
          "tokens_per_s", "tokens/s", "batch x tokens a sample runs (1 in a decode step) over time_s; - without tokens",
          1,
          [time](const results::SystemBatch& batch, const BatchRow& row) {
            if (row.report.tokens_per_sample == 0 || time(batch) <= 0) return Cell();
            return Cell(static_cast<double>(row.report.batches[row.batch] * row.report.tokens_per_sample) /
                        time(batch));
          }),
  };
}

std::vector<CollectiveColumn> collective_columns() {
  using R = results::CollectiveResult;
  return {
      column<R, SystemReport>("batch", "samples", "the batch size", 0,
                              [](const R& c, const SystemReport& report) { return Cell(report.batches[c.batch]); }),
      column<R, SystemReport>("chip", "index", "the chip whose part this is", 0,
                              [](const R& c, const SystemReport&) { return Cell(c.chip); }),
      column<R, SystemReport>("collective", "text", "the layer whose output it puts together, and the collective", 0,
                              [](const R& c, const SystemReport&) { return Cell(c.name); }),
      column<R, SystemReport>("start_s", "s", "when the chip started its part", 9,
                              [](const R& c, const SystemReport&) { return Cell(seconds(c.start_ps)); }),
      column<R, SystemReport>("time_s", "s", "the chip's part, start to end", 9,
                              [](const R& c, const SystemReport&) { return Cell(seconds(c.end_ps - c.start_ps)); }),
      column<R, SystemReport>("wait_s", "s",
                              "of time_s, waiting for bytes to arrive (their transfer, or a peer behind)", 9,
                              [](const R& c, const SystemReport&) { return Cell(seconds(c.receive_wait_ps)); }),
      column<R, SystemReport>("reduce_cycles", "cycles", "chip clocks its vector units spent adding received elements",
                              0, [](const R& c, const SystemReport&) { return Cell(c.reduce_cycles); }),
      column<R, SystemReport>("sent_bytes", "bytes", "what the chip sent", 0,
                              [](const R& c, const SystemReport&) { return Cell(c.sent_bytes); }),
  };
}

std::vector<ChipLinkColumn> chip_link_columns() {
  using L = results::ChipLinkFigures;
  return {
      column<L, SystemReport>("link", "text",
                              "one direction of the bundle of links between two chips (or a chip and the switch)", 0,
                              [](const L& link, const SystemReport&) { return Cell(link.name); }),
      column<L, SystemReport>("transfers", "transfers", "transfers that crossed it, every batch", 0,
                              [](const L& link, const SystemReport&) { return Cell(link.transfers); }),
      column<L, SystemReport>("bytes", "bytes", "what it moved, every batch", 0,
                              [](const L& link, const SystemReport&) { return Cell(link.bytes); }),
      column<L, SystemReport>("busy_s", "s", "time it moved bytes", 9,
                              [](const L& link, const SystemReport&) { return Cell(seconds(link.busy_ps)); }),
      column<L, SystemReport>("waited_s", "s",
                              "time transfers waited for it while an earlier one held it, summed over them", 9,
                              [](const L& link, const SystemReport&) { return Cell(seconds(link.waited_ps)); }),
  };
}

template <typename Result, typename Context>
Table table_with(const std::vector<ResultColumn<Result, Context>>& columns, const std::vector<Result>& rows,
                 const Context& context) {
  Table table = table_of(columns);
  for (const Result& row : rows) table.add_row(cells_of(columns, row, context));
  return table;
}

}  // namespace

Table system_table(const SystemReport& report) {
  const std::vector<SystemColumn> columns = system_columns();
  Table table = table_of(columns);
  for (std::size_t b = 0; b < report.batch_spans.size(); ++b)
    table.add_row(cells_of(columns, report.batch_spans[b], BatchRow{report, b}));
  return table;
}

Table collective_table(const SystemReport& report) {
  return table_with(collective_columns(), report.collectives, report);
}

Table chip_link_table(const SystemReport& report) { return table_with(chip_link_columns(), report.links, report); }

std::string render_system(const SystemReport& report, Format format) {
  const Table table = system_table(report);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document;
    document["system"] = report.system;
    document["model"] = report.model;
    document["rows"] = table.to_json();
    document["collectives"] = collective_table(report).to_json();
    document["chip_links"] = chip_link_table(report).to_json();
    return json_document_text(document);
  }
  SystemReport chip0 = report;
  chip0.collectives.clear();
  for (const results::CollectiveResult& collective : report.collectives) {
    if (collective.chip == 0) chip0.collectives.push_back(collective);
  }
  const spec::ParallelPlan& plan = report.plan;
  std::string how = "tensor parallel over " + std::to_string(plan.tensor);
  if (plan.data > 1) how += ", " + std::to_string(plan.data) + " data-parallel replicas";
  if (plan.pipeline > 1) {
    how += ", " + std::to_string(plan.pipeline) + " pipeline stages, " + std::to_string(plan.micro_batches) +
           (plan.micro_batches == 1 ? " micro-batch" : " micro-batches");
  }
  if (report.twins)
    how += " (chips that run what another runs replayed as its twins: the same result as replaying each)";
  return "system " + report.system + ", model " + report.model + ": " + std::to_string(report.chips) + " chips, " +
         how + "\n\n" + table.to_text() + "\nchip 0's collectives and transfers\n" + collective_table(chip0).to_text();
}

std::string system_stats_legend() {
  std::vector<LegendLine> lines;
  const auto add = [&lines](const std::string& table, auto columns) {
    for (LegendLine& line : legend_lines(columns)) {
      line.text = table + "." + line.text;
      lines.push_back(std::move(line));
    }
  };
  add("system", system_columns());
  add("collectives", collective_columns());
  add("chip_links", chip_link_columns());
  return legend_text(lines);
}

}  // namespace reusesim::report
