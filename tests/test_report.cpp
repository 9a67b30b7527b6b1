// Table output: exact integers, CSV quoting, JSON nulls for "not applicable".
#include <catch2/catch.hpp>

#include "report/dram_stats_report.h"
#include "report/table.h"

using namespace reusesim::report;

TEST_CASE("digits are grouped for reading", "[report]") {
  CHECK(group_digits(0) == "0");
  CHECK(group_digits(999) == "999");
  CHECK(group_digits(1000) == "1,000");
  CHECK(group_digits(724406816) == "724,406,816");
  CHECK(group_digits(-1234567) == "-1,234,567");
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
  const std::vector<Cell> cells = dram_stat_cells(dram_stat_names(), &figures, 0.5);
  const std::vector<Cell> expected{std::int64_t{2}, std::int64_t{1}, std::int64_t{3}, std::int64_t{4}, std::int64_t{3},
                                   std::int64_t{5}, std::int64_t{1}, std::int64_t{1}, 5.0 / 7.0, std::int64_t{2},
                                   std::int64_t{1}, 10.0, 5.0, 20.0, 20.0, 15.0, 25.0};
  CHECK(cells == expected);
  CHECK(dram_stat_columns({"row_misses", "write_latency_p99_ns"}, "dram_")[1].name == "dram_write_latency_p99_ns");
  // No statistics (an ideal memory): every cell empty.
  for (const Cell& cell : dram_stat_cells(dram_stat_names(), nullptr, 0.5)) CHECK(cell == Cell());
  CHECK(names_except({"a", "b", "c"}, {"b"}) == std::vector<std::string>{"a", "c"});
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
