#include "simulate/capacity.h"

#include <cstdio>

#include "util/checked_math.h"
#include "util/strings.h"
#include "workload/footprint.h"

namespace reusesim::simulate {

namespace {

// "13.56 GiB (14,556,069,888 bytes)"; a count under 1 KiB is exact as it is ("12 B").
std::string exact_bytes(std::int64_t bytes) {
  return short_bytes(bytes) + (bytes < 1024 ? "" : " (" + util::group_digits(bytes) + " bytes)");
}

// "(decode, context 2,048)", "(prefill, sequence 512)", or nothing for a network without a KV cache.
std::string phase_of(const workload::Network& network) {
  for (const workload::NetworkLayer& layer : network.layers) {
    if (layer.cached_steps > 0) return " (decode, context " + util::group_digits(layer.cached_steps) + ")";
  }
  if (network.kv_cache_elements_per_token() > 0) {
    return " (prefill, sequence " + util::group_digits(network.tokens_per_sample()) + ")";
  }
  return "";
}

}  // namespace

std::int64_t DramNeed::total_bytes() const {
  std::int64_t total = 0;
  for (const DramPart& part : parts) total = util::checked_add(total, part.bytes);
  return total;
}

DramNeed dram_need(const workload::Network& network, std::int64_t batch, std::int64_t element_bytes,
                   const workload::TrainingOptions* training) {
  workload::FootprintOptions options;
  options.batch = batch;
  options.widths = network.run_widths(element_bytes);
  if (training != nullptr) {
    options.mode = workload::FootprintMode::train;
    options.optimizer = training->optimizer;
    options.checkpoint_segments = training->checkpoint_segments;
    options.mixed_precision = training->mixed_precision;
  }
  const workload::Footprint footprint = workload::compute_footprint(network, options);
  DramNeed need;
  need.parts.push_back({"weights", footprint.weight_bytes});
  if (training != nullptr) {
    need.parts.push_back({"gradients", footprint.gradient_bytes});
    need.parts.push_back({"optimizer state", footprint.optimizer_bytes});
  }
  if (footprint.kv_cache_bytes > 0) need.parts.push_back({"KV cache", footprint.kv_cache_bytes});
  // What peak_bytes holds beyond the state held throughout: the most activations (and, training,
  // activation gradients) live at once.
  const std::int64_t state = util::checked_add(util::checked_add(footprint.weight_bytes, footprint.gradient_bytes),
                                               util::checked_add(footprint.optimizer_bytes, footprint.kv_cache_bytes));
  need.parts.push_back(
      {training != nullptr ? "activations and their gradients" : "activations", footprint.peak_bytes - state});
  return need;
}

std::string capacity_problem(const workload::Network& network, std::int64_t batch, const DramNeed& need,
                             const spec::DramSpec& dram) {
  const std::optional<std::int64_t> capacity = dram.capacity_bytes();
  const std::int64_t total = need.total_bytes();
  if (!capacity || total <= *capacity) return "";
  std::string parts;
  for (const DramPart& part : need.parts) {
    parts += (parts.empty() ? "" : ", ") + part.name + " " + short_bytes(part.bytes);
  }
  const std::string holds =
      dram.given_capacity_bytes ? "dram.capacity_gib" : "channels x ranks x banks x rows x row_bytes";
  return "model " + network.name + " at batch " + util::group_digits(batch) + phase_of(network) + " needs " +
         exact_bytes(total) + " of DRAM: " + parts + "; its DRAM (" + holds + ") holds " + exact_bytes(*capacity) +
         ", short by " + exact_bytes(total - *capacity) +
         "; lower the batch size (or the context or sequence length), store the weights narrower (the "
         "model's precision block), or give the memory more room (dram.capacity_gib)";
}

std::string short_bytes(std::int64_t bytes) {
  const double value = static_cast<double>(bytes);
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  } else if (bytes * 10 < 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", value / 1024);
  } else if (bytes < spec::kBytesPerGib) {
    std::snprintf(text, sizeof text, "%.2f MiB", value / (1024 * 1024));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB", value / static_cast<double>(spec::kBytesPerGib));
  }
  return text;
}

}  // namespace reusesim::simulate
