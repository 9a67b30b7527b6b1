// `reusesim import onnx|scalesim`: other tools' files as ReuseSim model and accelerator files
// (docs/import.md).

#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "config/accelerator_loader.h"
#include "config/config_node.h"
#include "config/model_loader.h"
#include "import/onnx_import.h"
#include "import/scalesim_import.h"
#include "util/diagnostics.h"
#include "util/output_files.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

const char* const kImportUsage =
    "usage: reusesim import onnx MODEL.onnx [--batch-dim NAME] [-o MODEL.yaml]\n"
    "       reusesim import scalesim TOPOLOGY.csv [--config SCALE.cfg --arch-out ARCH.yaml] [-o MODEL.yaml]\n";

// An ONNX file with its weights can be large; protobuf reads at most 2 GiB.
constexpr std::size_t kMaxOnnxBytes = std::size_t{1} << 31;
constexpr std::size_t kMaxTextBytes = std::size_t{64} << 20;

std::string read_file(const std::string& path, std::size_t max_bytes) {
  util::Diagnostics diagnostics;
  std::optional<std::string> bytes = config::read_input_file(path, max_bytes, diagnostics);
  diagnostics.throw_if_any();
  return std::move(*bytes);
}

// Writes `text` to `path` as every result file is written (docs: "Output files"), or to standard
// output when no path is given.
void write_result(const std::string& option, const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return;
  }
  try {
    util::write_output_file(path, text);
  } catch (const std::runtime_error& error) {
    throw FileError(option + ": " + error.what());
  }
}

// The imported model as its file says, loaded back as `reusesim` loads any model: a file it would
// refuse is a bug of the importer.
void check_written_model(const import::ImportedModel& model, const std::string& text, const std::string& origin) {
  try {
    const config::LoadedModel loaded = config::load_model_text(text, origin);
    if (loaded.network.layers.size() != model.spec.layers.size()) throw std::runtime_error("layers were lost");
  } catch (const std::exception& error) {
    throw std::runtime_error("the imported model does not load back: " + std::string(error.what()));
  }
}

// Whether two paths name one file: by identity when both exist (links, hard links, "./"), else by
// their canonical forms.
bool same_file(const std::string& first, const std::string& second) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(first, error) && fs::exists(second, error)) return fs::equivalent(first, second, error);
  const fs::path first_path = fs::weakly_canonical(first, error);
  if (error) return first == second;
  const fs::path second_path = fs::weakly_canonical(second, error);
  return error ? first == second : first_path == second_path;
}

// Refuses, before anything is read or written, an output that names an input or another output.
// Each item is (what, path); an empty path is none, or standard output.
void check_outputs(const std::vector<std::pair<std::string, std::string>>& inputs,
                   const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty()) continue;
    for (const auto& [input_option, input] : inputs) {
      if (!input.empty() && same_file(path, input)) {
        throw UsageError(option + " " + path + " names " + input_option + " (" + input +
                         "), which writing would overwrite");
      }
    }
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (!outputs[j].second.empty() && same_file(path, outputs[j].second)) {
        throw UsageError(option + " " + path + " and " + outputs[j].first + " " + outputs[j].second +
                         " name the same file: one would overwrite the other");
      }
    }
  }
}

// The accelerator made from a .cfg, loaded as `reusesim` loads any: the importer checks the .cfg's
// values against the format's limits, so a file the loader refuses is a bug of the importer.
void check_written_accelerator(const std::string& text, const std::string& config_file) {
  try {
    config::load_accelerator_text(text, "the accelerator made from " + config_file);
  } catch (const std::exception& error) {
    throw std::runtime_error("the imported accelerator does not load back: " + std::string(error.what()));
  }
}

void print_summary(const std::string& path, const workload::Network& network) {
  if (path.empty()) return;
  std::cout << "wrote " << path << ": " << network.layers.size() << " layers, " << network.total_macs()
            << " MACs per sample, " << network.total_params() << " parameters\n";
}

int import_onnx_command(const std::vector<std::string>& args) {
  return run_guarded("import onnx", [&] {
    std::string model_file, output_file;
    import::OnnxOptions onnx;
    po::options_description options("reusesim import onnx options");
    options.add_options()
        ("help,h", "show this help")
        ("model", po::value(&model_file)->required(), "ONNX model file (also positional)")
        ("batch-dim", po::value(&onnx.batch_dim),
         "the name of the dynamic dimension that is the batch (without it every dimension must be a number, "
         "and the batch is the input's first axis)")
        (",o", po::value(&output_file), "write the model file here (default: standard output)");
    po::positional_options_description positional;
    positional.add("model", 1);
    po::variables_map values;
    if (!parse_arguments("import onnx", args, options, positional, values)) return kExitOk;
    if (values.count("batch-dim") > 0 && onnx.batch_dim.empty()) throw UsageError("--batch-dim: expected a name");
    check_outputs({{"the ONNX model", model_file}}, {{"-o", output_file}});
    const import::ImportedModel model = import::import_onnx(read_file(model_file, kMaxOnnxBytes), model_file, onnx);
    const std::string text = import::model_yaml(model);
    check_written_model(model, text, output_file.empty() ? "the imported model" : output_file);
    write_result("-o", output_file, text);
    print_summary(output_file, import::build_imported(model, model_file));
    return kExitOk;
  });
}

int import_scalesim_command(const std::vector<std::string>& args) {
  return run_guarded("import scalesim", [&] {
    std::string topology_file, config_file, output_file, arch_file;
    po::options_description options("reusesim import scalesim options");
    options.add_options()
        ("help,h", "show this help")
        ("topology", po::value(&topology_file)->required(), "SCALE-Sim topology CSV (also positional)")
        ("config", po::value(&config_file), "SCALE-Sim configuration (.cfg): becomes the accelerator file --arch-out")
        ("arch-out", po::value(&arch_file), "write the accelerator file made from --config here")
        (",o", po::value(&output_file), "write the model file here (default: standard output)");
    po::positional_options_description positional;
    positional.add("topology", 1);
    po::variables_map values;
    if (!parse_arguments("import scalesim", args, options, positional, values)) return kExitOk;
    if (config_file.empty() != arch_file.empty()) throw UsageError("--config and --arch-out go together");
    check_outputs({{"the topology", topology_file}, {"the --config file", config_file}},
                  {{"-o", output_file}, {"--arch-out", arch_file}});
    const import::ImportedModel model =
        import::import_scalesim_topology(read_file(topology_file, kMaxTextBytes), topology_file);
    const std::string text = import::model_yaml(model);
    check_written_model(model, text, output_file.empty() ? "the imported model" : output_file);
    std::string arch_text;
    if (!config_file.empty()) {
      arch_text = import::accelerator_yaml(
          import::read_scalesim_config(read_file(config_file, kMaxTextBytes), config_file), config_file);
      check_written_accelerator(arch_text, config_file);
    }
    write_result("-o", output_file, text);
    if (!arch_text.empty()) write_result("--arch-out", arch_file, arch_text);
    print_summary(output_file, import::build_imported(model, topology_file));
    if (!arch_text.empty()) std::cout << "wrote " << arch_file << "\n";
    return kExitOk;
  });
}

}  // namespace

int import_command(const std::vector<std::string>& args) {
  const std::string format = args.empty() ? "" : args.front();
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (format == "onnx") return import_onnx_command(rest);
  if (format == "scalesim") return import_scalesim_command(rest);
  return run_guarded("import", [&] {
    if (format == "--help" || format == "-h") {
      std::cout << kImportUsage;
      return kExitOk;
    }
    throw UsageError((format.empty() ? "expected a format" : "unknown format \"" + format + "\"") +
                     " (onnx or scalesim)");
  });
}

}  // namespace reusesim::cli
