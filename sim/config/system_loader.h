#pragma once
// System files -> spec::SystemSpec (docs/systems.md, "The system file"): the chips (an accelerator
// file each), how many, their links and topology.

#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace reusesim::config {

// Throws InputError with every problem found, in the system file and in its chip's file.
// Overrides whose path starts with `chip.` go to the chip's accelerator file, the others to the
// system file (`chip=FILE` names another chip file).
// Whether `file` is a system file (it has `chips:`); a file that does not parse is not, and the
// accelerator loader reports why.
bool is_system_file(const std::string& file);

spec::SystemSpec load_system_file(const std::string& path, const std::vector<std::string>& overrides = {});
spec::SystemSpec load_system_text(const std::string& text, const std::string& origin,
                                  const std::vector<std::string>& overrides = {});

}  // namespace reusesim::config
