// reusesim: one binary, several subcommands.

#include <systemc>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/shipped_files.h"
#include "trace/process.h"

namespace {

const char* const kUsage =
    "usage: reusesim <command> [options]\n"
    "\n"
    "commands:\n"
    "  analyze    per-layer MACs, parameters, activations and compulsory DRAM traffic of a model\n"
    "  footprint  memory needed to run or train a model, per layer and in total\n"
    "  check      validate model, accelerator, DRAM and run files\n"
    "  run        replay a model on an accelerator: time, stalls, traffic, efficiency per layer\n"
    "  replay     replay a data-movement program file (run --dump-program, or a compiler) on an accelerator\n"
    "  trace      run a batch trace (accelerators x sweeps x models x batch sizes) in parallel, then draw its figure\n"
    "  figure     draw the arithmetic-intensity (roofline) figure of a trace's results directory\n"
    "  search     a design search over accelerator keys (SPACE.yaml): time, energy or EDP under area, power limits\n"
    "  memtest    drive a DRAM/HBM memory with a request pattern or trace: bandwidth, latency, row hits\n"
    "  import     an ONNX model or a SCALE-Sim topology and config as ReuseSim model and accelerator files\n"
    "\n"
    "reusesim <command> --help shows the options of a command; reusesim --version the version.\n"
    "exit codes: 0 success, 2 bad input or usage, 3 internal error, 4 some trace jobs (or a search's run) failed, 130 "
    "interrupted\n";

}  // namespace

int sc_main(int argc, char* argv[]) {
  using Command = int (*)(const std::vector<std::string>&);
  const std::map<std::string, Command> commands{
      {"analyze", reusesim::cli::analyze_command}, {"footprint", reusesim::cli::footprint_command},
      {"check", reusesim::cli::check_command},     {"memtest", reusesim::cli::memtest_command},
      {"run", reusesim::cli::run_command},         {"replay", reusesim::cli::replay_command},
      {"trace", reusesim::cli::trace_command},     {"figure", reusesim::cli::figure_command},
      {"search", reusesim::cli::search_command},   {"import", reusesim::cli::import_command}};
  if (argc < 2) {
    std::cerr << kUsage;
    return reusesim::cli::kExitBadInput;
  }
  // Errors inside the simulation stop it and are reported, rather than thrown across coroutines.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_STOP);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    return reusesim::cli::run_guarded("help", [] {
      std::cout << kUsage;
      return reusesim::cli::kExitOk;
    });
  }
  if (name == "--version") {
    return reusesim::cli::run_guarded("version", [] {
      namespace config = reusesim::config;
      // Each directory in use, and the variable it came from when one overrides the shipped one.
      const auto where = [](const std::string& directory, const char* variable) {
        return directory + (config::environment_or(variable, "").empty() ? "" : std::string(" (") + variable + ")");
      };
      std::cout << "reusesim " REUSESIM_VERSION " (SystemC " << sc_core::sc_release() << ")\n"
                << "shipped files: " << config::shipped_files_directory() << "\n"
                << "DRAM presets: " << where(config::dram_preset_directory(), config::kPresetDirVariable) << "\n"
                << "technology tables: " << where(config::technology_preset_directory(), config::kTechnologyDirVariable)
                << "\n"
                << "plotting scripts: " << where(config::scripts_directory(), config::kScriptsDirVariable) << "\n";
      return reusesim::cli::kExitOk;
    });
  }
  const auto command = commands.find(name);
  if (command == commands.end()) {
    std::cerr << "reusesim: error: unknown command \"" << name << "\"\n" << kUsage;
    return reusesim::cli::kExitBadInput;
  }
  return command->second(std::vector<std::string>(argv + 2, argv + argc));
}

// SystemC prints its copyright banner on stderr when the kernel starts unless told not to; the
// banner is noise in every report, so set that before SystemC's own start-up runs sc_main.
int main(int argc, char* argv[]) {
  reusesim::trace::end_with_parent_if_worker();
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
