"""reusesim.sweep: a trace results directory of the cartesian product, its rows equal to `reusesim
run` of the same point, resumed without re-running, a bad key and a failed point raised with the
CLI's message."""

import csv
import io
import json
import os
import subprocess

import pytest

import reusesim

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
# A one-layer model whose pinned tiling fits 8-bit operands on `small` and not 16-bit ones
# (tests/cli/lib.sh's pinned.yaml): a point that fails when it runs, not when it is checked.
PINNED = {"name": "pinned", "precision": "int8", "input": {"features": 1000},
          "layers": [{"name": "fc1", "type": "linear", "out_features": 100,
                      "tiling": {"m": 64, "n": 4, "k": 1000, "order": "n-m"}}]}


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """mlp on small over compute.rows [8, 16] x batch [1, 4]: 4 points, the progress it reported."""
    out = tmp_path_factory.mktemp("sweep") / "rows"
    reported = []
    # Module-scoped: it runs before the tests' chdir to the source tree, so its paths are absolute.
    frame = reusesim.sweep(os.path.join(SRC, "configs/small.yaml"), os.path.join(SRC, "models/mlp.yaml"),
                           over={"compute.rows": [8, 16], "batch": [1, 4]}, out=out, jobs=2, progress=reported.append)
    return out, frame, reported


def test_sweep_is_the_cartesian_product_one_row_per_point_and_batch(swept):
    _, frame, reported = swept
    # 2 rows values x 2 batch sizes, in the trace's job order (the first key slowest).
    assert list(frame["compute.rows"]) == [8, 8, 16, 16]
    assert list(frame["batch"]) == [1, 4, 1, 4]
    assert str(frame["compute.rows"].dtype) == "int64"
    assert (frame["layer"] == "TOTAL").all()
    # mlp's MACs per sample: 1000x100 + 3 x 100x100 + 100x10 = 131,000; at batch 4, 524,000.
    assert list(frame["macs"]) == [131000, 524000, 131000, 524000]
    # One Progress per point, each done, counting to 4.
    assert sorted(point.finished for point in reported) == [1, 2, 3, 4]
    assert {point.status for point in reported} == {"done"} and {point.total for point in reported} == {4}


def test_sweep_row_equals_the_cli_run_of_the_same_point(swept, cli):
    _, frame, _ = swept
    text = cli("run", "--arch", "configs/small.yaml", "--model", "models/mlp.yaml", "--batch", "4", "--set",
               "compute.rows=16", "--format", "csv")
    total = next(row for row in csv.DictReader(io.StringIO(text)) if row["layer"] == "TOTAL")
    row = frame[(frame["compute.rows"] == 16) & (frame["batch"] == 4)].iloc[0]
    for column, cell in total.items():
        if cell == "":
            assert row[column] != row[column] or row[column] in ("", None), column   # NaN
        elif frame[column].dtype == "int64":
            assert row[column] == int(cell), column
        elif frame[column].dtype == "float64":
            assert row[column] == float(cell), column
        else:
            assert row[column] == cell, column


def test_sweep_directory_is_a_trace_that_load_and_figure_read(swept, cli):
    out, frame, _ = swept
    trace = reusesim.load(out)
    assert list(trace.networks["job"]) == list(frame["job"])
    assert set(trace.jobs["status"]) == {"done"}
    # The trace file beside it is the same trace: `reusesim trace OUT.trace.yaml --resume` has nothing to do.
    done = subprocess.run([reusesim.find_binary(), "trace", f"{out}.trace.yaml", "--out", str(out), "--resume",
                           "--no-figure"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "0 job(s) run, 4 already finished, 0 failed" in done.stderr
    cli("figure", str(out))
    assert os.path.isfile(out / "figure.png")


def test_sweep_resume_does_not_rerun_finished_points(swept):
    out, frame, _ = swept
    stamps = {entry.name: entry.stat().st_mtime_ns for entry in (out / "jobs").iterdir()}
    reported = []
    again = reusesim.sweep(os.path.join(SRC, "configs/small.yaml"), os.path.join(SRC, "models/mlp.yaml"),
                           over={"compute.rows": [8, 16], "batch": [1, 4]}, out=out, progress=reported.append)
    assert reported == []  # nothing ran
    assert {entry.name: entry.stat().st_mtime_ns for entry in (out / "jobs").iterdir()} == stamps
    assert again.equals(frame)


def test_sweep_of_another_space_into_the_same_directory_is_refused(swept):
    out, _, _ = swept
    with pytest.raises(reusesim.InputError, match="holds another sweep"):
        reusesim.sweep(os.path.join(SRC, "configs/small.yaml"), os.path.join(SRC, "models/mlp.yaml"),
                       over={"compute.rows": [8, 32]}, out=out)


def test_sweep_bad_key_raises_with_the_cli_message(tmp_path):
    with pytest.raises(reusesim.InputError) as raised:
        reusesim.sweep("configs/small.yaml", "models/mlp.yaml", over={"compute.rowz": [8]}, out=tmp_path / "bad",
                       progress=False)
    assert 'compute.rowz: unknown key (did you mean "rows"?)' in str(raised.value)
    assert raised.value.returncode == 2


def test_sweep_failed_point_raises_unless_failures_are_collected(tmp_path):
    over = {"compute.operand_bits": [8, 16]}
    with pytest.raises(reusesim.InputError) as raised:
        reusesim.sweep("configs/small.yaml", PINNED, over=over, batch=16, out=tmp_path / "pinned", progress=False)
    assert "reusesim run: error: layer fc1: the pinned tiling m64 n4 k1000 does not fit" in str(raised.value)
    assert "compute.operand_bits=16" in str(raised.value)
    frame = reusesim.sweep("configs/small.yaml", PINNED, over=over, batch=16, out=tmp_path / "pinned",
                           progress=False, failures="collect")
    assert list(frame["compute.operand_bits"]) == [8]
    failures = frame.attrs["failures"]
    assert list(failures["compute.operand_bits"]) == [16]
    assert failures["error"].iloc[0].startswith("reusesim run: error: layer fc1: the pinned tiling")


def test_sweep_refuses_a_model_key_naming_what_it_sweeps(tmp_path):
    with pytest.raises(ValueError, match="sweep a model's field by passing a model"):
        reusesim.sweep("configs/small.yaml", "models/mlp.yaml", over={"model.precision": ["int8"]}, out=tmp_path / "m")


def test_trace_runs_a_run_file_as_it_is_and_returns_its_directory_loaded(tmp_path):
    # mlp on small at batch 1 and 4, and a pinned model at 16-bit operands whose tiling does not fit (--set).
    (tmp_path / "pinned.yaml").write_text(json.dumps(PINNED), encoding="utf-8")
    run_file = tmp_path / "study.yaml"
    run_file.write_text(f"name: study\naccelerators: {SRC}/configs/small.yaml\n"
                        f"models:\n  - {{model: {SRC}/models/mlp.yaml, batch: [1, 4]}}\n", encoding="utf-8")
    found = reusesim.trace(run_file, out=tmp_path / "out", progress=False)
    assert isinstance(found, reusesim.Trace)
    # mlp's MACs per sample: 1000x100 + 3 x 100x100 + 100x10 = 131,000; at batch 4, 524,000.
    assert list(found.networks["macs"]) == [131000, 524000]
    result = reusesim.run("configs/small.yaml", "models/mlp.yaml", batch=4, warn=False)
    assert found.networks["cycles"].iloc[1] == result.totals["cycles"].iloc[0]
    # The trace's --set: the run file's second model entry, at 16-bit operands, fails and raises.
    with pytest.raises(reusesim.InputError) as raised:
        reusesim.trace(run_file, out=tmp_path / "pinned", progress=False,
                       set={"models.0.model": str(tmp_path / "pinned.yaml"), "models.0.batch": [16],
                            "sweep[compute.operand_bits]": [16]})
    assert str(raised.value).startswith("trace job 0001-small-compute.operand_bits=16-pinned-b16 failed: ")
    assert "reusesim run: error: layer fc1: the pinned tiling m64 n4 k1000 does not fit" in str(raised.value)
