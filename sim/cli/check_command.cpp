#include <iostream>
#include <map>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "config/run_loader.h"
#include "config/system_loader.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

// Which loader a file needs, from its top-level keys, unless --kind says.
config::FileKind detect_kind(const std::string& file) {
  util::Diagnostics diagnostics;
  const config::ConfigNode root = config::load_yaml_file(file, diagnostics);
  diagnostics.throw_if_any();
  if (const auto kind = config::file_kind_of(root)) return *kind;
  throw UsageError(
      file + ": cannot tell whether this is a model, accelerator, dram, run, technology or system file; give --kind");
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  return run_guarded("check", [&] {
    std::vector<std::string> overrides;
    std::vector<std::string> files;
    std::string kind;
    po::options_description options("reusesim check options");
    options.add_options()("file", po::value(&files)->required()->composing(), "files to validate (also positional)")(
        "kind", po::value(&kind),
        "model, accelerator, dram, run, technology or system (default: told by the file's keys)");
    add_set_option(options, overrides);
    po::positional_options_description positional;
    positional.add("file", -1);
    po::variables_map values;
    if (!parse_arguments("check", args, options, positional, values)) return kExitOk;
    if (!overrides.empty() && files.size() > 1) throw UsageError("--set needs a single file to apply to");
    const std::map<std::string, config::FileKind> kinds{{"model", config::FileKind::model},
                                                        {"accelerator", config::FileKind::accelerator},
                                                        {"dram", config::FileKind::dram},
                                                        {"run", config::FileKind::run},
                                                        {"technology", config::FileKind::technology},
                                                        {"system", config::FileKind::system}};
    if (!kind.empty() && kinds.count(kind) == 0) {
      throw UsageError("--kind: expected model, accelerator, dram, run, technology or system, got \"" + kind + "\"");
    }
    int status = kExitOk;
    for (const std::string& file : files) {
      const int file_status = run_guarded("check", [&] {
        switch (kind.empty() ? detect_kind(file) : kinds.at(kind)) {
          case config::FileKind::model: {
            const config::LoadedModel model = config::load_model_file(file, overrides);
            std::cout << file << ": ok: model " << model.network.name << ", " << model.network.layers.size()
                      << " layers\n";
            break;
          }
          // Each file is loaded before anything is printed of it: "ok" only once it has loaded.
          case config::FileKind::accelerator: {
            const std::string name = config::load_accelerator_file(file, overrides).name;
            std::cout << file << ": ok: accelerator " << name << "\n";
            break;
          }
          case config::FileKind::dram: {
            const spec::DramSpec dram = config::load_dram(file, overrides);
            std::cout << file << ": ok: dram " << dram.standard << ", " << dram.channels << " channel(s)\n";
            break;
          }
          case config::FileKind::run: {
            const std::string name = config::load_run_file(file, overrides).name;
            std::cout << file << ": ok: run " << name << "\n";
            break;
          }
          case config::FileKind::technology: {
            const spec::TechnologySpec technology = config::load_technology_file(file, overrides);
            std::cout << file << ": ok: technology " << technology.name << ", " << technology.node_nm << " nm\n";
            break;
          }
          case config::FileKind::system: {
            const spec::SystemSpec system = config::load_system_file(file, overrides);
            std::cout << file << ": ok: system " << system.name << ", " << system.chips << " x " << system.chip.name
                      << " (" << util::name(system.topology);
            if (system.nodes) {
              std::cout << " in each of " << system.chips / system.node_chips() << " nodes of " << system.node_chips()
                        << ", a network between them";
            }
            std::cout << ")\n";
            break;
          }
        }
        return kExitOk;
      });
      status = std::max(status, file_status);
    }
    return status;
  });
}

}  // namespace reusesim::cli
