"""analyze, footprint and memtest as the CLI prints them, typed; load() of a trace's directory."""

import subprocess

import pytest

import reusesim
from test_run import assert_cells_equal, cli_rows


def test_analyze_equals_the_cli(cli):
    analysis = reusesim.analyze("models/alexnet.yaml", batch=4, peak_tops=1)
    rows = cli_rows(cli("analyze", "--model", "models/alexnet.yaml", "--batch", "4", "--peak-tops", "1",
                        "--format", "csv"))
    assert_cells_equal(analysis.layers, rows[:-1])
    assert_cells_equal(analysis.totals, rows[-1:])
    # 724,406,816 MACs a sample (tests/python/test_run.py), x4.
    assert analysis.totals["macs"].iloc[0] == 4 * 724_406_816
    assert analysis.layers["weight_bytes"].dtype == "int64" and analysis.summary["precision"] == "fp32"


def test_footprint_equals_the_cli(cli):
    footprint = reusesim.footprint("models/mlp.yaml", mode="train", optimizer="adam")
    rows = cli_rows(cli("footprint", "--model", "models/mlp.yaml", "--mode", "train", "--optimizer", "adam",
                        "--format", "csv"))
    assert_cells_equal(footprint.layers, rows[:-1])
    assert_cells_equal(footprint.totals, rows[-1:])
    # The MLP at fp32: fc1 (1000 x 100 + 100) x 4 = 400,400 bytes of weights, fc2-fc4 (100 x 100 +
    # 100) x 4 = 40,400 each, fc5 (100 x 10 + 10) x 4 = 4,040: 525,640; Adam keeps 2 values a
    # parameter: 1,051,280.
    assert footprint.totals["weight_bytes"].iloc[0] == 525_640
    assert footprint.totals["optimizer_bytes"].iloc[0] == 1_051_280
    # peak_bytes is the TOTAL's only: empty (NaN) on the layers, so float64.
    assert footprint.totals["peak_bytes"].iloc[0] == footprint.summary["peak_bytes"]


def test_memtest_rows_are_the_whole_memory_then_each_channel():
    result = reusesim.memtest("hbm2", "seq_read", requests=1000)
    # 1,000 requests of 64 bytes read 64,000 bytes, over hbm2's 8 channels.
    assert list(result.rows["channel"]) == ["all"] + [str(channel) for channel in range(8)]
    assert result.rows["read_bytes"].iloc[0] == 64_000 and result.rows["read_bytes"].dtype == "int64"
    assert result.rows["read_bytes"].iloc[1:].sum() == 64_000
    assert result.summary["memory"] == "hbm2"
    assert result.summary["achieved_gbps"] == result.rows["achieved_gbps"][0]


TRACE = """name: tiny
accelerators: {src}/configs/small.yaml
models:
  - {{model: {src}/models/mlp.yaml, batch: [1, 16]}}
sweep:
  dram.channels: [1, 2]
"""


def test_load_reads_a_trace_directory(tmp_path):
    from conftest import SRC

    (tmp_path / "tiny.yaml").write_text(TRACE.format(src=SRC))
    subprocess.run([reusesim.find_binary(), "trace", str(tmp_path / "tiny.yaml"), "--out",
                    str(tmp_path / "results"), "--no-figure"], check=True, capture_output=True)
    trace = reusesim.load(tmp_path / "results")
    # 2 channel counts x 2 batches = 4 jobs; the MLP has 5 layers: 20 layer rows.
    assert list(trace.jobs["status"]) == ["done"] * 4 and len(trace.networks) == 4 and len(trace.layers) == 20
    assert trace.networks["dram.channels"].dtype == "int64" and trace.networks["cycles"].dtype == "int64"
    assert trace.networks["sequence"].isna().all() and trace.layers["mapping"].dtype == "object"
    # The MLP's 131,000 MACs a sample (100,000 + 3 x 10,000 + 1,000), x1 and x16.
    assert list(trace.networks["macs"]) == [131_000, 2_096_000, 131_000, 2_096_000]
    # A job's TOTAL equals the same run from Python.
    job = trace.networks[(trace.networks["dram.channels"] == 2) & (trace.networks["batch"] == 16)].iloc[0]
    alone = reusesim.run("configs/small.yaml", "models/mlp.yaml", batch=16, set={"dram.channels": 2})
    assert job["cycles"] == alone.totals["cycles"].iloc[0] and job["time_s"] == alone.totals["time_s"].iloc[0]


def test_load_of_a_directory_that_is_not_a_trace(tmp_path):
    with pytest.raises(reusesim.InputError, match="not a reusesim trace results directory"):
        reusesim.load(tmp_path)
