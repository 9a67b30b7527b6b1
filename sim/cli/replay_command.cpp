// `reusesim replay`: data-movement programs from a file (written by `reusesim run --dump-program`
// or by an external compiler, docs/program-format.md) replayed on an accelerator, with the same
// checks and the same report as `reusesim run`.

#include <iostream>
#include <new>
#include <optional>
#include <set>
#include <utility>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/config_node.h"
#include "program/program_text.h"
#include "report/run_report.h"
#include "simulate/replay.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

std::string read_program_file(const std::string& path) {
  // A run's programs have at most 8 M steps (kMaxRunSteps), some 80 bytes each as text.
  constexpr std::size_t kMaxProgramBytes = std::size_t{1} << 30;
  util::Diagnostics diagnostics;
  std::optional<std::string> text = config::read_input_file(path, kMaxProgramBytes, diagnostics);
  diagnostics.throw_if_any();
  return std::move(*text);
}

}  // namespace

int replay_command(const std::vector<std::string>& args) {
  return run_guarded("replay", [&] {
    CommonOptions common;
    std::string arch_file, program_file, fidelity_name;
    po::options_description options("reusesim replay options");
    options.add_options()
        ("arch", po::value(&arch_file)->required(), "accelerator file (YAML)")
        ("program", po::value(&program_file)->required(),
         "data-movement program file (docs/program-format.md), e.g. from reusesim run --dump-program");
    add_fidelity_option(options, fidelity_name);
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("replay", args, options, {}, values)) return kExitOk;
    const report::Format format = parse_format(common.format);
    const spec::Fidelity fidelity = parse_fidelity(fidelity_name);
    const spec::AcceleratorSpec spec = config::load_accelerator_file(arch_file, common.overrides);
    if (spec.cores > 1) {
      throw UsageError("a program file holds one core's programs: a chip of " + std::to_string(spec.cores) +
                       " cores (cores.count) is replayed by `run` only");
    }
    std::vector<program::ProgramRecord> records;
    try {
      const std::string text = read_program_file(program_file);
      records = program::read_programs(text, program_file, static_cast<std::uint64_t>(spec.dram.burst_bytes()));
      program::check_programs_on(records, spec, program_file);
    } catch (const program::ProgramFormatError& error) {
      std::cerr << error.what();
      return kExitBadInput;
    } catch (const std::bad_alloc&) {
      return report_bad_input("replay", "out of memory reading " + program_file +
                                            ": the program needs more memory than this machine gives it; "
                                            "split it into several files");
    }
    // A batch is consecutive layers of one batch size, until a layer name repeats (run --batch 1,1
    // replays the network twice at batch 1): each starts from a fresh machine, as in run, and the
    // report totals each.
    std::vector<program::LayerRun> runs;
    std::set<std::string> names;
    for (program::ProgramRecord& record : records) {
      const bool starts_batch =
          runs.empty() || runs.back().batch != record.batch || names.count(record.program.layer) > 0;
      if (starts_batch) names.clear();
      names.insert(record.program.layer);
      runs.push_back(program::LayerRun{record.batch, std::move(record.program), starts_batch, {}, {}});
    }
    std::vector<bool> starts;
    for (const program::LayerRun& run : runs) starts.push_back(run.starts_batch);
    const simulate::Replay replay = simulate::replay(spec, std::move(runs), nullptr, fidelity);
    if (replay.out_of_memory) return report_bad_input("replay", replay.problem);
    if (!replay.problem.empty()) return report_internal_error("replay", replay.problem);
    warn_of_energy_curves("replay", spec);  // of the energy the report shows
    report::RunReport report{spec.name, program_file, spec, {}, std::nullopt, {}, {}};
    report.fidelity = fidelity;
    for (std::size_t i = 0; i < replay.results.size(); ++i) {
      if (starts[i]) report.batches.emplace_back();
      report.batches.back().push_back(replay.results[i]);
    }
    std::cout << report::render_run(report, format);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
