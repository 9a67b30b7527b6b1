#pragma once
// Run files -> RunSpec. Validation loads every accelerator and model the run names (with each
// sweep value applied), so a run that starts has no bad input left to find.

#include <string>
#include <utility>
#include <vector>

#include "config/run_spec.h"

namespace reusesim::config {

// Throws InputError with every problem found, in the run file and in the files it names.
RunSpec load_run_file(const std::string& path, const std::vector<std::string>& overrides = {});
RunSpec load_run_text(const std::string& text, const std::string& origin, const std::vector<std::string>& overrides = {});

// Every combination of one value per sweep axis (key path, value), the first axis slowest.
std::vector<std::vector<std::pair<std::string, std::string>>> sweep_points(const std::vector<SweepAxis>& sweep);

}  // namespace reusesim::config
