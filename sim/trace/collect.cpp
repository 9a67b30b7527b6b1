#include "trace/collect.h"

#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "trace/results_directory.h"
#include "util/strings.h"

namespace reusesim::trace {

namespace {

namespace fs = std::filesystem;

// Why a shard left `unfinished` of its `jobs` unfinished (`failed` of them failed), from its
// record `record_file` when it wrote one.
std::string why_unfinished(const fs::path& record_file, const ShardSplit& split, std::size_t failed,
                           std::size_t unfinished, std::size_t jobs) {
  const std::string counts = std::to_string(unfinished) + " of " + std::to_string(jobs) + " job(s) not finished";
  std::error_code error;
  if (!fs::exists(record_file, error)) return "never started (" + counts + ")";
  const ShardRecord record = read_shard_record(read_text(record_file), record_file.string());
  if (record.plan_hash != split.plan_hash) return "its record is of another plan (" + counts + ")";
  if (record.status == "running") {
    return "ended without finishing: killed (scancel, its time limit, a node failure) or still running (" + counts + ")";
  }
  if (record.status == "interrupted") return "interrupted by SIGTERM or SIGINT (" + counts + ")";
  if (failed > 0) return std::to_string(failed) + " of " + std::to_string(jobs) + " job(s) failed";
  return counts;
}

// The plan (trace.json's text) and split a results directory holds; throws when it holds none.
std::pair<std::string, ShardSplit> sharded_trace(const fs::path& directory) {
  std::error_code error;
  if (!fs::exists(directory / "trace.json", error)) {
    throw std::runtime_error(directory.string() + " holds no trace results (no trace.json); --collect gathers the " +
                             "shards of a trace run with --shard K/N or --slurm");
  }
  if (!fs::exists(directory / "shards" / "split.json", error)) {
    throw std::runtime_error(directory.string() + " holds a trace that was not sharded (no shards/split.json): its " +
                             "tables are complete already, or `reusesim trace RUN.yaml --out " +
                             util::shell_quote(directory.string()) + " --resume` completes them");
  }
  const std::string plan_text = read_text(directory / "trace.json");
  ShardSplit split = read_split_json(read_text(directory / "shards" / "split.json"),
                                     (directory / "shards" / "split.json").string());
  if (split.plan_hash != content_hash(plan_text)) {
    throw std::runtime_error(directory.string() + ": shards/split.json is of another plan than trace.json; run the " +
                             "trace again into a new --out directory");
  }
  return {plan_text, std::move(split)};
}

}  // namespace

ShardSources check_sources(const std::vector<std::string>& directories) {
  ShardSources sources{directories, "", {}};
  std::tie(sources.plan_text, sources.split) = sharded_trace(directories.at(0));
  for (const std::string& directory : directories) {
    const auto [plan_text, split] = sharded_trace(directory);
    const std::string& first = directories[0];
    std::string difference =
        json_difference(sources.plan_text, first + "/trace.json", plan_text, "in " + directory + "/trace.json");
    if (difference.empty()) {
      difference = json_difference(split_json(sources.split), first + "/shards/split.json", split_json(split),
                                   "in " + directory + "/shards/split.json");
    }
    if (!difference.empty()) {
      throw std::runtime_error(directory + " holds shards of another trace or split than " + first + " (" + difference +
                               "); merge only the shards of one trace");
    }
  }
  return sources;
}

std::size_t merge_shards(const std::string& results_dir, const ShardSources& sources) {
  const TracePlan plan = read_plan_json(sources.plan_text, sources.directories[0] + "/trace.json");
  ResultsDirectory results(results_dir, plan);
  results.prepare_merge(sources.split);
  std::size_t copied = 0;
  for (const std::string& source : sources.directories) copied += results.copy_from(source, sources.split);
  return copied;
}

Collection collect_shards(const std::string& results_dir) {
  const fs::path directory(results_dir);
  const auto [plan_text, split] = sharded_trace(directory);
  const TracePlan plan = read_plan_json(plan_text, (directory / "trace.json").string());
  ResultsDirectory results(results_dir, plan);
  results.load_finished();
  results.write_tables();

  Collection collection;
  collection.jobs = plan.jobs.size();
  collection.shards = split.count();
  const std::string absolute_dir = fs::absolute(directory).lexically_normal().string();
  std::error_code error;
  for (std::size_t number = 1; number <= split.count(); ++number) {
    std::size_t failed = 0, unfinished = 0;
    const std::vector<std::string>& ids = split.job_ids[number - 1];
    for (const std::string& id : ids) {
      if (fs::exists(directory / "jobs" / id / "job.json", error)) continue;
      ++unfinished;
      if (fs::exists(directory / "jobs" / (id + ".failed"), error)) ++failed;
    }
    collection.done += ids.size() - unfinished;
    collection.failed += failed;
    if (unfinished == 0) continue;
    UnfinishedShard shard{Shard{number, split.count()}, "", split.arguments};
    shard.why = why_unfinished(directory / "shards" / shard_record_name(number), split, failed, unfinished, ids.size());
    const std::string shard_text = std::to_string(number) + "/" + std::to_string(split.count());
    shard.rerun.insert(shard.rerun.end(), {"--out", absolute_dir, "--shard", shard_text, "--resume"});
    collection.unfinished.push_back(std::move(shard));
  }
  return collection;
}

}  // namespace reusesim::trace
