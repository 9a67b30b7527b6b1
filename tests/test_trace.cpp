#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "config/run_loader.h"
#include "trace/directory_lock.h"
#include "trace/figure.h"
#include "trace/progress.h"
#include "trace/results_directory.h"
#include "trace/shard.h"
#include "trace/slurm.h"
#include "trace/trace_plan.h"
#include "util/strings.h"

// The batch-trace pieces that need no worker process: job expansion, the plan file, the figure's
// points and roofs, the progress lines and the results directory's refusals.

namespace fs = std::filesystem;
using reusesim::trace::TracePlan;

namespace {

const std::string kSource = REUSESIM_SOURCE_DIR;

TracePlan example_plan() { return reusesim::trace::plan_trace_file(kSource + "/traces/example_run.yaml", {}); }

// A fresh, empty directory under the system's temporary directory.
fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("reusesim_test_trace_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("the example trace expands to 2 sweep values x 2 batch sizes, in a fixed order", "[trace]") {
  const TracePlan plan = example_plan();
  CHECK(plan.name == "example");
  REQUIRE(plan.panels.size() == 2);
  CHECK(plan.panels[0].title == "small, dram.channels=1");
  CHECK(plan.panels[1].title == "small, dram.channels=2");
  // small: 16 x 16 int8 MACs at 1 GHz = 2 x 256 x 1e9 = 512 Gops/s. One DDR4-2400 channel moves
  // 64 bits x 2 per 0.833 ns clock = 19.208 GB/s; two channels twice that.
  CHECK(plan.panels[0].peak_gops == Approx(512));
  CHECK(plan.panels[0].dram_gbps == Approx(16.0 / 0.833));
  CHECK(plan.panels[1].dram_gbps == Approx(32.0 / 0.833));
  CHECK_FALSE(plan.panels[0].sram_gops.has_value());
  REQUIRE(plan.jobs.size() == 4);
  const std::vector<std::string> ids{plan.jobs[0].id, plan.jobs[1].id, plan.jobs[2].id, plan.jobs[3].id};
  CHECK(ids == std::vector<std::string>{"0001-small-dram.channels=1-mlp-b1", "0002-small-dram.channels=1-mlp-b16",
                                        "0003-small-dram.channels=2-mlp-b1", "0004-small-dram.channels=2-mlp-b16"});
  CHECK(plan.jobs[3].panel == 1);
  CHECK(plan.jobs[3].batch == 16);
  CHECK(plan.jobs[3].model == "mlp");
  CHECK(plan.jobs[3].selection() == "all");
}

// FNV-1a 64's published test vectors (Fowler, Noll, Vo: the FNV reference test suite).
TEST_CASE("content_hash is FNV-1a 64", "[trace]") {
  CHECK(reusesim::trace::content_hash("") == "cbf29ce484222325");
  CHECK(reusesim::trace::content_hash("a") == "af63dc4c8601ec8c");
  CHECK(reusesim::trace::content_hash("foobar") == "85944171f73967e8");
}

// The plan records every file a job reads: the run file, the accelerator, the DRAM preset it names
// (found through the preset directory) and the model; each hashed as it is on disk.
TEST_CASE("the plan records the content hash of every input file", "[trace]") {
  const TracePlan plan = example_plan();
  const auto hash_of = [](const std::string& file) {
    std::ifstream stream(file, std::ios::binary);
    std::ostringstream text;
    text << stream.rdbuf();
    return reusesim::trace::content_hash(text.str());
  };
  std::map<std::string, std::string> expected;
  for (const char* file : {"/traces/example_run.yaml", "/configs/small.yaml", "/configs/dram/ddr4-2400.yaml",
                           "/models/mlp.yaml"}) {
    expected[kSource + file] = hash_of(kSource + file);
  }
  CHECK(plan.inputs == expected);
}

// What --resume names: a file whose content changed, one no longer read (the accelerator now names
// another preset) and one read only now.
TEST_CASE("changed inputs are named with what changed", "[trace]") {
  TracePlan started;
  started.inputs = {{"/a.yaml", "1"}, {"/b.yaml", "2"}, {"/c.yaml", "3"}};
  TracePlan now;
  now.inputs = {{"/a.yaml", "1"}, {"/b.yaml", "9"}, {"/d.yaml", "4"}};
  CHECK(reusesim::trace::changed_inputs(started, now) ==
        std::vector<std::string>{"/b.yaml: changed since the trace started",
                                 "/c.yaml: read when the trace started, no longer read",
                                 "/d.yaml: read now, not when the trace started"});
  CHECK(reusesim::trace::changed_inputs(started, started).empty());
}

// 60 s + 2 s per layer + 100 s per 10^9 MACs, rounded up:
// - one layer and no MACs: 60 + 2 = 62;
// - DeepSpeech2's 4 GRU layers at batch 1, 246,720,000 MACs: 60 + 8 + 24.672 = 92.672 -> 93;
// - AlexNet's fc6 + fc7 at batch 256: (37,748,736 + 16,777,216) x 256 = 13,958,643,712 MACs,
//   60 + 4 + 1395.864 -> 1460;
// - the example's MLP (5 layers, 131,000 MACs a sample) at batch 16: 60 + 10 + 0.2096 -> 71;
// - 2^63 MACs at batch 10^6 stops at 10^7 s.
TEST_CASE("a job's default time limit grows with its layers and MACs", "[trace]") {
  using reusesim::trace::job_time_limit_seconds;
  CHECK(job_time_limit_seconds(1, 0, 1) == 62);
  CHECK(job_time_limit_seconds(4, 246'720'000, 1) == 93);
  CHECK(job_time_limit_seconds(2, 37'748'736 + 16'777'216, 256) == 1460);
  CHECK(job_time_limit_seconds(1, INT64_MAX, 1'000'000) == 10'000'000);
  CHECK(example_plan().jobs[1].time_limit_seconds == 71);
}

TEST_CASE("a job runs as reusesim run with its variant's settings and its part of the model", "[trace]") {
  TracePlan plan = example_plan();
  plan.jobs[2].layers = {"fc1", "fc2"};
  plan.jobs[2].layer_types = {"linear"};
  CHECK(plan.jobs[2].selection() == "layers fc1+fc2, types linear");
  CHECK(reusesim::trace::run_arguments(plan, plan.jobs[2], "/r/jobs/x.partial", true) ==
        std::vector<std::string>{"run", "--arch", kSource + "/configs/small.yaml", "--model",
                                 kSource + "/models/mlp.yaml", "--batch", "1", "--format", "csv", "--out",
                                 "/r/jobs/x.partial", "--set", "dram.channels=2", "--layers", "fc1,fc2",
                                 "--layer-types", "linear", "--timeline", "/r/jobs/x.partial/timeline.json"});
}

TEST_CASE("the plan file reads back as written, and anything else is refused", "[trace]") {
  const TracePlan plan = example_plan();
  const std::string text = reusesim::trace::plan_json(plan);
  CHECK(reusesim::trace::plan_json(reusesim::trace::read_plan_json(text, "trace.json")) == text);
  CHECK_THROWS_WITH(reusesim::trace::read_plan_json("{\"trace\": 1}", "x/trace.json"),
                    Catch::StartsWith("x/trace.json is not a ReuseSim trace plan ("));
  CHECK_THROWS_WITH(reusesim::trace::read_plan_json("not json", "x/trace.json"),
                    Catch::StartsWith("x/trace.json is not a ReuseSim trace plan ("));
}

TEST_CASE("an unlimited ideal memory: null bandwidth in the plan file, no DRAM roof in the figure", "[trace]") {
  TracePlan plan = example_plan();
  plan.panels[1].dram_gbps = std::numeric_limits<double>::infinity();
  const std::string text = reusesim::trace::plan_json(plan);
  CHECK_THAT(text, Catch::Contains("\"dram_gbps\": null,"));
  const TracePlan read = reusesim::trace::read_plan_json(text, "trace.json");
  CHECK(std::isinf(read.panels[1].dram_gbps));
  CHECK(reusesim::trace::plan_json(read) == text);
  // No jobs finished: only the roofs. No slope, so neither bandwidth nor ridge.
  const fs::path dir = scratch("ideal");
  CHECK(reusesim::trace::figure_tables(read, dir.string()).roofs_csv ==
        "panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops\n"
        "\"small, dram.channels=1\",small,512,19.20768307,26.656,\n"
        "\"small, dram.channels=2\",small,512,,,\n");
  fs::remove_all(dir);
}

TEST_CASE("figure points: networks of whole-model jobs, layers with MACs, each once", "[trace]") {
  TracePlan plan = example_plan();
  // Job 1: the whole MLP at batch 1; job 2: fc1 alone at batch 16; job 3: fc1 alone at batch 1 on
  // job 1's panel, so its fc1 point repeats job 1's: it is dropped, but job 1's point joins job 3's
  // series mlp/fc1 (the layers of whole networks have none). Parts of a model get no network point.
  plan.jobs.resize(3);
  plan.jobs[1].layers = {"fc1"};
  plan.jobs[2].layers = {"fc1"};
  plan.jobs[2].panel = 0;
  const fs::path dir = scratch("figure");
  const auto results = [](const std::string& rows) {
    return "{\"rows\": [" + rows + "]}";
  };
  // fc1's weights were prefetched during the layer before: its DRAM bytes moved over 1.25 x its
  // time, so its point's y is its gops and efficiency / 1.25 (3.25 -> 2.6, 0.01 -> 0.008), under
  // the DRAM slope where its gops over its own time would not be.
  const std::string fc1 =
      R"({"layer": "fc1", "type": "linear", "macs": 100000, "time_s": 2e-6, "dram_span_s": 2.5e-6, )"
      R"("arithmetic_intensity": 1.5, "gops": 3.25, "efficiency": 0.01})";
  const std::string relu =
      R"({"layer": "act", "type": "relu", "macs": 0, "time_s": 0, "dram_span_s": 0, "arithmetic_intensity": null, )"
      R"("gops": 0.0, "efficiency": 0.0})";
  const std::string total = R"({"layer": "TOTAL", "type": "", "macs": 100000, "time_s": 4e-6, "dram_span_s": 4e-6, )"
                            R"("arithmetic_intensity": 1.25, "gops": 3, "efficiency": 0.0058})";
  for (const auto& job : plan.jobs) {
    write(dir / "jobs" / job.id / "results.json", results(fc1 + "," + relu + "," + total));
    write(dir / "jobs" / job.id / "job.json", "{}");
  }
  const reusesim::trace::FigureTables tables = reusesim::trace::figure_tables(plan, dir.string());
  CHECK(tables.points_csv ==
        "panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency\n"
        "\"small, dram.channels=1\",layer,mlp,fc1,linear,mlp/fc1,1,1.5,2.6,0.008\n"
        "\"small, dram.channels=1\",network,mlp,,,mlp,1,1.25,3,0.0058\n"
        "\"small, dram.channels=1\",layer,mlp,fc1,linear,mlp/fc1,16,1.5,2.6,0.008\n");
  // Ridge = peak / bandwidth = 512 / 19.208 = 26.656 ops/B.
  CHECK(tables.roofs_csv ==
        "panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops\n"
        "\"small, dram.channels=1\",small,512,19.20768307,26.656,\n"
        "\"small, dram.channels=2\",small,512,38.41536615,13.328,\n");
  fs::remove_all(dir);
}

TEST_CASE("a results directory holds one trace: refusals say what to do", "[trace]") {
  const TracePlan plan = example_plan();
  const fs::path dir = scratch("refusals");
  write(dir / "notes.txt", "mine");
  reusesim::trace::ResultsDirectory foreign(dir.string(), plan);
  using Existing = reusesim::trace::ResultsDirectory::Existing;
  CHECK_THROWS_WITH(foreign.prepare(Existing::overwrite), Catch::Contains("exists and is not a trace results directory: "
                                                            "ReuseSim did not create it"));
  fs::remove(dir / "notes.txt");
  reusesim::trace::ResultsDirectory results(dir.string(), plan);
  results.prepare(Existing::refuse);
  CHECK(fs::exists(dir / "trace.json"));
  CHECK_THROWS_WITH(results.prepare(Existing::refuse), Catch::Contains("already holds trace results; add --resume"));
  results.prepare(Existing::resume);  // the same plan: fine
  // --overwrite deletes only what ReuseSim wrote, and nothing while something else is there.
  write(dir / "jobs" / "0001-x" / "job.json", "{}");
  CHECK_THROWS_WITH(results.prepare(Existing::overwrite),
                    Catch::Contains("ReuseSim did not write " + (dir / "jobs" / "0001-x").string()));
  CHECK(fs::exists(dir / "jobs" / "0001-x" / "job.json"));
  fs::remove_all(dir / "jobs" / "0001-x");
  const std::string started = results.start(plan.jobs.front());
  results.prepare(Existing::overwrite);  // starts afresh
  CHECK_FALSE(fs::exists(started));
  CHECK(fs::exists(dir / "trace.json"));
  TracePlan other = plan;
  other.jobs.pop_back();
  reusesim::trace::ResultsDirectory changed(dir.string(), other);
  CHECK_THROWS_WITH(changed.prepare(Existing::resume), Catch::Contains("holds results of a different trace"));
  fs::remove_all(dir);
}

TEST_CASE("plain progress lines, one per finished job", "[trace]") {
  std::ostringstream out;
  reusesim::trace::Progress progress(out, false, 12, 2);  // 2 of 12 already finished
  progress.job_started();
  progress.job_started();
  progress.job_done("0003-a", 1.25);
  progress.job_failed("0004-b", "reusesim run: error: no");
  progress.close();
  CHECK(out.str() == "[ 3/12] done   0003-a (1.2 s)\n[ 4/12] FAILED 0004-b: reusesim run: error: no\n");
  CHECK(reusesim::trace::clock_text(75) == "1:15");
  CHECK(reusesim::trace::clock_text(3725) == "1:02:05");
}

TEST_CASE("a failed job is summed up by its first error line", "[trace]") {
  CHECK(reusesim::trace::failure_summary("Info: x\nreusesim run: error: bad\nmore\n", "exit status 2") ==
        "reusesim run: error: bad");
  CHECK(reusesim::trace::failure_summary("ModuleNotFoundError: No module named 'matplotlib'\n", "exit status 1") ==
        "ModuleNotFoundError: No module named 'matplotlib'");
  CHECK(reusesim::trace::failure_summary("", "killed by signal 9 (Killed)") == "killed by signal 9 (Killed)");
}

TEST_CASE("on a terminal the progress is one bar redrawn in place, failures printed above it", "[trace]") {
  std::ostringstream out;
  reusesim::trace::Progress progress(out, true, 4, 1);
  progress.job_started();
  progress.job_started();
  progress.job_failed("0002-b", "reusesim run: error: no");
  progress.close();
  const std::string text = out.str();
  // Every redraw clears the line first; 2 of 4 finished fill 15 of the 30 bar cells.
  CHECK(text.rfind("\r\033[K[###############...............] 2/4 done, 1 running, 1 failed | 0:00 elapsed, ~0:00 left\n") !=
        std::string::npos);
  CHECK(text.find("\r\033[K[2/4] FAILED 0002-b: reusesim run: error: no\n") != std::string::npos);
  // Before: 1 of 4 (the skipped one) fills 30 / 4 = 7 cells, rounded down; no time left to guess yet.
  CHECK(text.find("[#######.......................] 1/4 done, 2 running, 0 failed | 0:00 elapsed, ? left") != std::string::npos);
}

// The kernel's lock table names the holder: flock entries only (not POSIX locks nor waiters),
// matched on device major:minor (hex) and inode.
TEST_CASE("the holder of a directory lock is found in the kernel's lock table", "[trace]") {
  const std::string table =
      "1: POSIX  ADVISORY  WRITE 500 fe:00:42 0 EOF\n"
      "2: FLOCK  ADVISORY  WRITE 16187 fe:00:10953058 0 EOF\n"
      "2: -> FLOCK  ADVISORY  WRITE 16200 fe:00:10953058 0 EOF\n"
      "3: FLOCK  ADVISORY  WRITE 777 08:11:42 0 EOF\n";
  CHECK(reusesim::trace::flock_holder(0xfe, 0, 10953058, table) == 16187);
  CHECK(reusesim::trace::flock_holder(8, 0x11, 42, table) == 777);
  CHECK(reusesim::trace::flock_holder(0xfe, 0, 42, table) == -1);  // only a POSIX lock there
}

// A second lock on a locked results directory fails at once, naming the process (here this one);
// once the first is released the directory can be locked again.
TEST_CASE("a results directory is locked by one trace at a time", "[trace]") {
  const fs::path dir = scratch("lock") / "results";
  {
    const reusesim::trace::DirectoryLock first(dir.string());
    CHECK(fs::is_directory(dir));
    CHECK_THROWS_WITH(reusesim::trace::DirectoryLock(dir.string()),
                      dir.string() + " is in use by another reusesim trace (process " + std::to_string(getpid()) +
                          "); wait for it to end, or choose another --out directory");
  }
  CHECK_NOTHROW(reusesim::trace::DirectoryLock(dir.string()));
  fs::remove_all(dir.parent_path());
}

// Sharding (trace/shard.h): which jobs each shard runs, and the files shards leave.

namespace {

// A plan of jobs of the given sizes, (layers, MACs, recurrent steps), named by their index, on
// `variants` 16-bit variants: every job on each, variant after variant.
TracePlan sized_plan(const std::vector<std::tuple<std::size_t, std::int64_t, double>>& sizes, std::size_t variants = 1) {
  TracePlan plan;
  for (std::size_t panel = 0; panel < variants; ++panel) {
    plan.panels.emplace_back();
    plan.panels.back().operand_bits = 16;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      reusesim::trace::TraceJob job;
      job.id = std::to_string(panel) + "-" + std::to_string(i);
      job.panel = panel;
      std::tie(job.layer_count, job.macs, job.recurrent_steps) = sizes[i];
      plan.jobs.push_back(job);
    }
  }
  return plan;
}

}  // namespace

TEST_CASE("a job's estimated time grows with its layers, MACs, recurrent steps and element size", "[trace][shard]") {
  TracePlan plan = sized_plan({{1, 0, 0}, {10, 0, 0}, {10, 1'000'000'000, 0}, {10, 0, 200}, {0, 0, 0}});
  const auto seconds = [&](std::size_t job) {
    return reusesim::trace::estimated_job_seconds(plan.jobs[job], plan.panels[0]);
  };
  CHECK(seconds(0) < seconds(1));
  CHECK(seconds(1) < seconds(2));
  // DeepSpeech2's four GRUs over 50 steps: seconds, several times a job's start-up.
  CHECK(seconds(3) > 3 * seconds(1));
  // At 8 bits the replay moves half the bytes: the work beyond start-up (job 4's time) halves.
  const double sixteen_bits = seconds(3);
  plan.panels[0].operand_bits = 8;
  CHECK(seconds(3) - seconds(4) == Approx((sixteen_bits - seconds(4)) / 2));
}

TEST_CASE("shards are balanced by estimated time, not by count, and cover every job once", "[trace][shard]") {
  // One job of 10^11 MACs and eight small ones: by count the big one's shard would get four
  // more; by time it runs alone and the small ones share the other shard.
  std::vector<std::tuple<std::size_t, std::int64_t, double>> sizes(8, {5, 10'000'000, 0});
  sizes.insert(sizes.begin() + 3, {5, 100'000'000'000, 0});
  const TracePlan plan = sized_plan(sizes);
  const auto shards = reusesim::trace::split_jobs(plan, 2);
  REQUIRE(shards.size() == 2);
  CHECK(shards[0] == std::vector<std::size_t>{3});
  CHECK(shards[1] == std::vector<std::size_t>{0, 1, 2, 4, 5, 6, 7, 8});
  // Equal jobs split evenly, each shard in plan order, every job in exactly one shard.
  const TracePlan even = sized_plan(std::vector<std::tuple<std::size_t, std::int64_t, double>>(10, {3, 1000, 0}));
  const auto thirds = reusesim::trace::split_jobs(even, 3);
  std::vector<std::size_t> all;
  for (const auto& shard : thirds) {
    CHECK(std::is_sorted(shard.begin(), shard.end()));
    all.insert(all.end(), shard.begin(), shard.end());
  }
  std::sort(all.begin(), all.end());
  CHECK(all == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(thirds[0].size() == 4);
  CHECK(thirds[1].size() == 3);
  CHECK(thirds[2].size() == 3);
  CHECK(reusesim::trace::split_jobs(even, 3) == thirds);
  // The same five jobs on four variants: each shard gets jobs of several variants, so a variant
  // slower than estimated does not slow one shard alone.
  const TracePlan variants = sized_plan({{1, 0, 0}, {5, 0, 0}, {5, 0, 50}, {5, 0, 100}, {5, 0, 200}}, 4);
  for (const auto& shard : reusesim::trace::split_jobs(variants, 4)) {
    std::set<std::size_t> panels;
    for (std::size_t job : shard) panels.insert(variants.jobs[job].panel);
    CHECK(panels.size() > 1);
  }
  // More shards than jobs leaves some empty.
  CHECK(reusesim::trace::split_jobs(sized_plan({{1, 1, 0}}), 2) == std::vector<std::vector<std::size_t>>{{0}, {}});
}

TEST_CASE("a plan sizes each job: layers, MACs x batch and recurrent steps", "[trace][shard]") {
  const TracePlan plan = reusesim::trace::plan_trace_file(kSource + "/traces/snowflake_figure.yaml", {});
  const auto& resnet = plan.jobs[2];
  REQUIRE(resnet.id == "0003-snowflake-resnet50-b1");
  CHECK(resnet.recurrent_steps == 0);
  const auto& gru = plan.jobs[22];
  REQUIRE(gru.id == "0023-snowflake-deepspeech2-gru-b2");
  // Four GRU layers over conv1's 50 output steps, whatever the batch; MACs scale with it.
  CHECK(gru.layer_count == 4);
  CHECK(gru.recurrent_steps == 200);
  CHECK(gru.macs == 2 * plan.jobs[21].macs);
}

TEST_CASE("the split file reads back as written, and anything else is refused", "[trace][shard]") {
  const TracePlan plan = example_plan();
  const auto split = reusesim::trace::make_split(plan, 2, {plan.run_file, "--set", "name=x"});
  CHECK(split.plan_hash == reusesim::trace::content_hash(reusesim::trace::plan_json(plan)));
  CHECK(split.count() == 2);
  const std::string text = reusesim::trace::split_json(split);
  CHECK(reusesim::trace::split_json(reusesim::trace::read_split_json(text, "split.json")) == text);
  CHECK_THROWS_WITH(reusesim::trace::read_split_json("{\"plan\": \"x\"}", "s/split.json"),
                    Catch::StartsWith("s/split.json is not a ReuseSim shard split ("));
  CHECK_THROWS_WITH(
      reusesim::trace::read_split_json(R"({"plan": "x", "shards": 3, "arguments": [], "jobs": [["a"], ["b"]]})", "s"),
      Catch::Contains("its shard count does not match its lists of jobs"));
  const reusesim::trace::ShardRecord record{"abc", {2, 4}, "failed", 6, 5, 1};
  const std::string record_text = reusesim::trace::shard_record_json(record);
  CHECK(reusesim::trace::shard_record_json(reusesim::trace::read_shard_record(record_text, "r")) == record_text);
}

TEST_CASE("shell_command quotes what a shell would split or expand", "[trace][shard]") {
  using reusesim::util::shell_command;
  CHECK(shell_command({"/usr/bin/reusesim", "trace", "--set", "models.0.batch=[1,2]", "it's here", ""}) ==
        "/usr/bin/reusesim trace --set 'models.0.batch=[1,2]' 'it'\\''s here' ''");
}

TEST_CASE("Slurm time limits are checked as sbatch reads them", "[trace][slurm]") {
  for (const char* good : {"30", "10:00", "2:00:00", "1-0", "1-12:30", "2-00:00:00", "UNLIMITED"}) {
    CHECK(reusesim::trace::valid_slurm_time(good));
  }
  for (const char* bad : {"", "1h", "-5", "1:2:3:4", "10 min", "1-", "1-2-3", "1:2:", "30\n#SBATCH --x"}) {
    CHECK_FALSE(reusesim::trace::valid_slurm_time(bad));
  }
}

// A trace over a system (docs/traces-and-figure.md, "Systems"): tests/data/small_switch.yaml at 1
// and 2 chips x tensor=chips and data=chips, the MLP at batch 4. A panel per chip count and plan,
// the first axis (chips) slowest, then the plans; a job runs the system with its chip count and its
// plan's every degree; trace.json keeps them.
TEST_CASE("a system trace: a panel per chip count and plan, each job run with its plan", "[trace][system]") {
  const std::string run_file = kSource + "/traces/test_system_run.yaml";
  const reusesim::config::RunSpec run = reusesim::config::load_run_text(
      "name: s\naccelerators: ../tests/data/small_switch.yaml\nmodels:\n  - model: ../models/mlp.yaml\n"
      "    batch: 4\nsweep:\n  chips: [1, 2]\nplans:\n  - {tensor: chips}\n  - {data: chips}\n",
      run_file);
  const TracePlan plan = reusesim::trace::plan_trace(run, run_file);
  REQUIRE(plan.panels.size() == 4);
  CHECK(plan.panels[0].title == "small_switch, chips=1, plan tensor=chips");
  CHECK(plan.panels[3].title == "small_switch, chips=2, plan data=chips");
  CHECK(plan.panels[3].accelerator == "small_switch");
  CHECK(plan.panels[1].chips == 1);
  CHECK(plan.panels[3].chips == 2);
  CHECK(plan.any_system());
  CHECK(plan.any_plan());
  CHECK_FALSE(example_plan().any_system());
  // The roofs are the chip's: small's 512 Gops/s (the example trace's test has the arithmetic).
  CHECK(plan.panels[2].peak_gops == Approx(512));
  REQUIRE(plan.jobs.size() == 4);
  CHECK(plan.jobs[2].id == "0003-small_switch-chips=2-tensor=chips-mlp-b4");
  CHECK(plan.jobs[2].panel == 2);
  // The MLP has no KV cache: no tokens a sample.
  CHECK(plan.jobs[2].tokens_per_sample == 0);
  CHECK(reusesim::trace::run_arguments(plan, plan.jobs[3], "/r/jobs/x.partial", false) ==
        std::vector<std::string>{"run",
                                 "--arch",
                                 kSource + "/tests/data/small_switch.yaml",
                                 "--model",
                                 kSource + "/models/mlp.yaml",
                                 "--batch",
                                 "4",
                                 "--format",
                                 "csv",
                                 "--out",
                                 "/r/jobs/x.partial",
                                 "--set",
                                 "chips=2",
                                 "--set",
                                 "plan.tensor=1",
                                 "--set",
                                 "plan.pipeline=1",
                                 "--set",
                                 "plan.data=2",
                                 "--set",
                                 "plan.micro_batches=1"});
  const std::string text = reusesim::trace::plan_json(plan);
  const TracePlan read = reusesim::trace::read_plan_json(text, "trace.json");
  CHECK(reusesim::trace::plan_json(read) == text);
  CHECK(read.panels[3].plan == "data=chips");
  CHECK(read.panels[3].plan_assignments == plan.panels[3].plan_assignments);
  CHECK(read.panels[0].chips == 1);
}

// A decode step's tokens a sample (1) come with a system's jobs, for a one-chip job's tokens_per_s.
TEST_CASE("a system job of a transformer's decode step knows its tokens a sample", "[trace][system]") {
  const std::string run_file = kSource + "/traces/test_system_run.yaml";
  const reusesim::config::RunSpec run = reusesim::config::load_run_text(
      "name: s\naccelerators: ../tests/data/small_switch.yaml\nmodels:\n  - model: ../tests/data/tiny_lm.yaml\n"
      "    phase: decode\n    context: 8\n    batch: 2\nplans:\n  - {tensor: chips}\n",
      run_file);
  const TracePlan plan = reusesim::trace::plan_trace(run, run_file);
  REQUIRE(plan.jobs.size() == 1);
  CHECK(plan.jobs[0].tokens_per_sample == 1);
  CHECK(reusesim::trace::read_plan_json(reusesim::trace::plan_json(plan), "trace.json").jobs[0].tokens_per_sample == 1);
}
