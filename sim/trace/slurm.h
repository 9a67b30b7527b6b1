#pragma once
// A sharded trace as a Slurm job array (docs/slurm.md): array task K runs shard K of N
// (`--array=1-N`, so SLURM_ARRAY_TASK_ID is the shard's number), with the same binary and
// absolute paths, and a collect job, run after every task has ended (afterany), merges them.
// The scripts go into the results directory's shards/, where the tasks' logs go too.

#include <string>
#include <vector>

#include "trace/results_directory.h"
#include "trace/shard.h"

namespace reusesim::trace {

struct SlurmOptions {
  std::string partition;  // "": the cluster's default
  std::string time;       // sbatch --time; "": the partition's default
  std::vector<std::string> sbatch_args;  // more #SBATCH lines, as given (--account=a, --cpus-per-task=8)
};

// Whether `text` is a time sbatch takes: minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or UNLIMITED.
bool valid_slurm_time(const std::string& text);

// The array job's script: `executable` trace ARGUMENTS --out `out_dir` --shard K/N --resume in
// each task, as many workers as the task has CPUs. `out_dir` is absolute.
std::string array_script(const std::string& trace_name, const ShardSplit& split, const std::string& executable,
                         const std::string& out_dir, const SlurmOptions& options);
// The collect job's script: `executable` trace `out_dir` --collect.
std::string collect_script(const std::string& trace_name, const std::string& executable, const std::string& out_dir,
                           const SlurmOptions& options);

// Prepares `out_dir` for a submission, holding it meanwhile (ExclusiveUse): the trace as
// ResultsDirectory::prepare does with `existing`, then shards/ afresh with the split, both scripts
// (array.sbatch, collect.sbatch) and the tables with every job pending.
void prepare_submission(const TracePlan& plan, const ShardSplit& split, const std::string& out_dir,
                        ResultsDirectory::Existing existing, const std::string& executable, const SlurmOptions& options);

// The path of `program` in a directory of $PATH, or "" when none has it.
std::string find_on_path(const std::string& program);

// Submits `script` with `sbatch` (and `extra` arguments before it) and gives the job id. Throws
// std::runtime_error with sbatch's own message when it refuses.
std::string submit(const std::string& sbatch, const std::vector<std::string>& extra, const std::string& script);

}  // namespace reusesim::trace
