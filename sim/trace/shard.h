#pragma once
// A trace split into shards that run apart (Slurm array tasks, or machines of one's own) into one
// results directory: shard K of N (K from 1 to N, as `--shard 2/4` reads: the second of four) runs a
// fixed part of the plan's jobs. The split depends on the plan and N alone, so every shard computes
// the same one, and it is balanced by each job's estimated run time, not by the number of jobs.
// The results directory keeps, in shards/ (docs/slurm.md):
//   split.json     the split: the plan's hash, N, each shard's jobs, and the trace's arguments
//   shard-K.json   shard K's record: its plan's hash and how it ended ("running" until it does)

#include <cstddef>
#include <string>
#include <vector>

#include "trace/trace_plan.h"

namespace reusesim::trace {

struct Shard {
  std::size_t number = 1;  // 1..count
  std::size_t count = 1;
};

// A job's estimated run time in seconds on one core: process start-up and planning, then its
// layers, MACs and recurrent time steps, scaled by its variant's element size (the bytes the
// replay moves). Only the ratios between jobs matter for balancing.
double estimated_job_seconds(const TraceJob& job, const TracePanel& panel);

// The indices into plan.jobs of each shard's jobs (shard K at K - 1), each in plan order: the
// longest job first (in plan order among equals) goes to the shard with the least estimated time
// so far; on a tie, to the one with the fewest jobs of its variant (panel), then the lowest. The
// same job on different variants is estimated alike but may run for very different times: so a
// shard gets a mix of variants, not whole ones.
std::vector<std::vector<std::size_t>> split_jobs(const TracePlan& plan, std::size_t count);

struct ShardSplit {
  std::string plan_hash;  // content_hash of trace.json
  // The trace as given (the run file, --set ..., --timeline, --job-timeout ...): each shard is
  // `reusesim trace ARGUMENTS --out DIR --shard K/N`.
  std::vector<std::string> arguments;
  std::vector<std::vector<std::string>> job_ids;  // per shard, shard K at K - 1
  std::size_t count() const { return job_ids.size(); }
};

ShardSplit make_split(const TracePlan& plan, std::size_t count, std::vector<std::string> arguments);
std::string split_json(const ShardSplit& split);
// Throws std::runtime_error naming `origin` when `text` is not split_json's.
ShardSplit read_split_json(const std::string& text, const std::string& origin);

// How a shard ended: "running" from its start, then "done" (every job finished), "failed" (some
// job failed) or "interrupted" (stopped by a signal). A task killed outright stays "running".
struct ShardRecord {
  std::string plan_hash;
  Shard shard;
  std::string status;
  std::size_t jobs = 0, done = 0, failed = 0;
};

std::string shard_record_json(const ShardRecord& record);
ShardRecord read_shard_record(const std::string& text, const std::string& origin);

// What differs between two JSON documents (trace.json or shards/split.json as recorded, and as
// made now): the first field that differs, by its path, with both values, and how many more do:
// `jobs[0].batch is 1 in RECORDED_NAME, 2 GIVEN_NAME (and 11 more field(s) differ)`, GIVEN_NAME
// being "as given now" or "in DIR/trace.json". "" when they are equal.
std::string json_difference(const std::string& recorded, const std::string& recorded_name, const std::string& given,
                            const std::string& given_name);

// shards/ names of shard 3's record and Slurm log: "shard-3.json", "shard-3.log".
std::string shard_record_name(std::size_t number);
std::string shard_log_name(std::size_t number);

}  // namespace reusesim::trace
