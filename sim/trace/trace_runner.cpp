#include "trace/trace_runner.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "trace/process.h"
#include "trace/progress.h"
#include "trace/results_directory.h"

namespace reusesim::trace {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int) { stop_requested = 1; }

// Catches SIGINT and SIGTERM while alive, restoring the previous handlers after.
class StopSignals {
 public:
  StopSignals() {
    stop_requested = 0;
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

struct RunningJob {
  const TraceJob* job;
  std::string dir;
  std::chrono::steady_clock::time_point started;
  std::int64_t limit_seconds;  // 0: none
  bool timed_out = false;      // killed for running past the limit
};

// Kills every job past its time limit, with SIGKILL: a job stuck in a loop cannot catch or ignore it.
void kill_overdue(std::map<pid_t, RunningJob>& running) {
  const auto now = std::chrono::steady_clock::now();
  for (auto& [pid, run] : running) {
    if (run.timed_out || run.limit_seconds == 0 || now - run.started < std::chrono::seconds(run.limit_seconds)) continue;
    kill(pid, SIGKILL);
    run.timed_out = true;
  }
}

std::string read_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

// Tables are rewritten at most this often while jobs finish, and always at the end.
constexpr std::chrono::milliseconds kTableInterval{1000};
constexpr std::chrono::milliseconds kPollInterval{20};
// Shards starting together each prepare the directory in turn, for milliseconds; a whole trace
// holds it to the end, so a shard gives up after this.
constexpr std::chrono::milliseconds kShardPrepareWait{60'000};

// Runs `jobs` into `results`, prepared; with `tables`, rewrites the tables as they finish.
TraceSummary run_jobs(const TracePlan& plan, const std::vector<const TraceJob*>& jobs, ResultsDirectory& results,
                      const TraceOptions& options, bool tables, std::ostream& progress_out, bool terminal) {
  TraceSummary summary;
  std::deque<const TraceJob*> pending;
  for (const TraceJob* job : jobs) {
    if (results.finished(*job)) {
      ++summary.skipped;
    } else {
      pending.push_back(job);
    }
  }
  if (tables) {
    results.load_finished();
    results.write_tables();
  }

  const std::string executable = own_executable();
  const StopSignals signals;
  Progress progress(progress_out, terminal, jobs.size(), summary.skipped);
  std::map<pid_t, RunningJob> running;
  bool stopping = false;
  auto last_tables = std::chrono::steady_clock::now();
  while (!pending.empty() || !running.empty()) {
    if (stop_requested && !stopping) {
      stopping = true;
      for (const auto& [pid, job] : running) kill(pid, SIGTERM);
    }
    while (!stopping && running.size() < options.workers && !pending.empty()) {
      const TraceJob& job = *pending.front();
      pending.pop_front();
      const std::string dir = results.start(job);
      const pid_t pid = start_process(executable, run_arguments(plan, job, dir, options.timeline), dir + "/stdout.txt",
                                      dir + "/stderr.txt", ChildKind::worker);
      running[pid] = RunningJob{&job, dir, std::chrono::steady_clock::now(),
                                options.job_timeout_seconds.value_or(job.time_limit_seconds)};
      progress.job_started();
    }
    if (stopping && running.empty()) break;
    kill_overdue(running);
    const auto ended = collect_ended_child();
    if (!ended) {
      progress.tick();
      std::this_thread::sleep_for(kPollInterval);
      continue;
    }
    const auto found = running.find(ended->first);
    if (found == running.end()) continue;  // not one of ours
    const RunningJob run = found->second;
    running.erase(found);
    const ProcessExit& exit = ended->second;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.started).count();
    if (stopping && !exit.ok()) {
      results.abandon(*run.job);
      progress.job_stopped();
    } else {
      std::string error = run.timed_out ? "timed out after " + std::to_string(run.limit_seconds) +
                                              " s and was killed (--job-timeout sets the limit)"
                                        : failure_summary(read_file(run.dir + "/stderr.txt"), exit.describe());
      if (exit.ok()) {
        try {
          results.finish(*run.job);
          ++summary.done;
          progress.job_done(run.job->id, seconds);
          error.clear();
        } catch (const std::exception& problem) {
          error = problem.what();
        }
      }
      if (!error.empty()) {
        results.fail(*run.job, error);
        ++summary.failed;
        progress.job_failed(run.job->id, error);
      }
    }
    if (tables && std::chrono::steady_clock::now() - last_tables >= kTableInterval) {
      results.write_tables();
      last_tables = std::chrono::steady_clock::now();
    }
  }
  progress.close();
  if (tables) results.write_tables();
  summary.interrupted = stopping;
  summary.not_run = jobs.size() - summary.skipped - summary.done - summary.failed;
  return summary;
}

}  // namespace

ExclusiveUse::ExclusiveUse(const std::string& out_dir) : directory_(out_dir) {
  const std::string shards = (std::filesystem::path(out_dir) / "shards").string();
  std::error_code error;
  if (std::filesystem::is_directory(shards, error)) shards_.emplace(shards);
}

TraceSummary run_trace(const TracePlan& plan, const TraceOptions& options, std::ostream& progress_out, bool terminal) {
  ResultsDirectory results(options.out_dir, plan);
  results.prepare(options.existing);
  std::vector<const TraceJob*> jobs;
  for (const TraceJob& job : plan.jobs) jobs.push_back(&job);
  return run_jobs(plan, jobs, results, options, true, progress_out, terminal);
}

TraceSummary run_shard(const TracePlan& plan, const ShardSplit& split, const Shard& shard, const TraceOptions& options,
                       std::ostream& progress_out, bool terminal) {
  ResultsDirectory results(options.out_dir, plan);
  std::optional<DirectoryLock> running;
  {
    const DirectoryLock preparing(options.out_dir, DirectoryLock::Mode::exclusive, kShardPrepareWait);
    results.prepare_shard(split, shard, options.existing == ResultsDirectory::Existing::resume);
    running.emplace(results.path("shards"), DirectoryLock::Mode::shared);
  }
  std::vector<const TraceJob*> jobs;
  for (const std::string& id : split.job_ids.at(shard.number - 1)) {
    const auto job = std::find_if(plan.jobs.begin(), plan.jobs.end(), [&](const TraceJob& j) { return j.id == id; });
    jobs.push_back(&*job);
  }
  ShardRecord record{split.plan_hash, shard, "running", jobs.size(), 0, 0};
  const std::string record_name = shard_record_name(shard.number);
  results.write_shard_file(record_name, shard_record_json(record));
  const TraceSummary summary = run_jobs(plan, jobs, results, options, false, progress_out, terminal);
  record.done = summary.skipped + summary.done;
  record.failed = summary.failed;
  record.status = summary.interrupted ? "interrupted" : summary.failed > 0 ? "failed" : "done";
  results.write_shard_file(record_name, shard_record_json(record));
  return summary;
}

}  // namespace reusesim::trace
