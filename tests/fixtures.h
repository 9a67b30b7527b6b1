#pragma once
// Shared by the tests: the shipped accelerators and the small models many tests build on.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "spec/accelerator_spec.h"

namespace fixtures {

// configs/NAME.yaml with `overrides` applied as `--set` applies them.
inline reusesim::spec::AcceleratorSpec shipped_accelerator(const std::string& name,
                                                           const std::vector<std::string>& overrides = {}) {
  return reusesim::config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/" + name + ".yaml",
                                                 overrides);
}

// configs/small.yaml (a 16 x 16 int8 weight-stationary array at 1 GHz, 2 x 256 x 1e9 = 512e9
// ops/s) with its `dram:` section replaced by `dram_section`, e.g. an ideal memory of 1 GB/s:
// "  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n".
inline reusesim::spec::AcceleratorSpec small_with_dram(const std::string& dram_section) {
  std::ifstream file(std::string(REUSESIM_SOURCE_DIR) + "/configs/small.yaml");
  std::stringstream text;
  text << file.rdbuf();
  const std::string small = text.str();
  return reusesim::config::load_accelerator_text(small.substr(0, small.find("\ndram:")) + "\ndram:\n" + dram_section,
                                                 "small-ideal.yaml");
}

// A 64 -> 32 linear layer without bias at int8: 2,048 MACs and 2,048 weight bytes, 32 output
// bytes a sample.
constexpr const char* kSmallLinear = R"(
name: small_linear
precision: int8
input: {features: 64}
layers:
  - {name: fc, type: linear, out_features: 32, bias: false}
)";

}  // namespace fixtures
