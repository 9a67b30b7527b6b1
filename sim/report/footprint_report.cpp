#include "report/footprint_report.h"

namespace reusesim::report {

namespace {

constexpr const char* kConventions =
    "bytes; total = weights + gradients + optimizer state + stored activations + activation gradients + "
    "largest im2col workspace + KV cache, all held at once (the TOTAL row sums each column; im2col is the largest); "
    "peak = the most held at one time when each tensor is freed after its last use (inference) or "
    "activation gradients live one layer at a time (training); peak_activation_bytes = the most "
    "activation bytes held at one time; kv_cache = the keys and values of the tokens before a decode step, "
    "held for the whole step (in total and peak)";

std::vector<Cell> row_cells(const std::string& name, const std::string& type, std::int64_t weights,
                            std::int64_t gradients, std::int64_t optimizer, std::int64_t activations,
                            std::int64_t activation_gradients, std::int64_t im2col, std::int64_t kv_cache) {
  return {name, type, weights, gradients, optimizer, activations, activation_gradients, im2col, kv_cache};
}

}  // namespace

std::string render_footprint(const workload::Network& network, const workload::FootprintOptions& options,
                             const workload::Footprint& footprint, Format format) {
  Table table({{"layer"}, {"type"}, {"weight_bytes"}, {"gradient_bytes"}, {"optimizer_bytes"},
               {"activation_bytes"}, {"activation_gradient_bytes"}, {"im2col_bytes"}, {"kv_cache_bytes"}});
  table.add_row(row_cells("(input)", "input", 0, 0, 0, footprint.input_bytes, 0, 0, 0));
  for (const workload::LayerFootprint& layer : footprint.layers) {
    table.add_row(row_cells(layer.name, layer.type, layer.weight_bytes, layer.gradient_bytes, layer.optimizer_bytes,
                            layer.activation_bytes, layer.activation_gradient_bytes, layer.im2col_bytes,
                            layer.kv_cache_bytes));
  }
  table.add_row(row_cells("TOTAL", "", footprint.weight_bytes, footprint.gradient_bytes, footprint.optimizer_bytes,
                          footprint.activation_bytes, footprint.activation_gradient_bytes, footprint.im2col_bytes,
                          footprint.kv_cache_bytes));
  const bool train = options.mode == workload::FootprintMode::train;
  const std::string mode = util::name(options.mode);
  const std::string optimizer = train ? util::name(options.optimizer) : "none";
  const std::string dtype = util::name(options.dtype);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document;
    document["model"] = network.name;
    document["mode"] = mode;
    document["optimizer"] = optimizer;
    document["dtype"] = dtype;
    document["batch"] = options.batch;
    document["im2col"] = options.im2col;
    document["inplace_activations"] = options.inplace_activations;
    if (options.checkpoint_segments > 1) document["checkpoint_segments"] = options.checkpoint_segments;
    if (options.mixed_precision) document["mixed_precision"] = true;
    document["conventions"] = kConventions;
    document["total_bytes"] = footprint.total_bytes;
    document["peak_bytes"] = footprint.peak_bytes;
    document["peak_activation_bytes"] = footprint.peak_activation_bytes;
    document["components"] = {{"weight_bytes", footprint.weight_bytes},
                              {"gradient_bytes", footprint.gradient_bytes},
                              {"optimizer_bytes", footprint.optimizer_bytes},
                              {"activation_bytes", footprint.activation_bytes},
                              {"activation_gradient_bytes", footprint.activation_gradient_bytes},
                              {"im2col_bytes", footprint.im2col_bytes},
                              {"kv_cache_bytes", footprint.kv_cache_bytes}};
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
  text += table.to_text();
  text += "\ntotal_bytes            " + group_digits(footprint.total_bytes) + "\npeak_bytes             " +
          group_digits(footprint.peak_bytes) + "\npeak_activation_bytes  " +
          group_digits(footprint.peak_activation_bytes) + "\n";
  if (footprint.kv_cache_bytes > 0) text += "kv_cache_bytes         " + group_digits(footprint.kv_cache_bytes) + "\n";
  return text;
}

}  // namespace reusesim::report
