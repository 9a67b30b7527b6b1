#pragma once
// Runs the jobs of a trace plan in parallel worker processes (`reusesim run`, one per job),
// collecting results into a ResultsDirectory as they complete. A failing job is recorded with
// its error and does not stop the others. SIGINT or SIGTERM stops the workers, keeps every
// finished job, and leaves the rest for --resume.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "trace/directory_lock.h"
#include "trace/results_directory.h"
#include "trace/shard.h"
#include "trace/trace_plan.h"

namespace reusesim::trace {

struct TraceOptions {
  std::string out_dir;
  std::size_t workers = 1;
  ResultsDirectory::Existing existing = ResultsDirectory::Existing::refuse;  // --resume, --overwrite
  bool timeline = false;  // each job also writes timeline.json
  // --job-timeout: every job's time limit in seconds, 0 for none; unset: each job's own limit
  // (TraceJob::time_limit_seconds). A job past it is killed and recorded as failed.
  std::optional<std::int64_t> job_timeout_seconds;
};

struct TraceSummary {
  std::size_t skipped = 0;  // already finished (--resume)
  std::size_t done = 0;
  std::size_t failed = 0;
  std::size_t not_run = 0;  // left for --resume after an interruption
  bool interrupted = false;
};

// A whole trace's hold on its results directory, from start to figure: the directory's exclusive
// lock, and that of its shards/ when there is one, so that nothing else runs while any shard does.
class ExclusiveUse {
 public:
  explicit ExclusiveUse(const std::string& out_dir);

 private:
  DirectoryLock directory_;
  std::optional<DirectoryLock> shards_;
};

// Every job of the plan, into a directory the caller holds (ExclusiveUse), with its tables.
// `progress_out` gets the progress (a bar when `terminal`, else plain lines).
TraceSummary run_trace(const TracePlan& plan, const TraceOptions& options, std::ostream& progress_out, bool terminal);

// The jobs of one shard of `split` (options.existing: refuse or resume). It locks the directory
// itself: exclusively only while preparing it (ResultsDirectory::prepare_shard, waiting for other
// shards doing the same), then shards/ shared while its jobs run, so shards run side by side and a
// whole trace or --collect waits for them. Its record (shard.h) says "running" from the start and
// how it ended at the end. No tables: --collect writes them once every shard has ended.
TraceSummary run_shard(const TracePlan& plan, const ShardSplit& split, const Shard& shard, const TraceOptions& options,
                       std::ostream& progress_out, bool terminal);

}  // namespace reusesim::trace
