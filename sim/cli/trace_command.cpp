#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/command_line.h"
#include "trace/collect.h"
#include "trace/figure.h"
#include "trace/process.h"
#include "trace/shard.h"
#include "trace/slurm.h"
#include "trace/trace_plan.h"
#include "trace/trace_runner.h"
#include "util/diagnostics.h"
#include "util/strings.h"
#include "util/utf8.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

constexpr std::int64_t kMaxJobTimeoutSeconds = 10'000'000;  // 16 weeks; 0 already means no limit
// --slurm's default: tasks of a few minutes each (docs/slurm.md, "Sizing shards").
constexpr std::size_t kJobsPerShard = 50;
// Slurm's default MaxArraySize is 1001: array indices 0 to 1000.
constexpr std::size_t kMaxArrayTasks = 1000;
// --collect names this many unfinished shards one by one, and summarises the rest (--verbose: all).
constexpr std::size_t kShownUnfinishedShards = 5;

// `reusesim ARGUMENTS` as a line to paste into a shell.
std::string reusesim_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> words{"reusesim"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  return util::shell_command(words);
}

// Ascending numbers as sbatch --array reads them: {3, 4, 5, 7} is "3-5,7".
std::string number_ranges(const std::vector<std::size_t>& numbers) {
  std::string text;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t last = i;
    while (last + 1 < numbers.size() && numbers[last + 1] == numbers[last] + 1) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(numbers[i]);
    if (last > i) text += "-" + std::to_string(numbers[last]);
    i = last + 1;
  }
  return text;
}

// The plan, with the hash of every input file; a file that cannot be read again is a file error.
trace::TracePlan load_plan(const std::string& trace_file, const std::vector<std::string>& overrides) {
  try {
    return trace::plan_trace_file(trace_file, overrides);
  } catch (const util::InputError&) {
    throw;
  } catch (const std::runtime_error& error) {
    throw FileError(error.what());
  }
}

void draw_figure(const std::string& results_dir) {
  try {
    trace::draw_figure(results_dir);
  } catch (const std::runtime_error& error) {
    throw FileError(error.what());
  }
  std::cout << "figure:  " << results_dir << "/figure.png, " << results_dir << "/figure.svg (points: " << results_dir
            << "/figure_points.csv)\n";
}

void print_tables(const std::string& results_dir) {
  std::cout << "tables:  " << results_dir << "/layers.csv, " << results_dir << "/networks.csv (jobs: " << results_dir
            << "/jobs.csv)\n";
}

void print_summary(const trace::TraceSummary& summary) {
  std::cerr << summary.done << " job(s) run, " << summary.skipped << " already finished, " << summary.failed
            << " failed";
  if (summary.not_run > 0) std::cerr << ", " << summary.not_run << " not run";
  std::cerr << "\n";
}

// 1 to `max_digits` decimal digits and nothing else.
bool is_short_number(const std::string& text, std::size_t max_digits) {
  return text.size() <= max_digits && util::all_digits(text);
}

// "K/N": shard K of N, K from 1 to N.
trace::Shard parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash != std::string::npos && is_short_number(text.substr(0, slash), 6) &&
      is_short_number(text.substr(slash + 1), 6)) {
    const trace::Shard shard{std::stoul(text.substr(0, slash)), std::stoul(text.substr(slash + 1))};
    if (shard.number >= 1 && shard.number <= shard.count) return shard;
  }
  throw UsageError("--shard: expected K/N, shard K of N with 1 <= K <= N (e.g. 2/4 is the second of four), got \"" +
                   text + "\"");
}

void refuse_too_many_shards(const std::string& option, std::size_t shards, std::size_t jobs) {
  if (shards > jobs) {
    throw UsageError(option + ": " + std::to_string(shards) + " shards of a trace of " + std::to_string(jobs) +
                     " job(s): at most one shard per job");
  }
}

// --shards, or one shard per kJobsPerShard jobs.
std::size_t shard_count(const po::variables_map& values, std::size_t jobs) {
  if (values.count("shards") == 0) return std::min((jobs + kJobsPerShard - 1) / kJobsPerShard, kMaxArrayTasks);
  const auto shards = static_cast<std::size_t>(
      positive_option("--shards", values["shards"].as<std::int64_t>(), static_cast<std::int64_t>(kMaxArrayTasks)));
  refuse_too_many_shards("--shards", shards, jobs);
  return shards;
}

// What goes into #SBATCH lines must stay one option: no line breaks, and no blanks or quotes in
// the paths and names sbatch reads there. `partition` and `time`: whether they were given.
void check_slurm_options(const trace::SlurmOptions& options, const std::string& out_dir, bool partition, bool time) {
  const bool is_name = !options.partition.empty() &&
                       options.partition.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                           "0123456789_.,-") == std::string::npos;
  if (partition && !is_name) {
    throw UsageError("--partition: expected a partition name (letters, digits, \"_.,-\"), got \"" + options.partition + "\"");
  }
  if (time && !trace::valid_slurm_time(options.time)) {
    throw UsageError("--time: expected a Slurm time limit (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED), got \"" +
                     options.time + "\"");
  }
  for (const std::string& argument : options.sbatch_args) {
    if (argument.size() < 2 || argument[0] != '-' || argument.find('\n') != std::string::npos) {
      throw UsageError("--sbatch-arg: expected one sbatch option on one line, as --sbatch-arg=--account=a, got \"" +
                       argument + "\"");
    }
  }
  const std::string absolute = std::filesystem::absolute(out_dir).lexically_normal().string();
  if (absolute.find_first_of(" \t\n'\"\\") != std::string::npos) {
    throw UsageError("--slurm: the --out path goes into #SBATCH --output lines, which cannot hold blanks, quotes or "
                     "backslashes; choose another --out directory than " + absolute);
  }
}

int run_one_shard(const trace::TracePlan& plan, const trace::Shard& shard, const trace::ShardSplit& split,
                  const trace::TraceOptions& run) {
  refuse_too_many_shards("--shard", shard.count, plan.jobs.size());
  const std::string name = std::to_string(shard.number) + "/" + std::to_string(shard.count);
  std::cerr << "trace " << plan.name << " shard " << name << ": " << split.job_ids[shard.number - 1].size() << " of "
            << plan.jobs.size() << " jobs, " << run.workers << " worker(s), results in " << run.out_dir << "\n";
  trace::TraceSummary summary;
  try {
    summary = trace::run_shard(plan, split, shard, run, std::cerr, isatty(STDERR_FILENO) != 0);
  } catch (const std::runtime_error& error) {
    throw FileError(error.what());
  }
  print_summary(summary);
  if (summary.interrupted) {
    std::cerr << "interrupted: the finished jobs are kept; complete the shard with --resume\n";
    return kExitInterrupted;
  }
  std::cerr << "shard " << name
            << " ended; once every shard has: " << reusesim_command({"trace", run.out_dir, "--collect"}) << "\n";
  return summary.failed > 0 ? kExitJobsFailed : kExitOk;
}

// Writes the scripts and submits them with `sbatch` ("": --dry-run, only write them).
int submit_to_slurm(const trace::TracePlan& plan, const trace::ShardSplit& split, const trace::TraceOptions& run,
                    const trace::SlurmOptions& options, const std::string& sbatch) {
  const std::string out_dir = std::filesystem::absolute(run.out_dir).lexically_normal().string();
  const std::string array_script = out_dir + "/shards/array.sbatch";
  const std::string collect_script = out_dir + "/shards/collect.sbatch";
  try {
    trace::prepare_submission(plan, split, out_dir, run.existing, trace::own_executable(), options);
  } catch (const std::runtime_error& error) {
    throw FileError(error.what());
  }
  std::cerr << "trace " << plan.name << ": " << plan.jobs.size() << " jobs in " << split.count()
            << " shard(s), array task K runs shard K, results in " << out_dir << "\n";
  std::cout << "scripts: " << array_script << ", " << collect_script << "\n";
  if (sbatch.empty()) {
    std::cout << "submit:  " << util::shell_command({"sbatch", array_script})
              << "; then sbatch --dependency=afterany:<its job id> " << util::shell_quote(collect_script) << "\n";
    return kExitOk;
  }
  std::string array_id, collect_id;
  try {
    array_id = trace::submit(sbatch, {}, array_script);
    collect_id = trace::submit(sbatch, {"--dependency=afterany:" + array_id}, collect_script);
  } catch (const std::runtime_error& error) {
    const std::string submitted = array_id.empty()
                                      ? ""
                                      : " (the array is submitted as job " + array_id + "; collect it with " +
                                            reusesim_command({"trace", out_dir, "--collect"}) + ")";
    throw FileError(std::string(error.what()) + submitted);
  }
  std::cout << "submitted: job array " << array_id << " (" << split.count() << " tasks), collect job " << collect_id
            << " (runs once every task has ended)\n"
            << "follow:  squeue -j " << array_id << "," << collect_id << "; logs in " << out_dir
            << "/shards/shard-K.log and collect.log\n"
            << "results: " << out_dir << "/layers.csv, networks.csv and figure.png once job " << collect_id
            << " has run; or collect what has finished now with: " << reusesim_command({"trace", out_dir, "--collect"})
            << "\n";
  return kExitOk;
}

// The unfinished shards of a collection, each with why and the command that completes it: every
// one with `verbose`, else the first kShownUnfinishedShards and a summary of the rest.
void print_unfinished(const std::string& results_dir, const trace::Collection& collection, bool verbose) {
  const std::vector<trace::UnfinishedShard>& unfinished = collection.unfinished;
  std::vector<std::size_t> numbers;
  for (const trace::UnfinishedShard& shard : unfinished) numbers.push_back(shard.shard.number);
  const std::size_t shown = verbose ? unfinished.size() : std::min(unfinished.size(), kShownUnfinishedShards);
  const std::string executable = trace::own_executable();
  std::cerr << unfinished.size() << " shard(s) did not finish";
  if (shown < unfinished.size()) std::cerr << " (shards " << number_ranges(numbers) << ")";
  std::cerr << "; complete each, then --collect again:\n";
  const auto command_of = [&](const trace::UnfinishedShard& shard) {
    std::vector<std::string> words{executable, "trace"};
    words.insert(words.end(), shard.rerun.begin(), shard.rerun.end());
    return util::shell_command(words);
  };
  for (std::size_t i = 0; i < shown; ++i) {
    const trace::UnfinishedShard& shard = unfinished[i];
    std::cerr << "  shard " << shard.shard.number << "/" << shard.shard.count << ": " << shard.why << "\n    "
              << command_of(shard) << "\n";
  }
  if (shown < unfinished.size()) {
    const std::vector<std::size_t> rest(numbers.begin() + static_cast<std::ptrdiff_t>(shown), numbers.end());
    std::cerr << "  and " << rest.size() << " more (shards " << number_ranges(rest)
              << "), each completed by the command above with its own --shard K/" << unfinished.front().shard.count
              << "; why each did not finish: " << reusesim_command({"trace", results_dir, "--collect", "--verbose"})
              << "\n";
  }
  const std::string array_script = results_dir + "/shards/array.sbatch";
  std::error_code error;
  if (std::filesystem::exists(array_script, error)) {
    std::cerr << "or on Slurm: sbatch --array=" << number_ranges(numbers) << " " << util::shell_quote(array_script)
              << "; then " << reusesim_command({"trace", results_dir, "--collect"}) << "\n";
  }
}

// --collect, first copying in the shards of `sources` (--from) when there are any.
int collect_trace(const std::string& results_dir, const std::vector<std::string>& sources, bool no_figure,
                  bool verbose) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> others;  // the sources but results_dir itself
  for (const std::string& source : sources) {
    if (!fs::is_directory(source, error)) throw FileError("--from " + source + ": not a directory");
    if (!fs::equivalent(source, results_dir, error)) others.push_back(source);
  }
  if (sources.empty() && !fs::is_directory(results_dir, error)) {
    throw FileError(results_dir + " is not a directory: --collect takes the results directory of a sharded trace");
  }
  trace::Collection collection;
  std::deque<trace::ExclusiveUse> hold;  // no shard may run in any of them meanwhile
  try {
    for (const std::string& source : others) hold.emplace_back(source);
    if (!others.empty()) {
      const trace::ShardSources checked = trace::check_sources(others);
      hold.emplace_back(results_dir);
      const std::size_t copied = trace::merge_shards(results_dir, checked);
      std::cerr << "copied " << copied << " job(s) from " << others.size() << " directory(ies) into " << results_dir
                << "\n";
    } else {
      hold.emplace_back(results_dir);
    }
    collection = trace::collect_shards(results_dir);
  } catch (const std::runtime_error& problem) {
    throw FileError(problem.what());
  }
  std::cerr << "collected " << collection.shards << " shard(s): " << collection.done << " of " << collection.jobs
            << " job(s) done, " << collection.failed << " failed\n";
  print_tables(results_dir);
  if (!no_figure && collection.done > 0) draw_figure(results_dir);
  if (collection.unfinished.empty()) return kExitOk;
  print_unfinished(results_dir, collection, verbose);
  return kExitJobsFailed;
}

}  // namespace

int trace_command(const std::vector<std::string>& args) {
  return run_guarded("trace", [&] {
    std::vector<std::string> overrides, sbatch_args, sources;
    std::string trace_file, out_dir, shard_text;
    std::int64_t workers = std::max(1u, std::thread::hardware_concurrency());
    bool resume = false, overwrite = false, no_figure = false, timeline = false, slurm = false, dry_run = false,
         collect = false, verbose = false;
    trace::SlurmOptions slurm_options;
    po::options_description options("reusesim trace options");
    options.add_options()
        ("help,h", "show this help")
        ("trace", po::value(&trace_file)->required(), "run file (batch trace, YAML; also positional)")
        ("out", po::value(&out_dir), "results directory")
        ("jobs", po::value(&workers)->default_value(workers), "worker processes running jobs at once")
        ("resume", po::bool_switch(&resume), "complete the results in --out: skip the jobs already finished")
        ("overwrite", po::bool_switch(&overwrite), "replace the trace results already in --out")
        ("no-figure", po::bool_switch(&no_figure), "do not draw the figure at the end")
        ("timeline", po::bool_switch(&timeline), "also write each job's Chrome/Perfetto timeline (timeline.json)")
        ("job-timeout", po::value<std::int64_t>(),
         "kill a job that runs longer than this many seconds and record it as failed; 0: no limit "
         "(default: each job's own, 60 s + 2 s per layer + 100 s per 10^9 MACs)")
        ("set", po::value(&overrides)->composing(),
         "override a field of the run file: key.path=value (repeatable), e.g. models.0.batch=[1,2]; a key that "
         "contains dots goes in brackets: sweep[dram.channels]=[1,2]")
        ("shard", po::value(&shard_text),
         "run only shard K of N (K from 1 to N, e.g. 2/4) into --out, which the other shards may share; "
         "--collect merges them (docs/slurm.md)")
        ("collect", po::bool_switch(&collect),
         "reusesim trace DIR --collect: merge the shards in DIR, rebuild its tables and draw the figure")
        ("from", po::value(&sources)->composing(),
         "with --collect: first copy into DIR the shards run into this directory (repeatable)")
        ("verbose", po::bool_switch(&verbose),
         "with --collect: name every unfinished shard (by default the first 5, then a summary of the rest)")
        ("slurm", po::bool_switch(&slurm), "submit the trace to Slurm as a job array of --shards shards, and a job "
         "that collects them")
        ("shards", po::value<std::int64_t>(), "with --slurm: how many shards (array tasks); default: one per 50 jobs")
        ("partition", po::value(&slurm_options.partition), "with --slurm: the partition to run in")
        ("time", po::value(&slurm_options.time), "with --slurm: each task's time limit (sbatch --time: minutes, "
         "H:M:S, D-H:M ...)")
        ("sbatch-arg", po::value(&sbatch_args)->composing(),
         "with --slurm: one more sbatch option for both jobs, as --sbatch-arg=--account=a (repeatable)")
        ("dry-run", po::bool_switch(&dry_run), "with --slurm: write the job scripts into --out, do not submit");
    po::positional_options_description positional;
    positional.add("trace", 1);
    po::variables_map values;
    if (!parse_arguments("trace", args, options, positional, values)) return kExitOk;
    const auto given = [&](const char* name) { return values.count(name) != 0 && !values[name].defaulted(); };
    if (given("from") && !collect) throw UsageError("--from goes with --collect");
    if (verbose && !collect) throw UsageError("--verbose goes with --collect");
    if (collect) {
      for (const char* other : {"out", "jobs", "resume", "overwrite", "timeline", "job-timeout", "set", "shard", "slurm",
                                "shards", "partition", "time", "sbatch-arg", "dry-run"}) {
        if (given(other)) {
          throw UsageError(
              std::string("--collect takes the results directory alone (with --from, --no-figure, --verbose), not --") +
              other);
        }
      }
      return collect_trace(trace_file, sources, no_figure, verbose);
    }
    if (!given("out")) throw UsageError("the option '--out' is required but missing");
    for (const char* slurm_only : {"shards", "partition", "time", "sbatch-arg", "dry-run"}) {
      if (given(slurm_only) && !slurm) throw UsageError(std::string("--") + slurm_only + " goes with --slurm");
    }
    trace::TraceOptions run;
    run.out_dir = out_dir;
    run.workers = static_cast<std::size_t>(positive_option("--jobs", workers, 256));
    if (resume && overwrite) throw UsageError("--resume and --overwrite exclude each other");
    const std::optional<trace::Shard> shard = given("shard") ? std::optional(parse_shard(shard_text)) : std::nullopt;
    if (shard && slurm) throw UsageError("--shard and --slurm exclude each other: --slurm runs every shard");
    if (shard && overwrite) {
      throw UsageError("--overwrite goes with a whole trace, not --shard: other shards may share --out; replace it "
                       "with reusesim trace RUN.yaml --out DIR --overwrite, or choose another --out directory");
    }
    run.existing = resume      ? trace::ResultsDirectory::Existing::resume
                   : overwrite ? trace::ResultsDirectory::Existing::overwrite
                               : trace::ResultsDirectory::Existing::refuse;
    run.timeline = timeline;
    // What every shard runs, in split.json: the plan's run file and everything that shapes a job.
    std::vector<std::string> shard_arguments{""};
    for (const std::string& assignment : overrides) shard_arguments.insert(shard_arguments.end(), {"--set", assignment});
    if (timeline) shard_arguments.push_back("--timeline");
    if (values.count("job-timeout") != 0) {
      const std::int64_t seconds = values["job-timeout"].as<std::int64_t>();
      if (seconds < 0 || seconds > kMaxJobTimeoutSeconds) {
        throw UsageError("--job-timeout: expected seconds from 0 (no limit) to " + std::to_string(kMaxJobTimeoutSeconds) +
                         ", got " + std::to_string(seconds));
      }
      run.job_timeout_seconds = seconds;
      shard_arguments.insert(shard_arguments.end(), {"--job-timeout", std::to_string(seconds)});
    }
    std::string sbatch;
    if (slurm) {
      slurm_options.sbatch_args = sbatch_args;
      check_slurm_options(slurm_options, out_dir, given("partition"), given("time"));
      sbatch = trace::find_on_path("sbatch");
      if (sbatch.empty() && !dry_run) {
        throw FileError("--slurm: sbatch is not on the PATH; submit from a machine with Slurm's commands (a login "
                        "node, or Debian's slurm-client), or add --dry-run to write the job scripts without submitting");
      }
    }
    const trace::TracePlan plan = load_plan(trace_file, overrides);
    // trace.json records the run file's absolute path, and the model and accelerator files found
    // from it, as JSON text: it must be UTF-8 for --resume and figure to find them again.
    if (const auto offset = util::invalid_utf8_offset(plan.run_file)) {
      throw FileError(plan.run_file + ": the path is not UTF-8 text (" + util::describe_byte(plan.run_file[*offset]) +
                      "), which trace.json cannot record as JSON text; move the run file to a UTF-8 path");
    }
    shard_arguments.front() = plan.run_file;
    if (shard) return run_one_shard(plan, *shard, trace::make_split(plan, shard->count, shard_arguments), run);
    if (slurm) {
      const std::size_t shards = shard_count(values, plan.jobs.size());
      return submit_to_slurm(plan, trace::make_split(plan, shards, shard_arguments), run, slurm_options,
                             dry_run ? "" : sbatch);
    }
    std::cerr << "trace " << plan.name << ": " << plan.jobs.size() << " jobs on " << plan.panels.size()
              << " accelerator variant(s), " << run.workers << " worker(s), results in " << out_dir << "\n";
    // Held until the figure is drawn: a second trace on this directory fails at once.
    std::optional<trace::ExclusiveUse> hold;
    trace::TraceSummary summary;
    try {
      hold.emplace(out_dir);
      summary = trace::run_trace(plan, run, std::cerr, isatty(STDERR_FILENO) != 0);
    } catch (const std::runtime_error& error) {
      throw FileError(error.what());
    }
    print_summary(summary);
    if (summary.interrupted) {
      std::vector<std::string> resume_arguments{"trace"};
      resume_arguments.insert(resume_arguments.end(), shard_arguments.begin(), shard_arguments.end());
      resume_arguments.insert(resume_arguments.end(), {"--out", out_dir, "--resume"});
      std::cerr << "interrupted: the finished jobs are kept; complete the trace with:\n  "
                << reusesim_command(resume_arguments) << "\n";
      return kExitInterrupted;
    }
    print_tables(out_dir);
    if (!no_figure && summary.done + summary.skipped > 0) draw_figure(out_dir);
    if (summary.failed > 0) {
      std::cerr << "failed jobs are listed with their errors in " << out_dir << "/jobs.csv; rerun them with --resume\n";
      return kExitJobsFailed;
    }
    return kExitOk;
  });
}

int figure_command(const std::vector<std::string>& args) {
  return run_guarded("figure", [&] {
    std::string results_dir;
    po::options_description options("reusesim figure options");
    options.add_options()
        ("help,h", "show this help")
        ("dir", po::value(&results_dir)->required(), "results directory of reusesim trace (also positional)");
    po::positional_options_description positional;
    positional.add("dir", 1);
    po::variables_map values;
    if (!parse_arguments("figure", args, options, positional, values)) return kExitOk;
    draw_figure(results_dir);
    return kExitOk;
  });
}

}  // namespace reusesim::cli
