#pragma once
// spec::AcceleratorSpec -> an accelerator file: the inverse of the accelerator loader, written as
// JSON (which the loader reads as YAML) in exactly the keys and units the loader reads, so that
// load_accelerator_text(accelerator_json(spec)) == spec. `reusesim run --out` writes it as
// config.json, the accelerator as resolved (presets and --set overrides applied), from which the
// same run can be repeated without the presets (docs/accelerator-format.md, "config.json").

#include <string>

#include "spec/accelerator_spec.h"

namespace reusesim::config {

std::string accelerator_json(const spec::AcceleratorSpec& accelerator);

}  // namespace reusesim::config
