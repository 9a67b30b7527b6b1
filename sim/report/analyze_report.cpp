#include "report/analyze_report.h"

#include "util/checked_math.h"
#include "util/strings.h"

namespace reusesim::report {

namespace {

using util::checked_add;
using util::checked_mul;

constexpr const char* kConventions =
    "1 MAC = 2 ops; intensity = ops per byte of compulsory DRAM traffic (every input, weight and "
    "output of a layer moved once; weights once per batch); GB/s = 1e9 bytes/s";

struct Row {
  std::int64_t macs = 0, params = 0, input_elems = 0, output_elems = 0, vector_ops = 0;
  workload::TrafficBytes traffic;
  // A decode step's KV-cache reads: the L cached tokens' keys or values and the new token's, which
  // the step wrote to the cache (docs/transformers.md, "The KV cache"); run's dram_read_kv_cache_bytes.
  std::int64_t kv_cache_read_bytes = 0;
  std::int64_t weight_scale_bytes = 0;  // within traffic.weight
  std::int64_t weight_metadata_bytes = 0;  // within traffic.weight: sparse weights' positions

  void add(const Row& other) {
    macs = checked_add(macs, other.macs);
    params = checked_add(params, other.params);
    input_elems = checked_add(input_elems, other.input_elems);
    output_elems = checked_add(output_elems, other.output_elems);
    vector_ops = checked_add(vector_ops, other.vector_ops);
    traffic.weight = checked_add(traffic.weight, other.traffic.weight);
    traffic.input = checked_add(traffic.input, other.traffic.input);
    traffic.output = checked_add(traffic.output, other.traffic.output);
    kv_cache_read_bytes = checked_add(kv_cache_read_bytes, other.kv_cache_read_bytes);
    weight_scale_bytes = checked_add(weight_scale_bytes, other.weight_scale_bytes);
    weight_metadata_bytes = checked_add(weight_metadata_bytes, other.weight_metadata_bytes);
  }
};

// Which optional columns a model has: the quantized weights' scales (a precision block) and the
// sparse weights' metadata (a layer with `sparsity`).
struct Extras {
  bool per_tensor = false;
  bool sparse = false;
};

std::vector<Column> columns(const AnalyzeOptions& options, Extras extras) {
  std::vector<Column> result{{"layer"},        {"type"},         {"output_shape"}, {"macs"},
                             {"params"},       {"input_elems"},  {"output_elems"}, {"vector_ops"},
                             {"weight_bytes"}, {"input_bytes"},  {"output_bytes"}, {"intensity_ops_per_byte", 2}};
  if (options.peak_tops) {
    for (Column column : std::vector<Column>{{"ideal_time_us", 3}, {"input_gbps", 2}, {"output_gbps", 2}, {"weight_gbps", 2}}) {
      result.push_back(column);
    }
  }
  result.push_back({"kv_cache_read_bytes"});
  if (extras.per_tensor) result.push_back({"weight_scale_bytes"});
  if (extras.sparse) result.push_back({"weight_metadata_bytes"});
  return result;
}

std::vector<Cell> cells(const std::string& name, const std::string& type, const std::string& shape, const Row& row,
                        const AnalyzeOptions& options, Extras extras) {
  const double ops = 2.0 * static_cast<double>(row.macs);
  const std::int64_t bytes = row.traffic.total();
  // Appended one by one: GCC 12 takes an initializer list of variants holding strings for reads of
  // uninitialized memory (-Wmaybe-uninitialized).
  std::vector<Cell> result;
  for (const std::string& text : {name, type, shape}) result.emplace_back(text);
  for (std::int64_t count : {row.macs, row.params, row.input_elems, row.output_elems, row.vector_ops,
                             row.traffic.weight, row.traffic.input, row.traffic.output}) {
    result.emplace_back(count);
  }
  result.push_back(bytes > 0 ? Cell(ops / static_cast<double>(bytes)) : Cell());
  if (options.peak_tops) {
    const double seconds = ops / (*options.peak_tops * 1e12);
    result.push_back(seconds * 1e6);
    for (std::int64_t tensor_bytes : {row.traffic.input, row.traffic.output, row.traffic.weight}) {
      result.push_back(seconds > 0 ? Cell(static_cast<double>(tensor_bytes) / seconds / 1e9) : Cell());
    }
  }
  result.emplace_back(row.kv_cache_read_bytes);
  if (extras.per_tensor) result.emplace_back(row.weight_scale_bytes);
  if (extras.sparse) result.emplace_back(row.weight_metadata_bytes);
  return result;
}

}  // namespace

Table analyze_table(const workload::Network& network, const AnalyzeOptions& options) {
  const Extras extras{network.formats.has_value(), network.has_sparse_weights()};
  Table table(columns(options, extras));
  const workload::TensorWidths widths = network.model_widths();
  Row total;
  for (const workload::NetworkLayer& layer : network.layers) {
    Row row;
    row.macs = checked_mul(layer.counts.macs, options.batch);
    row.params = layer.counts.params;
    row.input_elems = checked_mul(layer.counts.input_elems, options.batch);
    row.output_elems = checked_mul(layer.counts.output_elems, options.batch);
    row.vector_ops = checked_mul(layer.counts.vector_ops, options.batch);
    row.traffic = workload::compulsory_traffic(layer, options.batch, widths);
    row.kv_cache_read_bytes = checked_mul(workload::kv_cache_read_bytes(layer, widths), options.batch);
    const workload::ParameterBytes parameters = workload::parameter_bytes(layer, widths);
    row.weight_scale_bytes = parameters.scales;
    row.weight_metadata_bytes = parameters.metadata;
    total.add(row);
    table.add_row(
        cells(layer.spec.name, util::name(layer.spec.type), layer.output_shape.to_string(), row, options, extras));
  }
  table.add_row(cells("TOTAL", "", "", total, options, extras));
  return table;
}

std::string render_analysis(const workload::Network& network, const AnalyzeOptions& options, Format format) {
  const Table table = analyze_table(network, options);
  const std::string precision = util::name(network.precision);
  const std::int64_t element_bytes = workload::bytes_per_element(network.precision);
  const std::int64_t kv_cache_bytes_per_token =
      workload::packed_bytes(network.kv_cache_elements_per_token(), network.model_widths().kv_cache_bits);
  if (format == Format::csv) return table.to_csv();
  if (format == Format::json) {
    nlohmann::ordered_json document;
    document["model"] = network.name;
    if (network.formats) {
      const workload::TensorFormats& formats = *network.formats;
      document["precision"] = {
          {"weights", util::name(formats.weights)},
          {"activations", util::name(formats.activations)},
          {"kv_cache", util::name(formats.kv_cache)},
          {"weight_group_size", formats.weight_group_size > 0 ? nlohmann::ordered_json(formats.weight_group_size)
                                                              : nlohmann::ordered_json()}};
    } else {
      document["precision"] = precision;
      document["bytes_per_element"] = element_bytes;
    }
    document["batch"] = options.batch;
    document["input_shape"] = network.input ? network.input->to_string() : "per layer";
    document["peak_tops"] = options.peak_tops ? nlohmann::ordered_json(*options.peak_tops) : nlohmann::ordered_json();
    if (network.input && network.input->kind == workload::ShapeKind::sequence) {
      document["macs_per_token"] = network.total_macs() / network.tokens_per_sample();
      document["kv_cache_bytes_per_token"] = kv_cache_bytes_per_token;
    }
    document["conventions"] = kConventions;
    nlohmann::ordered_json rows = table.to_json();
    document["total"] = rows.back();
    rows.erase(rows.size() - 1);
    document["layers"] = rows;
    return json_document_text(document);
  }
  const std::string input = network.input ? network.input->describe() : "per layer";
  const std::string sizes = network.formats ? workload::describe(*network.formats)
                                            : precision + " (" + std::to_string(element_bytes) + " bytes/element)";
  std::string text =
      "model " + network.name + ": input " + input + ", " + sizes + ", batch " + std::to_string(options.batch);
  if (options.peak_tops) text += ", ideal device " + format_number(*options.peak_tops) + " Tops/s";
  if (network.input && network.input->kind == workload::ShapeKind::sequence) {
    text += "\nper token: " + util::group_digits(network.total_macs() / network.tokens_per_sample()) + " MACs";
    if (const std::int64_t kv = network.kv_cache_elements_per_token(); kv > 0) {
      text += ", " + util::group_digits(kv_cache_bytes_per_token) + " bytes of keys and values in the KV cache";
    }
  }
  text += "\n" + std::string(kConventions) + "\n\n";
  return text + table.to_text();
}

}  // namespace reusesim::report
