// Fuzz target: `--set key.path=value` overrides. Each input line is one override. As `reusesim run`
// splits them, `model.` lines go to a small model with parameters and a repeated block, the rest
// to the shipped small accelerator; `dram.` lines also go, as top-level fields, to
// `reusesim memtest --dram ddr4-2400`.

#include <sstream>

#include "config/accelerator_loader.h"
#include "config/model_loader.h"
#include "fuzz_support.h"

using namespace reusesim;

namespace {

// Small, so that an execution takes milliseconds, with every kind of path an override can take:
// parameters, blocks, their arguments, repeats, lists by name and by index.
const char* const kModel = R"(
name: tiny
precision: int8
parameters: {width: 8}
input: {channels: 3, height: 8, width: 8}
blocks:
  res:
    parameters: [out]
    layers:
      - {name: conv, type: conv2d, out_channels: $out, kernel: 3, padding: 1}
      - {name: relu, type: relu}
layers:
  - {name: conv1, type: conv2d, out_channels: $width, kernel: 3, padding: 1}
  - {name: body, block: res, repeat: 2, args: {out: $width}}
  - {name: sum, type: add, inputs: [conv1, body]}
  - {name: pool, type: maxpool, kernel: 2}
  - {name: flat, type: flatten}
  - {name: fc1, type: linear, out_features: 10}
)";

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
    fuzz::accept_bad_input([&] { config::load_model_text(kModel, "tiny.yaml", model); });
  }
  if (!accelerator.empty()) {
    fuzz::accept_bad_input([&] { config::load_accelerator_file(fuzz::source_path("configs/small.yaml"), accelerator); });
  }
  if (!dram.empty()) fuzz::accept_bad_input([&] { config::load_dram("ddr4-2400", dram); });
  return 0;
}
