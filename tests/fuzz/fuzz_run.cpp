// Fuzz target: run files, the batch traces of `reusesim trace` (docs/traces-and-figure.md). The
// loader also loads every accelerator and model the run names (seeds name the shipped ones by
// absolute path). A run that loads is planned into jobs, and the plan must survive its trace.json
// round trip, as `reusesim trace --resume` and `reusesim figure` read it back.

#include "config/run_loader.h"
#include "fuzz_support.h"
#include "trace/trace_plan.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::accept_bad_input([&] {
    // Relative paths are found from the shipped traces.
    const std::string origin = fuzz::source_path("traces/fuzz.yaml");
    const trace::TracePlan plan = trace::plan_trace(config::load_run_text(fuzz::input_text(data, size), origin), origin);
    const std::string json = trace::plan_json(plan);
    if (trace::plan_json(trace::read_plan_json(json, "trace.json")) != json) {
      throw fuzz::PropertyFailure("trace.json does not read back to the same plan");
    }
  });
  return 0;
}
