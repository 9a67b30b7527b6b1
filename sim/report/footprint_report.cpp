#include "report/footprint_report.h"

#include <utility>

#include "util/checked_math.h"

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "bytes; total = weights + gradients + optimizer state + stored activations + activation gradients + "
    "largest im2col workspace + KV cache, all held at once (the TOTAL row sums each column; im2col is the largest; "
    "a layer's total_bytes is its own row's sum); "
    "peak = the most held at one time when each tensor is freed after its last use (inference) or "
    "activation gradients live one layer at a time (training), in the TOTAL row only; peak_activation_bytes = the "
    "most activation bytes held at one time; kv_cache = the keys and values of the tokens before a decode step, "
    "held for the whole step (in total and peak)";

// The memory components, declared once: each a column of the table (layer rows and TOTAL) and an
// entry of JSON's components.
struct Component {
  const char* name;
  std::int64_t workload::LayerFootprint::*layer;
  std::int64_t workload::Footprint::*total;
};
constexpr Component kComponents[] = {
    {"weight_bytes", &workload::LayerFootprint::weight_bytes, &workload::Footprint::weight_bytes},
    {"gradient_bytes", &workload::LayerFootprint::gradient_bytes, &workload::Footprint::gradient_bytes},
    {"optimizer_bytes", &workload::LayerFootprint::optimizer_bytes, &workload::Footprint::optimizer_bytes},
    {"activation_bytes", &workload::LayerFootprint::activation_bytes, &workload::Footprint::activation_bytes},
    {"activation_gradient_bytes", &workload::LayerFootprint::activation_gradient_bytes,
     &workload::Footprint::activation_gradient_bytes},
    {"im2col_bytes", &workload::LayerFootprint::im2col_bytes, &workload::Footprint::im2col_bytes},
    {"kv_cache_bytes", &workload::LayerFootprint::kv_cache_bytes, &workload::Footprint::kv_cache_bytes},
};
// After the components: their sum, and the two liveness-aware peaks (TOTAL row only).
constexpr const char* kTotalColumn = "total_bytes";
constexpr const char* kPeakColumn = "peak_bytes";
constexpr const char* kPeakActivationColumn = "peak_activation_bytes";

std::vector<Column> columns() {
  std::vector<Column> result{{"layer"}, {"type"}};
  for (const Component& component : kComponents) result.push_back({component.name});
  for (const char* name : {kTotalColumn, kPeakColumn, kPeakActivationColumn}) result.push_back({name});
  return result;
}

// A row: its components, their sum, and the peaks (not applicable to one layer).
std::vector<Cell> row_cells(const std::string& name, const std::string& type, const std::vector<std::int64_t>& bytes,
                            std::int64_t total, Cell peak, Cell peak_activation) {
  std::vector<Cell> cells{name, type};
  for (std::int64_t value : bytes) cells.emplace_back(value);
  cells.emplace_back(total);
  cells.push_back(std::move(peak));
  cells.push_back(std::move(peak_activation));
  return cells;
}

std::vector<Cell> layer_cells(const workload::LayerFootprint& layer) {
  std::vector<std::int64_t> bytes;
  std::int64_t total = 0;
  for (const Component& component : kComponents) {
    bytes.push_back(layer.*component.layer);
    total = util::checked_add(total, layer.*component.layer);
  }
  return row_cells(layer.name, layer.type, bytes, total, Cell(), Cell());
}

}  // namespace

std::string render_footprint(const workload::Network& network, const workload::FootprintOptions& options,
                             const workload::Footprint& footprint, Format format) {
  Table table(columns());
  workload::LayerFootprint input{"(input)", "input", 0, 0, 0, footprint.input_bytes, 0, 0, 0};
  table.add_row(layer_cells(input));
  for (const workload::LayerFootprint& layer : footprint.layers) table.add_row(layer_cells(layer));
  std::vector<std::int64_t> totals;
  for (const Component& component : kComponents) totals.push_back(footprint.*component.total);
  table.add_row(
      row_cells("TOTAL", "", totals, footprint.total_bytes, footprint.peak_bytes, footprint.peak_activation_bytes));
  const bool train = options.mode == workload::FootprintMode::train;
  const std::string mode = util::name(options.mode);
  const std::string optimizer = train ? util::name(options.optimizer) : "none";
  const std::string dtype = options.formats ? workload::describe(*options.formats) : util::name(options.dtype);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document;
    document["model"] = network.name;
    document["mode"] = mode;
    document["optimizer"] = optimizer;
    if (options.formats) {
      document["precision"] = {{"weights", util::name(options.formats->weights)},
                               {"activations", util::name(options.formats->activations)},
                               {"kv_cache", util::name(options.formats->kv_cache)}};
    } else {
      document["dtype"] = dtype;
    }
    document["batch"] = options.batch;
    document["im2col"] = options.im2col;
    document["inplace_activations"] = options.inplace_activations;
    if (options.checkpoint_segments > 1) document["checkpoint_segments"] = options.checkpoint_segments;
    if (options.mixed_precision) document["mixed_precision"] = true;
    document["conventions"] = kConventions;
    document[kTotalColumn] = footprint.total_bytes;
    document[kPeakColumn] = footprint.peak_bytes;
    document[kPeakActivationColumn] = footprint.peak_activation_bytes;
    document["components"] = nlohmann::ordered_json::object();
    for (const Component& component : kComponents) document["components"][component.name] = footprint.*component.total;
    nlohmann::ordered_json rows = table.to_json();
    rows.erase(rows.size() - 1);
    document["layers"] = rows;
    return json_document_text(document);
  }
  std::string text = "model " + network.name + ": " + mode + ", optimizer " + optimizer + ", " + dtype + ", batch " +
                     std::to_string(options.batch) + (options.im2col ? ", im2col" : "") +
                     (options.inplace_activations ? ", in-place activations" : "") +
                     (options.checkpoint_segments > 1 ? ", " + std::to_string(options.checkpoint_segments) +
                                                            " checkpoint segments" : "") +
                     (options.mixed_precision ? ", mixed precision (fp32 master weights and state)" : "") +
                     "\n" + kConventions + "\n\n";
  return text + table.to_text();
}

}  // namespace reusesim::report
