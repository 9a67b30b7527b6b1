#include "trace/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/shipped_files.h"
#include "report/table.h"
#include "trace/process.h"
#include "trace/results_directory.h"
#include "util/output_files.h"
#include "util/strings.h"

namespace reusesim::trace {

namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

// A number cell of results.json (null when not applicable) as CSV text.
std::string number_text(const nlohmann::json& value) {
  return value.is_number() ? report::format_number(value.get<double>()) : "";
}

// A point's gops or efficiency: the row's ops over its DRAM span (dram_span_s), the time its own
// DRAM bytes moved in, rather than over its time, so that with x = its ops per DRAM byte the point
// sits under the DRAM slope (docs/conventions.md, "DRAM rates"). The span is the time but for a
// layer whose weights were prefetched during the layer before: it adds the prefetch's time.
std::string over_span(const nlohmann::json& row, const char* column) {
  const nlohmann::json& value = row.at(column);
  if (!value.is_number()) return "";
  const nlohmann::json& time = row.at("time_s");
  const nlohmann::json& span = row.at("dram_span_s");
  const bool spans = time.is_number() && span.is_number() && span.get<double>() > 0;
  return report::format_number(spans ? value.get<double>() * time.get<double>() / span.get<double>()
                                     : value.get<double>());
}

// A row's layer as the figure names it: a training step's layer has a row per phase.
std::string layer_label(const nlohmann::json& row) {
  const std::string phase = row.value("phase", "");
  return row.at("layer").get<std::string>() + (phase.empty() ? "" : " " + phase);
}

// The scaling figure's rows (FigureTables::scaling_csv) from the results' systems.csv, in its order
// (the plan's): a row per finished system job.
std::string scaling_table(const TracePlan& plan, const std::string& results_dir) {
  std::string table = "panel,line,chips,throughput,unit\n";
  const fs::path systems = fs::path(results_dir) / "systems.csv";
  if (!plan.any_system() || !fs::exists(systems)) return table;
  std::map<std::string, const TraceJob*> jobs;
  for (const TraceJob& job : plan.jobs) jobs.emplace(job.id, &job);
  std::istringstream lines(read_text(systems.string()));
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = csv_fields(line);
  while (std::getline(lines, line)) {
    const std::vector<std::string> cells = csv_fields(line);
    const auto cell = [&](const std::string& name) {
      const auto found = std::find(header.begin(), header.end(), name);
      if (found == header.end() || cells.size() != header.size()) {
        throw std::runtime_error(systems.string() + " is not a systems table of this reusesim (no column " + name +
                                 ")");
      }
      return cells[static_cast<std::size_t>(found - header.begin())];
    };
    const auto job = jobs.find(cell("job"));
    if (job == jobs.end()) throw std::runtime_error(systems.string() + ": job " + cell("job") + " is not in the plan");
    const TracePanel& panel = plan.panels[job->second->panel];
    // A line per system variant and plan: its name, the swept values but the chip count, the plan.
    std::vector<std::string> words{panel.accelerator};
    for (const auto& [key, value] : panel.sweep) {
      if (key != "chips") words.push_back(key + "=" + value);
    }
    words.push_back(panel.plan.empty() ? "its file's plan" : "plan " + panel.plan);
    // Tokens a second for a decode step (a token a sample), samples a second for anything else.
    const bool decode = job->second->phase == "decode";
    table += report::csv_escape(job->second->workload() + ", batch " + cell("batch")) + "," +
             report::csv_escape(util::join(words, ", ")) + "," + cell("chips") + "," +
             cell(decode ? "tokens_per_s" : "samples_per_s") + "," + (decode ? "tokens/s" : "samples/s") + "\n";
  }
  return table;
}

}  // namespace

FigureTables figure_tables(const TracePlan& plan, const std::string& results_dir) {
  FigureTables tables;
  // noc_gbps only when a panel's NoC binds: the roofs of every other trace stay as they were.
  const bool noc_binds =
      std::any_of(plan.panels.begin(), plan.panels.end(), [](const TracePanel& panel) { return panel.noc_gbps; });
  tables.roofs_csv = std::string("panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops") +
                     (noc_binds ? ",noc_gbps" : "") + "\n";
  for (const TracePanel& panel : plan.panels) {
    // The ridge is where the memory slope, the NoC's where it binds, meets the peak. An unlimited
    // ideal memory has no DRAM slope, so without a NoC that binds no ridge either: empty cells.
    const double slope_gbps = panel.noc_gbps ? *panel.noc_gbps : panel.dram_gbps;
    const std::string dram_cell = std::isfinite(panel.dram_gbps) ? report::format_number(panel.dram_gbps) : "";
    const std::string ridge_cell = std::isfinite(slope_gbps) ? report::format_number(panel.peak_gops / slope_gbps) : "";
    tables.roofs_csv += report::csv_escape(panel.title) + "," + report::csv_escape(panel.accelerator) + "," +
                        report::format_number(panel.peak_gops) + "," + dram_cell + "," + ridge_cell + "," +
                        (panel.sram_gops ? report::format_number(*panel.sram_gops) : "") +
                        (noc_binds ? "," + (panel.noc_gbps ? report::format_number(*panel.noc_gbps) : "") : "") + "\n";
  }
  // Points in the order first seen; a point seen again (same panel, kind, name, batch) keeps its
  // first values and only gains a series.
  struct Point {
    std::string row;  // the CSV text before and after the series column
    std::string after_series;
    std::string series;
  };
  std::vector<Point> points;
  std::map<std::tuple<std::size_t, std::string, std::int64_t>, std::size_t> seen;  // panel, kind:name, batch
  const auto add = [&](const TraceJob& job, const std::string& kind, const std::string& layer,
                       const std::string& type, const std::string& series, const nlohmann::json& row) {
    const std::string name = kind + ":" + job.workload() + "/" + layer;
    const auto [found, added] = seen.insert({{job.panel, name, job.batch}, points.size()});
    if (!added) {
      if (points[found->second].series.empty()) points[found->second].series = series;
      return;
    }
    points.push_back(Point{report::csv_escape(plan.panels[job.panel].title) + "," + kind + "," +
                               report::csv_escape(job.workload()) + "," + report::csv_escape(layer) + "," +
                               report::csv_escape(type),
                           std::to_string(job.batch) + "," + number_text(row.at("arithmetic_intensity")) + "," +
                               over_span(row, "gops") + "," + over_span(row, "efficiency"),
                           series});
  };
  tables.energy_layers_csv = "panel,kind,model,batch,layer,dram_uj,sram_uj,array_uj,vector_uj,dma_uj,static_uj\n";
  tables.energy_networks_csv = "panel,sweep,model,batch,latency_s,energy_uj,ops\n";
  tables.energy_tokens_csv = "panel,model,phase,length,batch,uj_per_token,tokens_per_joule\n";
  const auto add_tokens = [&](const TraceJob& job, const nlohmann::json& row) {
    if (!row.contains("uj_per_token") || !row.at("uj_per_token").is_number()) return;
    const bool decode = job.lengths.decode_context > 0;
    const std::int64_t length = decode ? job.lengths.decode_context : job.lengths.sequence;
    tables.energy_tokens_csv += report::csv_escape(plan.panels[job.panel].title) + "," + report::csv_escape(job.model) +
                                "," + (decode ? "decode," : "prefill,") + (length > 0 ? std::to_string(length) : "") +
                                "," + std::to_string(job.batch) + "," + number_text(row.at("uj_per_token")) + "," +
                                number_text(row.at("tokens_per_joule")) + "\n";
  };
  // Per sample: a job's energy divided by its batch, so that batches compare.
  const auto per_sample = [](const nlohmann::json& row, const char* column, std::int64_t batch) {
    const nlohmann::json& value = row.at(column);
    return value.is_number() ? report::format_number(value.get<double>() / static_cast<double>(batch)) : "";
  };
  const auto add_energy = [&](const TraceJob& job, const nlohmann::json& row, bool total) {
    if (!row.contains("energy_total_uj") || !row.at("energy_total_uj").is_number()) return;
    const std::string head = report::csv_escape(plan.panels[job.panel].title) + ",";
    if (total) {
      std::string sweep;
      for (const auto& [key, value] : plan.panels[job.panel].sweep) sweep += (sweep.empty() ? "" : " ") + key + "=" + value;
      tables.energy_networks_csv += head + report::csv_escape(sweep) + "," + report::csv_escape(job.workload()) + "," +
                                    std::to_string(job.batch) + "," + number_text(row.at("time_s")) + "," +
                                    per_sample(row, "energy_total_uj", job.batch) + "," +
                                    std::to_string(2 * row.at("macs").get<std::int64_t>()) + "\n";
      return;
    }
    std::string cells = head + (job.whole_model() ? "network," : "layer,") + report::csv_escape(job.workload()) + "," +
                        std::to_string(job.batch) + "," + report::csv_escape(layer_label(row));
    for (const char* column : {"energy_dram_uj", "energy_sram_uj", "energy_array_uj", "energy_vector_uj",
                               "energy_dma_uj", "energy_static_uj"}) {
      cells += "," + per_sample(row, column, job.batch);
    }
    tables.energy_layers_csv += cells + "\n";
  };
  for (const TraceJob& job : plan.jobs) {
    const fs::path results = fs::path(results_dir) / "jobs" / job.id / "results.json";
    if (!fs::exists(fs::path(results_dir) / "jobs" / job.id / "job.json")) continue;  // not finished
    const std::string origin = results.string();
    try {
      const nlohmann::json document = nlohmann::json::parse(read_text(origin));
      for (const nlohmann::json& row : document.at("rows")) {
        const std::string type = row.at("type").get<std::string>();
        if (!type.empty() || job.whole_model()) add_energy(job, row, type.empty());
        if (type.empty()) add_tokens(job, row);
        if (type.empty()) {
          if (job.whole_model()) add(job, "network", "", "", job.workload(), row);
        } else if (row.at("macs").get<std::int64_t>() > 0) {
          const std::string layer = layer_label(row);
          add(job, "layer", layer, type, job.whole_model() ? "" : job.workload() + "/" + layer, row);
        }
      }
    } catch (const nlohmann::json::exception& error) {
      throw std::runtime_error(origin + " is not a results file of reusesim run (" + error.what() + ")");
    }
  }
  tables.scaling_csv = scaling_table(plan, results_dir);
  tables.points_csv = "panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency\n";
  for (const Point& point : points) {
    tables.points_csv += point.row + "," + report::csv_escape(point.series) + "," + point.after_series + "\n";
  }
  return tables;
}

void draw_figure(const std::string& results_dir) {
  const std::string plan_file = (fs::path(results_dir) / "trace.json").string();
  if (!fs::exists(plan_file)) throw std::runtime_error(results_dir + " holds no trace results (no trace.json)");
  const TracePlan plan = read_plan_json(read_text(plan_file), plan_file);
  const FigureTables tables = figure_tables(plan, results_dir);
  const auto in_dir = [&](const std::string& name) { return (fs::path(results_dir) / name).string(); };
  util::write_output_file(in_dir("figure_points.csv"), tables.points_csv);
  util::write_output_file(in_dir("figure_roofs.csv"), tables.roofs_csv);
  std::vector<std::vector<std::string>> drawings{
      {"plot_figure.py", in_dir("figure_points.csv"), in_dir("figure_roofs.csv"), in_dir("figure")}};
  // Energy figures only for results with energy (a header and no rows otherwise): a whole
  // network's, or a transformer phase's energy per token.
  const auto has_rows = [](const std::string& csv) { return csv.find('\n') + 1 < csv.size(); };
  const bool tokens = has_rows(tables.energy_tokens_csv);
  if (has_rows(tables.energy_networks_csv) || tokens) {
    util::write_output_file(in_dir("figure_energy_layers.csv"), tables.energy_layers_csv);
    util::write_output_file(in_dir("figure_energy_networks.csv"), tables.energy_networks_csv);
    drawings.push_back({"plot_energy.py", in_dir("figure_energy_layers.csv"), in_dir("figure_energy_networks.csv"),
                        in_dir("figure")});
    if (tokens) {
      util::write_output_file(in_dir("figure_energy_tokens.csv"), tables.energy_tokens_csv);
      drawings.back().insert(drawings.back().end(), {"--tokens", in_dir("figure_energy_tokens.csv")});
    }
  }

  if (plan.any_system()) {
    util::write_output_file(in_dir("figure_scaling.csv"), tables.scaling_csv);
    drawings.push_back({"plot_scaling.py", in_dir("figure_scaling.csv"), in_dir("figure_scaling")});
  }

  const std::string python = config::environment_or("REUSESIM_PYTHON", "/usr/bin/python3");
  const std::string scripts = config::scripts_directory();
  const std::string redraw = "the tables are in " + results_dir +
                             "; draw again with: " + util::shell_command({"reusesim", "figure", results_dir});
  // A script that is not there is a broken install or a wrong REUSESIM_SCRIPTS_DIR, not a missing
  // matplotlib: say where it was looked for.
  const std::string scripts_origin =
      config::environment_or(config::kScriptsDirVariable, "").empty()
          ? std::string(" (the shipped scripts directory; ") + config::kScriptsDirVariable + " overrides it)"
          : std::string(" (from ") + config::kScriptsDirVariable + ")";
  for (const std::vector<std::string>& arguments : drawings) {
    std::error_code missing;
    if (!fs::is_regular_file(scripts + "/" + arguments.front(), missing)) {
      const bool no_directory = !fs::is_directory(scripts, missing);
      throw std::runtime_error(
          "cannot draw the figure: " +
          (no_directory ? "the plotting scripts directory " + scripts + scripts_origin + " does not exist"
                        : "the plotting script " + arguments.front() + " is not in " + scripts + scripts_origin) +
          "\n" + redraw);
    }
  }
  const std::string log = in_dir("figure.log");
  std::string problem, script;
  for (std::vector<std::string>& arguments : drawings) {
    script = scripts + "/" + arguments.front();
    arguments.front() = script;
    // The caption says a fast trace's times are the fast mode's (docs/performance.md, "Fast mode").
    const std::string title = plan.fidelity == spec::Fidelity::fast ? plan.name + " (fidelity fast)" : plan.name;
    arguments.insert(arguments.end(), {"--title", title});
    try {
      const ProcessExit exit = wait_for_process(start_process(python, arguments, "/dev/null", log));
      if (!exit.ok()) problem = failure_summary(read_text(log), exit.describe() + ", see " + log);
    } catch (const std::runtime_error& error) {
      problem = error.what();
    }
    if (!problem.empty()) break;
  }
  if (!problem.empty()) {
    throw std::runtime_error(
        "drawing the figure with " + python + " " + script + " failed: " + problem +
        "\nthe figure needs Python 3 with matplotlib (Debian: apt-get install python3-matplotlib); " + redraw);
  }
  fs::remove(log);
}

}  // namespace reusesim::trace
