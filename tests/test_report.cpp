// Table output: exact integers, CSV quoting, JSON nulls for "not applicable"; the result columns,
// each declared once, and what is generated from them (headers, TOTAL rows, the legend).
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "config/accelerator_loader.h"
#include "report/dram_stats_report.h"
#include "report/energy_report.h"
#include "report/memtest_report.h"
#include "report/run_report.h"
#include "report/table.h"
#include "util/strings.h"

using namespace reusesim::report;

TEST_CASE("digits are grouped for reading", "[report]") {
  CHECK(reusesim::util::group_digits(0) == "0");
  CHECK(reusesim::util::group_digits(999) == "999");
  CHECK(reusesim::util::group_digits(1000) == "1,000");
  CHECK(reusesim::util::group_digits(724406816) == "724,406,816");
  CHECK(reusesim::util::group_digits(-1234567) == "-1,234,567");
}

TEST_CASE("one table, three formats", "[report]") {
  Table table({{"layer"}, {"macs"}, {"gbps", 1}});
  table.add_row({std::string("conv,1"), std::int64_t{105415200}, 351.947});
  table.add_row({std::string("pool"), std::int64_t{0}, Cell()});
  CHECK(table.to_csv() == "layer,macs,gbps\n\"conv,1\",105415200,351.947\npool,0,\n");
  CHECK(table.to_text() ==
        "layer          macs   gbps\n"
        "conv,1  105,415,200  351.9\n"
        "pool              0      -\n");
  const nlohmann::ordered_json rows = table.to_json();
  CHECK(rows[0]["macs"] == 105415200);
  CHECK(rows[1]["gbps"].is_null());
  CHECK_THROWS(table.add_row({std::string("short")}));
  CHECK(format_from_name("csv") == Format::csv);
  CHECK_FALSE(format_from_name("xml").has_value());
}

// Hand-built statistics: 4 reads with latencies 10, 10, 20, 40 clocks, 2 writes of 30 and 50;
// 5 row hits, 1 miss, 1 conflict among 7 column commands (4 reads + 3 write bursts).
TEST_CASE("DRAM statistics: counters as counted, latencies in ns, hit rate per column command", "[report]") {
  reusesim::results::DramChannelStats stats;
  stats.activates = 2;
  stats.precharges = 1;
  stats.refreshes = 3;
  stats.read_commands = 4;
  stats.write_commands = 3;
  stats.row_hits = 5;
  stats.row_misses = 1;
  stats.row_conflicts = 1;
  stats.turnarounds = 2;
  stats.write_drains = 1;
  for (std::int64_t cycles : {10, 10, 20, 40}) stats.read_latency.add(cycles);
  for (std::int64_t cycles : {30, 50}) stats.write_latency.add(cycles);
  const reusesim::results::DramFigures figures = reusesim::results::figures_of(stats);
  // At tCK 0.5 ns: read mean 80 / 4 = 20 clocks = 10 ns; p50 the 2nd of 4 = 10 clocks = 5 ns;
  // p99 the 4th = 40 clocks = 20 ns. Writes: mean 40 = 20 ns, p50 the 1st of 2 = 30 = 15 ns,
  // p99 the 2nd = 50 = 25 ns. row_hit_rate 5 / 7.
  const std::vector<Cell> cells = cells_of(dram_stat_columns(), figures, 0.5);
  const std::vector<Cell> expected{std::int64_t{2}, std::int64_t{1}, std::int64_t{3}, std::int64_t{4}, std::int64_t{3},
                                   std::int64_t{5}, std::int64_t{1}, std::int64_t{1}, 5.0 / 7.0, std::int64_t{2},
                                   std::int64_t{1}, 10.0, 5.0, 20.0, 20.0, 15.0, 25.0};
  CHECK(cells == expected);
  // No requests: rates and latencies empty.
  const std::vector<Cell> idle = cells_of(dram_stat_columns(), reusesim::results::DramFigures{}, 0.5);
  CHECK(idle[8] == Cell());
  CHECK(idle.back() == Cell());
  const std::vector<DramStatColumn> picked = named(dram_stat_columns(), {"write_latency_p99_ns", "row_misses"});
  REQUIRE(picked.size() == 2);
  CHECK(picked[0].name == "write_latency_p99_ns");
  CHECK(all_but(dram_stat_columns(), {"activates"}).front().name == "precharges");
}

// A layer's share is its end's counters minus its start's, histograms included.
TEST_CASE("DRAM statistics: -= leaves what happened in between", "[report]") {
  reusesim::results::DramChannelStats before;
  before.activates = 7;
  before.read_latency.add(12);
  reusesim::results::DramChannelStats after = before;
  after.activates = 10;
  after.read_latency.add(30);
  after.read_latency.add(30);
  after -= before;
  CHECK(after.activates == 3);
  CHECK(after.read_latency.count() == 2);
  CHECK(after.read_latency.percentile_cycles(0.5) == 30);
  CHECK(after.read_latency.mean_cycles() == 30.0);
}

namespace {

namespace results = reusesim::results;

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The unit a name ends in, where it ends in one, is the declared unit's (tops_per_w: TOPS/W).
void check_unit_suffix(const std::string& name, const std::string& unit) {
  const std::vector<std::pair<std::string, std::string>> suffixes{
      {"_bytes", "bytes"}, {"_cycles", "cycles"}, {"_uj", "uJ"}, {"_ns", "ns"}, {"_us", "us"},
      {"_gbps", "GB/s"},   {"_time_s", "s"},      {"_w", "W"}};
  for (const auto& [name_end, unit_end] : suffixes) {
    INFO(name);
    if (ends_with(name, name_end)) CHECK(ends_with(unit, unit_end));
  }
}

template <typename C>
void check_declarations(const std::vector<C>& columns, bool has_total) {
  std::vector<std::string> names;
  for (const C& column : columns) {
    INFO(column.name);
    CHECK_FALSE(column.unit.empty());
    CHECK_FALSE(column.description.empty());
    CHECK(static_cast<bool>(column.value));
    CHECK((column.total != Total::none) == has_total);
    // Only a sum (or a copy of what every row has) adds into the TOTAL.
    if (column.add_to_total) CHECK((column.total == Total::sum || column.total == Total::same));
    if (column.total == Total::sum) CHECK(static_cast<bool>(column.add_to_total));
    check_unit_suffix(column.name, column.unit);
    CHECK(std::find(names.begin(), names.end(), column.name) == names.end());
    names.push_back(column.name);
  }
}

template <typename C>
std::string names_line(const std::vector<C>& columns) {
  std::string line;
  for (const C& column : columns) line += (line.empty() ? "" : ",") + column.name;
  return line + "\n";
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n') + 1); }

results::DramFigures dram_figures(std::int64_t activates, std::int64_t row_hits, std::int64_t reads) {
  results::DramChannelStats stats;
  stats.activates = activates;
  stats.row_hits = row_hits;
  stats.read_commands = reads;
  stats.read_bytes = 64 * reads;
  for (std::int64_t i = 0; i < reads; ++i) stats.read_latency.add(20 + i);
  return results::figures_of(stats);
}

// Two layers of one batch on tpu_v1 (with a technology and a DRAM); the second differs in a few counts.
RunReport two_layer_report() {
  RunReport report{"tpu_v1", "two", reusesim::config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) +
                                                                            "/configs/tpu_v1.yaml"),
                   {}, std::nullopt, {}, {}};
  results::LayerResult a;
  a.layer = "fc1";
  a.type = "fc";
  a.mapping = "tiles 4";
  a.batch = 2;
  a.macs = 1000;
  a.cycles = 300;
  a.seconds = 3e-7;
  a.compute_cycles = 200;
  a.stall_weights = 40;
  a.stall_inputs = 30;
  a.stall_output_drain = 20;
  a.stall_sram = 6;
  a.stall_vector = 4;
  a.vector_ops = 50;
  a.dram_read_bytes = 4096;
  a.dram_write_bytes = 1024;
  a.dram_read_weight_bytes = 3072;
  a.dram_read_input_bytes = 1024;
  a.prefetched_weight_bytes = 512;
  a.onchip_read_input_bytes = 128;
  a.onchip_kept_output_bytes = 256;
  a.sram_read_bytes = 8192;
  a.sram_write_bytes = 2048;
  a.sram_words = {{100, 20}, {300, 40}};
  a.accumulator_updates = 64;
  a.dram = dram_figures(3, 10, 16);
  a.dram_channels = {a.dram};
  results::LayerResult b = a;
  b.layer = "fc2";
  b.macs = 3000;
  b.seconds = 5e-7;
  b.stall_weights = 100;
  b.dram_read_bytes = 6144;
  b.dram_write_bytes = 2048;
  b.dram_read_kv_cache_bytes = 2048;
  b.sram_words = {{1000, 200}, {3000, 400}};
  b.accumulator_updates = 640;
  b.dram = dram_figures(4, 20, 32);
  b.dram_channels = {b.dram};
  // The batch's statistics: counters as the layers' sum, latencies over the whole batch.
  b.batch_dram = results::BatchDram{dram_figures(7, 30, 48), {dram_figures(7, 30, 48)}};
  report.batches = {{a, b}};
  return report;
}

}  // namespace

TEST_CASE("result columns: each declares a unit, a meaning, its TOTAL and its cell", "[report]") {
  for (bool training : {false, true}) {
    check_declarations(run_columns(training), true);
    check_declarations(run_columns(training, reusesim::spec::Fidelity::exact, true, true, true), true);
    check_declarations(channel_columns(training), true);
  }
  for (bool wall_time : {false, true}) check_declarations(memtest_columns(wall_time), false);
  check_declarations(dram_stat_columns(), false);
  check_declarations(layer_energy_columns(true, true), false);
  check_declarations(dram_energy_columns(), false);
}

TEST_CASE("result columns: the header of every format is the declared names in order", "[report]") {
  RunReport report = two_layer_report();
  CHECK(first_line(run_table(report).to_csv()) == names_line(run_columns(false)));
  CHECK(first_line(render_dram_channels(report)) == names_line(channel_columns(false)));
  const nlohmann::ordered_json rows = run_table(report).to_json();
  std::vector<std::string> keys;
  for (const auto& item : rows[0].items()) keys.push_back(item.key());
  REQUIRE(keys.size() == run_columns(false).size());
  for (std::size_t i = 0; i < keys.size(); ++i) CHECK(keys[i] == run_columns(false)[i].name);
  CHECK(first_line(run_table(report).to_text()).rfind("batch  layer", 0) == 0);
  MemtestResult memtest;
  memtest.spec = report.spec.dram;
  memtest.wall_seconds = 1.0;
  CHECK(first_line(memtest_table(memtest, false).to_csv()) == names_line(memtest_columns(true)));
  // A training step: phase after layer, peak_memory_bytes last.
  report.training = reusesim::workload::TrainingOptions{};
  report.phases = {"forward", "dgrad"};
  report.peak_memory_bytes = {123456};
  // With its technology the step's energy per sample follows power_w.
  const std::string header = first_line(run_table(report).to_csv());
  CHECK(header == names_line(run_columns(true, reusesim::spec::Fidelity::exact, false, false, false, true)));
  CHECK(header.find(",power_w,uj_per_sample,") != std::string::npos);
  CHECK(header.rfind("batch,layer,phase,type,", 0) == 0);
  CHECK(ends_with(header, ",dram_read_kv_cache_bytes,peak_memory_bytes\n"));
  const std::string channels = first_line(render_dram_channels(report));
  CHECK(channels == names_line(channel_columns(true)));
  CHECK(channels.rfind("batch,layer,phase,channel,dram_activates,", 0) == 0);
}

TEST_CASE("result columns: a batch's TOTAL, derived by hand", "[report]") {
  RunReport report = two_layer_report();
  const nlohmann::ordered_json rows = run_table(report).to_json();
  REQUIRE(rows.size() == 3);
  const nlohmann::ordered_json& total = rows[2];
  // Words of its own, and what every row has.
  CHECK(total["batch"] == 2);
  CHECK(total["layer"] == "TOTAL");
  CHECK(total["type"] == "");
  CHECK(total["mapping"] == "");
  CHECK(total["element_bytes"] == report.spec.element_bytes());
  // Sums.
  CHECK(total["macs"] == 4000);
  CHECK(total["cycles"] == 600);
  CHECK(total["time_s"].get<double>() == 3e-7 + 5e-7);
  CHECK(total["compute_cycles"] == 400);
  CHECK(total["stall_weights_cycles"] == 140);
  CHECK(total["stall_inputs_cycles"] == 60);
  CHECK(total["stall_output_drain_cycles"] == 40);
  CHECK(total["stall_sram_cycles"] == 12);
  CHECK(total["stall_vector_cycles"] == 8);
  CHECK(total["vector_ops"] == 100);
  CHECK(total["dram_read_bytes"] == 10240);
  CHECK(total["dram_write_bytes"] == 3072);
  CHECK(total["dram_read_weight_bytes"] == 6144);
  CHECK(total["dram_read_input_bytes"] == 2048);
  CHECK(total["prefetched_weight_bytes"] == 1024);
  CHECK(total["onchip_read_input_bytes"] == 256);
  CHECK(total["onchip_kept_output_bytes"] == 512);
  CHECK(total["sram_read_bytes"] == 16384);
  CHECK(total["sram_write_bytes"] == 4096);
  CHECK(total["dram_read_kv_cache_bytes"] == 2048);
  // Recomputed from the sums.
  CHECK(total["stall_cycles"] == 140 + 60 + 40 + 12 + 8);
  CHECK(total["dram_write_output_bytes"] == 3072);
  const double seconds = 3e-7 + 5e-7, ops = 8000, bytes = 10240 + 3072;
  CHECK(total["dram_gbps"].get<double>() == bytes / seconds / 1e9);
  CHECK(total["arithmetic_intensity"].get<double>() == ops / bytes);
  CHECK(total["gops"].get<double>() == ops / seconds / 1e9);
  CHECK(total["efficiency"].get<double>() == ops / seconds / report.spec.compute.peak_ops_per_second());
  // The batch's DRAM statistics, not the layers' sum: 7 activates, 30 hits of 48 column commands.
  CHECK(total["dram_activates"] == 7);
  CHECK(total["row_hit_rate"].get<double>() == 30.0 / 48.0);
  CHECK(total["dram_read_latency_p50_ns"].get<double>() ==
        static_cast<double>(20 + 23) * report.spec.dram.timing.tck_ns);
  // Energies linear in the summed counts add up: the array's (MACs, accumulator updates), the
  // SRAM's (words per buffer) and the leakage (seconds).
  for (const char* energy : {"energy_array_uj", "energy_sram_uj", "energy_static_uj", "energy_vector_uj"}) {
    INFO(energy);
    CHECK(total[energy].get<double>() == Approx(rows[0][energy].get<double>() + rows[1][energy].get<double>()));
  }
  CHECK(total["energy_dram_uj"].get<double>() > 0);
  // The channel table's TOTAL row: the batch's share of channel 0.
  const std::string channels = render_dram_channels(report);
  CHECK(channels.find("\n2,TOTAL,0,7,") != std::string::npos);
  // A training step's TOTAL: phase "step" and the step's peak memory, on TOTAL only.
  report.training = reusesim::workload::TrainingOptions{};
  report.phases = {"forward", "dgrad"};
  report.peak_memory_bytes = {123456};
  const nlohmann::ordered_json step = run_table(report).to_json();
  CHECK(step[1]["phase"] == "dgrad");
  CHECK(step[1]["peak_memory_bytes"].is_null());
  CHECK(step[2]["phase"] == "step");
  CHECK(step[2]["peak_memory_bytes"] == 123456);
}

TEST_CASE("result columns: the legend, generated from the declarations", "[report]") {
  // Lines in place, first ("" before every other), and after another (in turn after the moved ones).
  const std::vector<LegendLine> lines{{"a", "a: 1", std::nullopt}, {"b", "b: 2", ""}, {"c", "c: 3", std::nullopt},
                                      {"d", "d: 4", "a"},           {"e", "e: 5", "d"}, {"f", "f: 6", "a"}};
  CHECK(legend_text(lines) == "b: 2\na: 1\nd: 4\ne: 5\nf: 6\nc: 3\n");
  CHECK_THROWS_AS(legend_text({{"a", "a: 1", "nowhere"}}), std::logic_error);
  // Every run column is explained but layer, type and vector_ops (stats.txt has no line for them).
  const std::string legend = run_stats_legend(false);
  std::vector<std::string> unlisted;
  for (const RunColumn& column : run_columns(false)) {
    if (column.legend.form == Legend::unlisted) unlisted.push_back(column.name);
    if (column.legend.form == Legend::line) {
      const std::string label = column.legend.label.empty() ? column.name : column.legend.label;
      CHECK(legend.find("\n" + label + ": ") != std::string::npos);
    }
  }
  CHECK(unlisted == std::vector<std::string>{"layer", "type", "vector_ops"});
  CHECK(legend.find("\npj_per_op: picojoules per op (1 MAC = 2 ops); tops_per_w: 1e12 ops per joule; power_w: ") !=
        std::string::npos);
  // A training step's lines lead.
  const std::string step = run_stats_legend(true);
  const std::size_t phase = step.find("\nphase (after layer): ");
  CHECK(phase != std::string::npos);
  CHECK(phase < step.find("\npeak_memory_bytes (the last column, on TOTAL): "));
  CHECK(step.find("\npeak_memory_bytes (the last column, on TOTAL): ") < step.find("\nbatch: "));
}
