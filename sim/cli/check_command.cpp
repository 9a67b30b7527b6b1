#include <iostream>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "config/run_loader.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

// Which loader a file needs, from its top-level keys, unless --kind says.
std::string detect_kind(const std::string& file) {
  config::Diagnostics diagnostics;
  const config::ConfigNode root = config::load_yaml_file(file, diagnostics);
  diagnostics.throw_if_any();
  if (root.find("layers") != nullptr) return "model";
  if (root.find("compute") != nullptr) return "accelerator";
  if (root.find("models") != nullptr || root.find("accelerators") != nullptr) return "run";
  if (root.find("standard") != nullptr || root.find("preset") != nullptr) return "dram";
  throw UsageError(file + ": cannot tell whether this is a model, accelerator, dram or run file; give --kind");
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  return run_guarded("check", [&] {
    CommonOptions common;
    std::vector<std::string> files;
    std::string kind;
    po::options_description options("reusesim check options");
    options.add_options()
        ("file", po::value(&files)->required()->composing(), "files to validate (also positional)")
        ("kind", po::value(&kind), "model, accelerator, dram or run (default: told by the file's keys)");
    add_common_options(options, common);
    po::positional_options_description positional;
    positional.add("file", -1);
    po::variables_map values;
    if (!parse_arguments("check", args, options, positional, values)) return kExitOk;
    if (!common.overrides.empty() && files.size() > 1) throw UsageError("--set needs a single file to apply to");
    if (!kind.empty() && kind != "model" && kind != "accelerator" && kind != "dram" && kind != "run") {
      throw UsageError("--kind: expected model, accelerator, dram or run, got \"" + kind + "\"");
    }
    int status = kExitOk;
    for (const std::string& file : files) {
      const int file_status = run_guarded("check", [&] {
        const std::string file_kind = kind.empty() ? detect_kind(file) : kind;
        if (file_kind == "model") {
          const config::LoadedModel model = config::load_model_file(file, common.overrides);
          std::cout << file << ": ok: model " << model.network.name << ", " << model.network.layers.size()
                    << " layers\n";
        } else if (file_kind == "accelerator") {
          const hw::AcceleratorSpec accelerator = config::load_accelerator_file(file, common.overrides);
          std::cout << file << ": ok: accelerator " << accelerator.name << "\n";
        } else if (file_kind == "dram") {
          const hw::DramSpec dram = config::load_dram(file, common.overrides);
          std::cout << file << ": ok: dram " << dram.standard << ", " << dram.channels << " channel(s)\n";
        } else {
          const config::RunSpec run = config::load_run_file(file, common.overrides);
          std::cout << file << ": ok: run " << run.name << "\n";
        }
        return kExitOk;
      });
      status = std::max(status, file_status);
    }
    return status;
  });
}

}  // namespace reusesim::cli
