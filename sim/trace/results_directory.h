#pragma once
// The results directory of a batch trace. Nothing in it ever looks complete when it is not:
//   trace.json           the plan (what a resumed run must match; what `reusesim figure` reads)
//   jobs/<id>/           a finished job: results.csv, results.json, config.json, stats.txt, job.json
//                        (and timeline.json); it is renamed into place from <id>.partial/ in one step
//   jobs/<id>.failed/    a failed job's stderr.txt and error.txt, what went wrong (retried by --resume)
//   jobs.csv             every job with its status: done, failed or pending
//   layers.csv           layer rows of every finished job: the job columns, then `reusesim run`'s
//   networks.csv         the TOTAL row of every finished job, the same columns
//   systems.csv          with systems: the system table row of every finished system job
//   shards/              a sharded trace's split, shard records, Slurm scripts and logs (shard.h)
// Tables are rebuilt from the finished jobs in plan order, so they do not depend on which worker
// finished first, and are written atomically. The directory, jobs/ and every job directory are
// ReuseSim's (util/output_files.h): each manifest names what ReuseSim wrote there, and only that
// is ever replaced or deleted.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trace/shard.h"
#include "trace/trace_plan.h"

namespace reusesim::trace {

class ResultsDirectory {
 public:
  ResultsDirectory(std::string directory, const TracePlan& plan);

  enum class Existing { refuse, resume, overwrite };
  // Creates the directory and writes trace.json. A directory that already holds a trace is refused,
  // or resumed (it must hold this same plan; what unfinished runs left behind is cleared). With
  // overwrite, everything ReuseSim wrote in it is deleted first; anything else found there, at any
  // depth, refuses the run before anything is deleted. A non-empty directory without ReuseSim's
  // manifest is always refused. Throws std::runtime_error saying what to do otherwise.
  void prepare(Existing existing);

  // A shard joining the directory (shard.h): it may hold no trace yet (then it is prepared as
  // above), or this same plan split the same way. Without `resume`, a shard whose jobs or record
  // are already there is refused; with it, only this shard's leftovers are cleared, as other
  // shards may be running. Checks everything before writing anything.
  void prepare_shard(const ShardSplit& split, const Shard& shard, bool resume);
  // --collect --from: joins `split` as prepare_shard does, with no jobs of its own.
  void prepare_merge(const ShardSplit& split);
  // Copies from `source`, a results directory of this plan and `split`, what this one lacks: its
  // finished jobs, its failed ones (unless failed here too) and its shard records. Gives the
  // number of jobs copied. Only files ReuseSim wrote there (its manifests list them) are copied.
  std::size_t copy_from(const std::string& source, const ShardSplit& split);
  // For a submission (--slurm), after prepare: shards/ made afresh with `split` in it.
  void record_split(const ShardSplit& split);
  // Writes shards/`name`, a name record_split or prepare_shard claimed.
  void write_shard_file(const std::string& name, const std::string& contents) const;

  bool finished(const TraceJob& job) const;
  // Where a running job writes (created empty); stderr.txt and stdout.txt go inside.
  std::string start(const TraceJob& job);
  // The job ended well: check its files, add job.json, move it into place, take its rows.
  void finish(const TraceJob& job);
  // The job failed: keep its stderr as jobs/<id>.failed/, remember `error`.
  void fail(const TraceJob& job, const std::string& error);
  // The job was stopped (interrupted): forget its partial results.
  void abandon(const TraceJob& job);
  // Loads the rows of every job already finished (for --resume) and the errors of the failed ones.
  void load_finished();

  void write_tables() const;
  std::string path(const std::string& name) const;

 private:
  struct JobRows {
    std::vector<std::string> header;         // the names of its results.csv's columns
    std::vector<std::string> layer_lines;    // CSV lines of `reusesim run`, without the header
    std::vector<std::string> network_lines;
    // A system's run: the names of its system.csv's columns and its rows (none for an accelerator).
    std::vector<std::string> system_header;
    std::vector<std::string> system_lines;
  };

  // Throws, naming each, when the plan in `recorded_plan` (trace.json) is this trace's but a file
  // it read has changed since (a model, an accelerator, a DRAM preset, the run file).
  void refuse_changed_inputs(const std::string& recorded_plan) const;
  // Refuses a directory ReuseSim did not create; says whether it is ReuseSim's.
  bool refuse_foreign() const;
  // Refuses `recorded_plan` (trace.json's text) unless it is this plan.
  void refuse_other_plan(const std::string& recorded_plan) const;
  // prepare_shard's and prepare_merge's checks, before anything is written: the directory is
  // ReuseSim's, and holds no trace or this plan split as `split` (who: "shard 2/4", for messages).
  // Gives whether it holds the plan, and the split.
  std::pair<bool, bool> check_join(const ShardSplit& split, const std::string& who) const;
  // Then claims what shards write and records the plan and the split where missing.
  void write_join(const ShardSplit& split, bool has_plan, bool has_split);
  // Removes what an unfinished run of job `id` left: jobs/<id>.partial and jobs/<id>.failed.
  void clear_leftovers(const std::string& id) const;
  // Claims shards/ and the names a split into `count` shards writes there.
  void own_shard_entries(std::size_t count) const;
  std::string job_dir(const TraceJob& job) const;
  // The rows of the results of a job in `dir`, and their header.
  JobRows read_rows(const std::string& dir) const;
  // The tables' run columns: every column some finished job has, in the order of `reusesim run`'s
  // table (report::run_columns), so that jobs whose tables differ (a training step and an
  // inference, a chip with a shared memory and one without, a transformer's phase with energy and
  // another model) share one header, a job's rows empty in the columns its run did not have.
  std::vector<std::string> table_columns() const;
  std::string job_json(const TraceJob& job) const;
  // systems.csv: every finished system job's system.csv rows, after the job's columns, the run
  // file's plan and the samples a second.
  std::string systems_table() const;

  std::string directory_;
  const TracePlan& plan_;
  std::map<std::string, JobRows> rows_;     // by job id
  std::map<std::string, std::string> errors_;  // failed jobs, by id
};

// The fields of a CSV line as written (a field in quotes may hold commas and doubled quotes).
std::vector<std::string> csv_fields(const std::string& line);

// The whole file at `path`; throws std::runtime_error naming it when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// The first line of a failed run's stderr that says what went wrong, else how the process ended.
std::string failure_summary(const std::string& stderr_text, const std::string& how_it_ended);

}  // namespace reusesim::trace
