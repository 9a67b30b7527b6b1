// Fuzz target: `--set key.path=value` overrides. Each input line is one override. As `reusesim run`
// splits them, `model.` lines go to a shipped model with blocks and the rest to the shipped small
// accelerator; `dram.` lines also go, as top-level fields, to `reusesim memtest --dram ddr4-2400`.

#include <sstream>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "fuzz/fuzz_support.h"

using namespace reusesim;

namespace {

bool take_prefix(const std::string& line, const std::string& prefix, std::vector<std::string>& overrides) {
  if (line.rfind(prefix, 0) != 0) return false;
  overrides.push_back(line.substr(prefix.size()));
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> model, accelerator, dram;
  std::istringstream lines(fuzz::input_text(data, size));
  for (std::string line; std::getline(lines, line);) {
    if (take_prefix(line, "model.", model)) continue;
    accelerator.push_back(line);
    take_prefix(line, "dram.", dram);
  }
  // A document without overrides is known to load; skipping it keeps executions fast.
  if (!model.empty()) {
    fuzz::accept_bad_input([&] { config::load_model_file(fuzz::source_path("models/mobilenet_v1.yaml"), model); });
  }
  if (!accelerator.empty()) {
    fuzz::accept_bad_input([&] { config::load_accelerator_file(fuzz::source_path("configs/small.yaml"), accelerator); });
  }
  if (!dram.empty()) fuzz::accept_bad_input([&] { config::load_dram("ddr4-2400", dram); });
  return 0;
}
