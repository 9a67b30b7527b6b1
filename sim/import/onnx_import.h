#pragma once
// An ONNX model (Debian's libonnx, with its shape inference) as a ReuseSim model: docs/import.md.

#include <string>

#include "import/model_writer.h"

namespace reusesim::import {

struct OnnxOptions {
  // The symbolic dimension that is the batch ("" when every dimension is a number: then the batch
  // is the data input's first axis).
  std::string batch_dim;
};

// `bytes` is the file `origin` holds. Throws ImportError naming the file and the node.
ImportedModel import_onnx(const std::string& bytes, const std::string& origin, const OnnxOptions& options);

}  // namespace reusesim::import
