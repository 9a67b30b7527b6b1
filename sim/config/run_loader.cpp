#include "config/run_loader.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "config/node_reader.h"
#include "config/system_loader.h"
#include "util/strings.h"
#include "workload/training.h"

namespace reusesim::config {

namespace {

// Sequence lengths and decode contexts, as run's --sequence and --context take them.
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;
// Every accelerator file x sweep combination x batch size is a job, a process of its own: a few
// sweep lines can ask for millions of them, which no trace finishes.
constexpr std::int64_t kMaxJobs = 10'000;
// A plan's degrees, as a system file's plan takes them (config/system_loader.cpp).
constexpr std::int64_t kMaxChips = 4096;
// Job counts saturate here, so that the product of two cannot overflow.
constexpr std::int64_t kSaturated = 1'000'000'000;

// Problems inside a file the run names keep their own file:line:col.
void adopt(const util::InputError& error, util::Diagnostics& diagnostics) {
  for (const util::Diagnostic& diagnostic : error.diagnostics()) {
    diagnostics.error(diagnostic.location, diagnostic.key_path, diagnostic.message);
  }
}

std::vector<std::string> read_files(MapReader& reader, const std::string& key, const std::string& origin) {
  std::vector<std::string> files;
  const ConfigNode* node = reader.required(key);
  if (node == nullptr) return files;
  for (const std::string& file : read_string_list(*node, reader.child_path(key), reader.diagnostics())) {
    files.push_back(relative_to(origin, file));
  }
  return files;
}

void check_selection(const RunModel& model, const workload::Network& network, const ConfigNode& item,
                     const std::string& path, util::Diagnostics& diagnostics) {
  std::vector<std::string> names;
  for (const workload::NetworkLayer& layer : network.layers) names.push_back(layer.spec.name);
  for (const std::string& layer : model.layers) {
    if (std::find(names.begin(), names.end(), layer) == names.end()) {
      diagnostics.error(item.find("layers")->location, join_key_path(path, "layers"),
                        "model " + network.name + " has no layer \"" + layer + "\"" + util::did_you_mean(layer, names));
    }
  }
  if (workload::select_layers(network, model.layers, model.layer_types).empty()) {
    diagnostics.error(item.location, path, "the layers and layer_types given select no layer");
  }
}

// phase, sequence and context of a model entry: the lengths as lists, each of them once, and only
// the one the phase takes.
void read_phase(MapReader& reader, RunModel& model) {
  util::Diagnostics& diagnostics = reader.diagnostics();
  model.phase = reader.choice_or("phase", "", {"prefill", "decode"});
  const auto read_lengths = [&](const std::string& key) {
    std::vector<std::int64_t> lengths;
    const ConfigNode* node = reader.optional(key);
    if (node == nullptr) return lengths;
    const std::string path = reader.child_path(key);
    lengths = read_integer_list(*node, path, IntegerRange{1, kMaxTokens}, nullptr, diagnostics);
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      if (std::find(lengths.begin(), lengths.begin() + static_cast<std::ptrdiff_t>(i), lengths[i]) !=
          lengths.begin() + static_cast<std::ptrdiff_t>(i)) {
        diagnostics.error(node->location, path, std::to_string(lengths[i]) + " is given twice; give each length once");
      }
    }
    return lengths;
  };
  model.sequences = read_lengths("sequence");
  model.contexts = read_lengths("context");
  const bool decode = model.phase == "decode";
  if (decode && !reader.has("context")) {
    diagnostics.error(reader.location(), reader.path(), "phase decode needs context: the tokens already in the KV cache, "
                                                        "a length or a list of them");
  }
  if (decode && reader.has("sequence")) {
    diagnostics.error(reader.optional("sequence")->location, reader.child_path("sequence"),
                      "sequence applies to phase prefill (a decode step is one token per sample)");
  }
  if (!decode && reader.has("context")) {
    diagnostics.error(reader.optional("context")->location, reader.child_path("context"),
                      "context applies to phase: decode (a prefill's tokens are its sequence)");
  }
}

// Every phase the entry asks for must build: a sequence model within its max_sequence, attention
// with a KV cache to decode. Problems are reported where the entry gives the length.
void check_phases(const RunModel& model, const ConfigNode& item, const std::string& path, util::Diagnostics& diagnostics) {
  const bool decode = model.phase == "decode";
  const std::string key = decode ? "context" : model.sequences.empty() ? "phase" : "sequence";
  const ConfigNode* where = item.find(key);
  if (where == nullptr) return;  // the model's own input, already loaded
  for (const Phase& phase : model.phases()) {
    try {
      load_model_file(model.model_file, {}, phase);
    } catch (const util::InputError& error) {
      const std::string with = decode ? "with context " + std::to_string(phase.decode_context)
                               : phase.sequence > 0 ? "with sequence " + std::to_string(phase.sequence)
                                                    : "with phase " + model.phase;
      // The problems are the phase's (located at run's --sequence or --context, or the model's
      // input): the message, without a location that is not in the run file.
      for (const util::Diagnostic& problem : error.diagnostics()) {
        diagnostics.error(where->location, join_key_path(path, key), with + ": " + problem.message);
      }
    }
  }
}

RunModel read_run_model(const ConfigNode& item, const std::string& path, const std::string& origin,
                        util::Diagnostics& diagnostics) {
  RunModel model;
  MapReader reader(item, path, diagnostics);
  if (!reader.valid()) return model;
  if (auto file = reader.required_string("model")) model.model_file = relative_to(origin, *file);
  if (const ConfigNode* batch = reader.required("batch")) {
    model.batches = read_integer_list(*batch, reader.child_path("batch"), IntegerRange{1, kMaxBatch}, nullptr, diagnostics);
  }
  if (const ConfigNode* layers = reader.optional("layers")) {
    model.layers = read_string_list(*layers, reader.child_path("layers"), diagnostics);
  }
  if (const ConfigNode* types = reader.optional("layer_types")) {
    const std::string types_path = reader.child_path("layer_types");
    for (const std::string& type : read_string_list(*types, types_path, diagnostics)) {
      if (!util::from_name<workload::LayerType>(type)) {
        diagnostics.error(types->location, types_path,
                          "unknown layer type \"" + type + "\"" +
                              util::did_you_mean(type, util::names<workload::LayerType>()));
      }
      model.layer_types.push_back(type);
    }
  }
  read_phase(reader, model);
  const std::string mode = reader.choice_or("mode", "infer", util::names<workload::FootprintMode>());
  if (const ConfigNode* optimizers = reader.optional("optimizer")) {
    const std::string optimizer_path = reader.child_path("optimizer");
    if (mode != "train") diagnostics.error(optimizers->location, optimizer_path, "applies to mode: train only");
    for (const ConfigNode& value : optimizers->is_sequence() ? optimizers->items : std::vector<ConfigNode>{*optimizers}) {
      const std::optional<std::string> optimizer =
          read_choice(value, optimizer_path, util::names<workload::Optimizer>(), diagnostics);
      if (!optimizer) continue;
      if (std::find(model.optimizers.begin(), model.optimizers.end(), *optimizer) != model.optimizers.end()) {
        diagnostics.error(value.location, optimizer_path, "the optimizer " + *optimizer + " is given twice; give each once");
        continue;
      }
      model.optimizers.push_back(*optimizer);
    }
  } else if (mode == "train") {
    diagnostics.error(item.location, path, "mode: train needs optimizer: sgd, momentum or adam (or a list of them)");
  }
  if (mode == "train" && (!model.layers.empty() || !model.layer_types.empty())) {
    diagnostics.error(item.location, path, "layers and layer_types apply to mode: infer: a training step runs the whole network");
  }
  if (mode == "train" && model.phase == "decode") {
    diagnostics.error(item.location, path, "phase: decode applies to mode: infer (a training step runs whole sequences)");
  }
  reader.finish();
  if (model.model_file.empty()) return model;
  try {
    const LoadedModel loaded = load_model_file(model.model_file);
    check_selection(model, loaded.network, item, path, diagnostics);
    if (const std::string problem = workload::backward_problem(loaded.network); mode == "train" && !problem.empty()) {
      diagnostics.error(item.location, path, "mode: train: model " + loaded.network.name + ": " + problem);
    }
  } catch (const util::InputError& error) {
    adopt(error, diagnostics);
    return model;
  }
  check_phases(model, item, path, diagnostics);
  return model;
}

std::vector<SweepAxis> read_sweep(const ConfigNode& node, util::Diagnostics& diagnostics) {
  std::vector<SweepAxis> sweep;
  MapReader reader(node, "sweep", diagnostics);
  if (!reader.valid()) return sweep;
  for (const ConfigEntry& entry : node.entries) {
    reader.optional(entry.key);
    const std::string path = reader.child_path(entry.key);
    if (!entry.value.is_sequence() || entry.value.items.empty()) {
      diagnostics.error(entry.value.location, path, "expected a non-empty list of values, got " + entry.value.describe());
      continue;
    }
    SweepAxis axis{entry.key, {}};
    std::map<std::string, std::size_t> seen;  // value -> its first item
    for (std::size_t i = 0; i < entry.value.items.size(); ++i) {
      const ConfigNode& value = entry.value.items[i];
      if (!value.is_scalar()) {
        diagnostics.error(value.location, path, "expected plain values to sweep, got " + value.describe());
        continue;
      }
      // Each value makes a panel of the figure, named by it: two of one name would be one panel.
      const auto [first, added] = seen.emplace(value.scalar, i);
      if (!added) {
        diagnostics.error(value.location, path, "the value " + value.scalar + " is swept twice (first as item " +
                                                    std::to_string(first->second) + "); give each value once");
        continue;
      }
      axis.values.push_back(value.scalar);
    }
    sweep.push_back(axis);
  }
  return sweep;
}

// An accelerator or a system file (a list of accelerators takes both) with `assignments`; gives the
// name the tables know it by.
std::string load_machine_file(const std::string& file, const std::vector<std::string>& assignments) {
  return is_system_file(file) ? load_system_file(file, assignments).name
                              : load_accelerator_file(file, assignments).name;
}

// Every sweep value must give a valid accelerator; report a bad one where the run file gives it.
void check_sweep(const RunSpec& run, const ConfigNode& sweep_node, util::Diagnostics& diagnostics) {
  for (const SweepAxis& axis : run.sweep) {
    const ConfigNode& values = *sweep_node.find(axis.key_path);
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      const std::string assignment = axis.key_path + "=" + axis.values[i];
      for (const std::string& file : run.accelerator_files) {
        const bool system = is_system_file(file);
        try {
          load_machine_file(file, {assignment});
        } catch (const util::InputError& error) {
          for (const util::Diagnostic& problem : error.diagnostics()) {
            // A system's plan against a swept chip count is the plans' to give (check_systems).
            if (system && (problem.key_path == "plan" || problem.key_path.rfind("plan.", 0) == 0)) continue;
            diagnostics.error(values.items[i].location, join_key_path("sweep", axis.key_path),
                              "with " + assignment + " on " + file + ": " + util::format_diagnostic(problem));
          }
        }
      }
    }
  }
}

// The tables and the figure's panels tell accelerators apart by name: a second accelerator of a
// name already taken (the same file listed again, or another file's `name:`) is reported where the
// run file lists it. `names` are the files' accelerator names, one per item of `list`.
void check_distinct_names(const std::vector<std::string>& files, const std::vector<std::string>& names,
                          const ConfigNode& list, util::Diagnostics& diagnostics) {
  if (!list.is_sequence() || list.items.size() != names.size()) return;
  for (std::size_t second = 0; second < names.size(); ++second) {
    for (std::size_t first = 0; first < second; ++first) {
      if (names[first] != names[second]) continue;
      const std::string earlier = "accelerators." + std::to_string(first);
      diagnostics.error(list.items[second].location, "accelerators." + std::to_string(second),
                        files[first] == files[second]
                            ? files[second] + " is listed again (first as " + earlier + "); list each accelerator once"
                            : "accelerator \"" + names[second] + "\" (" + files[second] + ") has the name of " + earlier +
                                  " (" + files[first] + "); the tables and the figure tell accelerators apart by "
                                  "name: give each file its own name:");
      break;
    }
  }
}

// False (reported at `where`) when the run makes more than kMaxJobs jobs.
bool check_job_count(const RunSpec& run, const ConfigNode* where, const std::string& where_path,
                     util::Diagnostics& diagnostics) {
  const auto cap = [](std::size_t n) { return static_cast<std::int64_t>(std::min<std::size_t>(n, kSaturated)); };
  const auto times = [](std::int64_t a, std::int64_t b) { return std::min(a * b, kSaturated); };
  std::int64_t combinations = 1, batches = 0;
  for (const SweepAxis& axis : run.sweep) combinations = times(combinations, cap(axis.values.size()));
  for (const RunModel& model : run.models) {
    const std::int64_t runs = times(cap(model.phases().size()), cap(std::max<std::size_t>(1, model.optimizers.size())));
    batches = std::min(batches + times(cap(model.batches.size()), runs), kSaturated);
  }
  const std::int64_t files = cap(run.accelerator_files.size());
  const std::int64_t plans = cap(std::max<std::size_t>(1, run.plans.size()));
  const std::int64_t jobs = times(times(times(files, combinations), plans), batches);
  if (jobs <= kMaxJobs) return true;
  const auto count = [](std::int64_t n) { return n == kSaturated ? std::string("at least 10^9") : std::to_string(n); };
  // A trace without plans keeps the message it had before plans existed.
  const std::string plan_factor = run.plans.empty() ? "" : " x " + count(plans) + " plans";
  diagnostics.error(where->location, where_path,
                    "the trace makes " + count(jobs) + " jobs (" + count(files) + " accelerator files x " +
                        count(combinations) + " sweep combinations" + plan_factor + " x " + count(batches) +
                        " batch sizes and lengths); a trace runs at most " + std::to_string(kMaxJobs));
  return false;
}

// One degree of a plan: a count of chips, or `chips` (those the other degrees leave).
std::optional<PlanDegree> read_degree(MapReader& reader, const std::string& key) {
  const ConfigNode* node = reader.optional(key);
  if (node == nullptr) return std::nullopt;
  if (node->is_scalar() && node->scalar == "chips") return PlanDegree{1, true};
  const bool number = node->is_scalar() && !node->scalar.empty() &&
                      std::all_of(node->scalar.begin(), node->scalar.end(),
                                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  if (!number) {
    reader.diagnostics().error(node->location, reader.child_path(key),
                               "expected a count of chips from 1 to " + std::to_string(kMaxChips) +
                                   ", or chips (those the other degrees leave), got " + node->describe());
    return std::nullopt;
  }
  const std::optional<std::int64_t> count =
      read_integer(*node, reader.child_path(key), {1, kMaxChips}, nullptr, reader.diagnostics());
  if (!count) return std::nullopt;
  return PlanDegree{*count, false};
}

// plans: a non-empty list of {tensor, pipeline, data, micro_batches}, each degree a count or
// `chips`, at least one of them given, each plan once.
std::vector<RunPlan> read_plans(const ConfigNode& node, util::Diagnostics& diagnostics) {
  std::vector<RunPlan> plans;
  if (!node.is_sequence() || node.items.empty()) {
    diagnostics.error(
        node.location, "plans",
        "expected a non-empty list of plans, e.g. [{tensor: chips}, {data: chips}], got " + node.describe());
    return plans;
  }
  for (std::size_t i = 0; i < node.items.size(); ++i) {
    const std::string path = "plans." + std::to_string(i);
    const std::size_t errors_before = diagnostics.size();
    MapReader reader(node.items[i], path, diagnostics);
    if (!reader.valid()) continue;
    RunPlan plan;
    std::vector<std::string> given;
    const auto text = [](const PlanDegree& degree) {
      return degree.rest_of_chips ? std::string("chips") : std::to_string(degree.count);
    };
    int rest_degrees = 0;
    for (auto [key, degree] :
         {std::pair{"tensor", &plan.tensor}, std::pair{"pipeline", &plan.pipeline}, std::pair{"data", &plan.data}}) {
      if (const std::optional<PlanDegree> read = read_degree(reader, key)) {
        *degree = *read;
        rest_degrees += read->rest_of_chips ? 1 : 0;
        given.push_back(std::string(key) + "=" + text(*read));
      }
    }
    if (const auto micro_batches = reader.optional_integer("micro_batches", {1, kMaxBatch})) {
      plan.micro_batches = *micro_batches;
      given.push_back("micro_batches=" + std::to_string(*micro_batches));
    }
    reader.finish();
    if (rest_degrees > 1) {
      diagnostics.error(node.items[i].location, path,
                        "one degree at most is chips (the chips the others leave); give the others as counts");
      continue;
    }
    if (given.empty() && diagnostics.size() == errors_before) {
      diagnostics.error(node.items[i].location, path,
                        "a plan gives at least one of tensor, pipeline and data (a count of chips, or chips: those "
                        "the others leave)");
      continue;
    }
    plan.label = util::join(given, ",");
    for (std::size_t first = 0; first < plans.size(); ++first) {
      if (plans[first].label != plan.label) continue;
      diagnostics.error(node.items[i].location, path,
                        "the plan " + plan.label + " is given twice (first as plans." + std::to_string(first) +
                            "); give each plan once");
      break;
    }
    plans.push_back(plan);
  }
  return plans;
}

// Every system variant (a system file with one value of every sweep axis) with every plan must be
// a system a job can run: the plan over all its chips (the system loader's checks, reported where
// the run file gives the plan), each batch shared by its replicas and micro-batches, and only what
// a system of several chips runs (inference of whole models). `list` is the accelerators' list.
void check_systems(const RunSpec& run, const ConfigNode& root, util::Diagnostics& diagnostics) {
  const ConfigNode* list = root.find("accelerators");
  const ConfigNode* plans_node = root.find("plans");
  std::vector<std::vector<std::string>> points;  // every sweep combination, as assignments
  for (const auto& combination : sweep_points(run.sweep)) {
    points.emplace_back();
    for (const auto& [key, value] : combination) points.back().push_back(key + "=" + value);
  }
  for (std::size_t f = 0; f < run.accelerator_files.size(); ++f) {
    const std::string& file = run.accelerator_files[f];
    const std::string file_path = "accelerators." + std::to_string(f);
    // `accelerators` is a list, or one file given alone.
    const util::SourceLocation& file_location = list->is_sequence() ? list->items[f].location : list->location;
    if (!is_system_file(file)) {
      if (!run.plans.empty()) {
        diagnostics.error(file_location, file_path,
                          file +
                              " is an accelerator, but plans apply to systems (docs/systems.md): list system "
                              "files only, or trace the accelerator without plans");
      }
      continue;
    }
    for (const std::vector<std::string>& point : points) {
      const std::string with = point.empty() ? "" : " with " + util::join(point, ", ");
      const std::size_t plan_count = std::max<std::size_t>(1, run.plans.size());
      for (std::size_t p = 0; p < plan_count; ++p) {
        const RunPlan* plan = run.plans.empty() ? nullptr : &run.plans[p];
        const util::SourceLocation& where = plan != nullptr ? plans_node->items[p].location : file_location;
        const std::string where_path = plan != nullptr ? "plans." + std::to_string(p) : file_path;
        const std::string what = file + with + (plan != nullptr ? ", plan " + plan->label : "");
        spec::SystemSpec system;
        try {
          system = load_system_file(file, point);
          std::vector<std::string> assignments = point;
          if (plan != nullptr && !plan->divides(system.chips)) {
            diagnostics.error(where, where_path,
                              "on " + what + ": " + std::to_string(system.chips) +
                                  " chips are not a multiple of the plan's other degrees (" +
                                  std::to_string(plan->fixed_chips()) + "), so chips does not give a whole degree");
            continue;
          }
          if (plan != nullptr) {
            for (const std::string& assignment : plan->assignments(system.chips)) assignments.push_back(assignment);
            system = load_system_file(file, assignments);
          }
        } catch (const util::InputError& error) {
          for (const util::Diagnostic& problem : error.diagnostics()) {
            diagnostics.error(where, where_path, "on " + what + ": " + util::format_diagnostic(problem));
          }
          continue;
        }
        if (system.chips == 1) continue;  // a system of one chip runs as its chip does, plan or not
        if (!system.plan) {
          diagnostics.error(where, where_path,
                            "on " + what + ": a system of " + std::to_string(system.chips) +
                                " chips runs a model by a plan: give the file a plan: or the run file plans:");
          continue;
        }
        const std::int64_t shares = system.plan->data * system.plan->micro_batches;
        for (std::size_t m = 0; m < run.models.size(); ++m) {
          const RunModel& model = run.models[m];
          const std::string model_path = "models." + std::to_string(m);
          const ConfigNode& item = root.find("models")->items[m];
          if (!model.optimizers.empty() || !model.layers.empty() || !model.layer_types.empty()) {
            diagnostics.error(item.location, model_path,
                              "on " + what +
                                  ": a system of several chips runs inference of the whole model so far "
                                  "(no mode: train, layers or layer_types)");
          }
          for (const std::int64_t batch : model.batches) {
            if (batch % shares == 0) continue;
            diagnostics.error(item.find("batch")->location, join_key_path(model_path, "batch"),
                              "on " + what + ": batch " + std::to_string(batch) +
                                  " is not shared evenly by data x micro_batches = " + std::to_string(shares) +
                                  " (each replica runs batch / data, in micro_batches equal parts)");
          }
        }
      }
    }
  }
}

RunSpec read_run(const ConfigNode& root, const std::string& origin, util::Diagnostics& diagnostics) {
  RunSpec run;
  MapReader reader(root, "", diagnostics);
  if (!reader.valid()) return run;
  run.name = reader.required_name("name").value_or("");
  run.accelerator_files = read_files(reader, "accelerators", origin);
  const ConfigNode* models = reader.required("models");
  const ConfigNode* sweep = reader.optional("sweep");
  const ConfigNode* plans = reader.optional("plans");
  run.fidelity = reader.enum_or("fidelity", spec::Fidelity::exact);
  reader.finish();
  if (models != nullptr && (!models->is_sequence() || models->items.empty())) {
    diagnostics.error(models->location, "models", "expected a non-empty list of models, got " + models->describe());
  } else if (models != nullptr) {
    for (std::size_t i = 0; i < models->items.size(); ++i) {
      run.models.push_back(read_run_model(models->items[i], "models." + std::to_string(i), origin, diagnostics));
    }
  }
  if (sweep != nullptr) run.sweep = read_sweep(*sweep, diagnostics);
  if (plans != nullptr) run.plans = read_plans(*plans, diagnostics);
  if (!check_job_count(run, sweep != nullptr ? sweep : models, sweep != nullptr ? "sweep" : "models", diagnostics)) {
    return run;
  }
  const std::size_t errors_before_accelerators = diagnostics.size();
  std::vector<std::string> names;
  for (const std::string& file : run.accelerator_files) {
    try {
      names.push_back(load_machine_file(file, {}));
    } catch (const util::InputError& error) {
      adopt(error, diagnostics);
    }
  }
  const ConfigNode* accelerators = root.find("accelerators");
  if (accelerators != nullptr && diagnostics.size() == errors_before_accelerators) {
    check_distinct_names(run.accelerator_files, names, *accelerators, diagnostics);
  }
  // Sweep values are only judged on accelerators that are valid without them.
  if (sweep != nullptr && diagnostics.size() == errors_before_accelerators) check_sweep(run, *sweep, diagnostics);
  // Systems with their plans, once the files, sweep values, plans and models are valid on their own.
  if (diagnostics.empty()) check_systems(run, root, diagnostics);
  return run;
}

RunSpec load_run(const DocumentSource& source, const std::vector<std::string>& overrides) {
  util::Diagnostics diagnostics;
  const ConfigNode root = load_document(source, FileKind::run, overrides, diagnostics);
  RunSpec run = read_run(root, source.origin, diagnostics);
  diagnostics.throw_if_any();
  return run;
}

}  // namespace

std::vector<std::vector<std::pair<std::string, std::string>>> sweep_points(const std::vector<SweepAxis>& sweep) {
  std::vector<std::vector<std::pair<std::string, std::string>>> points{{}};
  for (const SweepAxis& axis : sweep) {
    std::vector<std::vector<std::pair<std::string, std::string>>> extended;
    for (const auto& point : points) {
      for (const std::string& value : axis.values) {
        extended.push_back(point);
        extended.back().emplace_back(axis.key_path, value);
      }
    }
    points = std::move(extended);
  }
  return points;
}

std::int64_t RunPlan::fixed_chips() const {
  std::int64_t product = 1;  // each degree at most kMaxChips: no overflow
  for (const PlanDegree* degree : {&tensor, &pipeline, &data}) product *= degree->rest_of_chips ? 1 : degree->count;
  return product;
}

bool RunPlan::divides(std::int64_t chips) const {
  const bool any_rest = tensor.rest_of_chips || pipeline.rest_of_chips || data.rest_of_chips;
  return !any_rest || chips % fixed_chips() == 0;
}

std::vector<std::string> RunPlan::assignments(std::int64_t chips) const {
  const auto degree = [&](const PlanDegree& given) {
    return std::to_string(given.rest_of_chips ? chips / fixed_chips() : given.count);
  };
  return {"plan.tensor=" + degree(tensor), "plan.pipeline=" + degree(pipeline), "plan.data=" + degree(data),
          "plan.micro_batches=" + std::to_string(micro_batches)};
}

std::vector<Phase> RunModel::phases() const {
  std::vector<Phase> phases;
  for (std::int64_t sequence : sequences) phases.push_back({sequence, 0});
  for (std::int64_t context : contexts) phases.push_back({0, context});
  if (phases.empty()) phases.push_back({});
  return phases;
}

RunSpec load_run_file(const std::string& path, const std::vector<std::string>& overrides) {
  return load_run({path, std::nullopt}, overrides);
}

RunSpec load_run_text(const std::string& text, const std::string& origin, const std::vector<std::string>& overrides) {
  return load_run({origin, text}, overrides);
}

}  // namespace reusesim::config
