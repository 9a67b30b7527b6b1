#pragma once
// A run file (batch trace): which accelerators x models x batch sizes to run, and which
// accelerator fields to sweep. Paths are resolved relative to the run file.

#include <cstdint>
#include <string>
#include <vector>

#include "config/model_loader.h"
#include "spec/fidelity.h"

namespace reusesim::config {

struct RunModel {
  std::string model_file;
  std::vector<std::int64_t> batches;
  std::vector<std::string> layers;       // only these layers (empty: all)
  std::vector<std::string> layer_types;  // only layers of these types (empty: all)
  // Sequence models: "prefill" or "decode" (empty: not given, the model's own input), the prefill
  // lengths to run (empty: the model's) or the decode contexts (one of them with decode). Every
  // length x every batch is a job.
  std::string phase;
  std::vector<std::int64_t> sequences;
  std::vector<std::int64_t> contexts;

  // The model's phases to run, one per sequence or context (one default phase when none is given).
  std::vector<Phase> phases() const;
  // `mode: train`: a training step with each of these optimizers (sgd, momentum, adam), a job
  // each per batch size; empty for inference (docs/training.md).
  std::vector<std::string> optimizers;
};

// One swept accelerator field: every value is tried (the jobs are the cross product).
struct SweepAxis {
  std::string key_path;  // e.g. "dram.channels"
  std::vector<std::string> values;  // YAML text of each value, applied like --set key_path=value
};

struct RunSpec {
  std::string name;
  std::vector<std::string> accelerator_files;
  std::vector<RunModel> models;
  std::vector<SweepAxis> sweep;
  // The key `fidelity`: every job runs with --fidelity this (docs/performance.md, "Fast mode").
  spec::Fidelity fidelity = spec::Fidelity::exact;
};

}  // namespace reusesim::config
