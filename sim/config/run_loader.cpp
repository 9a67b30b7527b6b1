#include "config/run_loader.h"

#include <algorithm>
#include <map>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "config/node_reader.h"
#include "workload/training.h"

namespace reusesim::config {

namespace {

// Sequence lengths and decode contexts, as run's --sequence and --context take them.
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 24;
// Every accelerator file x sweep combination x batch size is a job, a process of its own: a few
// sweep lines can ask for millions of them, which no trace finishes.
constexpr std::int64_t kMaxJobs = 10'000;
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

// Every sweep value must give a valid accelerator; report a bad one where the run file gives it.
void check_sweep(const RunSpec& run, const ConfigNode& sweep_node, util::Diagnostics& diagnostics) {
  for (const SweepAxis& axis : run.sweep) {
    const ConfigNode& values = *sweep_node.find(axis.key_path);
    for (std::size_t i = 0; i < axis.values.size(); ++i) {
      const std::string assignment = axis.key_path + "=" + axis.values[i];
      for (const std::string& file : run.accelerator_files) {
        try {
          load_accelerator_file(file, {assignment});
        } catch (const util::InputError& error) {
          for (const util::Diagnostic& problem : error.diagnostics()) {
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
  const std::int64_t jobs = times(times(files, combinations), batches);
  if (jobs <= kMaxJobs) return true;
  const auto count = [](std::int64_t n) { return n == kSaturated ? std::string("at least 10^9") : std::to_string(n); };
  diagnostics.error(where->location, where_path,
                    "the trace makes " + count(jobs) + " jobs (" + count(files) + " accelerator files x " +
                        count(combinations) + " sweep combinations x " + count(batches) +
                        " batch sizes and lengths); a trace runs at most " + std::to_string(kMaxJobs));
  return false;
}

RunSpec read_run(const ConfigNode& root, const std::string& origin, util::Diagnostics& diagnostics) {
  RunSpec run;
  MapReader reader(root, "", diagnostics);
  if (!reader.valid()) return run;
  run.name = reader.required_name("name").value_or("");
  run.accelerator_files = read_files(reader, "accelerators", origin);
  const ConfigNode* models = reader.required("models");
  const ConfigNode* sweep = reader.optional("sweep");
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
  if (!check_job_count(run, sweep != nullptr ? sweep : models, sweep != nullptr ? "sweep" : "models", diagnostics)) {
    return run;
  }
  const std::size_t errors_before_accelerators = diagnostics.size();
  std::vector<std::string> names;
  for (const std::string& file : run.accelerator_files) {
    try {
      names.push_back(load_accelerator_file(file).name);
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
