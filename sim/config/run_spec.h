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

// One degree of a run file's plan (docs/traces-and-figure.md, "Systems"): a count, or `chips`,
// the chips the plan's other degrees leave on the system the job runs on.
struct PlanDegree {
  std::int64_t count = 1;
  bool rest_of_chips = false;
};

// One entry of a run file's `plans:`, applied to every system (and swept chip count) of the run as
// --set plan.tensor=..., plan.pipeline=..., plan.data=..., plan.micro_batches=... . At most one
// degree is `chips`.
struct RunPlan {
  PlanDegree tensor, pipeline, data;
  std::int64_t micro_batches = 1;
  std::string label;  // the keys as the file gives them: "tensor=chips", "tensor=2,data=chips"

  // The product of the degrees given as counts: what a `chips` degree divides the chips by.
  std::int64_t fixed_chips() const;
  // Whether the plan fits a system of `chips` chips: without a `chips` degree always (the system
  // loader checks the product), with one when the fixed degrees divide the chips.
  bool divides(std::int64_t chips) const;
  // The --set assignments of the plan on a system of `chips` chips (divides(chips)), every key given.
  std::vector<std::string> assignments(std::int64_t chips) const;
};

struct RunSpec {
  std::string name;
  std::vector<std::string> accelerator_files;
  std::vector<RunModel> models;
  std::vector<SweepAxis> sweep;
  // Plans for the system files in `accelerator_files` (empty: each system runs its file's plan);
  // the jobs take every system variant x every plan.
  std::vector<RunPlan> plans;
  // The key `fidelity`: every job runs with --fidelity this (docs/performance.md, "Fast mode").
  spec::Fidelity fidelity = spec::Fidelity::exact;
};

}  // namespace reusesim::config
