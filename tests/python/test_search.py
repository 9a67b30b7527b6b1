"""reusesim.search and `reusesim search`: every configuration of a small space run once and equal to
`reusesim run` of it, the front the non-dominated feasible configurations, the same trials for the
same seed whatever `jobs`, a resumed search re-running nothing, and SPACE.yaml's errors at their
file, line and key path (exit 2)."""

import os
import subprocess

import pytest

import reusesim
from reusesim import search_space

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))

# small (16 x 16, ddr4-2400) with the 45 nm table for energy and area; 3 x 2 = 6 configurations.
SPACE = f"""\
name: tiny
accelerator: {SRC}/configs/small.yaml
set: {{technology: 45nm, compute.number_format: int}}
parameters:
  compute.rows: [8, 16, 32]
  memory:
    - {{dram.preset: ddr4-2400, dram.channels: 1}}
    - {{dram.preset: ddr4-2400, dram.channels: 2}}
workloads:
  - {{model: {SRC}/models/mlp.yaml, batch: 4}}
objective: time
constraints: {{area_mm2: 0.75}}
budget: 6
round_size: 4
seed: 7
"""


def write_space(path, text=SPACE):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """The whole space (budget 6 = its size) searched with 2 runs at once."""
    directory = tmp_path_factory.mktemp("search")
    space = write_space(directory / "space.yaml")
    reported = []
    front = reusesim.search(space, out=directory / "out", jobs=2,
                            progress=lambda *point: reported.append(point))
    return space, directory / "out", front, reported


def test_search_runs_every_configuration_once_as_reusesim_run_does(searched):
    _, _, front, reported = searched
    trials = front.attrs["trials"]
    configurations = {(row["compute.rows"], row["dram.channels"]) for _, row in trials.iterrows()}
    assert configurations == {(rows, channels) for rows in (8, 16, 32) for channels in (1, 2)}
    assert len(reported) == 6  # one line per configuration run, repeats proposed by the sampler not rerun
    # A trial's time equals `reusesim run` of its configuration (mlp's TOTAL at batch 4).
    row = trials[(trials["compute.rows"] == 32) & (trials["dram.channels"] == 2)].iloc[0]
    result = reusesim.run("configs/small.yaml", "models/mlp.yaml", batch=4, warn=False,
                          set={"technology": "45nm", "compute.number_format": "int", "compute.rows": 32,
                               "dram.preset": "ddr4-2400", "dram.channels": 2})
    assert row["time_s"] == pytest.approx(result.totals["time_s"].iloc[0], rel=1e-9)
    assert row["energy_uj"] == pytest.approx(result.totals["energy_total_uj"].iloc[0], rel=1e-9)
    assert row["area_mm2"] == pytest.approx(result.summary["area"]["total_mm2"], rel=1e-12)


def test_search_front_is_the_non_dominated_feasible_configurations(searched):
    _, out, front, _ = searched
    trials = front.attrs["trials"].drop_duplicates(subset=["compute.rows", "memory"])
    # feasible: area <= 0.75 mm2, checked against the column itself.
    assert list(trials["feasible"]) == list(trials["area_mm2"] <= 0.75)
    feasible = trials[trials["feasible"]]
    # Non-dominated on (time_s, area_mm2), by brute force over the feasible rows.
    expected = {(row["compute.rows"], row["memory"]) for _, row in feasible.iterrows()
                if not any((other["time_s"] <= row["time_s"] and other["area_mm2"] <= row["area_mm2"])
                           and (other["time_s"] < row["time_s"] or other["area_mm2"] < row["area_mm2"])
                           for _, other in feasible.iterrows())}
    assert {(row["compute.rows"], row["memory"]) for _, row in front.iterrows()} == expected
    assert list(front["time_s"]) == sorted(front["time_s"])
    for name in ("trials.csv", "front.csv", "front.png", "front.svg", "search.json", "study.journal"):
        assert (out / name).is_file(), name


def test_search_is_deterministic_for_a_seed_whatever_jobs(searched, tmp_path):
    space, out, _, _ = searched
    reusesim.search(space, out=tmp_path / "one", jobs=1, progress=False)
    assert (tmp_path / "one" / "trials.csv").read_bytes() == (out / "trials.csv").read_bytes()
    assert (tmp_path / "one" / "front.png").read_bytes() == (out / "front.png").read_bytes()


def test_search_resumed_reruns_nothing(searched):
    space, out, front, _ = searched
    reported = []
    again = reusesim.search(space, out=out, progress=lambda *point: reported.append(point))
    assert reported == []
    assert again.equals(front)


def test_search_interrupted_then_resumed_tries_what_the_uninterrupted_one_did(searched, tmp_path):
    space, _, front, _ = searched

    def interrupt(done, *_):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reusesim.search(space, out=tmp_path / "cut", jobs=1, progress=interrupt)
    reported = []
    resumed = reusesim.search(space, out=tmp_path / "cut", jobs=1, progress=lambda *point: reported.append(point))
    # 6 configurations, 2 run before the interruption and kept: 4 run now.
    assert len(reported) == 4
    # The same configurations in the same rounds and order, with the same results (the interrupted
    # round's trials keep their numbers, so the resumed ones are numbered after them).
    columns = [column for column in front.attrs["trials"] if column != "trial"]
    assert resumed.attrs["trials"][columns].equals(front.attrs["trials"][columns])


def test_search_resumed_with_another_space_is_refused(searched, tmp_path):
    _, out, _, _ = searched
    other = write_space(tmp_path / "other.yaml", SPACE.replace("seed: 7", "seed: 8"))
    with pytest.raises(reusesim.InputError, match="another space"):
        reusesim.search(other, out=out, progress=False)


@pytest.mark.parametrize("change, line", [
    # Columns count from 1: line 5 is "  compute.rows: [8, 16, 32]", its "[" at column 17.
    # A key the accelerator does not have: the CLI's message, at the first choice that has it.
    (("compute.rows: [8, 16, 32]", "compute.rowz: [8, 16, 32]"),
     '{space}:5:18: error: parameters.compute.rowz.0: choice 8: --set compute.rowz=8: error: compute.rowz: '
     'unknown key (did you mean "rows"?)'),
    # A value the accelerator refuses, at that value.
    (("compute.rows: [8, 16, 32]", "compute.rows: [8, 0]"),
     "{space}:5:21: error: parameters.compute.rows.1: choice 0: --set compute.rows=0: error: compute.rows: "
     "expected a positive integer, got 0"),
    # Line 11 "objective: latency": its value at column 12; an unknown key at the key itself.
    (("objective: time", "objective: latency"),
     "{space}:11:12: error: objective: expected time, energy, edp (or a list of them), got 'latency'"),
    (("constraints: {area_mm2: 0.75}", "constraints: {area: 0.75}"),
     "{space}:12:15: error: constraints.area: unknown key (expected one of area_mm2, power_w)"),
    (("budget: 6", "budget: -1"), "{space}:13:9: error: budget: expected a positive integer up to 100000, got -1"),
    (("  compute.rows: [8, 16, 32]", "  compute.rows: {low: 8, high: 24, log: true}"),
     "{space}:5:17: error: parameters.compute.rows: a log range runs over powers of two: low and high must be "
     "powers of two, got 8 and 24"),
])
def test_space_errors_name_file_line_key_path_and_what_was_expected(tmp_path, change, line):
    space = write_space(tmp_path / "space.yaml", SPACE.replace(*change))
    expected = line.format(space=space)
    with pytest.raises(reusesim.InputError) as raised:
        reusesim.search(space, out=tmp_path / "out", progress=False)
    assert str(raised.value) == expected
    assert not (tmp_path / "out").exists()


def test_search_command_exits_2_with_the_space_error(tmp_path):
    space = write_space(tmp_path / "space.yaml", SPACE.replace("compute.rows: [8, 16, 32]", "compute.rowz: [8]"))
    done = subprocess.run([reusesim.find_binary(), "search", str(space), "--out", str(tmp_path / "cli")],
                          capture_output=True, text=True)
    assert (done.returncode, done.stderr.strip()) == (
        2, f'{space}:5:18: error: parameters.compute.rowz.0: choice 8: --set compute.rowz=8: error: compute.rowz: '
           f'unknown key (did you mean "rows"?)')
    assert not (tmp_path / "cli").exists()


def test_space_range_expands_to_its_values():
    check = search_space.parse({"accelerator": "a.yaml", "workloads": [{"model": "m.yaml"}],
                                "parameters": {"sram.buffers.0.capacity_kib": {"low": 32, "high": 256, "log": True},
                                               "compute.rows": {"low": 8, "high": 32, "step": 8}}})
    # log: the powers of two from 32 to 256; step 8 from 8 to 32.
    assert [parameter.labels for parameter in check.parameters] == [[32, 64, 128, 256], [8, 16, 24, 32]]
    assert check.size() == 16


def test_search_command_prints_the_front(searched, tmp_path):
    space, _, front, _ = searched
    done = subprocess.run([reusesim.find_binary(), "search", str(space), "--out", str(tmp_path / "cli"), "--quiet"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"Pareto front ({len(front)}):" in done.stdout
    assert (tmp_path / "cli" / "front.csv").read_bytes() == (searched[1] / "front.csv").read_bytes()
