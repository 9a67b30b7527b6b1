// Fuzz target: model files (docs/model-format.md). A model that loads is also analysed as
// `reusesim analyze` and `reusesim footprint` do, at the smallest and the largest batch they take.

#include "config/model_loader.h"
#include "fuzz/fuzz_support.h"
#include "report/analyze_report.h"
#include "report/footprint_report.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::int64_t kMaxCliBatch = 1'000'000'000;  // analyze and footprint --batch
  fuzz::accept_bad_input([&] {
    const config::LoadedModel model = config::load_model_text(fuzz::input_text(data, size), "model.yaml");
    for (const std::int64_t batch : {std::int64_t{1}, kMaxCliBatch}) {
      fuzz::accept_bad_input([&] { report::render_analysis(model.network, {batch, 100.0}, report::Format::table); });
      for (const workload::FootprintMode mode : {workload::FootprintMode::infer, workload::FootprintMode::train}) {
        workload::FootprintOptions options;
        options.batch = batch;
        options.mode = mode;
        options.optimizer = workload::Optimizer::adam;
        options.im2col = true;
        fuzz::accept_bad_input([&] {
          const workload::Footprint footprint = workload::compute_footprint(model.network, options);
          report::render_footprint(model.network, options, footprint, report::Format::json);
        });
      }
    }
  });
  return 0;
}
