#pragma once
// An imported network as a ReuseSim model file (docs/model-format.md): one flow-style line per
// layer with only the fields that differ from their defaults, each followed by a comment saying
// where it came from.

#include <string>
#include <vector>

#include "workload/network.h"

namespace reusesim::import {

struct ImportedModel {
  workload::ModelSpec spec;
  std::vector<std::string> header;          // comment lines above the model
  std::vector<std::string> layer_comments;  // one per layer ("" for none)
};

std::string model_yaml(const ImportedModel& model);

// The model built as `reusesim` would build the file (shapes inferred, counts taken); throws
// ImportError naming `origin` and the layer when the layer library refuses it.
workload::Network build_imported(const ImportedModel& model, const std::string& origin);

}  // namespace reusesim::import
