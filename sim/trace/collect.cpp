#include "trace/collect.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "trace/results_directory.h"

namespace reusesim::trace {

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

// Why shard `number` left jobs unfinished, from its record (if it wrote one).
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

}  // namespace

Collection collect_shards(const std::string& results_dir) {
  const fs::path directory(results_dir);
  std::error_code error;
  if (!fs::exists(directory / "trace.json", error)) {
    throw std::runtime_error(results_dir + " holds no trace results (no trace.json); --collect gathers the shards " +
                             "of a trace run with --shard K/N or --slurm into one directory");
  }
  if (!fs::exists(directory / "shards" / "split.json", error)) {
    throw std::runtime_error(results_dir + " holds a trace that was not sharded (no shards/split.json): its tables " +
                             "are complete already, or `reusesim trace RUN.yaml --out " + results_dir +
                             " --resume` completes them");
  }
  const std::string plan_text = read_text(directory / "trace.json");
  const TracePlan plan = read_plan_json(plan_text, (directory / "trace.json").string());
  const ShardSplit split = read_split_json(read_text(directory / "shards" / "split.json"),
                                           (directory / "shards" / "split.json").string());
  if (split.plan_hash != content_hash(plan_text)) {
    throw std::runtime_error(results_dir + ": shards/split.json is of another plan than trace.json; run the trace " +
                             "again into a new --out directory");
  }
  ResultsDirectory results(results_dir, plan);
  results.load_finished();
  results.write_tables();

  Collection collection;
  collection.jobs = plan.jobs.size();
  collection.shards = split.count();
  const std::string absolute_dir = fs::absolute(directory).lexically_normal().string();
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
