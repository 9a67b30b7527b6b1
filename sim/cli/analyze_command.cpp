#include <iostream>

#include "cli/command_line.h"
#include "config/model_loader.h"
#include "report/analyze_report.h"

namespace reusesim::cli {

namespace po = boost::program_options;

int analyze_command(const std::vector<std::string>& args) {
  return run_guarded("analyze", [&] {
    CommonOptions common;
    std::string model_file;
    std::int64_t batch = 1;
    double peak_tops = 0;
    po::options_description options("reusesim analyze options");
    options.add_options()
        ("model", po::value(&model_file)->required(), "model file (YAML)")
        ("batch", po::value(&batch)->default_value(1), "batch size")
        ("peak-tops", po::value(&peak_tops),
         "an ideal device's peak in tera-ops/s (1 MAC = 2 ops): adds the time per layer and the bandwidth it needs");
    PhaseOptions phase;
    add_phase_options(options, phase);
    add_common_options(options, common);
    po::variables_map values;
    if (!parse_arguments("analyze", args, options, {}, values)) return kExitOk;
    report::AnalyzeOptions analyze;
    analyze.batch = positive_option("--batch", batch, 1'000'000'000);
    if (values.count("peak-tops") > 0) {
      if (!(peak_tops > 0) || peak_tops > 1e9) throw UsageError("--peak-tops: expected a positive number of Tops/s");
      analyze.peak_tops = peak_tops;
    }
    const report::Format format = parse_format(common.format);
    const config::Phase lengths = phase_of(phase, values);
    const config::LoadedModel model = config::load_model_file(model_file, common.overrides, lengths);
    check_kv_cache_addressable(model.network, lengths.decode_context, analyze.batch,
                               workload::bytes_per_element(model.network.precision));
    std::cout << report::render_analysis(model.network, analyze, format);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
