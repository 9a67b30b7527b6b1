#include "trace/shard.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reusesim::trace {

namespace {

// Least squares over traces/snowflake_figure.yaml's 28 jobs run one at a time on this project's
// 2-core machine (docs/slurm.md, "Sizing shards"): a worker's start-up and planning, per layer, per
// MAC replayed, and per recurrent time step (each waits for the one before: DeepSpeech2's GRUs
// take 2 s at 1/60 of ResNet-50's MACs). That trace runs 16-bit operands; the same jobs at 8 bits
// took half the CPU time, at 16 twice (the DRAM model simulates every byte).
constexpr double kStartSeconds = 0.3;
constexpr double kSecondsPerLayer = 0.001;
constexpr double kSecondsPerMac = 0.06e-9;
constexpr double kSecondsPerRecurrentStep = 0.0075;
constexpr double kFittedOperandBits = 16;

}  // namespace

double estimated_job_seconds(const TraceJob& job, const TracePanel& panel) {
  const double work_seconds = kSecondsPerLayer * static_cast<double>(job.layer_count) +
                              kSecondsPerMac * static_cast<double>(job.macs) +
                              kSecondsPerRecurrentStep * job.recurrent_steps;
  return kStartSeconds + work_seconds * static_cast<double>(panel.operand_bits) / kFittedOperandBits;
}

std::vector<std::vector<std::size_t>> split_jobs(const TracePlan& plan, std::size_t count) {
  std::vector<std::size_t> order(plan.jobs.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> cost(plan.jobs.size());
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    cost[i] = estimated_job_seconds(plan.jobs[i], plan.panels.at(plan.jobs[i].panel));
  }
  // Longest first, plan order among equals: the same split on every machine.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  std::vector<std::vector<std::size_t>> shards(count);
  std::vector<double> load_seconds(count, 0.0);
  std::vector<std::map<std::size_t, std::size_t>> jobs_of_panel(count);  // per shard: panel -> jobs
  for (std::size_t job : order) {
    const std::size_t panel = plan.jobs[job].panel;
    std::size_t best = 0;
    for (std::size_t shard = 1; shard < count; ++shard) {
      // Sums of the same costs in another order may differ in the last bits: still a tie.
      const double tolerance = 1e-9 * std::max(load_seconds[shard], load_seconds[best]);
      if (load_seconds[shard] < load_seconds[best] - tolerance ||
          (load_seconds[shard] <= load_seconds[best] + tolerance &&
           jobs_of_panel[shard][panel] < jobs_of_panel[best][panel])) {
        best = shard;
      }
    }
    shards[best].push_back(job);
    load_seconds[best] += cost[job];
    ++jobs_of_panel[best][panel];
  }
  for (std::vector<std::size_t>& jobs : shards) std::sort(jobs.begin(), jobs.end());
  return shards;
}

ShardSplit make_split(const TracePlan& plan, std::size_t count, std::vector<std::string> arguments) {
  ShardSplit split;
  split.plan_hash = content_hash(plan_json(plan));
  split.arguments = std::move(arguments);
  for (const std::vector<std::size_t>& jobs : split_jobs(plan, count)) {
    split.job_ids.emplace_back();
    for (std::size_t job : jobs) split.job_ids.back().push_back(plan.jobs[job].id);
  }
  return split;
}

std::string split_json(const ShardSplit& split) {
  nlohmann::ordered_json document{{"plan", split.plan_hash},
                                  {"shards", split.count()},
                                  {"arguments", split.arguments},
                                  {"jobs", split.job_ids}};
  return document.dump(2) + "\n";
}

ShardSplit read_split_json(const std::string& text, const std::string& origin) {
  try {
    const nlohmann::json document = nlohmann::json::parse(text);
    ShardSplit split;
    split.plan_hash = document.at("plan").get<std::string>();
    split.arguments = document.at("arguments").get<std::vector<std::string>>();
    split.job_ids = document.at("jobs").get<std::vector<std::vector<std::string>>>();
    if (split.count() != document.at("shards").get<std::size_t>() || split.count() == 0) {
      throw std::out_of_range("its shard count does not match its lists of jobs");
    }
    return split;
  } catch (const std::exception& error) {
    throw std::runtime_error(origin + " is not a ReuseSim shard split (" + error.what() + ")");
  }
}

std::string shard_record_json(const ShardRecord& record) {
  nlohmann::ordered_json document{{"plan", record.plan_hash}, {"shard", record.shard.number},
                                  {"shards", record.shard.count}, {"status", record.status},
                                  {"jobs", record.jobs},          {"done", record.done},
                                  {"failed", record.failed}};
  return document.dump(2) + "\n";
}

ShardRecord read_shard_record(const std::string& text, const std::string& origin) {
  try {
    const nlohmann::json document = nlohmann::json::parse(text);
    ShardRecord record;
    record.plan_hash = document.at("plan").get<std::string>();
    record.shard = Shard{document.at("shard").get<std::size_t>(), document.at("shards").get<std::size_t>()};
    record.status = document.at("status").get<std::string>();
    record.jobs = document.at("jobs").get<std::size_t>();
    record.done = document.at("done").get<std::size_t>();
    record.failed = document.at("failed").get<std::size_t>();
    return record;
  } catch (const std::exception& error) {
    throw std::runtime_error(origin + " is not a ReuseSim shard record (" + error.what() + ")");
  }
}

namespace {

// A value for a message: its JSON text, cut short past 80 characters.
std::string shown_value(const nlohmann::ordered_json& value) {
  constexpr std::size_t kShownCharacters = 80;
  const std::string text = value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  return text.size() <= kShownCharacters ? text : text.substr(0, kShownCharacters) + "...";
}

// One field that differs: its path, and its value in each document ("absent" where it has none).
struct FieldDifference {
  std::string path, recorded, given;
};

// Appends every leaf (or whole value, where the kinds differ) in which `a` and `b` differ, in
// document order, and every list whose length differs.
void collect_differences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b, const std::string& path,
                         std::vector<FieldDifference>& differences) {
  const auto inner = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      if (b.contains(key)) {
        collect_differences(value, b.at(key), inner(key), differences);
      } else {
        differences.push_back({inner(key), shown_value(value), "absent"});
      }
    }
    for (const auto& [key, value] : b.items()) {
      if (!a.contains(key)) differences.push_back({inner(key), "absent", shown_value(value)});
    }
  } else if (a.is_array() && b.is_array()) {
    // Item by item as far as both go, then the lengths: a job more is named after those it shifts.
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      collect_differences(a[i], b[i], path + "[" + std::to_string(i) + "]", differences);
    }
    if (a.size() != b.size()) {
      const auto items = [](std::size_t count) { return "a list of " + std::to_string(count); };
      differences.push_back({path.empty() ? "the document" : path, items(a.size()), items(b.size())});
    }
  } else if (a != b) {
    differences.push_back({path.empty() ? "the document" : path, shown_value(a), shown_value(b)});
  }
}

}  // namespace

std::string json_difference(const std::string& recorded, const std::string& recorded_name, const std::string& given,
                            const std::string& given_name) {
  nlohmann::ordered_json a, b;
  try {
    a = nlohmann::ordered_json::parse(recorded);
    b = nlohmann::ordered_json::parse(given);
  } catch (const nlohmann::json::exception&) {
    return recorded_name + " is not JSON";
  }
  std::vector<FieldDifference> differences;
  collect_differences(a, b, "", differences);
  if (differences.empty()) return "";
  const FieldDifference& first = differences.front();
  std::string text =
      first.path + " is " + first.recorded + " in " + recorded_name + ", " + first.given + " " + given_name;
  if (differences.size() > 1) text += " (and " + std::to_string(differences.size() - 1) + " more field(s) differ)";
  return text;
}

std::string shard_record_name(std::size_t number) { return "shard-" + std::to_string(number) + ".json"; }
std::string shard_log_name(std::size_t number) { return "shard-" + std::to_string(number) + ".log"; }

}  // namespace reusesim::trace
