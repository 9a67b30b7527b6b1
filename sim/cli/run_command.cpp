#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/accelerator_writer.h"
#include "config/model_loader.h"
#include "config/system_loader.h"
#include "mapping/mapper.h"
#include "parallel/tensor_parallel.h"
#include "program/program_text.h"
#include "report/run_report.h"
#include "report/system_report.h"
#include "report/timeline_report.h"
#include "simulate/block_reuse.h"
#include "simulate/plan.h"
#include "simulate/replay.h"
#include "simulate/system_plan.h"
#include "util/diagnostics.h"
#include "util/output_files.h"
#include "util/strings.h"
#include "workload/block_reuse.h"
#include "workload/training.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

std::vector<std::int64_t> parse_batches(const std::string& list) {
  std::vector<std::int64_t> batches;
  std::stringstream stream(list);
  std::string item;
  while (std::getline(stream, item, ',')) {
    std::int64_t value = 0;
    std::size_t used = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 1 || value > config::kMaxBatch) {
      throw UsageError("--batch: expected positive integers up to " + std::to_string(config::kMaxBatch) +
                       " separated by commas, got \"" + list + "\"");
    }
    batches.push_back(value);
  }
  if (batches.empty()) throw UsageError("--batch: expected at least one batch size");
  return batches;
}

// With --reuse-blocks (docs/performance.md, "Block reuse"): the model with each repeated block cut
// to the copies simulated, and its network at the run's phase.
struct ReducedRun {
  workload::ReducedModel reduced;
  workload::Network network;
};

ReducedRun reduce_blocks(const config::LoadedModel& model, const config::Phase& lengths) {
  workload::ReducedModel reduced = workload::reduce_repeated_blocks(model.spec);
  if (reduced.reused.empty()) {
    std::cerr << "reusesim run: note: --reuse-blocks: model " << model.network.name << " repeats no block more than "
              << workload::kSimulatedCopies << " times in a row that later layers read only at its end; every layer is "
              << "simulated\n";
  }
  workload::NetworkBuild build = workload::build_network(reduced.model, lengths.decode_context);
  if (!build.network)
    throw std::logic_error("model " + model.network.name + " cut to two copies of its blocks does not build");
  return ReducedRun{std::move(reduced), std::move(*build.network)};
}

// What --reuse-blocks does not go with, as a UsageError.
void check_reuse_options(bool training, bool some_layers, bool dump_program, bool timeline) {
  if (training)
    throw UsageError(
        "--reuse-blocks applies to --mode infer: a training step's backward pass runs the copies in reverse");
  if (some_layers) throw UsageError("--reuse-blocks runs the whole model: drop --layers and --layer-types");
  if (dump_program) throw UsageError("--dump-program writes the programs of every layer: drop --reuse-blocks");
  if (timeline)
    throw UsageError("--timeline draws what was simulated, not the copies --reuse-blocks repeats: drop one");
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

// --layers and --layer-types: the positions of the layers to run, or a UsageError naming what is wrong.
std::vector<std::size_t> selected_layers(const workload::Network& network, const std::string& layer_list,
                                         const std::string& type_list) {
  std::vector<std::string> names;
  for (const workload::NetworkLayer& layer : network.layers) names.push_back(layer.spec.name);
  const std::vector<std::string> wanted_names = split_list(layer_list);
  const std::vector<std::string> wanted_types = split_list(type_list);
  for (const std::string& name : wanted_names) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw UsageError("--layers: model " + network.name + " has no layer \"" + name + "\"" +
                       util::did_you_mean(name, names));
    }
  }
  for (const std::string& type : wanted_types) {
    if (!util::from_name<workload::LayerType>(type)) {
      throw UsageError("--layer-types: unknown layer type \"" + type + "\"" +
                       util::did_you_mean(type, util::names<workload::LayerType>()));
    }
  }
  std::vector<std::size_t> selected = workload::select_layers(network, wanted_names, wanted_types);
  if (selected.empty()) throw UsageError("--layers and --layer-types select no layer of model " + network.name);
  return selected;
}

// The mapper and the replay move activations at the accelerator's operand width or at a narrower
// format the array multiplies natively, the KV cache at its own format and a conv2d's or linear
// layer's weights at theirs, packed, with their scales (dequantized on the vector unit to the
// activations' format unless they are at it): a precision block that asks for more (activations
// wider than the operands, or narrower in a format the array does not list, or of a fraction of a
// byte; weights wider than the activations; quantized weights or narrow activations on a recurrent
// layer or in a training step; a KV cache of a fraction of a byte) is refused, not run at the
// wrong sizes.
void check_run_formats(const spec::AcceleratorSpec& spec, const workload::Network& network, bool training,
                       bool dump_program, const std::string& model_file) {
  // A training step's gradients and optimizer state of sparse weights are not modelled.
  if (training && network.has_sparse_weights()) {
    throw UsageError("model " + model_file +
                     " has N:M sparse layers (sparsity); run takes them in inference only, so far "
                     "(docs/model-format.md, \"Structured sparsity\")");
  }
  if (!network.formats) return;
  const workload::TensorFormats& formats = *network.formats;
  const std::int64_t bits = spec.element_bytes() * 8;
  const std::int64_t activation_bits = workload::format_bits(formats.activations);
  const std::string activations =
      "activations at " + util::name(formats.activations) + " (" + std::to_string(activation_bits) + " bits)";
  const bool narrow = activation_bits < bits;
  const std::int64_t weight_bits = workload::format_bits(formats.weights);
  const bool own_weights = weight_bits != bits || workload::takes_weight_scales(formats.weights);
  const auto recurrent = std::find_if(network.layers.begin(), network.layers.end(),
                                      [](const auto& layer) { return workload::is_recurrent(layer.spec.type); });
  std::vector<std::string> problems;
  if (activation_bits > bits) {
    problems.push_back(activations + ", wider than the operands");
  } else if (narrow && activation_bits % 8 != 0) {
    problems.push_back(activations + ", a fraction of a byte per element");
  } else if (narrow && spec.compute.native_formats.count(util::name(formats.activations)) == 0) {
    std::vector<std::string> listed;
    for (const auto& entry : spec.compute.native_formats) listed.push_back(entry.first);
    problems.push_back(activations + ", a format the array does not multiply (compute.native_formats lists " +
                       (listed.empty() ? std::string("none") : util::join(listed, ", ")) + ")");
  } else if (narrow && training) {
    problems.push_back(activations + " in a training step");
  } else if (narrow && recurrent != network.layers.end()) {
    problems.push_back(activations + " on recurrent layer " + recurrent->spec.name);
  } else if (narrow && dump_program) {
    problems.push_back(activations +
                       " in a dumped program (replay sizes elements by compute.operand_bits: run "
                       "with --set compute.operand_bits=" +
                       std::to_string(activation_bits) + " to dump it)");
  }
  const std::string weights = "weights at " + util::name(formats.weights);
  const std::string weight_width = " (" + std::to_string(weight_bits) + " bits)";
  if (weight_bits > activation_bits && activation_bits <= bits) {
    problems.push_back(weights + weight_width + ", wider than the activations");
  } else if (narrow && weight_bits == activation_bits && formats.weights != formats.activations) {
    problems.push_back(weights + weight_width + ", another format than the activations at their width");
  } else if (own_weights && training) {
    problems.push_back(weights + " in a training step");
  } else if (own_weights && recurrent != network.layers.end()) {
    problems.push_back(weights + " on recurrent layer " + recurrent->spec.name);
  }
  if (workload::format_bits(formats.kv_cache) % 8 != 0) {
    problems.push_back("a KV cache at " + util::name(formats.kv_cache) + " (a fraction of a byte per element)");
  }
  if (problems.empty()) return;
  throw UsageError("model " + model_file + ": its precision block (" + workload::describe(formats) + ") needs " +
                   util::join(problems, ", ") + "; run moves activations at the accelerator's " + std::to_string(bits) +
                   "-bit operands (compute.operand_bits " + std::to_string(spec.compute.operand_bits) +
                   ") or at a narrower whole-byte format compute.native_formats lists, the KV cache at its format and "
                   "conv2d and linear weights at theirs when no wider than the activations, so far; analyze and "
                   "footprint size every tensor by its format (docs/model-format.md, \"Precision per tensor\")");
}

// A training step's report before the replay: the element size must be one footprint sizes
// tensors at, so that the step's peak memory can be checked against footprint's.
report::RunReport training_report(const spec::AcceleratorSpec& spec, const workload::Network& network,
                                  const workload::TrainingOptions& training, const std::string& arch_file) {
  if (const std::string problem = workload::backward_problem(network); !problem.empty()) {
    throw UsageError("--mode train: model " + network.name + ": " + problem);
  }
  const std::int64_t e = spec.element_bytes();
  if (e != 1 && e != 2 && e != 4) {
    throw UsageError("--mode train: accelerator " + arch_file + " has " + std::to_string(spec.compute.operand_bits) +
                     "-bit operands, " + std::to_string(e) + "-byte elements; a training step sizes its tensors as "
                     "footprint does, at 1, 2 or 4 bytes (operand_bits up to 8, 16 or 32)");
  }
  check_training(training, network, e);
  return report::RunReport{spec.name, network.name, spec, {}, training, {}, {}};
}

// What a run report says besides its rows: the replay's fidelity, the KV cache's width when the
// model's precision block puts it at another than the operands', and (`tokens`) a transformer's
// tokens a sample (a model whose attention caches keys and values: its energy per token).
void describe_run(report::RunReport& report, const workload::Network& network, spec::Fidelity fidelity, bool tokens) {
  report.fidelity = fidelity;
  const std::int64_t kv_cache_element_bytes = network.kv_cache_element_bytes(report.spec.element_bytes());
  if (kv_cache_element_bytes != report.spec.element_bytes()) report.kv_cache_element_bytes = kv_cache_element_bytes;
  if (tokens && network.kv_cache_elements_per_token() > 0) report.tokens_per_sample = network.tokens_per_sample();
}

// --out's files of one chip's run: its tables, the accelerator as `given` (before the run narrows
// its operands to the model's activations), and the legend after `legend_before`.
std::vector<std::pair<std::string, std::string>> chip_run_files(const report::RunReport& report,
                                                                const spec::AcceleratorSpec& given,
                                                                const std::string& legend_before) {
  const spec::AcceleratorSpec& spec = report.spec;
  std::vector<std::pair<std::string, std::string>> files{
      {"results.csv", report::render_run(report, report::Format::csv)},
      {"results.json", report::render_run(report, report::Format::json)},
      {"dram_channels.csv", report::render_dram_channels(report)},
      {"config.json", config::accelerator_json(given)},
      {"stats.txt",
       legend_before + report::run_stats_legend(report.training.has_value(), report.fidelity, spec.cores > 1,
                                                spec.shared_memory.has_value(), spec.noc.has_value(),
                                                report::skipped_zeros(report), report::has_token_columns(report))}};
  if (spec.cores > 1) files.emplace_back("cores.csv", report::render_cores(report));
  if (spec.noc) files.emplace_back("noc_links.csv", report::render_noc_links(report));
  return files;
}

// --out's directory, checked before the simulation: what it could not be written to fails now.
void check_out_directory(const std::string& out_dir) {
  if (out_dir.empty()) return;
  if (const std::string problem = util::foreign_directory_problem(out_dir); !problem.empty()) {
    throw FileError("--out: " + problem);
  }
}

// --timeline's file, checked before the simulation: what it could not be written to fails now.
void check_timeline_file(const std::string& timeline_file) {
  if (timeline_file.empty()) return;
  try {
    util::check_output_file(timeline_file);
  } catch (const std::runtime_error& error) {
    throw FileError(std::string("--timeline: ") + error.what());
  }
}

// Writes the rendered timeline after the simulation (which nothing may throw after: GCC's ASan
// takes a throw then for a stack overflow): "" or the problem.
std::string timeline_file_problem(const std::string& timeline_file, const std::string& rendered) {
  std::string problem = util::output_file_problem(timeline_file, rendered);
  return problem.empty() ? problem : "--timeline: " + problem;
}

// What a run of a system does not take yet, as a UsageError.
void check_system_options(const spec::SystemSpec& system, const std::string& system_file, bool training,
                          bool some_layers, bool dump_program, bool reuse_blocks) {
  const std::string chips = "a system of " + std::to_string(system.chips) + " chips (" + system_file + ")";
  if (training) throw UsageError("--mode train: " + chips + " runs inference so far");
  if (some_layers) throw UsageError("--layers and --layer-types: " + chips + " runs the whole model");
  if (dump_program) throw UsageError("--dump-program writes one accelerator's programs, not " + chips + "'s");
  if (!system.plan) {
    throw UsageError(system_file + ": a system of " + std::to_string(system.chips) +
                     " chips runs a model by its plan: add e.g. plan: {tensor: " + std::to_string(system.chips) +
                     "} or give --set plan.tensor=" + std::to_string(system.chips) + " (or plan.pipeline)");
  }
  if (reuse_blocks && system.plan->pipeline > 1) {
    throw UsageError("--reuse-blocks: " + chips + " has plan.pipeline " + std::to_string(system.plan->pipeline) +
                     ": a pipeline's stages are simulated whole so far");
  }
}

// The run of a system of several chips (its chip as the run takes it; `given_chip` as the file
// gave it): the system table (and chip 0's layers as text) on standard output, and with --out its
// files, with --timeline its trace.
int run_system(const spec::SystemSpec& system, const spec::AcceleratorSpec& given_chip,
               const config::LoadedModel& model, const config::Phase& lengths, const std::vector<std::int64_t>& batches,
               spec::Fidelity fidelity, report::Format format, const std::string& system_file,
               const std::string& out_dir, const std::string& timeline_file, bool every_chip,
               const std::optional<ReducedRun>& reduced) {
  simulate::SystemRunPlan plan;
  try {
    // A model cut to two copies of its blocks is planned; the whole model must fit.
    if (reduced) {
      simulate::check_system_plan(system, model.spec, model.network, lengths.decode_context, batches, system_file);
    }
    plan = simulate::plan_system_inference(system, reduced ? reduced->reduced.model : model.spec,
                                           reduced ? reduced->network : model.network, lengths.decode_context, batches,
                                           system_file, every_chip);
  } catch (const parallel::PlanError& error) {
    throw UsageError(system_file + ": " + error.what());
  }
  check_out_directory(out_dir);
  check_timeline_file(timeline_file);
  std::optional<results::TimelineRecorder> timeline;
  if (!timeline_file.empty()) timeline.emplace();
  const std::vector<workload::ReusedBlock> reused =
      reduced ? reduced->reduced.reused : std::vector<workload::ReusedBlock>{};
  const simulate::SystemReplay replay = simulate::replay_system(system, std::move(plan.program), fidelity,
                                                                timeline ? &*timeline : nullptr, reused);
  if (replay.out_of_memory) return report_bad_input("run", replay.problem);
  if (!replay.problem.empty()) return report_internal_error("run", replay.problem);
  warn_of_energy_curves("run", system.chip);
  // Chip 0's layers: the first stage's, a table block for each batch, its micro-batches' rows in turn.
  const workload::Network& chip_network = plan.stages.front().network;
  report::RunReport chip_report{system.chip.name, chip_network.name, system.chip, {}, std::nullopt, {}, {}};
  describe_run(chip_report, chip_network, fidelity, true);
  chip_report.reused_blocks = reused;
  const std::vector<results::LayerResult>& results = replay.chip_results.front();
  const auto layers = static_cast<std::ptrdiff_t>(results.size() / batches.size());
  for (auto row = results.begin(); row != results.end(); row += layers)
    chip_report.batches.emplace_back(row, row + layers);
  const std::int64_t tokens = model.network.kv_cache_elements_per_token() > 0 ? model.network.tokens_per_sample() : 0;
  report::SystemReport system_report{
      system.name, model.network.name, system.chips,       *system.plan, plan.twins, batches,
      tokens,      replay.batches,     replay.collectives, replay.links};
  std::cout << report::render_system(system_report, format);
  if (format == report::Format::table) std::cout << "\nchip 0's layers\n" << report::render_run(chip_report, format);
  std::string problem;
  if (!out_dir.empty()) {
    std::vector<std::pair<std::string, std::string>> files{
        {"system.csv", report::system_table(system_report).to_csv()},
        {"collectives.csv", report::collective_table(system_report).to_csv()},
        {"chip_links.csv", report::chip_link_table(system_report).to_csv()}};
    for (auto& file : chip_run_files(chip_report, given_chip, report::system_stats_legend()))
      files.push_back(std::move(file));
    problem = util::output_files_problem(out_dir, files);
    if (!problem.empty()) problem = "--out: " + problem;
  }
  if (problem.empty() && timeline) {
    const report::SystemTimeline tracks{system.name, system.chips, batches};
    problem = timeline_file_problem(timeline_file, report::render_timeline(chip_report, *timeline, &tracks));
  }
  return problem.empty() ? kExitOk : report_bad_input("run", problem);
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  return run_guarded("run", [&] {
    CommonOptions common;
    bool every_chip = false;
    bool reuse_blocks = false;
    std::string arch_file, model_file, batch_list, layer_list, type_list, out_dir, dump_file, timeline_file,
        fidelity_name;
    PhaseOptions phase;
    ModeOptions mode;
    po::options_description options("reusesim run options");
    options.add_options()("arch", po::value(&arch_file)->required(),
                          "accelerator file, or system file of chips (YAML; docs/systems.md)")(
        "model", po::value(&model_file)->required(), "model file (YAML)")(
        "batch", po::value(&batch_list)->default_value("1"), "batch sizes, e.g. 1,16,256")(
        "layers", po::value(&layer_list), "run only these layers, e.g. fc6,fc7 (default: all)")(
        "layer-types", po::value(&type_list), "run only layers of these types, e.g. linear,gru (default: all)")(
        "out", po::value(&out_dir),
        "also write results.csv, results.json, dram_channels.csv, config.json and stats.txt (and cores.csv on a chip "
        "of "
        "several cores) here: a new or empty directory, or "
        "one an earlier --out wrote (its files are replaced; files of others there are never touched)")(
        "dump-program", po::value(&dump_file),
        "also write the data-movement programs of every batch and layer to this file "
        "(docs/program-format.md; replay it with reusesim replay). A regular file is replaced whole; a device, "
        "FIFO or symlink is written through")(
        "timeline", po::value(&timeline_file),
        "also write the replay as a Chrome/Perfetto trace to this file: layers, each core's compute array and DMA "
        "engines, DRAM channels; with a system file chip 0's, each chip's segments and each link between chips "
        "(docs/timeline.md); written like --dump-program")(
        "every-chip", po::bool_switch(&every_chip),
        "with a system file: replay every chip, also those the plan gives the same layers as chip 0 (which are "
        "otherwise replayed once, when the result is the same)")(
        "reuse-blocks", po::bool_switch(&reuse_blocks),
        "simulate the first two copies of each block the model repeats (its decoder layers) and give the later "
        "copies the second's figures (docs/performance.md, \"Block reuse\")");
    add_phase_options(options, phase);
    add_mode_options(options, mode);
    add_fidelity_option(options, fidelity_name);
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("run", args, options, {}, values)) return kExitOk;
    const std::vector<std::int64_t> batches = parse_batches(batch_list);
    const spec::Fidelity fidelity = parse_fidelity(fidelity_name);
    const std::optional<workload::TrainingOptions> training = training_options(mode);
    if (training && (!layer_list.empty() || !type_list.empty())) {
      throw UsageError("--layers and --layer-types apply to --mode infer: a training step runs the whole network");
    }
    if (training && !dump_file.empty()) {
      throw UsageError("--dump-program applies to --mode infer: the program format has no training phases, and a "
                       "replay would take a step's second program of a layer for a new batch");
    }
    if (training && phase.phase != "prefill") {
      throw UsageError("--mode train runs the model's whole input: expected --phase prefill, got --phase " + phase.phase);
    }
    if (reuse_blocks)
      check_reuse_options(training.has_value(), !layer_list.empty() || !type_list.empty(), !dump_file.empty(),
                          !timeline_file.empty());
    const report::Format format = parse_format(common.format);
    // --set model.<path> changes the model; any other path the accelerator.
    const config::SplitOverrides overrides = config::split_overrides(common.overrides, "model.");
    const std::vector<std::string>& arch_overrides = overrides.rest;
    const std::vector<std::string>& model_overrides = overrides.under_prefix;
    std::optional<spec::SystemSpec> system;
    if (config::is_system_file(arch_file)) system = config::load_system_file(arch_file, arch_overrides);
    if (every_chip && !system) throw UsageError("--every-chip applies to a system file; " + arch_file + " is not one");
    const spec::AcceleratorSpec loaded_spec =
        system ? system->chip : config::load_accelerator_file(arch_file, arch_overrides, {"model"});
    if (system && system->chips > 1) {
      check_system_options(*system, arch_file, training.has_value(), !layer_list.empty() || !type_list.empty(),
                           !dump_file.empty(), reuse_blocks);
    }
    // Program files describe one core (docs/accelerator-format.md, "Cores").
    if (loaded_spec.cores > 1 && !dump_file.empty()) {
      throw UsageError("--dump-program writes one core's programs: a chip of " + std::to_string(loaded_spec.cores) +
                       " cores (cores.count) cannot be dumped yet");
    }
    // The fast mode's flow model is calibrated on one core's streams; measured on several cores'
    // (AlexNet on 4 and 16 cores of small) it departs by 12 % and 64 % (docs/performance.md).
    if (loaded_spec.cores > 1 && fidelity == spec::Fidelity::fast) {
      throw UsageError("--fidelity fast models one core's DRAM streams: a chip of " +
                       std::to_string(loaded_spec.cores) + " cores (cores.count) runs exact");
    }
    const config::Phase lengths = phase_of(phase, values);
    const config::LoadedModel model = config::load_model_file(model_file, model_overrides, lengths);
    check_run_formats(loaded_spec, model.network, training.has_value(), !dump_file.empty(), model_file);
    const spec::AcceleratorSpec spec = mapping::run_accelerator(loaded_spec, model.network);
    check_kv_cache_addressable(model.network, lengths.decode_context, *std::max_element(batches.begin(), batches.end()),
                               model.network.kv_cache_element_bytes(spec.element_bytes()));
    std::optional<ReducedRun> reduced;
    if (reuse_blocks) reduced = reduce_blocks(model, lengths);
    if (system && system->chips > 1) {
      spec::SystemSpec run_system_spec = *system;
      run_system_spec.chip = spec;
      return run_system(run_system_spec, loaded_spec, model, lengths, batches, fidelity, format, arch_file, out_dir,
                        timeline_file, every_chip, reduced);
    }
    if (reduced) simulate::check_capacity(spec, model.network, batches, nullptr, arch_file);  // the whole model's
    const workload::Network& run_network = reduced ? reduced->network : model.network;
    const std::vector<std::size_t> selected =
        training ? std::vector<std::size_t>{} : selected_layers(run_network, layer_list, type_list);
    report::RunReport report{spec.name, model.network.name, spec, {}, std::nullopt, {}, {}};
    if (training) report = training_report(spec, model.network, *training, arch_file);
    describe_run(report, model.network, fidelity, !training);
    if (reduced) report.reused_blocks = reduced->reduced.reused;
    simulate::RunPlan plan = training ? simulate::plan_training(spec, model.network, batches, *training, arch_file)
                                      : simulate::plan_inference(spec, run_network, batches, selected, arch_file);
    if (training) {
      report.phases = plan.phases;
      report.peak_memory_bytes = plan.peak_memory_bytes;
    }
    if (!dump_file.empty()) {
      std::vector<program::ProgramRecord> records;
      for (const program::LayerRun& run : plan.runs) records.push_back(program::ProgramRecord{run.batch, run.program, {}});
      try {
        util::write_output_file(dump_file, program::write_programs(records));
      } catch (const std::runtime_error& error) {
        throw FileError(std::string("--dump-program: ") + error.what());
      }
    }
    // --out and the timeline are written after the simulation: what they could not be written to fails now.
    check_out_directory(out_dir);
    check_timeline_file(timeline_file);
    const std::size_t layers = training ? report.phases.size() : selected.size();
    std::optional<results::TimelineRecorder> timeline;
    if (!timeline_file.empty()) timeline.emplace();
    const simulate::Replay replay =
        simulate::replay(spec, std::move(plan.runs), timeline ? &*timeline : nullptr, fidelity);
    if (replay.out_of_memory) return report_bad_input("run", replay.problem);
    if (!replay.problem.empty()) return report_internal_error("run", replay.problem);
    warn_of_energy_curves("run", spec);  // of the energy the report shows
    const std::vector<results::LayerResult>& results = replay.results;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      report.batches.emplace_back(results.begin() + static_cast<std::ptrdiff_t>(b * layers),
                                  results.begin() + static_cast<std::ptrdiff_t>((b + 1) * layers));
      const std::string problem = simulate::insert_reused_copies(report.batches.back(), report.reused_blocks);
      if (!problem.empty()) return report_internal_error("run", problem);
    }
    const std::string rendered = report::render_run(report, format);
    std::cout << rendered;
    // After the simulation nothing may throw (GCC's ASan takes a throw then for a stack overflow):
    // write errors are reported here.
    std::string problem;
    if (!out_dir.empty()) {
      problem = util::output_files_problem(out_dir, chip_run_files(report, loaded_spec, ""));
      if (!problem.empty()) problem = "--out: " + problem;
    }
    if (problem.empty() && timeline)
      problem = timeline_file_problem(timeline_file, report::render_timeline(report, *timeline));
    return problem.empty() ? kExitOk : report_bad_input("run", problem);
  });
}

}  // namespace reusesim::cli
