#include "trace/trace_plan.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "config/accelerator_loader.h"
#include "config/config_node.h"
#include "config/model_loader.h"
#include "config/run_loader.h"
#include "config/system_loader.h"
#include "timing/array_timing.h"
#include "timing/noc_links.h"
#include "util/strings.h"
#include "workload/training.h"

namespace reusesim::trace {

namespace {

std::string absolute(const std::string& path) { return std::filesystem::absolute(path).lexically_normal().string(); }

// File names keep letters, digits and ".+=_-"; anything else becomes "_".
std::string file_safe(const std::string& text) {
  std::string safe;
  for (char c : text) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string(".+=_-").find(c) != std::string::npos;
    safe += keep ? c : '_';
  }
  return safe;
}

// A panel of an accelerator, or of a system (with the run file's `plan`, if any: nullptr runs the
// system file's own).
TracePanel make_panel(const std::string& accelerator_file, std::vector<std::pair<std::string, std::string>> sweep,
                      const config::RunPlan* plan) {
  std::vector<std::string> assignments;
  for (const auto& [key, value] : sweep) assignments.push_back(key + "=" + value);
  TracePanel panel;
  spec::AcceleratorSpec spec;
  if (config::is_system_file(accelerator_file)) {
    spec::SystemSpec system = config::load_system_file(accelerator_file, assignments);
    if (plan != nullptr) {
      panel.plan = plan->label;
      panel.plan_assignments = plan->assignments(system.chips);
      std::vector<std::string> planned = assignments;
      planned.insert(planned.end(), panel.plan_assignments.begin(), panel.plan_assignments.end());
      system = config::load_system_file(accelerator_file, planned);
    }
    spec = system.chip;
    panel.accelerator = system.name;
    panel.chips = system.chips;
  } else {
    spec = config::load_accelerator_file(accelerator_file, assignments);
    panel.accelerator = spec.name;
  }
  std::vector<std::string> title{panel.accelerator};
  title.insert(title.end(), assignments.begin(), assignments.end());
  if (!panel.plan.empty()) title.push_back("plan " + panel.plan);
  panel.title = util::join(title, ", ");
  panel.accelerator_file = absolute(accelerator_file);
  panel.sweep = std::move(sweep);
  panel.peak_gops = spec.peak_ops_per_second() / 1e9;
  panel.dram_gbps = spec.dram.peak_bytes_per_second() / 1e9;
  // Every core's buffers feed its own arrays: the chip's SRAM roof is a core's times the cores.
  if (const auto sram = timing::sram_bound_ops_per_second(spec))
    panel.sram_gops = *sram * static_cast<double>(spec.cores) / 1e9;
  if (spec.noc) {
    const double noc_gbps =
        timing::noc_read_bytes_per_second(*spec.noc, spec.cores, spec.dram.scheduled_channels()) / 1e9;
    if (noc_gbps < panel.dram_gbps) panel.noc_gbps = noc_gbps;
  }
  panel.operand_bits = spec.compute.operand_bits;
  return panel;
}

}  // namespace

std::string content_hash(const std::string& bytes) {
  // FNV-1a, 64 bits: offset basis 14695981039346656037, prime 1099511628211.
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

TracePlan plan_trace_file(const std::string& run_file, const std::vector<std::string>& overrides) {
  // The hashes are of the very text the plan was made from, not of a second read.
  const config::InputFileLog log;
  TracePlan plan = plan_trace(config::load_run_file(run_file, overrides), run_file);
  for (const auto& [path, text] : log.files()) plan.inputs.emplace(absolute(path), content_hash(text));
  return plan;
}

std::vector<std::string> changed_inputs(const TracePlan& started, const TracePlan& now) {
  std::vector<std::string> changes;
  for (const auto& [file, hash] : started.inputs) {
    const auto found = now.inputs.find(file);
    if (found == now.inputs.end()) {
      changes.push_back(file + ": read when the trace started, no longer read");
    } else if (found->second != hash) {
      changes.push_back(file + ": changed since the trace started");
    }
  }
  for (const auto& [file, hash] : now.inputs) {
    if (started.inputs.count(file) == 0) changes.push_back(file + ": read now, not when the trace started");
  }
  return changes;
}

std::int64_t job_time_limit_seconds(std::size_t layers, std::int64_t macs_per_sample, std::int64_t batch) {
  const double macs = static_cast<double>(macs_per_sample) * static_cast<double>(batch);
  const double seconds = std::ceil(60 + 2 * static_cast<double>(layers) + 100 * macs / 1e9);
  // Far beyond any run the step limits allow (docs/traces-and-figure.md); keeps the count in range.
  constexpr double kMaxSeconds = 1e7;
  return static_cast<std::int64_t>(std::min(seconds, kMaxSeconds));
}

std::string TraceJob::selection() const {
  std::vector<std::string> parts;
  if (!layers.empty()) parts.push_back("layers " + util::join(layers, "+"));
  if (!layer_types.empty()) parts.push_back("types " + util::join(layer_types, "+"));
  if (training()) parts.push_back("train " + optimizer);
  return parts.empty() ? "all" : util::join(parts, ", ");
}

std::string TraceJob::workload() const {
  std::string text = model;
  if (!phase.empty()) text += " " + phase;
  if (lengths.sequence > 0) text += " S=" + std::to_string(lengths.sequence);
  if (lengths.decode_context > 0) text += " L=" + std::to_string(lengths.decode_context);
  if (training()) text += " train " + optimizer;
  return text;
}

bool TracePlan::any_training() const {
  return std::any_of(jobs.begin(), jobs.end(), [](const TraceJob& job) { return job.training(); });
}

bool TracePlan::any_system() const {
  return std::any_of(panels.begin(), panels.end(), [](const TracePanel& panel) { return panel.system(); });
}

bool TracePlan::any_plan() const {
  return std::any_of(panels.begin(), panels.end(), [](const TracePanel& panel) { return !panel.plan.empty(); });
}

TracePlan plan_trace(const config::RunSpec& run, const std::string& run_file) {
  TracePlan plan;
  plan.name = run.name;
  plan.fidelity = run.fidelity;
  plan.run_file = absolute(run_file);
  for (const config::SweepAxis& axis : run.sweep) plan.sweep_keys.push_back(axis.key_path);
  // Every model entry's jobs but for the batch, sized by the network its phase builds.
  struct Variant {
    TraceJob job;
    std::int64_t macs_per_sample = 0;
  };
  std::vector<std::vector<Variant>> entry_jobs;
  for (const config::RunModel& model : run.models) {
    entry_jobs.emplace_back();
    for (const config::Phase& lengths : model.phases()) {
      const workload::Network network = config::load_model_file(model.model_file, {}, lengths).network;
      const std::vector<std::size_t> selected = workload::select_layers(network, model.layers, model.layer_types);
      std::int64_t macs = 0;  // the loader refuses counts past 2^63 per layer; a saturated sum is just as generous
      double steps = 0;       // a product of three loader-bounded counts: in double, it cannot overflow
      for (std::size_t i : selected) {
        const workload::NetworkLayer& layer = network.layers[i];
        macs = layer.counts.macs > INT64_MAX - macs ? INT64_MAX : macs + layer.counts.macs;
        if (!workload::is_recurrent(layer.spec.type) || layer.input_shapes.empty()) continue;
        steps += static_cast<double>(layer.input_shapes[0].steps) * static_cast<double>(layer.spec.recurrent.num_layers) *
                 (layer.spec.recurrent.bidirectional ? 2 : 1);
      }
      const bool training = !model.optimizers.empty();
      if (training) macs = workload::training_step_macs(network, 1, 1);
      TraceJob job;
      job.model = network.name;
      job.model_file = absolute(model.model_file);
      job.layers = model.layers;
      job.layer_types = model.layer_types;
      job.phase = model.phase;
      job.lengths = lengths;
      // A training step runs up to four programs a layer (forward, dgrad, wgrad, update).
      job.layer_count = selected.size() * (training ? 4 : 1);
      job.recurrent_steps = steps;
      if (network.kv_cache_elements_per_token() > 0) job.tokens_per_sample = network.tokens_per_sample();
      entry_jobs.back().push_back({std::move(job), macs});
    }
  }
  for (const std::string& file : run.accelerator_files) {
    for (const auto& point : config::sweep_points(run.sweep)) {
      for (std::size_t p = 0; p < std::max<std::size_t>(1, run.plans.size()); ++p) {
        plan.panels.push_back(make_panel(file, point, run.plans.empty() ? nullptr : &run.plans[p]));
        const std::size_t panel = plan.panels.size() - 1;
        for (std::size_t m = 0; m < run.models.size(); ++m) {
          const std::vector<std::string> optimizers =
              run.models[m].optimizers.empty() ? std::vector<std::string>{""} : run.models[m].optimizers;
          for (const Variant& variant : entry_jobs[m]) {
            for (const std::string& optimizer : optimizers) {
              for (std::int64_t batch : run.models[m].batches) {
                TraceJob job = variant.job;
                job.panel = panel;
                job.batch = batch;
                job.optimizer = optimizer;
                job.time_limit_seconds = job_time_limit_seconds(job.layer_count, variant.macs_per_sample, batch);
                job.macs = variant.macs_per_sample > INT64_MAX / batch ? INT64_MAX : variant.macs_per_sample * batch;
                std::vector<std::string> words{plan.panels[panel].accelerator};
                for (const auto& [key, value] : plan.panels[panel].sweep) words.push_back(key + "=" + value);
                if (!plan.panels[panel].plan.empty()) words.push_back(plan.panels[panel].plan);
                words.push_back(job.model);
                if (!job.layers.empty()) words.push_back(util::join(job.layers, "+"));
                if (!job.layer_types.empty()) words.push_back(util::join(job.layer_types, "+"));
                if (!job.phase.empty()) words.push_back(job.phase);
                if (job.lengths.sequence > 0) words.push_back("S" + std::to_string(job.lengths.sequence));
                if (job.lengths.decode_context > 0) words.push_back("L" + std::to_string(job.lengths.decode_context));
                if (job.training()) words.push_back("train-" + optimizer);
                words.push_back("b" + std::to_string(batch));
                char number[16];
                std::snprintf(number, sizeof number, "%04zu", plan.jobs.size() + 1);
                job.id = std::string(number) + "-" + file_safe(util::join(words, "-")).substr(0, 96);
                plan.jobs.push_back(std::move(job));
              }
            }
          }
        }
      }
    }
  }
  return plan;
}

std::vector<std::string> run_arguments(const TracePlan& plan, const TraceJob& job, const std::string& out_dir,
                                       bool timeline) {
  const TracePanel& panel = plan.panels[job.panel];
  std::vector<std::string> arguments{"run", "--arch", panel.accelerator_file, "--model", job.model_file,
                                     "--batch", std::to_string(job.batch), "--format", "csv", "--out", out_dir};
  for (const auto& [key, value] : panel.sweep) arguments.insert(arguments.end(), {"--set", key + "=" + value});
  for (const std::string& assignment : panel.plan_assignments) arguments.insert(arguments.end(), {"--set", assignment});
  if (!job.layers.empty()) arguments.insert(arguments.end(), {"--layers", util::join(job.layers, ",")});
  if (!job.layer_types.empty()) arguments.insert(arguments.end(), {"--layer-types", util::join(job.layer_types, ",")});
  if (!job.phase.empty()) arguments.insert(arguments.end(), {"--phase", job.phase});
  if (job.lengths.sequence > 0) arguments.insert(arguments.end(), {"--sequence", std::to_string(job.lengths.sequence)});
  if (job.lengths.decode_context > 0) {
    arguments.insert(arguments.end(), {"--context", std::to_string(job.lengths.decode_context)});
  }
  if (job.training()) arguments.insert(arguments.end(), {"--mode", "train", "--optimizer", job.optimizer});
  if (timeline) arguments.insert(arguments.end(), {"--timeline", out_dir + "/timeline.json"});
  if (plan.fidelity != spec::Fidelity::exact)
    arguments.insert(arguments.end(), {"--fidelity", util::name(plan.fidelity)});
  return arguments;
}

std::string plan_json(const TracePlan& plan) {
  nlohmann::ordered_json document;
  document["trace"] = plan.name;
  document["run_file"] = plan.run_file;
  document["sweep_keys"] = plan.sweep_keys;
  // Only a fast trace says so: an exact trace's plan stays as it was written before fidelities.
  if (plan.fidelity != spec::Fidelity::exact) document["fidelity"] = util::name(plan.fidelity);
  document["inputs"] = plan.inputs;
  document["panels"] = nlohmann::ordered_json::array();
  for (const TracePanel& panel : plan.panels) {
    nlohmann::ordered_json sweep = nlohmann::ordered_json::array();
    for (const auto& [key, value] : panel.sweep) sweep.push_back({key, value});
    // JSON has no infinity: null stands for an unlimited ideal memory's bandwidth.
    const nlohmann::ordered_json dram_gbps =
        std::isfinite(panel.dram_gbps) ? nlohmann::ordered_json(panel.dram_gbps) : nullptr;
    document["panels"].push_back({{"title", panel.title}, {"accelerator", panel.accelerator},
                                  {"accelerator_file", panel.accelerator_file}, {"sweep", sweep},
                                  {"peak_gops", panel.peak_gops}, {"dram_gbps", dram_gbps},
                                  {"sram_gops", panel.sram_gops ? nlohmann::ordered_json(*panel.sram_gops) : nullptr}});
    // Only where the NoC binds: the plans of every other chip stay as they were written before it.
    if (panel.noc_gbps) document["panels"].back()["noc_gbps"] = *panel.noc_gbps;
    // Only on a system's panel: an accelerator's is as it was written before systems were traced.
    if (panel.system()) {
      document["panels"].back()["chips"] = panel.chips;
      document["panels"].back()["plan"] = panel.plan;
      document["panels"].back()["plan_assignments"] = panel.plan_assignments;
    }
  }
  document["jobs"] = nlohmann::ordered_json::array();
  for (const TraceJob& job : plan.jobs) {
    nlohmann::ordered_json item{{"id", job.id}, {"panel", job.panel}, {"model", job.model},
                                {"model_file", job.model_file}, {"layers", job.layers},
                                {"layer_types", job.layer_types}, {"phase", job.phase},
                                {"sequence", job.lengths.sequence}, {"context", job.lengths.decode_context},
                                {"batch", job.batch}};
    if (job.training()) item["optimizer"] = job.optimizer;  // inference plans stay as they were
    if (plan.panels[job.panel].system()) item["tokens_per_sample"] = job.tokens_per_sample;
    document["jobs"].push_back(item);
  }
  return document.dump(2) + "\n";
}

TracePlan read_plan_json(const std::string& text, const std::string& origin) {
  try {
    const nlohmann::json document = nlohmann::json::parse(text);
    TracePlan plan;
    plan.name = document.at("trace").get<std::string>();
    plan.run_file = document.at("run_file").get<std::string>();
    plan.sweep_keys = document.at("sweep_keys").get<std::vector<std::string>>();
    const std::string fidelity = document.value("fidelity", util::name(spec::Fidelity::exact));
    if (!util::from_name<spec::Fidelity>(fidelity))
      throw std::out_of_range("fidelity \"" + fidelity + "\" is not exact or fast");
    plan.fidelity = *util::from_name<spec::Fidelity>(fidelity);
    // Results written before inputs were recorded have none; figure reads them all the same.
    plan.inputs = document.value("inputs", std::map<std::string, std::string>{});
    for (const nlohmann::json& item : document.at("panels")) {
      TracePanel panel;
      panel.title = item.at("title").get<std::string>();
      panel.accelerator = item.at("accelerator").get<std::string>();
      panel.accelerator_file = item.at("accelerator_file").get<std::string>();
      for (const nlohmann::json& pair : item.at("sweep")) {
        panel.sweep.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
      }
      panel.peak_gops = item.at("peak_gops").get<double>();
      const nlohmann::json& dram_gbps = item.at("dram_gbps");
      panel.dram_gbps = dram_gbps.is_null() ? std::numeric_limits<double>::infinity() : dram_gbps.get<double>();
      if (!item.at("sram_gops").is_null()) panel.sram_gops = item.at("sram_gops").get<double>();
      if (item.contains("noc_gbps")) panel.noc_gbps = item.at("noc_gbps").get<double>();
      panel.chips = item.value("chips", std::int64_t{0});
      panel.plan = item.value("plan", std::string());
      panel.plan_assignments = item.value("plan_assignments", std::vector<std::string>{});
      plan.panels.push_back(std::move(panel));
    }
    for (const nlohmann::json& item : document.at("jobs")) {
      TraceJob job;
      job.id = item.at("id").get<std::string>();
      job.panel = item.at("panel").get<std::size_t>();
      if (job.panel >= plan.panels.size()) throw std::out_of_range("job " + job.id + " names a panel that is not there");
      job.model = item.at("model").get<std::string>();
      job.model_file = item.at("model_file").get<std::string>();
      job.layers = item.at("layers").get<std::vector<std::string>>();
      job.layer_types = item.at("layer_types").get<std::vector<std::string>>();
      // Plans written before phases were traced have none: the model's own input.
      job.phase = item.value("phase", std::string());
      job.lengths = {item.value("sequence", std::int64_t{0}), item.value("context", std::int64_t{0})};
      job.optimizer = item.value("optimizer", "");
      job.batch = item.at("batch").get<std::int64_t>();
      job.tokens_per_sample = item.value("tokens_per_sample", std::int64_t{0});
      plan.jobs.push_back(std::move(job));
    }
    return plan;
  } catch (const std::exception& error) {
    throw std::runtime_error(origin + " is not a ReuseSim trace plan (" + error.what() + ")");
  }
}

}  // namespace reusesim::trace
