#pragma once
// Where the files ReuseSim ships (DRAM presets, technology tables, plotting scripts) are found:
// beside an installed binary, in <binary's directory>/REUSESIM_DATA_FROM_BINARY (by default
// ../share/reusesim, as `cmake --install` lays them out), or, for the binary in its build
// directory, in the source tree it was built from. An environment variable overrides each.

#include <string>

namespace reusesim::config {

// The directory of the shipped files: "<prefix>/share/reusesim", or the source tree for the binary
// in its build directory.
std::string shipped_files_directory();

// `$variable` when set and not empty, else `fallback`.
std::string environment_or(const char* variable, const std::string& fallback);

// `$variable` when set and not empty, else shipped_files_directory() + "/" + relative
// ("configs/dram", "configs/energy", "scripts").
std::string shipped_directory(const char* variable, const std::string& relative);

// The plotting scripts: $REUSESIM_SCRIPTS_DIR, else the shipped scripts/.
constexpr const char* kScriptsDirVariable = "REUSESIM_SCRIPTS_DIR";
std::string scripts_directory();

}  // namespace reusesim::config
