#pragma once
// Accelerator files and DRAM presets -> spec::AcceleratorSpec / spec::DramSpec.
// A `dram:` section (or a DRAM file) names `preset: ddr4-2400` and overrides any field of it.

#include <string>
#include <vector>

#include "config/config_node.h"
#include "spec/accelerator_spec.h"

namespace reusesim::config {

// Where presets named without a path are found: $REUSESIM_PRESET_DIR, else the shipped configs/dram
// (config/shipped_files.h).
constexpr const char* kPresetDirVariable = "REUSESIM_PRESET_DIR";
std::string dram_preset_directory();
std::vector<std::string> dram_preset_names();
// Where technology tables named without a path are found: $REUSESIM_TECHNOLOGY_DIR, else the shipped
// configs/energy.
constexpr const char* kTechnologyDirVariable = "REUSESIM_TECHNOLOGY_DIR";
std::string technology_preset_directory();

// Throw InputError with every problem found. `other_roots`: first components of --set paths that go
// to another file (run's `model`), offered as hints for an unknown top-level key.
spec::AcceleratorSpec load_accelerator_file(const std::string& path, const std::vector<std::string>& overrides = {},
                                            const std::vector<std::string>& other_roots = {});
spec::AcceleratorSpec load_accelerator_text(const std::string& text, const std::string& origin,
                                          const std::vector<std::string>& overrides = {});
// A technology table (configs/energy/ format), perhaps on top of a preset; throws InputError.
spec::TechnologySpec load_technology_file(const std::string& path, const std::vector<std::string>& overrides = {});
// A preset name (ddr4-2400) or a DRAM file.
spec::DramSpec load_dram(const std::string& preset_or_file, const std::vector<std::string>& overrides = {});
// A DRAM file's text that stands for the file `origin` (tests, fuzzing); a relative preset path
// is found from origin's directory.
spec::DramSpec load_dram_text(const std::string& text, const std::string& origin,
                            const std::vector<std::string>& overrides = {});

}  // namespace reusesim::config
