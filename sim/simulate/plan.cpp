#include "simulate/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <stdexcept>
#include <utility>

#include "mapping/core_split.h"
#include "mapping/program_builder.h"
#include "mapping/training_mapper.h"
#include "simulate/capacity.h"
#include "simulate/invariants.h"
#include "util/checked_math.h"

namespace reusesim::simulate {

namespace {

std::string where(const std::string& origin, std::int64_t batch) {
  return " (accelerator " + origin + ", batch " + std::to_string(batch) + ")";
}

// A variable of the environment as a positive number (an integer with `integer`), or `fallback`
// when it is not set.
double positive_from_environment(const char* variable, double fallback, bool integer) {
  const char* text = std::getenv(variable);
  if (text == nullptr) return fallback;
  const std::string value = text;
  double number = 0;
  std::size_t used = 0;
  try {
    number = integer ? static_cast<double>(std::stoll(value, &used)) : std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !(number > 0) || !std::isfinite(number)) {
    throw mapping::MappingError(std::string(variable) + ": expected a positive " + (integer ? "integer" : "number") +
                                ", got \"" + value + "\"");
  }
  return number;
}

}  // namespace

void check_capacity(const spec::AcceleratorSpec& spec, const workload::Network& network,
                    const std::vector<std::int64_t>& batches, const workload::TrainingOptions* training,
                    const std::string& origin) {
  const std::int64_t batch = *std::max_element(batches.begin(), batches.end());
  const std::string problem =
      capacity_problem(network, batch, dram_need(network, batch, spec.element_bytes(), training), spec.dram);
  if (!problem.empty()) throw mapping::MappingError(problem + where(origin, batch));
}

namespace {

// A batch's runs on a chip of several cores (one per selected layer), their layers' plans, and the
// chip's estimate of them (mapping::chip_estimate, added up).
struct ChipRuns {
  std::vector<program::LayerRun> runs;
  std::vector<mapping::LayerPlan> plans;
  mapping::ChipEstimate estimate;
};

void add_estimate(ChipRuns& chip, const spec::AcceleratorSpec& spec) {
  const program::LayerRun& run = chip.runs.back();
  std::vector<const program::LayerProgram*> programs{&run.program};
  for (const program::LayerProgram& core : run.other_cores) programs.push_back(&core);
  chip.estimate.add(mapping::chip_estimate(programs, spec));
}

// Data parallel: each core maps the network at its samples (at most two counts differ by one),
// with `map_at(samples, batch)`.
template <typename MapAt>
ChipRuns samples_runs(const spec::AcceleratorSpec& spec, const workload::Network& network, std::int64_t batch,
                      const std::vector<std::size_t>& selected, const MapAt& map_at) {
  const std::vector<std::int64_t> shares = mapping::core_batches(batch, spec.cores);
  std::map<std::int64_t, mapping::NetworkMapping> by_share;
  std::vector<const mapping::NetworkMapping*> mappings;
  for (std::int64_t share : shares) {
    if (share > 0 && by_share.count(share) == 0) {
      mappings.push_back(&by_share.emplace(share, map_at(share, batch)).first->second);
    }
  }
  const std::int64_t e = spec.element_bytes();
  const std::uint64_t region_bytes = mapping::core_region_bytes(mappings);
  std::map<std::int64_t, std::vector<mapping::DramLayout>> layouts;
  for (const auto& [share, mapped] : by_share) layouts.emplace(share, mapping::layout_network(network, share, e));
  const std::vector<mapping::DramLayout>& shared = layouts.at(shares.front());  // core 0's: the chip's weights
  std::string split;
  std::vector<std::string> parts;
  std::int64_t first_sample = 0;
  for (std::int64_t share : shares) {
    split += (split.empty() ? "" : " + ") + std::to_string(share);
    parts.push_back(mapping::part_text("samples", first_sample, share, batch));
    first_sample += share;
  }
  mapping::NetworkMapping& first = by_share.at(shares.front());
  ChipRuns chip;
  for (std::size_t i : selected) {
    // The other cores copy their share's program before core 0 takes its own.
    std::vector<program::LayerProgram> others;
    for (std::size_t c = 1; c < shares.size(); ++c) {
      program::LayerProgram core;
      if (shares[c] > 0) {
        core = by_share.at(shares[c]).programs[i];
        mapping::place_on_core(core, layouts.at(shares[c])[i], shared[i], c * region_bytes);
      }
      core.part = parts[c];
      others.push_back(std::move(core));
    }
    program::LayerRun run{batch, std::move(first.programs[i]), i == selected.front(), std::move(others), shares};
    run.program.part = parts.front();
    run.program.mapping += "; data parallel over " + std::to_string(spec.cores) + " cores: " + split + " samples";
    chip.runs.push_back(std::move(run));
    chip.plans.push_back(first.plans[i]);
    add_estimate(chip, spec);
  }
  return chip;
}

// Every layer split over the cores (mapping::map_network_split), checked against the analysis
// with every core's program together (a disagreement is a bug).
ChipRuns layer_runs(const spec::AcceleratorSpec& spec, const workload::Network& network, std::int64_t batch,
                    const std::vector<std::size_t>& selected) {
  mapping::SplitNetworkMapping split = mapping::map_network_split(network, batch, spec);
  mapping::NetworkMapping chip_totals;  // each layer's programs added up, for the vector-op check
  chip_totals.plans = split.plans;
  ChipRuns chip;
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    std::vector<program::LayerProgram>& cores = split.programs[i];
    std::vector<std::int64_t> samples;
    for (const program::LayerProgram& core : cores) samples.push_back(core.part == "none" ? 0 : batch);
    program::LayerProgram first = std::move(cores.front());
    cores.erase(cores.begin());
    program::LayerRun run{batch, std::move(first), false, std::move(cores), std::move(samples)};
    program::LayerProgram every_step = run.program;
    for (const program::LayerProgram& core : run.other_cores) mapping::append_steps(every_step, core, false);
    const std::string problem = analysis_problem(network.layers[i], every_step, split.plans[i], batch,
                                                 network.run_widths(spec.element_bytes()));
    if (!problem.empty()) throw std::logic_error(problem);
    chip_totals.programs.push_back(program::chip_totals(run));
    if (std::find(selected.begin(), selected.end(), i) == selected.end()) continue;
    run.starts_batch = i == selected.front();
    const std::string& part = run.program.part;
    if (part == "whole") {
      run.program.mapping += "; on core 0 alone";
    } else if (part.find(' ') != std::string::npos) {
      run.program.mapping +=
          "; split over " + std::to_string(spec.cores) + " cores by " + part.substr(0, part.find(' '));
    }
    chip.runs.push_back(std::move(run));
    chip.plans.push_back(split.plans[i]);
    add_estimate(chip, spec);
  }
  if (const std::string problem = mapping::vector_ops_problem(network, batch, chip_totals); !problem.empty()) {
    throw std::logic_error("model " + network.name + " (batch " + std::to_string(batch) + "): " + problem);
  }
  return chip;
}

// Appends a layer's program to the plan, refusing a run past one of its limits.
class RunBuilder {
 public:
  RunBuilder(RunPlan& plan, const spec::AcceleratorSpec& spec, const RunLimits& limits)
      : plan_(plan), spec_(spec), limits_(limits) {}
  void add(std::int64_t batch, program::LayerProgram program, bool starts_batch, const std::string& where) {
    add(program::LayerRun{batch, std::move(program), starts_batch, {}, {}}, where);
  }
  // A run of every core's program of a layer: the chip's steps, bytes and MACs count.
  void add(program::LayerRun run, const std::string& where) {
    plan_.runs.push_back(std::move(run));
    const program::LayerRun& added = plan_.runs.back();
    const program::LayerProgram chip = program::chip_totals(added);
    steps_ += program::run_steps(added);
    if (steps_ > limits_.max_steps) {
      throw mapping::MappingError("the run needs more than " + std::to_string(limits_.max_steps) +
                                  " data-movement steps (the limit of one run; reached at layer " + chip.layer +
                                  "); run fewer batch sizes or layers at once "
                                  "(reusesim trace runs each batch size as a job of its own)" +
                                  where);
    }
    const std::int64_t bytes = chip.dram_read_bytes + chip.dram_write_bytes;
    dram_bytes_ = util::checked_add(dram_bytes_, bytes);
    seconds_ += roofline_seconds(chip.macs, bytes);
    check(dram_bytes_, seconds_, "by layer " + chip.layer, where);
  }

  // Before a batch is mapped: what its `layers` cannot do without, every GEMM's weights and every
  // KV cache read once at the roofline, so that a run far past a limit is refused before its
  // programs take memory (Llama-2-7B's decode at batch 20,000 took 12 GB to map).
  void check_before_mapping(const workload::Network& network, const std::vector<std::size_t>& layers,
                            std::int64_t batch, const std::string& where) {
    const std::int64_t e = spec_.element_bytes();
    std::int64_t bytes = dram_bytes_;
    double seconds = seconds_;
    for (std::size_t i : layers) {
      const workload::NetworkLayer& layer = network.layers[i];
      if (layer.counts.macs == 0) continue;  // a vector layer's parameters may be folded into its producer's
      const std::int64_t needed =
          util::checked_add(workload::compulsory_traffic(layer, batch, network.run_widths(e)).weight,
                            util::checked_product({layer.cached_elements(), batch, network.kv_cache_element_bytes(e)}));
      bytes = util::checked_add(bytes, needed);
      seconds += roofline_seconds(util::checked_mul(layer.counts.macs, batch), needed);
    }
    check(bytes, seconds, "with the weights and KV caches of batch " + std::to_string(batch) + " alone", where);
  }

 private:
  // What a layer of `macs` that moves `bytes` takes at least (an unlimited ideal memory has no DRAM bound).
  double roofline_seconds(std::int64_t macs, std::int64_t bytes) const {
    return std::max(2.0 * static_cast<double>(macs) / spec_.peak_ops_per_second(),
                    static_cast<double>(bytes) / spec_.dram.peak_bytes_per_second());
  }

  // Refuses a run whose DRAM bytes or roofline time (`reached`: at which point) pass their limits.
  void check(std::int64_t bytes, double seconds, const std::string& reached, const std::string& where) const {
    if (bytes > limits_.max_dram_bytes) {
      throw mapping::MappingError(
          "the run moves more than " + std::to_string(limits_.max_dram_bytes) +
          " bytes through the DRAM model (the limit of one run, minutes of simulation): " + std::to_string(bytes) +
          " " + reached +
          "; lower the batch size (or the context or sequence length), run fewer batch sizes or "
          "layers at once, or raise the limit with REUSESIM_MAX_DRAM_BYTES=<bytes>" +
          where);
    }
    if (seconds > limits_.max_simulated_seconds) {
      throw mapping::MappingError(
          "the run simulates more than " + significant_digits(limits_.max_simulated_seconds) +
          " s of the accelerator's time (the limit of one run, minutes of simulation): its roofline bound is " +
          significant_digits(seconds) + " s " + reached +
          "; lower the batch size, run fewer batch sizes or "
          "layers at once, or raise the limit with REUSESIM_MAX_SIMULATED_SECONDS=<seconds>" +
          where);
    }
  }

 private:
  RunPlan& plan_;
  const spec::AcceleratorSpec& spec_;
  RunLimits limits_;
  std::size_t steps_ = 0;
  std::int64_t dram_bytes_ = 0;
  double seconds_ = 0;
};

}  // namespace

RunLimits run_limits() {
  RunLimits limits;
  limits.max_dram_bytes = static_cast<std::int64_t>(
      positive_from_environment("REUSESIM_MAX_DRAM_BYTES", static_cast<double>(limits.max_dram_bytes), true));
  limits.max_simulated_seconds =
      positive_from_environment("REUSESIM_MAX_SIMULATED_SECONDS", limits.max_simulated_seconds, false);
  return limits;
}

RunPlan plan_inference(const spec::AcceleratorSpec& spec, const workload::Network& network,
                       const std::vector<std::int64_t>& batches, const std::vector<std::size_t>& selected,
                       const std::string& origin, const RunLimits& limits) {
  check_capacity(spec, network, batches, nullptr, origin);
  RunPlan plan;
  RunBuilder builder(plan, spec, limits);
  const std::int64_t e = spec.element_bytes();
  // The network mapped at `samples`, checked against the analysis (a disagreement is a bug).
  const auto map_at = [&](std::int64_t samples, std::int64_t batch) {
    mapping::NetworkMapping mapped;
    try {
      mapped = mapping::map_network(network, samples, spec);
    } catch (const mapping::MappingError& error) {
      throw mapping::MappingError(std::string(error.what()) + where(origin, batch));
    }
    if (const std::string problem = mapping::vector_ops_problem(network, samples, mapped); !problem.empty()) {
      throw std::logic_error("model " + network.name + " (batch " + std::to_string(samples) + "): " + problem);
    }
    for (std::size_t i : selected) {
      const std::string problem =
          analysis_problem(network.layers[i], mapped.programs[i], mapped.plans[i], samples, network.run_widths(e));
      if (!problem.empty()) throw std::logic_error(problem);
    }
    return mapped;
  };
  for (std::int64_t batch : batches) {
    builder.check_before_mapping(network, selected, batch, where(origin, batch));
    if (spec.cores == 1) {
      mapping::NetworkMapping mapped = map_at(batch, batch);
      for (std::size_t i : selected) {
        plan.layers.push_back(i);
        plan.plans.push_back(mapped.plans[i]);
        builder.add(batch, std::move(mapped.programs[i]), i == selected.front(), where(origin, batch));
      }
      continue;
    }
    // A chip of several cores: data parallel, every layer split over the cores, or the one of the
    // two the mapper estimates faster (mapping::fastest_on_chip; data parallel first).
    std::optional<ChipRuns> samples, layers;
    if (spec.core_partition != spec::CorePartition::layers)
      samples = samples_runs(spec, network, batch, selected, map_at);
    if (spec.core_partition != spec::CorePartition::samples) {
      try {
        layers = layer_runs(spec, network, batch, selected);
      } catch (const mapping::MappingError& error) {
        throw mapping::MappingError(std::string(error.what()) + where(origin, batch));
      }
    }
    const bool split = !samples || (layers && mapping::fastest_on_chip({samples->estimate, layers->estimate}) == 1);
    ChipRuns chosen = std::move(split ? *layers : *samples);
    if (samples && layers) {
      chosen.runs.front().program.mapping += " (chosen by the network's estimate: data parallel " +
                                             std::to_string(samples->estimate.cycles) + " cycles, layers split " +
                                             std::to_string(layers->estimate.cycles) + ")";
    }
    for (std::size_t r = 0; r < chosen.runs.size(); ++r) {
      plan.layers.push_back(selected[r]);
      plan.plans.push_back(chosen.plans[r]);
      builder.add(std::move(chosen.runs[r]), where(origin, batch));
    }
  }
  return plan;
}

RunPlan plan_training(const spec::AcceleratorSpec& spec, const workload::Network& network,
                      const std::vector<std::int64_t>& batches, const workload::TrainingOptions& training,
                      const std::string& origin, const RunLimits& limits) {
  if (spec.cores > 1) {
    throw mapping::MappingError("a training step is mapped on one core: a chip of " + std::to_string(spec.cores) +
                                " cores (cores.count) runs inference only" + where(origin, batches.front()));
  }
  check_capacity(spec, network, batches, &training, origin);
  RunPlan plan;
  RunBuilder builder(plan, spec, limits);
  std::vector<std::size_t> every_layer(network.layers.size());
  for (std::size_t i = 0; i < every_layer.size(); ++i) every_layer[i] = i;
  for (std::int64_t batch : batches) {
    builder.check_before_mapping(network, every_layer, batch, where(origin, batch));
    std::vector<mapping::TrainingProgram> step;
    try {
      step = mapping::map_training_step(network, batch, spec, training);
    } catch (const mapping::MappingError& error) {
      throw mapping::MappingError(std::string(error.what()) + where(origin, batch));
    }
    const std::string problem =
        training_step_problem(network, step, batch, training.checkpoint_segments, spec.element_bytes());
    if (!problem.empty()) throw std::logic_error(problem);
    const std::vector<std::int64_t> live =
        mapping::training_live_bytes(network, batch, spec.element_bytes(), training, step);
    plan.peak_memory_bytes.push_back(*std::max_element(live.begin(), live.end()));
    plan.phases.clear();
    for (mapping::TrainingProgram& program : step) {
      plan.phases.push_back(mapping::phase_name(program.phase));
      builder.add(batch, std::move(program.program), plan.phases.size() == 1, where(origin, batch));
    }
  }
  return plan;
}

}  // namespace reusesim::simulate
