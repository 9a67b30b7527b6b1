#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <utility>

#include "cli/command_line.h"
#include "report/output_files.h"
#include "config/accelerator_loader.h"
#include "config/diagnostics.h"
#include "config/model_loader.h"
#include "hw/accelerator.h"
#include "mapping/mapper.h"
#include "mapping/program_text.h"
#include "mapping/training_mapper.h"
#include "report/run_report.h"
#include "report/timeline_report.h"
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
    if (used == 0 || used != item.size() || value < 1 || value > 1'000'000) {
      throw UsageError("--batch: expected positive integers up to 1000000 separated by commas, got \"" + list + "\"");
    }
    batches.push_back(value);
  }
  if (batches.empty()) throw UsageError("--batch: expected at least one batch size");
  return batches;
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
                       config::did_you_mean(name, names));
    }
  }
  for (const std::string& type : wanted_types) {
    if (!workload::layer_type_from_name(type)) {
      throw UsageError("--layer-types: unknown layer type \"" + type + "\"" +
                       config::did_you_mean(type, workload::layer_type_names()));
    }
  }
  std::vector<std::size_t> selected = workload::select_layers(network, wanted_names, wanted_types);
  if (selected.empty()) throw UsageError("--layers and --layer-types select no layer of model " + network.name);
  return selected;
}

// The program must agree with the analysis (the replay is checked against the program).
void check_analysis(const workload::NetworkLayer& layer, const mapping::LayerProgram& program,
                    const mapping::LayerPlan& plan, std::int64_t batch, std::int64_t element_bytes) {
  const std::string where = "layer " + program.layer + " (batch " + std::to_string(batch) + "): ";
  const std::int64_t analytic_macs = layer.counts.macs * batch;
  if (program.macs != analytic_macs) {
    throw std::logic_error(where + "the program has " + std::to_string(program.macs) + " MACs, the analysis " +
                           std::to_string(analytic_macs));
  }
  const std::string traffic = mapping::compulsory_traffic_problem(layer, batch, element_bytes, program, plan);
  if (!traffic.empty()) throw std::logic_error(where + traffic);
}

// The replay must agree with its program (MACs; the burst-widened DRAM bytes its steps read and
// wrote, whenever they moved: a prefetched weight load counts for its own layer) and cannot beat
// the roofline over its own window: its MACs, and its own bytes less those prefetched during the
// layer before (every other load is issued after the layer starts, every store is answered before
// it ends, so those bytes crossed the memory inside the window). The memory's counts over the
// window are no bound: it credits a request's bytes at its last burst, so a long request begun
// before the window (the next layer's prefetch) lands in it whole. What is wrong, naming the layer
// and batch, or "" when all is well.
std::string replay_problem(const hw::LayerResult& result, const mapping::LayerProgram& program,
                           const hw::AcceleratorSpec& spec) {
  const std::string where = "layer " + result.layer + " (batch " + std::to_string(result.batch) + "): ";
  if (result.macs != program.macs) {
    return where + "replayed " + std::to_string(result.macs) + " MACs, the program has " + std::to_string(program.macs);
  }
  if (result.dram_read_bytes != program.dram_read_bytes || result.dram_write_bytes != program.dram_write_bytes) {
    return where + "its steps read " + std::to_string(result.dram_read_bytes) + " B and wrote " +
           std::to_string(result.dram_write_bytes) + " B of DRAM, the program moves " +
           std::to_string(program.dram_read_bytes) + " and " + std::to_string(program.dram_write_bytes);
  }
  const double compute_bound = 2.0 * static_cast<double>(result.macs) / spec.compute.peak_ops_per_second();
  // An unlimited ideal memory has infinite bandwidth: only the compute bound is left.
  const std::int64_t inside_bytes = result.dram_read_bytes + result.dram_write_bytes - result.prefetched_weight_bytes;
  const double memory_bound = static_cast<double>(inside_bytes) / spec.dram.peak_bytes_per_second();
  const double bound = std::max(compute_bound, memory_bound);
  if (result.seconds < bound * (1 - 1e-9)) {
    return where + "simulated " + std::to_string(result.seconds) + " s beats the roofline bound " +
           std::to_string(bound) + " s";
  }
  return "";
}

// A training step's report before the replay: the element size must be one footprint sizes
// tensors at, so that the step's peak memory can be checked against footprint's.
report::RunReport training_report(const hw::AcceleratorSpec& spec, const workload::Network& network,
                                  const workload::TrainingOptions& training, const std::string& arch_file) {
  if (const std::string problem = workload::backward_problem(network); !problem.empty()) {
    throw UsageError("--mode train: model " + network.name + ": " + problem);
  }
  const std::int64_t e = mapping::element_bytes(spec);
  if (e != 1 && e != 2 && e != 4) {
    throw UsageError("--mode train: accelerator " + arch_file + " has " + std::to_string(spec.compute.operand_bits) +
                     "-bit operands, " + std::to_string(e) + "-byte elements; a training step sizes its tensors as "
                     "footprint does, at 1, 2 or 4 bytes (operand_bits up to 8, 16 or 32)");
  }
  check_training(training, network, e);
  return report::RunReport{spec.name, network.name, spec, {}, training, {}, {}};
}

// The step's programs must agree with the analysis: each forward program (and its recompute) as
// inference's checks it (every layer on its own), and the step's MACs three GEMMs' worth per
// layer, less the input gradients nobody needs, plus the recomputed forwards.
void check_training_step(const workload::Network& network, const std::vector<mapping::TrainingProgram>& step,
                         std::int64_t batch, std::int64_t checkpoint_segments, std::int64_t element_bytes) {
  std::int64_t macs = 0;
  for (const mapping::TrainingProgram& program : step) {
    if (program.phase == mapping::TrainingPhase::forward || program.phase == mapping::TrainingPhase::recompute) {
      check_analysis(network.layers[program.layer], program.program, {}, batch, element_bytes);
    }
    macs = workload::checked_add(macs, program.program.macs);
  }
  const std::int64_t analytic = workload::training_step_macs(network, batch, checkpoint_segments);
  if (macs != analytic) {
    throw std::logic_error("model " + network.name + " (batch " + std::to_string(batch) + "): the training step's " +
                           "programs have " + std::to_string(macs) + " MACs, the analysis " + std::to_string(analytic));
  }
}

}  // namespace

Replay replay_programs(const hw::AcceleratorSpec& spec, std::vector<hw::LayerRun> runs,
                       hw::TimelineRecorder* timeline) {
  std::size_t steps = 0;
  for (const hw::LayerRun& run : runs) steps += run.program.steps.size();
  // Keep the last SC_ERROR, to tell a simulation that ran out of memory (SystemC reports the
  // std::bad_alloc that escaped a thread) from one that failed.
  const sc_core::sc_actions error_actions = sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR);
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, error_actions | sc_core::SC_CACHE_REPORT);
  hw::Accelerator accelerator("accelerator", spec, runs, timeline);
  sc_core::sc_start();
  Replay replay;
  const sc_core::sc_report* error = sc_core::sc_report_handler::get_cached_report();
  if (error != nullptr && std::string(error->what()).find("bad_alloc") != std::string::npos) {
    replay.out_of_memory = true;
    replay.problem = "out of memory: the simulation of " + std::to_string(steps) +
                     " data-movement steps needs more memory than this machine gives it; replay fewer layers or "
                     "batch sizes at once";
    return replay;
  }
  if (sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) > 0 || !accelerator.finished()) {
    replay.problem = "the simulation stopped before every layer finished";
    return replay;
  }
  replay.results = accelerator.results();
  for (std::size_t i = 0; i < runs.size() && replay.problem.empty(); ++i) {
    replay.problem = replay_problem(replay.results[i], runs[i].program, spec);
  }
  // Over the whole run the memory moved exactly what the layers' steps did.
  std::int64_t read_bytes = 0, write_bytes = 0;
  for (const hw::LayerResult& result : replay.results) {
    read_bytes += result.dram_read_bytes;
    write_bytes += result.dram_write_bytes;
  }
  const hw::DramChannelStats memory = accelerator.memory_stats();
  if (replay.problem.empty() && (memory.read_bytes != read_bytes || memory.write_bytes != write_bytes)) {
    replay.problem = "the memory read " + std::to_string(memory.read_bytes) + " B and wrote " +
                     std::to_string(memory.write_bytes) + " B over the run, the layers' steps " +
                     std::to_string(read_bytes) + " and " + std::to_string(write_bytes);
  }
  return replay;
}

int run_command(const std::vector<std::string>& args) {
  return run_guarded("run", [&] {
    CommonOptions common;
    std::string arch_file, model_file, batch_list, layer_list, type_list, out_dir, dump_file, timeline_file;
    PhaseOptions phase;
    ModeOptions mode;
    po::options_description options("reusesim run options");
    options.add_options()
        ("arch", po::value(&arch_file)->required(), "accelerator file (YAML)")
        ("model", po::value(&model_file)->required(), "model file (YAML)")
        ("batch", po::value(&batch_list)->default_value("1"), "batch sizes, e.g. 1,16,256")
        ("layers", po::value(&layer_list), "run only these layers, e.g. fc6,fc7 (default: all)")
        ("layer-types", po::value(&type_list), "run only layers of these types, e.g. linear,gru (default: all)")
        ("out", po::value(&out_dir),
         "also write results.csv, results.json, dram_channels.csv, config.json and stats.txt here: a new or empty directory, or "
         "one an earlier --out wrote (its files are replaced; files of others there are never touched)")
        ("dump-program", po::value(&dump_file),
         "also write the data-movement programs of every batch and layer to this file "
         "(docs/program-format.md; replay it with reusesim replay). A regular file is replaced whole; a device, "
         "FIFO or symlink is written through")
        ("timeline", po::value(&timeline_file),
         "also write the replay as a Chrome/Perfetto trace to this file: layers, compute array, DMA engines, "
         "DRAM channels (docs/timeline.md); written like --dump-program");
    add_phase_options(options, phase);
    add_mode_options(options, mode, "infer");
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("run", args, options, {}, values)) return kExitOk;
    const std::vector<std::int64_t> batches = parse_batches(batch_list);
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
    const report::Format format = parse_format(common.format);
    // --set model.<path> changes the model; any other path the accelerator.
    std::vector<std::string> arch_overrides, model_overrides;
    for (const std::string& assignment : common.overrides) {
      if (assignment.rfind("model.", 0) == 0) {
        model_overrides.push_back(assignment.substr(6));
      } else {
        arch_overrides.push_back(assignment);
      }
    }
    const hw::AcceleratorSpec spec = config::load_accelerator_file(arch_file, arch_overrides);
    const config::Phase lengths = phase_of(phase, values);
    const config::LoadedModel model = config::load_model_file(model_file, model_overrides, lengths);
    check_kv_cache_addressable(model.network, lengths.decode_context, *std::max_element(batches.begin(), batches.end()),
                               mapping::element_bytes(spec));
    const std::vector<std::size_t> selected =
        training ? std::vector<std::size_t>{} : selected_layers(model.network, layer_list, type_list);
    report::RunReport report{spec.name, model.network.name, spec, {}, std::nullopt, {}, {}};
    if (training) report = training_report(spec, model.network, *training, arch_file);
    std::vector<hw::LayerRun> runs;
    std::vector<mapping::LayerPlan> plans;  // of each run
    std::size_t total_steps = 0;
    // Appends a layer's program to the run, refusing a run past kMaxRunSteps.
    const auto add_run = [&](std::int64_t batch, mapping::LayerProgram program, bool starts_batch,
                             const std::string& where) {
      runs.push_back(hw::LayerRun{batch, std::move(program), starts_batch});
      total_steps += runs.back().program.steps.size();
      if (total_steps > mapping::kMaxRunSteps) {
        throw mapping::MappingError("the run needs more than " + std::to_string(mapping::kMaxRunSteps) +
                                    " data-movement steps (the limit of one run; reached at layer " +
                                    runs.back().program.layer + "); run fewer batch sizes or layers at once "
                                    "(reusesim trace runs each batch size as a job of its own)" + where);
      }
    };
    for (std::int64_t batch : batches) {
      const std::string where = " (accelerator " + arch_file + ", batch " + std::to_string(batch) + ")";
      if (training) {
        std::vector<mapping::TrainingProgram> step;
        try {
          step = mapping::map_training_step(model.network, batch, spec, *training);
        } catch (const mapping::MappingError& error) {
          throw mapping::MappingError(std::string(error.what()) + where);
        }
        check_training_step(model.network, step, batch, training->checkpoint_segments, mapping::element_bytes(spec));
        const std::vector<std::int64_t> live =
            mapping::training_live_bytes(model.network, batch, mapping::element_bytes(spec), *training, step);
        report.peak_memory_bytes.push_back(*std::max_element(live.begin(), live.end()));
        report.phases.clear();
        for (mapping::TrainingProgram& program : step) {
          report.phases.push_back(mapping::phase_name(program.phase));
          add_run(batch, std::move(program.program), report.phases.size() == 1, where);
        }
        continue;
      }
      // The whole network is planned (residency, fusion): selected layers run as they do in it.
      mapping::NetworkMapping mapped;
      try {
        mapped = mapping::map_network(model.network, batch, spec);
      } catch (const mapping::MappingError& error) {
        throw mapping::MappingError(std::string(error.what()) + where);
      }
      if (const std::string problem = mapping::vector_ops_problem(model.network, batch, mapped); !problem.empty()) {
        throw std::logic_error("model " + model.network.name + " (batch " + std::to_string(batch) + "): " + problem);
      }
      for (std::size_t i : selected) {
        plans.push_back(mapped.plans[i]);
        add_run(batch, std::move(mapped.programs[i]), i == selected.front(), where);
      }
    }
    if (!dump_file.empty()) {
      std::vector<mapping::ProgramRecord> records;
      for (const hw::LayerRun& run : runs) records.push_back(mapping::ProgramRecord{run.batch, run.program, {}});
      try {
        report::write_output_file(dump_file, mapping::write_programs(records));
      } catch (const std::runtime_error& error) {
        throw FileError(std::string("--dump-program: ") + error.what());
      }
    }
    // --out and the timeline are written after the simulation: what they could not be written to fails now.
    if (!out_dir.empty()) {
      if (const std::string problem = report::foreign_directory_problem(out_dir); !problem.empty()) {
        throw FileError("--out: " + problem);
      }
    }
    if (!timeline_file.empty()) {
      try {
        report::check_output_file(timeline_file);
      } catch (const std::runtime_error& error) {
        throw FileError(std::string("--timeline: ") + error.what());
      }
    }
    const std::size_t layers = training ? report.phases.size() : selected.size();
    for (std::size_t i = 0; i < plans.size(); ++i) {
      check_analysis(model.network.layers[selected[i % layers]], runs[i].program, plans[i], runs[i].batch,
                     mapping::element_bytes(spec));
    }
    std::optional<hw::TimelineRecorder> timeline;
    if (!timeline_file.empty()) timeline.emplace();
    const Replay replay = replay_programs(spec, std::move(runs), timeline ? &*timeline : nullptr);
    if (replay.out_of_memory) return report_bad_input("run", replay.problem);
    if (!replay.problem.empty()) return report_internal_error("run", replay.problem);
    const std::vector<hw::LayerResult>& results = replay.results;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      report.batches.emplace_back(results.begin() + static_cast<std::ptrdiff_t>(b * layers),
                                  results.begin() + static_cast<std::ptrdiff_t>((b + 1) * layers));
    }
    const std::string rendered = report::render_run(report, format);
    std::cout << rendered;
    // After the simulation nothing may throw (GCC's ASan takes a throw then for a stack overflow):
    // write errors are reported here.
    std::string problem;
    if (!out_dir.empty()) {
      problem = report::output_files_problem(out_dir, {{"results.csv", report::render_run(report, report::Format::csv)},
                                                       {"results.json", report::render_run(report, report::Format::json)},
                                                       {"dram_channels.csv", report::render_dram_channels(report)},
                                                       {"config.json", report::resolved_accelerator_json(spec)},
                                                       {"stats.txt", report::run_stats_legend(report.training.has_value())}});
      if (!problem.empty()) problem = "--out: " + problem;
    }
    if (problem.empty() && timeline) {
      problem = report::output_file_problem(timeline_file, report::render_timeline(report, *timeline));
      if (!problem.empty()) problem = "--timeline: " + problem;
    }
    return problem.empty() ? kExitOk : report_bad_input("run", problem);
  });
}

}  // namespace reusesim::cli
