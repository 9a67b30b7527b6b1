#include <iostream>

#include "cli/command_line.h"
#include "config/model_loader.h"
#include "report/footprint_report.h"

namespace reusesim::cli {

namespace po = boost::program_options;

int footprint_command(const std::vector<std::string>& args) {
  return run_guarded("footprint", [&] {
    CommonOptions common;
    std::string model_file, dtype;
    ModeOptions mode;
    std::int64_t batch = 1;
    workload::FootprintOptions footprint;
    po::options_description options("reusesim footprint options");
    options.add_options()
        ("model", po::value(&model_file)->required(), "model file (YAML)")
        ("batch", po::value(&batch)->default_value(1), "batch size")
        ("dtype", po::value(&dtype), "fp32, fp16, bf16, int16 or int8 (default: the model's precision)")
        ("im2col", po::bool_switch(&footprint.im2col), "lower convolutions to matrix products (adds a workspace)")
        ("inplace-activations", po::bool_switch(&footprint.inplace_activations),
         "activation layers overwrite their input");
    add_mode_options(options, mode);
    PhaseOptions phase;
    add_phase_options(options, phase);
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("footprint", args, options, {}, values)) return kExitOk;
    footprint.batch = positive_option("--batch", batch, config::kMaxBatch);
    const std::optional<workload::TrainingOptions> training = training_options(mode);
    footprint.mode = training ? workload::FootprintMode::train : workload::FootprintMode::infer;
    if (training) {
      footprint.optimizer = training->optimizer;
      footprint.checkpoint_segments = training->checkpoint_segments;
      footprint.mixed_precision = training->mixed_precision;
    }
    const report::Format format = parse_format(common.format);
    const config::Phase lengths = phase_of(phase, values);
    if (lengths.decode_context > 0 && training) {
      throw UsageError("--phase decode applies to --mode infer (training runs whole sequences)");
    }
    const config::LoadedModel model = config::load_model_file(model_file, common.overrides, lengths);
    footprint.dtype = model.network.precision;
    // A precision block sizes each tensor by its format, unless --dtype gives one for all.
    if (model.network.formats && dtype.empty()) {
      if (training) {
        throw UsageError(
            "--mode train sizes every tensor, gradients and optimizer state at one dtype: the model's "
            "precision block gives each tensor its own format; give --dtype");
      }
      footprint.formats = model.network.formats;
    }
    if (!dtype.empty()) {
      const auto precision = util::from_name<workload::Precision>(dtype);
      if (!precision) throw UsageError("--dtype: expected fp32, fp16, bf16, int16 or int8, got \"" + dtype + "\"");
      footprint.dtype = *precision;
    }
    if (training) check_training(*training, model.network, workload::bytes_per_element(footprint.dtype));
    check_kv_cache_addressable(model.network, lengths.decode_context, footprint.batch,
                               footprint.formats ? workload::format_bytes(footprint.formats->kv_cache)
                                                 : workload::bytes_per_element(footprint.dtype));
    const workload::Footprint result = workload::compute_footprint(model.network, footprint);
    std::cout << report::render_footprint(model.network, footprint, result, format);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
