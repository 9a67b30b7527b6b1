#pragma once
// `reusesim footprint`: memory per layer and in total, for inference or training.

#include <string>

#include "report/table.h"
#include "workload/footprint.h"

namespace reusesim::report {

std::string render_footprint(const workload::Network& network, const workload::FootprintOptions& options,
                             const workload::Footprint& footprint, Format format);

}  // namespace reusesim::report
