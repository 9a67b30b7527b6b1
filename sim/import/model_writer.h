#pragma once
// An imported network as a ReuseSim model file (docs/model-format.md): one flow-style line per
// layer with only the fields that differ from their defaults, each followed by a comment saying
// where it came from.

#include <string>
#include <vector>

#include "workload/network.h"

namespace reusesim::import {

// The layer library's names every importer writes layers with.
using workload::HeightWidth;
using workload::LayerSpec;
using workload::LayerType;
using workload::Shape;
using workload::ShapeKind;

struct ImportedModel {
  workload::ModelSpec spec;
  std::vector<std::string> header;          // comment lines above the model
  std::vector<std::string> layer_comments;  // one per layer ("" for none)
};

std::string model_yaml(const ImportedModel& model);

// A layer name from another tool's name: the format allows no '/', '.' or '$', so every character
// other than letters, digits, '_' and '-' becomes '_' ("/layer1/layer1.0/conv1/Conv" ->
// "layer1_layer1_0_conv1_Conv"; leading '_' dropped); one that starts with a digit gets an "n", and
// TOTAL (the reports' sum row) and null (YAML's no value) a trailing '_'.
std::string layer_name_from(const std::string& name);

// The model built as `reusesim` would build the file (shapes inferred, counts taken); throws
// ImportError naming `origin` and the layer when the layer library refuses it.
workload::Network build_imported(const ImportedModel& model, const std::string& origin);

}  // namespace reusesim::import
