#include <catch2/catch.hpp>
#include "input_error_text.h"

#include <filesystem>
#include <string>
#include <vector>

#include "config/run_loader.h"
#include "util/diagnostics.h"

// Run files (batch traces): the shipped example, and exact messages for bad batches, layer
// selections, missing files and sweep values that break an accelerator.

using reusesim::util::InputError;
using reusesim::config::load_run_file;
using reusesim::config::load_run_text;
using reusesim::config::RunSpec;

namespace {

const std::string kSource = REUSESIM_SOURCE_DIR;
// Run texts stand for a file in traces/, so "../configs/..." and "../models/..." resolve to the
// source tree's files. The file itself need not exist.
const std::string kOrigin = kSource + "/traces/test_run.yaml";
const std::string kSmall = kSource + "/configs/small.yaml";

// Lines 1-4 of a run on the small accelerator and the MLP; line 5 onwards is the model's rest.
const std::string kHead =
    "name: r\n"                                  // 1
    "accelerators: ../configs/small.yaml\n"      // 2
    "models:\n"                                  // 3
    "  - model: ../models/mlp.yaml\n";           // 4

RunSpec load(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return load_run_text(text, kOrigin, overrides);
}

// what() of the InputError that loading throws; fails the test otherwise.
std::string errors_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { load(text, overrides); });
}

}  // namespace

// traces/example_run.yaml: small.yaml x mlp.yaml at batch 1 and 16, sweeping dram.channels over
// 1 and 2; paths come back relative to the run file's directory, normalised.
TEST_CASE("traces/example_run.yaml loads", "[run]") {
  const RunSpec run = load_run_file(kSource + "/traces/example_run.yaml");
  CHECK(run.name == "example");
  CHECK(run.accelerator_files == std::vector<std::string>{kSmall});
  REQUIRE(run.models.size() == 1);
  CHECK(run.models[0].model_file == kSource + "/models/mlp.yaml");
  CHECK(run.models[0].batches == std::vector<std::int64_t>{1, 16});
  CHECK(run.models[0].layers.empty());
  CHECK(run.models[0].layer_types.empty());
  REQUIRE(run.sweep.size() == 1);
  CHECK(run.sweep[0].key_path == "dram.channels");
  CHECK(run.sweep[0].values == std::vector<std::string>{"1", "2"});
}

// A run with a layer and type selection and a list of batches; the MLP's layers are fc1..fc5,
// all linear.
TEST_CASE("a valid run with a layer selection", "[run]") {
  const RunSpec run = load(kHead +
                           "    batch: [1, 8, 256]\n"
                           "    layers: [fc1, fc2]\n"
                           "    layer_types: linear\n");
  REQUIRE(run.models.size() == 1);
  CHECK(run.models[0].batches == std::vector<std::int64_t>{1, 8, 256});
  CHECK(run.models[0].layers == std::vector<std::string>{"fc1", "fc2"});
  CHECK(run.models[0].layer_types == std::vector<std::string>{"linear"});
  CHECK(run.sweep.empty());
}

// Batch 0: the second item of `[1, 0]` on line 5; "    batch: [1, " is 15 characters -> column 16.
TEST_CASE("batch 0 is rejected", "[run]") {
  CHECK(errors_of(kHead + "    batch: [1, 0]\n") ==
        kOrigin + ":5:16: error: models.0.batch.1: expected a positive integer, got 0\n");
  // The same through --set on the run file: the origin is the --set argument.
  CHECK(errors_of(kHead + "    batch: 1\n", {"models.0.batch=0"}) ==
        "--set models.0.batch=0: error: models.0.batch: expected a positive integer, got 0\n");
}

// "fc_3" is one deletion from "fc3" (and two edits from the other layers). Reported at the list,
// line 6, column 13 ("    layers: " is 12 characters).
TEST_CASE("unknown layer name with a did-you-mean hint", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\n    layers: [fc1, fc_3]\n") ==
        kOrigin + ":6:13: error: models.0.layers: model mlp has no layer \"fc_3\" (did you mean \"fc3\"?)\n");
}

// "liner" is one insertion from "linear". Reported at the list, line 6, column 18 ("    layer_types: "
// is 17 characters). `linear` is listed too, so the selection is not empty.
TEST_CASE("unknown layer type with a did-you-mean hint", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\n    layer_types: [linear, liner]\n") ==
        kOrigin + ":6:18: error: models.0.layer_types: unknown layer type \"liner\" (did you mean \"linear\"?)\n");
}

// fc1 is linear (its ReLU is fused), so asking for fc1 among relu layers selects nothing. Reported
// at the model item, whose first key is at line 4, column 5.
TEST_CASE("a selection that selects no layer", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\n    layers: fc1\n    layer_types: relu\n") ==
        kOrigin + ":4:5: error: models.0: the layers and layer_types given select no layer\n");
}

// A misspelt key in a model item: batch is then missing (reported at the item, 4:5) and batchs
// (line 5, column 5) unknown, one deletion from batch.
TEST_CASE("unknown key in a run model", "[run]") {
  CHECK(errors_of(kHead + "    batchs: 1\n") ==
        kOrigin + ":4:5: error: models.0.batch: missing required key\n" + kOrigin +
            ":5:5: error: models.0.batchs: unknown key (did you mean \"batch\"?)\n");
}

// A model or accelerator file that does not exist: the message names the resolved path.
TEST_CASE("a missing model or accelerator file", "[run]") {
  CHECK(errors_of("name: r\naccelerators: ../configs/small.yaml\nmodels:\n  - model: ../models/nope.yaml\n    batch: 1\n") ==
        kSource + "/models/nope.yaml: error: cannot open file\n");
  CHECK(errors_of("name: r\naccelerators: ../configs/nope.yaml\nmodels:\n  - model: ../models/mlp.yaml\n    batch: 1\n") ==
        kSource + "/configs/nope.yaml: error: cannot open file\n");
}

// dram.channels 3 is not a power of two. The error is reported where the run file gives the 3:
// line 7, column 22 ("  dram.channels: [1, " is 21 characters), with the accelerator's own
// message (origin: the --set the sweep value becomes) after it. The value 1 is fine.
TEST_CASE("a sweep value that makes the accelerator invalid", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\nsweep:\n  dram.channels: [1, 3]\n") ==
        kOrigin + ":7:22: error: sweep.dram.channels: with dram.channels=3 on " + kSmall +
            ": --set dram.channels=3: error: dram.channels: expected a power of two, got 3\n");
}

// A sweep axis must be a non-empty list: a scalar on line 7 (column 18) is rejected.
TEST_CASE("a sweep axis that is not a list", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\nsweep:\n  dram.channels: 2\n") ==
        kOrigin + ":7:18: error: sweep.dram.channels: expected a non-empty list of values, got \"2\"\n");
}

// Each sweep combination x batch size is a job: 4 axes of 20 values are 160,000 of them, which
// validation alone (one accelerator load per combination in the plan) never finished (found by
// fuzzing). A trace runs at most 10,000 jobs; the sweep (line 6, column 3) says why.
TEST_CASE("a trace with too many jobs", "[run]") {
  const std::string values = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n";
  const std::string sweep = "sweep:\n  compute.rows: " + values + "  compute.cols: " + values +
                            "  compute.vector_ops_per_cycle: " + values + "  sram.buffers.weights.banks: " + values;
  CHECK(errors_of(kHead + "    batch: 1\n" + sweep) ==
        kOrigin + ":7:3: error: sweep: the trace makes 160000 jobs (1 accelerator files x 160000 sweep "
                  "combinations x 1 batch sizes and lengths); a trace runs at most 10000\n");
  // 10 axes of 20 values: 20^10, counted up to 10^9.
  std::string ten_axes = "sweep:\n";
  for (int axis = 0; axis < 10; ++axis) ten_axes += "  a" + std::to_string(axis) + ": " + values;
  CHECK(errors_of(kHead + "    batch: 1\n" + ten_axes) ==
        kOrigin + ":7:3: error: sweep: the trace makes at least 10^9 jobs (1 accelerator files x at least 10^9 sweep "
                  "combinations x 1 batch sizes and lengths); a trace runs at most 10000\n");
  CHECK(errors_of(kHead + "    batch: [1, 2, 3, 4, 5]\nsweep:\n  compute.rows: " + values + "  compute.cols: " + values +
                  "  compute.vector_ops_per_cycle: [1, 2, 3, 4, 5, 6]\n") ==
        kOrigin + ":7:3: error: sweep: the trace makes 12000 jobs (1 accelerator files x 2400 sweep combinations x 5 "
                  "batch sizes and lengths); a trace runs at most 10000\n");
}

// A sweep axis is a key with dots in it, which --set reaches in brackets: `sweep[dram.channels]`
// replaces the axis of line 7, and `sweep[compute.rows]` adds one (the file's `sweep.dram.channels`
// would be sweep -> dram -> channels, a new key "dram" holding a mapping).
TEST_CASE("a sweep axis whose key has dots is reached by --set in brackets", "[run]") {
  const std::string text = kHead + "    batch: 1\nsweep:\n  dram.channels: [1, 2]\n";
  const RunSpec run = load(text, {"sweep[dram.channels]=[1,4]", "sweep[compute.rows]=[8, 16]"});
  REQUIRE(run.sweep.size() == 2);
  CHECK(run.sweep[0].key_path == "dram.channels");
  CHECK(run.sweep[0].values == std::vector<std::string>{"1", "4"});
  CHECK(run.sweep[1].key_path == "compute.rows");
  CHECK(run.sweep[1].values == std::vector<std::string>{"8", "16"});
  // Brackets may lead, follow a dot, and select list elements like any segment.
  CHECK(load(text, {"[sweep].[dram.channels]=[2]"}).sweep[0].values == std::vector<std::string>{"2"});
  CHECK(load(text, {"models[0].batch=[4]"}).models[0].batches == std::vector<std::int64_t>{4});
}

// A malformed bracket says what is wrong and how the form goes; the value's own `[` is not part
// of the path (the path ends at the first `=` outside brackets).
TEST_CASE("a malformed bracket in a --set path is a clear error", "[run]") {
  const std::string text = kHead + "    batch: 1\nsweep:\n  dram.channels: [1, 2]\n";
  const std::string form = " (expected key.path=value; a key that contains dots goes in brackets: "
                           "sweep[dram.channels]=[1,2])\n";
  CHECK(errors_of(text, {"sweep[dram.channels=[1]"}) ==
        "--set sweep[dram.channels=[1]: error: a [ is not closed by ] before the =" + form);
  CHECK(errors_of(text, {"sweep[dram.channels]x=[1]"}) ==
        "--set sweep[dram.channels]x=[1]: error: expected ., [ or = after ]" + form);
  CHECK(errors_of(text, {"sweep.dram.channels]=[1]"}) ==
        "--set sweep.dram.channels]=[1]: error: a ] without a [ before it" + form);
  CHECK(errors_of(text, {"sweep[]=[1]"}) == "--set sweep[]=[1]: error: sweep[]: empty segment in key path\n");
  CHECK(errors_of(text, {"sweep[dram.channels]"}) == "--set sweep[dram.channels]: error: expected key.path=value\n");
}

// A value swept twice would make two panels of one name (the figure then failed after every job
// had run). The second 2 is item 2 of line 7, column 25 ("  dram.channels: [1, 2, " is 24
// characters); through --set it is reported at the --set argument.
TEST_CASE("a sweep value given twice is an error at the second", "[run]") {
  CHECK(errors_of(kHead + "    batch: 1\nsweep:\n  dram.channels: [1, 2, 2]\n") ==
        kOrigin + ":7:25: error: sweep.dram.channels: the value 2 is swept twice (first as item 1); give each value once\n");
  CHECK(errors_of(kHead + "    batch: 1\n", {"sweep[dram.channels]=[4, 4]"}) ==
        "--set sweep[dram.channels]=[4, 4]: error: sweep.dram.channels: the value 4 is swept twice (first as item 0); "
        "give each value once\n");
}

// Two accelerators of one name (small.yaml, and a copy of it elsewhere; or small.yaml listed twice)
// would share a panel title. The second is reported where line 2 lists it: "accelerators: [" is 15
// characters, "../configs/small.yaml, " 23 more, so the second item is at column 39.
TEST_CASE("two accelerators of one name are an error at the second", "[run]") {
  const std::string rest = "models:\n  - model: ../models/mlp.yaml\n    batch: 1\n";
  CHECK(errors_of("name: r\naccelerators: [../configs/small.yaml, ../configs/small.yaml]\n" + rest) ==
        kOrigin + ":2:39: error: accelerators.1: " + kSmall +
            " is listed again (first as accelerators.0); list each accelerator once\n");
  const std::string copy = (std::filesystem::temp_directory_path() / "reusesim_test_run_small_copy.yaml").string();
  std::filesystem::copy_file(kSmall, copy, std::filesystem::copy_options::overwrite_existing);
  CHECK(errors_of("name: r\naccelerators: [../configs/small.yaml, " + copy + "]\n" + rest) ==
        kOrigin + ":2:39: error: accelerators.1: accelerator \"small\" (" + copy + ") has the name of accelerators.0 (" +
            kSmall + "); the tables and the figure tell accelerators apart by name: give each file its own name:\n");
  std::filesystem::remove(copy);
}

// Without `accelerators` there is nothing to compare names of: the missing key is the one error
// (reported at the document, line 1, column 1).
TEST_CASE("a run without accelerators reports the missing key", "[run]") {
  CHECK(errors_of("name: r\nmodels:\n  - model: ../models/mlp.yaml\n    batch: 1\n") ==
        kOrigin + ":1:1: error: accelerators: missing required key\n");
}

// Traces over systems (docs/traces-and-figure.md, "Systems"): tests/data/small_switch.yaml, two
// small chips on a switch without a plan of its own, swept over 1 and 2 chips with two plans.
namespace {

const std::string kSwitch = kSource + "/tests/data/small_switch.yaml";

// Lines 1-8, the batch on line 5 and the chip counts on line 7; line 9 onwards are the plans' items.
std::string system_run(const std::string& batch, const std::string& chips = "[1, 2]") {
  const std::string models =
      "name: r\naccelerators: ../tests/data/small_switch.yaml\nmodels:\n"
      "  - model: ../models/mlp.yaml\n";
  return models + "    batch: " + batch + "\nsweep:\n  chips: " + chips + "\nplans:\n";
}

}  // namespace

// `chips` stands for the system's chip count: tensor=chips on 2 chips is --set plan.tensor=2, the
// degrees not given 1; the label is the plan as the file gives it.
TEST_CASE("a run's plans: degrees of chips, labels and their assignments", "[run][system]") {
  const RunSpec run = load(system_run("[4]") + "  - {tensor: chips}\n  - {data: chips, pipeline: 1}\n");
  CHECK(run.accelerator_files == std::vector<std::string>{kSwitch});
  REQUIRE(run.plans.size() == 2);
  CHECK(run.plans[0].label == "tensor=chips");
  CHECK(run.plans[1].label == "pipeline=1,data=chips");
  CHECK(run.plans[0].assignments(2) ==
        std::vector<std::string>{"plan.tensor=2", "plan.pipeline=1", "plan.data=1", "plan.micro_batches=1"});
  CHECK(run.plans[1].assignments(1) ==
        std::vector<std::string>{"plan.tensor=1", "plan.pipeline=1", "plan.data=1", "plan.micro_batches=1"});
  CHECK(run.plans[1].assignments(2) ==
        std::vector<std::string>{"plan.tensor=1", "plan.pipeline=1", "plan.data=2", "plan.micro_batches=1"});
}

// `chips` beside counts is the chips they leave: tensor 2 with data=chips is 2 replicas of 2 on 4
// chips (4 / 2), 1 replica on 2; on 1 chip, not a whole degree (1 / 2), refused at the plan (line
// 9, column 5). Two degrees of chips would leave the split open: refused (line 10, column 5).
TEST_CASE("a chips degree beside counts takes the chips they leave", "[run][system]") {
  const RunSpec run = load(system_run("[4]", "[2]") + "  - {tensor: 2, data: chips}\n");
  REQUIRE(run.plans.size() == 1);
  CHECK(run.plans[0].fixed_chips() == 2);
  CHECK(run.plans[0].assignments(4) ==
        std::vector<std::string>{"plan.tensor=2", "plan.pipeline=1", "plan.data=2", "plan.micro_batches=1"});
  CHECK(run.plans[0].divides(2));
  CHECK_FALSE(run.plans[0].divides(1));
  CHECK(errors_of(system_run("[4]") + "  - {tensor: 2, data: chips}\n  - {tensor: chips, data: chips}\n") ==
        kOrigin +
            ":10:5: error: plans.1: one degree at most is chips (the chips the others leave); give the others "
            "as counts\n");
  CHECK(errors_of(system_run("[4]") + "  - {tensor: 2, data: chips}\n") ==
        kOrigin + ":9:5: error: plans.0: on " + kSwitch +
            " with chips=1, plan tensor=2,data=chips: 1 chips are not a multiple of the plan's other degrees (2), so "
            "chips does not give a whole degree\n");
}

// tensor: 2 takes 2 chips, which the chips=1 variant does not have: the system loader's message,
// at the plan (line 9, column 5). data=chips on 2 chips splits batch 3 into 2 replicas, which it
// cannot: at the batch (line 5, column 12). Both found before any job runs.
TEST_CASE("a plan that does not take every chip, and a batch its replicas cannot share", "[run][system]") {
  CHECK(errors_of(system_run("[3]") + "  - {tensor: 2}\n  - {data: chips}\n") ==
        kOrigin + ":5:12: error: models.0.batch: on " + kSwitch +
            " with chips=2, plan data=chips: batch 3 is not shared evenly by data x micro_batches = 2 (each replica "
            "runs batch / data, in micro_batches equal parts)\n" +
            kOrigin + ":9:5: error: plans.0: on " + kSwitch +
            " with chips=1, plan tensor=2: --set plan.tensor=2: error: plan: tensor x pipeline x data is 2 x 1 x 1 = 2 "
            "chips, but the system has 1: a plan takes every chip\n");
}

// Micro-batches flow through a pipeline: data=chips with micro_batches 2 and no pipeline is the
// system loader's error on each variant, reported once for each.
TEST_CASE("micro-batches without a pipeline in a run's plan", "[run][system]") {
  const std::string error =
      ": --set plan.micro_batches=2: error: plan.micro_batches: micro-batches flow through "
      "pipeline stages: with more than 1, plan.pipeline must be more than 1 too\n";
  CHECK(errors_of(system_run("[4]") + "  - {data: chips, micro_batches: 2}\n") ==
        kOrigin + ":9:5: error: plans.0: on " + kSwitch + " with chips=1, plan data=chips,micro_batches=2" + error +
            kOrigin + ":9:5: error: plans.0: on " + kSwitch + " with chips=2, plan data=chips,micro_batches=2" + error);
}

// A degree is a count or `chips` (line 9, column 14); a plan of no degree (line 10, column 5); a
// plan given twice (line 12, column 5, the second data=chips).
TEST_CASE("a plan's bad degree, an empty plan and a plan given twice", "[run][system]") {
  CHECK(errors_of(system_run("[4]") + "  - {tensor: chipz}\n  - {}\n  - {data: chips}\n  - {data: chips}\n") ==
        kOrigin +
            ":9:14: error: plans.0.tensor: expected a count of chips from 1 to 4096, or chips (those the other "
            "degrees leave), got \"chipz\"\n" +
            kOrigin +
            ":10:5: error: plans.1: a plan gives at least one of tensor, pipeline and data (a count of "
            "chips, or chips: those the others leave)\n" +
            kOrigin +
            ":12:5: error: plans.3: the plan data=chips is given twice (first as plans.1); give each plan "
            "once\n");
  CHECK(errors_of(system_run("[4]").substr(0, system_run("[4]").size() - 1) + " {tensor: chips}\n") ==
        kOrigin +
            ":8:8: error: plans: expected a non-empty list of plans, e.g. [{tensor: chips}, {data: chips}], got "
            "a mapping\n");
}

// Plans are for systems: an accelerator in the list is refused where it is listed (line 2, column
// 15); a system of 2 chips without plans or a plan of its own, at the system (line 2, column 15);
// a training step or a part of a model on it, at the model entry (line 4, column 5).
TEST_CASE("plans on an accelerator, a system without a plan, and what a system does not run", "[run][system]") {
  CHECK(errors_of(kHead + "    batch: 1\nplans:\n  - {tensor: chips}\n") ==
        kOrigin + ":2:15: error: accelerators.0: " + kSmall +
            " is an accelerator, but plans apply to systems (docs/systems.md): list system files only, or trace the "
            "accelerator without plans\n");
  const std::string system_head =
      "name: r\naccelerators: ../tests/data/small_switch.yaml\nmodels:\n"
      "  - model: ../models/mlp.yaml\n";
  CHECK(errors_of(system_head + "    batch: 1\n") ==
        kOrigin + ":2:15: error: accelerators.0: on " + kSwitch +
            ": a system of 2 chips runs a model by a plan: give the file a plan: or the run file plans:\n");
  CHECK(errors_of(system_head + "    batch: 2\n    layers: [fc1]\nplans:\n  - {tensor: chips}\n") ==
        kOrigin + ":4:5: error: models.0: on " + kSwitch +
            ", plan tensor=chips: a system of several chips runs inference of the whole model so far (no mode: "
            "train, layers or layer_types)\n");
}

// Each plan multiplies the jobs: 2 chip counts x 2 plans x 2,501 batch sizes = 10,004 jobs.
TEST_CASE("plans count in a trace's jobs", "[run][system]") {
  std::string batches = "[1";
  for (int batch = 2; batch <= 2501; ++batch) batches += ", " + std::to_string(batch);
  CHECK(errors_of(system_run(batches + "]") + "  - {tensor: chips}\n  - {data: chips}\n") ==
        kOrigin +
            ":7:3: error: sweep: the trace makes 10004 jobs (1 accelerator files x 2 sweep combinations x 2 "
            "plans x 2501 batch sizes and lengths); a trace runs at most 10000\n");
}
