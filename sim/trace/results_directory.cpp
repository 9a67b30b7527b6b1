#include "trace/results_directory.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report/run_report.h"
#include "report/system_report.h"
#include "report/table.h"
#include "util/output_files.h"
#include "util/strings.h"

namespace reusesim::trace {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPartial = ".partial";
constexpr const char* kFailed = ".failed";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) lines.push_back(line);
  return lines;
}

void throw_if(const std::string& problem) {
  if (!problem.empty()) throw std::runtime_error(problem);
}

// What the results directory may hold at its top (the figure's files are written by plot_figure.py
// and figure.log by the process that runs it, so they are recorded here).
const std::vector<std::string> kTopEntries{"trace.json",
                                           "jobs",
                                           "jobs.csv",
                                           "layers.csv",
                                           "networks.csv",
                                           "figure.png",
                                           "figure.svg",
                                           "figure.log",
                                           "figure_points.csv",
                                           "figure_roofs.csv",
                                           "figure_energy.png",
                                           "figure_energy.svg",
                                           "figure_design.png",
                                           "figure_design.svg",
                                           "figure_energy_layers.csv",
                                           "figure_energy_networks.csv",
                                           "figure_tokens.png",
                                           "figure_tokens.svg",
                                           "figure_energy_tokens.csv",
                                           "shards"};

// What a trace over systems also writes there: the systems table and the scaling figure.
const std::vector<std::string> kSystemEntries{"systems.csv", "figure_scaling.csv", "figure_scaling.png",
                                              "figure_scaling.svg"};

// Makes `directory` and its jobs/ ReuseSim's, with every entry the trace may write there recorded.
void own_entries(const std::string& directory, const TracePlan& plan) {
  const std::string jobs = (fs::path(directory) / "jobs").string();
  throw_if(util::own_directory_problem(directory));
  throw_if(util::claim_problem(directory, kTopEntries));
  // Claimed only by a trace over systems: an accelerator trace's manifest stays as it was.
  if (plan.any_system()) throw_if(util::claim_problem(directory, kSystemEntries));
  throw_if(util::own_directory_problem(jobs));
  std::vector<std::string> job_entries;
  for (const TraceJob& job : plan.jobs) {
    for (const char* suffix : {"", kPartial, kFailed}) job_entries.push_back(job.id + suffix);
  }
  throw_if(util::claim_problem(jobs, job_entries));
}

// A sequence or context length in the tables: empty when the job does not set it.
std::string length_cell(std::int64_t tokens) { return tokens > 0 ? std::to_string(tokens) : ""; }

// A job's first cells in the tables: what ran where, then the values of the swept keys `kept`.
std::string job_cells(const TraceJob& job, const TracePanel& panel,
                      const std::function<bool(const std::string&)>& kept) {
  std::string cells = report::csv_escape(job.id) + "," + report::csv_escape(panel.accelerator) + "," +
                      report::csv_escape(job.model) + "," + report::csv_escape(job.selection()) + "," + job.phase +
                      "," + length_cell(job.lengths.sequence) + "," + length_cell(job.lengths.decode_context);
  for (const auto& [key, value] : panel.sweep) {
    if (kept(key)) cells += "," + report::csv_escape(value);
  }
  return cells;
}

bool holds_only_manifest(const std::string& directory) {
  std::error_code error;
  for (fs::directory_iterator entry(directory, error), end; !error && entry != end; entry.increment(error)) {
    if (entry->path().filename() != util::kManifestName) return false;
  }
  return true;
}

}  // namespace

ResultsDirectory::ResultsDirectory(std::string directory, const TracePlan& plan)
    : directory_(std::move(directory)), plan_(plan) {}

std::string ResultsDirectory::path(const std::string& name) const { return (fs::path(directory_) / name).string(); }

std::string ResultsDirectory::job_dir(const TraceJob& job) const { return path("jobs/" + job.id); }

bool ResultsDirectory::refuse_foreign() const {
  const util::DirectoryOwner owner = util::directory_owner(directory_);
  if (owner == util::DirectoryOwner::other) {
    throw std::runtime_error(directory_ + " exists and is not a trace results directory: ReuseSim did not create it " +
                             "(it has no " + util::kManifestName + ") and never writes into or empties a directory " +
                             "holding other files; choose another --out directory");
  }
  return owner == util::DirectoryOwner::reusesim;
}

void ResultsDirectory::refuse_other_plan(const std::string& recorded_plan) const {
  if (recorded_plan == plan_json(plan_)) return;
  refuse_changed_inputs(recorded_plan);
  throw std::runtime_error(directory_ + " holds results of a different trace: its trace.json does not match " +
                           plan_.run_file + " as given now (" +
                           json_difference(recorded_plan, "trace.json", plan_json(plan_), "as given now") +
                           "); choose another --out directory");
}

void ResultsDirectory::prepare(Existing existing) {
  const std::string plan_file = path("trace.json");
  const bool owned = refuse_foreign();
  std::error_code error;
  if (owned && existing == Existing::overwrite) {
    util::clear_owned(directory_);
  } else if (owned && fs::exists(plan_file, error)) {
    if (existing == Existing::refuse) {
      throw std::runtime_error(directory_ + " already holds trace results; add --resume to complete them, "
                               "--overwrite to replace them, or choose another --out directory");
    }
    refuse_other_plan(read_text(plan_file));
  } else if (owned && !holds_only_manifest(directory_)) {
    throw std::runtime_error(directory_ + " exists and is not a trace results directory (no trace.json); add " +
                             "--overwrite to replace what ReuseSim wrote there, or choose another --out directory");
  }
  own_entries(directory_, plan_);
  util::write_output_file(plan_file, plan_json(plan_));
  for (const TraceJob& job : plan_.jobs) clear_leftovers(job.id);
}

void ResultsDirectory::clear_leftovers(const std::string& id) const {
  util::remove_owned(path("jobs"), id + kPartial);
  util::remove_owned(path("jobs"), id + kFailed);
}

std::pair<bool, bool> ResultsDirectory::check_join(const ShardSplit& split, const std::string& who) const {
  const std::string plan_file = path("trace.json");
  const std::string split_file = path("shards/split.json");
  const bool owned = refuse_foreign();
  std::error_code error;
  const bool has_plan = owned && fs::exists(plan_file, error);
  if (has_plan) {
    refuse_other_plan(read_text(plan_file));
  } else if (owned && !holds_only_manifest(directory_)) {
    throw std::runtime_error(directory_ + " exists and is not a trace results directory (no trace.json); " +
                             "choose another --out directory for " + who);
  }
  const bool has_split = has_plan && fs::exists(split_file, error);
  if (has_split && read_text(split_file) != split_json(split)) {
    const std::string recorded_text = read_text(split_file);
    const ShardSplit recorded = read_split_json(recorded_text, split_file);
    throw std::runtime_error(directory_ + " is split into " + std::to_string(recorded.count()) + " shards of `" +
                             util::shell_command(recorded.arguments) + "` (shards/split.json); " + who + " of `" +
                             util::shell_command(split.arguments) + "` is not one of them (" +
                             json_difference(recorded_text, "shards/split.json", split_json(split), "as given now") +
                             "): give the same --shard K/" + std::to_string(recorded.count()) +
                             " and options, or choose another --out directory");
  }
  return {has_plan, has_split};
}

void ResultsDirectory::write_join(const ShardSplit& split, bool has_plan, bool has_split) {
  own_entries(directory_, plan_);
  own_shard_entries(split.count());
  if (!has_plan) util::write_output_file(path("trace.json"), plan_json(plan_));
  if (!has_split) write_shard_file("split.json", split_json(split));
}

void ResultsDirectory::prepare_shard(const ShardSplit& split, const Shard& shard, bool resume) {
  const std::string where = "shard " + std::to_string(shard.number) + "/" + std::to_string(shard.count);
  const auto [has_plan, has_split] = check_join(split, where);
  const std::vector<std::string>& own_ids = split.job_ids.at(shard.number - 1);
  if (!resume && has_plan) {
    std::vector<std::string> started;
    std::error_code error;
    if (fs::exists(path("shards/" + shard_record_name(shard.number)), error)) started.push_back(shard_record_name(shard.number));
    for (const std::string& id : own_ids) {
      for (const char* suffix : {"", kPartial, kFailed}) {
        if (fs::exists(path("jobs/" + id + suffix), error)) started.push_back(id + suffix);
      }
    }
    if (!started.empty()) {
      throw std::runtime_error(where + " already ran in " + directory_ + " (" + started.front() +
                               " is there); add --resume to complete it, or choose another --out directory");
    }
  }
  write_join(split, has_plan, has_split);
  for (const std::string& id : own_ids) clear_leftovers(id);
}

void ResultsDirectory::prepare_merge(const ShardSplit& split) {
  const auto [has_plan, has_split] = check_join(split, "--collect --from");
  write_join(split, has_plan, has_split);
}

std::size_t ResultsDirectory::copy_from(const std::string& source, const ShardSplit& split) {
  const fs::path from(source);
  std::error_code error;
  std::size_t copied = 0;
  for (const TraceJob& job : plan_.jobs) {
    if (finished(job)) continue;
    const bool done = fs::exists(from / "jobs" / job.id / "job.json", error);
    const bool failed = !done && fs::exists(from / "jobs" / (job.id + kFailed), error);
    if (!done && !(failed && !fs::exists(job_dir(job) + kFailed, error))) continue;
    clear_leftovers(job.id);
    const std::string name = job.id + (done ? "" : kFailed);
    const std::string partial = job_dir(job) + kPartial;
    throw_if(util::own_directory_problem(partial));
    for (const std::string& file : util::owned_files((from / "jobs" / name).string())) {
      util::write_output_file(partial + "/" + file, read_text(from / "jobs" / name / file));
    }
    fs::rename(partial, path("jobs/" + name), error);
    if (error) throw std::runtime_error("cannot move " + partial + " to " + path("jobs/" + name) + ": " + error.message());
    ++copied;
  }
  for (std::size_t number = 1; number <= split.count(); ++number) {
    const std::string record = shard_record_name(number);
    if (fs::exists(from / "shards" / record, error) && !fs::exists(path("shards/" + record), error)) {
      write_shard_file(record, read_text(from / "shards" / record));
    }
  }
  return copied;
}

void ResultsDirectory::own_shard_entries(std::size_t count) const {
  std::vector<std::string> names{"split.json", "array.sbatch", "collect.sbatch", "collect.log"};
  for (std::size_t number = 1; number <= count; ++number) {
    names.push_back(shard_record_name(number));
    names.push_back(shard_log_name(number));
  }
  throw_if(util::own_directory_problem(path("shards")));
  throw_if(util::claim_problem(path("shards"), names));
}

void ResultsDirectory::record_split(const ShardSplit& split) {
  util::remove_owned(directory_, "shards");
  own_shard_entries(split.count());
  write_shard_file("split.json", split_json(split));
}

void ResultsDirectory::write_shard_file(const std::string& name, const std::string& contents) const {
  util::write_output_file(path("shards/" + name), contents);
}

void ResultsDirectory::refuse_changed_inputs(const std::string& recorded_plan) const {
  TracePlan started;
  try {
    started = read_plan_json(recorded_plan, path("trace.json"));
  } catch (const std::runtime_error&) {
    return;  // not a plan of this trace: the caller refuses it as a different trace
  }
  if (started.run_file != plan_.run_file) return;
  std::string changes;
  for (const std::string& change : changed_inputs(started, plan_)) changes += "\n  " + change;
  if (changes.empty()) return;
  throw std::runtime_error("--resume refused: " + directory_ + " holds results of inputs that have changed:" + changes +
                           "\nresuming would mix results of the old and the new files; restore them, or start "
                           "afresh with --overwrite or another --out directory");
}

bool ResultsDirectory::finished(const TraceJob& job) const {
  std::error_code error;
  return fs::exists(fs::path(job_dir(job)) / "job.json", error);
}

std::string ResultsDirectory::start(const TraceJob& job) {
  const std::string dir = job_dir(job) + kPartial;
  util::remove_owned(path("jobs"), job.id + kPartial);
  throw_if(util::own_directory_problem(dir));
  // The worker's output, which start_process creates there.
  throw_if(util::claim_problem(dir, {"stdout.txt", "stderr.txt"}));
  return dir;
}

std::string ResultsDirectory::job_json(const TraceJob& job) const {
  const TracePanel& panel = plan_.panels[job.panel];
  nlohmann::ordered_json sweep = nlohmann::ordered_json::object();
  for (const auto& [key, value] : panel.sweep) sweep[key] = value;
  nlohmann::ordered_json document{{"job", job.id},           {"trace", plan_.name},
                                  {"accelerator", panel.accelerator}, {"panel", panel.title},
                                  {"sweep", sweep},          {"model", job.model},
                                  {"selection", job.selection()}, {"phase", job.phase},
                                  {"sequence", job.lengths.sequence}, {"context", job.lengths.decode_context},
                                  {"batch", job.batch},
                                  {"status", "done"}};
  return report::json_document_text(document);
}

ResultsDirectory::JobRows ResultsDirectory::read_rows(const std::string& dir) const {
  const std::vector<std::string> csv = lines_of(read_text(fs::path(dir) / "results.csv"));
  const nlohmann::json rows = nlohmann::json::parse(read_text(fs::path(dir) / "results.json")).at("rows");
  if (csv.size() != rows.size() + 1) {
    throw std::runtime_error(dir + ": results.csv and results.json disagree on the number of rows");
  }
  JobRows job_rows;
  job_rows.header = csv_fields(csv.at(0));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // A TOTAL row is the only one without a layer type.
    (rows[i].at("type").get<std::string>().empty() ? job_rows.network_lines : job_rows.layer_lines).push_back(csv[i + 1]);
  }
  // A system's run: its table too, a row per batch (docs/systems.md, "Outputs").
  std::error_code error;
  if (fs::exists(fs::path(dir) / "system.csv", error)) {
    std::vector<std::string> system = lines_of(read_text(fs::path(dir) / "system.csv"));
    if (system.size() < 2) throw std::runtime_error(dir + ": system.csv has no rows");
    job_rows.system_header = csv_fields(system.front());
    job_rows.system_lines.assign(system.begin() + 1, system.end());
  }
  return job_rows;
}

void ResultsDirectory::finish(const TraceJob& job) {
  const std::string partial = job_dir(job) + kPartial;
  for (const char* log : {"stdout.txt", "stderr.txt"}) util::remove_owned(partial, log);
  JobRows rows = read_rows(partial);
  util::write_output_file((fs::path(partial) / "job.json").string(), job_json(job));
  util::remove_owned(path("jobs"), job.id);
  std::error_code error;
  fs::rename(partial, job_dir(job), error);
  if (error) throw std::runtime_error("cannot move " + partial + " to " + job_dir(job) + ": " + error.message());
  rows_[job.id] = std::move(rows);
  errors_.erase(job.id);
}

void ResultsDirectory::fail(const TraceJob& job, const std::string& error_text) {
  const std::string partial = job_dir(job) + kPartial;
  std::error_code error;
  fs::rename(partial, job_dir(job) + kFailed, error);
  if (error) throw std::runtime_error("cannot move " + partial + " to " + job_dir(job) + kFailed + ": " + error.message());
  // Kept for --collect, which rebuilds jobs.csv in another process (a timeout is in no stderr).
  util::write_output_file(job_dir(job) + kFailed + "/error.txt", error_text + "\n");
  errors_[job.id] = error_text;
}

void ResultsDirectory::abandon(const TraceJob& job) { util::remove_owned(path("jobs"), job.id + kPartial); }

void ResultsDirectory::load_finished() {
  for (const TraceJob& job : plan_.jobs) {
    std::error_code error;
    const fs::path failed_error = job_dir(job) + kFailed + "/error.txt";
    if (!finished(job) && fs::exists(failed_error, error)) {
      const std::vector<std::string> lines = lines_of(read_text(failed_error));
      errors_[job.id] = lines.empty() ? "" : lines.front();
    }
    if (!finished(job)) continue;
    rows_[job.id] = read_rows(job_dir(job));
  }
}

std::vector<std::string> ResultsDirectory::table_columns() const {
  std::set<std::string> present;
  for (const auto& [id, rows] : rows_) present.insert(rows.header.begin(), rows.header.end());
  // Every column a run of the plan's fidelity writes, in the run table's order: an inference's,
  // with a training step's merged in where the plan has one (each inference column after the one
  // before it).
  std::vector<std::string> all;
  for (const report::RunColumn& column : report::run_columns(true, plan_.fidelity, true, true, true, true)) {
    if (plan_.any_training()) all.push_back(column.name);
  }
  auto at = all.begin();
  for (const report::RunColumn& column : report::run_columns(false, plan_.fidelity, true, true, true, true)) {
    const auto found = std::find(all.begin(), all.end(), column.name);
    at = found != all.end() ? found + 1 : all.insert(at, column.name) + 1;
  }
  std::vector<std::string> columns;
  for (const std::string& name : all) {
    if (present.erase(name) > 0) columns.push_back(name);
  }
  if (!present.empty()) {
    throw std::runtime_error("a job's results.csv has a column this reusesim does not write: " + *present.begin() +
                             " (a job run by another version?)");
  }
  return columns;
}

void ResultsDirectory::write_tables() const {
  std::string job_columns = "job,accelerator,model,selection,sequence_phase,sequence,context";
  for (const std::string& key : plan_.sweep_keys) job_columns += "," + report::csv_escape(key);
  if (plan_.any_plan()) job_columns += ",plan";
  std::string jobs = job_columns + ",batch,status,error\n";
  const std::vector<std::string> columns = table_columns();
  std::string layers = job_columns + "," + util::join(columns, ",") + "\n";
  std::string networks = layers;
  for (const TraceJob& job : plan_.jobs) {
    const TracePanel& panel = plan_.panels[job.panel];
    std::string prefix = job_cells(job, panel, [](const std::string&) { return true; });
    if (plan_.any_plan()) prefix += "," + report::csv_escape(panel.plan);
    const auto rows = rows_.find(job.id);
    const auto error = errors_.find(job.id);
    const std::string status = rows != rows_.end() ? "done" : error != errors_.end() ? "failed" : "pending";
    jobs += prefix + "," + std::to_string(job.batch) + "," + status + "," +
            (error != errors_.end() ? report::csv_escape(error->second) : "") + "\n";
    if (rows == rows_.end()) continue;
    // Where each of the job's columns goes in the tables'; the others stay empty.
    std::vector<std::size_t> place;
    for (const std::string& name : rows->second.header) {
      place.push_back(static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin()));
    }
    const auto placed = [&](const std::string& line) {
      std::vector<std::string> cells(columns.size());
      const std::vector<std::string> fields = csv_fields(line);
      for (std::size_t i = 0; i < fields.size() && i < place.size(); ++i) cells[place[i]] = fields[i];
      return prefix + "," + util::join(cells, ",") + "\n";
    };
    for (const std::string& line : rows->second.layer_lines) layers += placed(line);
    for (const std::string& line : rows->second.network_lines) networks += placed(line);
  }
  util::write_output_file(path("jobs.csv"), jobs);
  if (columns.empty()) return;  // no job has finished: no columns to give yet
  util::write_output_file(path("layers.csv"), layers);
  util::write_output_file(path("networks.csv"), networks);
  if (plan_.any_system()) util::write_output_file(path("systems.csv"), systems_table());
}

std::string ResultsDirectory::systems_table() const {
  // A system of one chip runs as its chip does, with no system table: its row is the one run would
  // give it, from its TOTAL (one chip's time is its layers', with no collectives). The header is
  // such a row's, which every system job's table shares (report/system_report.cpp).
  const auto one_chip_table = [&](const TraceJob& job, const std::string& time_s) {
    const auto time_ps = static_cast<std::uint64_t>(std::llround(std::stod(time_s) * 1e12));
    report::SystemReport one_chip{plan_.panels[job.panel].accelerator,
                                  job.model,
                                  1,
                                  {},
                                  false,
                                  {job.batch},
                                  job.tokens_per_sample,
                                  {results::SystemBatch{0, time_ps, time_ps, 0}},
                                  {},
                                  {}};
    return lines_of(report::render_system(one_chip, report::Format::csv));
  };
  const auto first = std::find_if(plan_.jobs.begin(), plan_.jobs.end(),
                                  [&](const TraceJob& job) { return plan_.panels[job.panel].system(); });
  if (first == plan_.jobs.end()) return "";
  const std::vector<std::string> system_columns = csv_fields(one_chip_table(*first, "0").at(0));
  // A swept key the system table has a column of (chips) is given once, by that column.
  const auto own_column = [&](const std::string& key) {
    return std::find(system_columns.begin(), system_columns.end(), key) == system_columns.end();
  };
  std::string columns = "job,system,model,selection,sequence_phase,sequence,context";
  for (const std::string& key : plan_.sweep_keys) {
    if (own_column(key)) columns += "," + report::csv_escape(key);
  }
  std::string table = columns + ",plan," + util::join(system_columns, ",") + ",samples_per_s\n";
  const auto column = [&](const std::vector<std::string>& header, const std::string& name) {
    const auto found = std::find(header.begin(), header.end(), name);
    if (found == header.end()) throw std::runtime_error("a job's table has no column " + name);
    return static_cast<std::size_t>(found - header.begin());
  };
  for (const TraceJob& job : plan_.jobs) {
    const TracePanel& panel = plan_.panels[job.panel];
    const auto rows = rows_.find(job.id);
    if (!panel.system() || rows == rows_.end()) continue;
    std::vector<std::string> lines = rows->second.system_lines;
    if (rows->second.system_header.empty()) {
      if (rows->second.network_lines.size() != 1) {
        throw std::runtime_error("job " + job.id + " has " + std::to_string(rows->second.network_lines.size()) +
                                 " TOTAL rows, where a batch has one");
      }
      const std::string time_s =
          csv_fields(rows->second.network_lines.front()).at(column(rows->second.header, "time_s"));
      lines = one_chip_table(job, time_s);
      lines.erase(lines.begin());
    } else if (rows->second.system_header != system_columns) {
      throw std::runtime_error("job " + job.id +
                               "'s system.csv has other columns than this reusesim writes (run by "
                               "another version?)");
    }
    const std::string prefix = job_cells(job, panel, own_column) + "," + report::csv_escape(panel.plan);
    for (const std::string& line : lines) {
      const std::vector<std::string> cells = csv_fields(line);
      // Samples a second: the batch over the time it took (a transformer's tokens_per_s beside it).
      const double batch = std::stod(cells.at(column(system_columns, "batch")));
      const double time_s = std::stod(cells.at(column(system_columns, "time_s")));
      table += prefix + "," + line + "," + (time_s > 0 ? report::format_number(batch / time_s) : "") + "\n";
    }
  }
  return table;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string read_text(const fs::path& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::string failure_summary(const std::string& stderr_text, const std::string& how_it_ended) {
  for (const std::string& line : lines_of(stderr_text)) {
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("error") != std::string::npos) return line;
  }
  return how_it_ended;
}

}  // namespace reusesim::trace
