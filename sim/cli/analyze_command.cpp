#include <iostream>
#include <sstream>

#include "cli/command_line.h"
#include "config/model_loader.h"
#include "report/analyze_report.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

// --peak-tops: an ideal device's peak, in Tops/s, from a microcontroller's 1 Mops/s to 1 Eops/s.
constexpr double kMinPeakTops = 1e-6;
constexpr double kMaxPeakTops = 1e6;

}  // namespace

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
    analyze.batch = positive_option("--batch", batch, config::kMaxBatch);
    if (values.count("peak-tops") > 0) {
      if (!(peak_tops >= kMinPeakTops && peak_tops <= kMaxPeakTops)) {
        std::ostringstream given;
        given << peak_tops;
        throw UsageError(
            "--peak-tops: expected Tops/s from 1e-06 (1 Mops/s, a microcontroller) to 1e+06 (1 Eops/s, a "
            "thousand of today's largest accelerators), got " +
            given.str() + ": outside that range the ideal times and bandwidths are not a device's");
      }
      analyze.peak_tops = peak_tops;
    }
    const report::Format format = parse_format(common.format);
    const config::Phase lengths = phase_of(phase, values);
    const config::LoadedModel model = config::load_model_file(model_file, common.overrides, lengths);
    check_kv_cache_addressable(
        model.network, lengths.decode_context, analyze.batch,
        model.network.kv_cache_element_bytes(workload::bytes_per_element(model.network.precision)));
    std::cout << report::render_analysis(model.network, analyze, format);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
