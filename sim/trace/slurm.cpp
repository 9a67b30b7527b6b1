#include "trace/slurm.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "trace/process.h"
#include "trace/trace_runner.h"
#include "util/strings.h"

namespace reusesim::trace {

namespace {

// The #SBATCH lines both jobs share: the name, partition, time and the user's own.
std::string common_lines(const std::string& job_name, const SlurmOptions& options) {
  std::string lines = "#SBATCH --job-name=" + job_name + "\n";
  if (!options.partition.empty()) lines += "#SBATCH --partition=" + options.partition + "\n";
  if (!options.time.empty()) lines += "#SBATCH --time=" + options.time + "\n";
  for (const std::string& argument : options.sbatch_args) lines += "#SBATCH " + argument + "\n";
  return lines;
}

// Job names keep letters, digits and "._-".
std::string job_name(const std::string& trace_name) {
  std::string name = "reusesim-";
  for (char c : trace_name) name += std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' ? c : '_';
  return name;
}

}  // namespace

bool valid_slurm_time(const std::string& text) {
  // M, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED, every field decimal digits.
  if (text == "UNLIMITED") return true;
  const std::vector<std::string> days_and_time = util::split(text, '-');
  if (days_and_time.size() > 2 || (days_and_time.size() == 2 && !util::all_digits(days_and_time[0]))) return false;
  const std::vector<std::string> fields = util::split(days_and_time.back(), ':');
  return fields.size() <= 3 && std::all_of(fields.begin(), fields.end(), util::all_digits);
}

std::string array_script(const std::string& trace_name, const ShardSplit& split, const std::string& executable,
                         const std::string& out_dir, const SlurmOptions& options) {
  const std::string shards = std::to_string(split.count());
  std::vector<std::string> command{executable, "trace"};
  command.insert(command.end(), split.arguments.begin(), split.arguments.end());
  command.insert(command.end(), {"--out", out_dir});
  return "#!/bin/bash\n"
         "# Written by reusesim trace --slurm: array task K runs shard K of " + shards + " of trace " + trace_name +
         ".\n# Resubmit some tasks with: sbatch --array=2,4 " + util::shell_command({out_dir + "/shards/array.sbatch"}) +
         "\n" + common_lines(job_name(trace_name), options) + "#SBATCH --array=1-" + shards + "\n" +
         "#SBATCH --output=" + out_dir + "/shards/shard-%a.log\n" +
         // --resume: a resubmitted task keeps what its shard finished before.
         "exec " + util::shell_command(command) + " --shard \"$SLURM_ARRAY_TASK_ID/" + shards +
         "\" --resume --jobs \"${SLURM_CPUS_PER_TASK:-1}\"\n";
}

std::string collect_script(const std::string& trace_name, const std::string& executable, const std::string& out_dir,
                           const SlurmOptions& options) {
  return "#!/bin/bash\n"
         "# Written by reusesim trace --slurm: merges the shards of trace " + trace_name +
         " once every array task has ended.\n" + common_lines(job_name(trace_name) + "-collect", options) +
         "#SBATCH --output=" + out_dir + "/shards/collect.log\n" +
         "exec " + util::shell_command({executable, "trace", out_dir, "--collect"}) + "\n";
}

void prepare_submission(const TracePlan& plan, const ShardSplit& split, const std::string& out_dir,
                        ResultsDirectory::Existing existing, const std::string& executable, const SlurmOptions& options) {
  const ExclusiveUse hold(out_dir);
  ResultsDirectory results(out_dir, plan);
  results.prepare(existing);
  results.record_split(split);
  results.write_shard_file("array.sbatch", array_script(plan.name, split, executable, out_dir, options));
  results.write_shard_file("collect.sbatch", collect_script(plan.name, executable, out_dir, options));
  results.load_finished();
  results.write_tables();
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream directories(path != nullptr ? path : "");
  std::string directory;
  while (std::getline(directories, directory, ':')) {
    const std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string submit(const std::string& sbatch, const std::vector<std::string>& extra, const std::string& script) {
  std::vector<std::string> arguments{"--parsable"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  arguments.push_back(script);
  const auto [exit, output] = run_capturing_output(sbatch, arguments);
  // --parsable prints "id" or "id;cluster" as its last line.
  std::string last_line = output;
  if (!last_line.empty() && last_line.back() == '\n') last_line.pop_back();
  last_line = last_line.substr(last_line.rfind('\n') + 1);  // npos + 1: the whole text
  const std::string id = last_line.substr(0, last_line.find(';'));
  if (!exit.ok() || !util::all_digits(id)) {
    throw std::runtime_error("sbatch " + util::shell_command({script}) + " failed (" + exit.describe() +
                             "): " + output);
  }
  return id;
}

}  // namespace reusesim::trace
