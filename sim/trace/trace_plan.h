#pragma once
// A batch trace expanded into jobs: every accelerator file x every combination of sweep values
// (a panel of the figure each) x every model entry x every sequence or context length x every
// batch size. A job is one `reusesim run`
// of one batch, in a worker process of its own (SystemC elaborates once per process).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/run_spec.h"
#include "spec/accelerator_spec.h"
#include "spec/fidelity.h"

namespace reusesim::trace {

// One accelerator variant: a file with one value of every sweep axis applied.
struct TracePanel {
  std::string title;  // "snowflake", or "small, dram.channels=2"
  std::string accelerator;  // the accelerator's name
  std::string accelerator_file;
  std::vector<std::pair<std::string, std::string>> sweep;  // key path, value
  double peak_gops = 0;
  double dram_gbps = 0;  // infinity for an unlimited ideal memory: no DRAM roof
  std::optional<double> sram_gops;  // the SRAM ceiling, when it is below the compute peak
  // The network-on-chip's read bound (timing::noc_read_bytes_per_second), when it is below the
  // DRAM's: the memory slope is then the NoC's.
  std::optional<double> noc_gbps;
  // The element size, for estimating its jobs' cost (shard.h); not in trace.json.
  std::int64_t operand_bits = 0;
  // A system's panel (its roofs are its chip's, its layers chip 0's): its chips, and the run file's
  // plan, by its label and the --set assignments it makes on this system ("" and none: the system
  // file's own plan). 0 chips: an accelerator.
  std::int64_t chips = 0;
  std::string plan;
  std::vector<std::string> plan_assignments;

  bool system() const { return chips > 0; }
};

struct TraceJob {
  std::string id;  // "0007-snowflake-alexnet-fc6+fc7-b4": the order, then what it runs
  std::size_t panel = 0;
  std::string model;  // the network's name
  std::string model_file;
  std::vector<std::string> layers;       // run only these (empty: all)
  std::vector<std::string> layer_types;  // run only layers of these types (empty: all)
  std::int64_t batch = 1;
  // Sequence models: the phase as the run file gives it ("" when it does not), the prefill's
  // tokens per sample (0: the model's) or the decode step's context.
  std::string phase;
  config::Phase lengths;
  std::string optimizer;  // a training step with this optimizer; "" for inference
  // The default time limit for the job's size (job_time_limit_seconds); not in trace.json.
  std::int64_t time_limit_seconds = 0;
  // Its size, for estimating its cost (shard.h); not in trace.json.
  std::size_t layer_count = 0;       // layers it runs
  std::int64_t macs = 0;             // MACs of those layers x batch (saturated)
  double recurrent_steps = 0;        // time steps its recurrent layers replay one after another
  // Tokens a sample runs, as run counts them for tokens_per_s (a transformer's; 0 otherwise): a
  // system job's of one chip has no system table, so the trace makes its row (in trace.json only on
  // a system's jobs).
  std::int64_t tokens_per_sample = 0;

  // "all", or which part of the model runs: "layers fc6+fc7", "types gru"; a training step's
  // "train adam".
  std::string selection() const;
  bool training() const { return !optimizer.empty(); }
  bool whole_model() const { return layers.empty() && layer_types.empty(); }
  // The model and what of it runs, as the figure names it: "gpt2", "gpt2 decode L=512".
  std::string workload() const;
};

struct TracePlan {
  std::string name;
  std::string run_file;
  // Every file the plan's jobs depend on (the run file, and each model, accelerator and DRAM
  // preset file read to plan and validate it), absolute path -> content hash (content_hash).
  std::map<std::string, std::string> inputs;
  std::vector<std::string> sweep_keys;  // the swept key paths, in run-file order
  spec::Fidelity fidelity = spec::Fidelity::exact;  // every job's (the run file's key fidelity)
  std::vector<TracePanel> panels;
  std::vector<TraceJob> jobs;

  bool any_training() const;
  bool any_system() const;
  // Whether some panel runs a plan of the run file's `plans:` (the tables then have a plan column).
  bool any_plan() const;
};

// A job's default time limit, generous for its size: 60 s, plus 2 s per layer it runs, plus 100 s
// per 10^9 MACs (per-sample MACs of its layers x batch), rounded up. The slowest jobs measured ran
// at about 20 s per 10^9 MACs (DeepSpeech2's GRUs at batch 1, on a loaded 2-core machine) and the
// zoo's jobs took 0.3-11 s, under a tenth of their limits; a job past its limit is hung, not slow.
std::int64_t job_time_limit_seconds(std::size_t layers, std::int64_t macs_per_sample, std::int64_t batch);

// Expands a validated run file (config::load_run_file) into panels and jobs, in a fixed order:
// accelerator files, then sweep combinations (the first axis slowest), then model entries, then batches.
TracePlan plan_trace(const config::RunSpec& run, const std::string& run_file);

// Loads the run file (with `--set` overrides), plans it and hashes every file read doing so.
// Throws util::InputError for bad input, std::runtime_error when a file cannot be read again.
TracePlan plan_trace_file(const std::string& run_file, const std::vector<std::string>& overrides);

// FNV-1a 64 of `bytes`, as 16 lower-case hex digits.
std::string content_hash(const std::string& bytes);

// The inputs that differ between the plan a trace started with and the plan made now, each as
// "path: what" ("changed since the trace started", "no longer read", ...); empty when none does.
std::vector<std::string> changed_inputs(const TracePlan& started, const TracePlan& now);

// The `reusesim run` arguments of a job that writes its results to `out_dir`.
std::vector<std::string> run_arguments(const TracePlan& plan, const TraceJob& job, const std::string& out_dir,
                                       bool timeline);

// The plan as JSON (trace.json in the results directory): what a resumed run must match and what
// `reusesim figure` reads back. Paths are absolute so a run can be resumed from anywhere.
std::string plan_json(const TracePlan& plan);
// Reads plan_json's output; throws std::runtime_error naming `origin` when it is not one.
TracePlan read_plan_json(const std::string& text, const std::string& origin);

}  // namespace reusesim::trace
