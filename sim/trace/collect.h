#pragma once
// --collect: the shards of a trace (shard.h), run into one results directory, gathered into one
// result. The tables are rebuilt from every finished job, in plan order, exactly as a trace on one
// machine writes them; a shard that left jobs unfinished is named with why and how to complete it.

#include <cstddef>
#include <string>
#include <vector>

#include "trace/shard.h"

namespace reusesim::trace {

struct UnfinishedShard {
  Shard shard;
  std::string why;  // "never started", "3 of 6 job(s) failed", ...
  // The `reusesim trace` arguments (after the program) that complete it.
  std::vector<std::string> rerun;
};

struct Collection {
  std::size_t jobs = 0, done = 0, failed = 0;  // of the whole plan
  std::size_t shards = 0;
  std::vector<UnfinishedShard> unfinished;
};

// Reads trace.json and shards/split.json of `results_dir`, which the caller holds (ExclusiveUse),
// and rewrites jobs.csv, layers.csv and networks.csv. Throws std::runtime_error when the directory
// holds no sharded trace or its files disagree.
Collection collect_shards(const std::string& results_dir);

// Shards run into separate directories (--collect --from): the one plan and split they all hold.
struct ShardSources {
  std::vector<std::string> directories;
  std::string plan_text;  // their trace.json
  ShardSplit split;
};
// Throws std::runtime_error unless every directory holds a sharded trace, all the same plan split
// the same way. Reads only.
ShardSources check_sources(const std::vector<std::string>& directories);
// Copies into `results_dir` (created if missing, or holding this plan and split) what it lacks of
// the sources (ResultsDirectory::copy_from), before collect_shards; the caller holds them all
// (ExclusiveUse). Gives the number of jobs copied.
std::size_t merge_shards(const std::string& results_dir, const ShardSources& sources);

}  // namespace reusesim::trace
