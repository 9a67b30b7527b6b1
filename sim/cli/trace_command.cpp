#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/command_line.h"
#include "config/diagnostics.h"
#include "trace/directory_lock.h"
#include "trace/figure.h"
#include "trace/trace_plan.h"
#include "trace/trace_runner.h"
#include "workload/utf8.h"

namespace reusesim::cli {

namespace po = boost::program_options;

namespace {

constexpr std::int64_t kMaxJobTimeoutSeconds = 10'000'000;  // 16 weeks; 0 already means no limit

// The plan, with the hash of every input file; a file that cannot be read again is a file error.
trace::TracePlan load_plan(const std::string& trace_file, const std::vector<std::string>& overrides) {
  try {
    return trace::plan_trace_file(trace_file, overrides);
  } catch (const config::InputError&) {
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
}

}  // namespace

int trace_command(const std::vector<std::string>& args) {
  return run_guarded("trace", [&] {
    std::vector<std::string> overrides;
    std::string trace_file, out_dir;
    std::int64_t workers = std::max(1u, std::thread::hardware_concurrency());
    bool resume = false, overwrite = false, no_figure = false, timeline = false;
    po::options_description options("reusesim trace options");
    options.add_options()
        ("help,h", "show this help")
        ("trace", po::value(&trace_file)->required(), "run file (batch trace, YAML; also positional)")
        ("out", po::value(&out_dir)->required(), "results directory")
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
         "contains dots goes in brackets: sweep[dram.channels]=[1,2]");
    po::positional_options_description positional;
    positional.add("trace", 1);
    po::variables_map values;
    if (!parse_arguments("trace", args, options, positional, values)) return kExitOk;
    trace::TraceOptions run;
    run.out_dir = out_dir;
    run.workers = static_cast<std::size_t>(positive_option("--jobs", workers, 256));
    if (resume && overwrite) throw UsageError("--resume and --overwrite exclude each other");
    run.existing = resume      ? trace::ResultsDirectory::Existing::resume
                   : overwrite ? trace::ResultsDirectory::Existing::overwrite
                               : trace::ResultsDirectory::Existing::refuse;
    run.timeline = timeline;
    if (values.count("job-timeout") != 0) {
      const std::int64_t seconds = values["job-timeout"].as<std::int64_t>();
      if (seconds < 0 || seconds > kMaxJobTimeoutSeconds) {
        throw UsageError("--job-timeout: expected seconds from 0 (no limit) to " + std::to_string(kMaxJobTimeoutSeconds) +
                         ", got " + std::to_string(seconds));
      }
      run.job_timeout_seconds = seconds;
    }
    const trace::TracePlan plan = load_plan(trace_file, overrides);
    // trace.json records the run file's absolute path, and the model and accelerator files found
    // from it, as JSON text: it must be UTF-8 for --resume and figure to find them again.
    if (const auto offset = workload::invalid_utf8_offset(plan.run_file)) {
      throw FileError(plan.run_file + ": the path is not UTF-8 text (" + workload::describe_byte(plan.run_file[*offset]) +
                      "), which trace.json cannot record as JSON text; move the run file to a UTF-8 path");
    }
    std::cerr << "trace " << plan.name << ": " << plan.jobs.size() << " jobs on " << plan.panels.size()
              << " accelerator variant(s), " << run.workers << " worker(s), results in " << out_dir << "\n";
    // Held until the figure is drawn: a second trace on this directory fails at once.
    std::optional<trace::DirectoryLock> lock;
    trace::TraceSummary summary;
    try {
      lock.emplace(out_dir);
      summary = trace::run_trace(plan, run, std::cerr, isatty(STDERR_FILENO) != 0);
    } catch (const std::runtime_error& error) {
      throw FileError(error.what());
    }
    std::cerr << summary.done << " job(s) run, " << summary.skipped << " already finished, " << summary.failed
              << " failed";
    if (summary.not_run > 0) std::cerr << ", " << summary.not_run << " not run";
    std::cerr << "\n";
    if (summary.interrupted) {
      std::cerr << "interrupted: the finished jobs are kept; complete the trace with:\n  reusesim trace " << trace_file
                << " --out " << out_dir << " --resume\n";
      return kExitInterrupted;
    }
    std::cout << "tables:  " << out_dir << "/layers.csv, " << out_dir << "/networks.csv (jobs: " << out_dir
              << "/jobs.csv)\n";
    if (!no_figure && summary.done + summary.skipped > 0) {
      draw_figure(out_dir);
      std::cout << "figure:  " << out_dir << "/figure.png, " << out_dir << "/figure.svg (points: " << out_dir
                << "/figure_points.csv)\n";
    }
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
    std::cout << "figure:  " << results_dir << "/figure.png, " << results_dir << "/figure.svg (points: " << results_dir
              << "/figure_points.csv)\n";
    return kExitOk;
  });
}

}  // namespace reusesim::cli
