"""Failures raise with what the CLI said: check()'s file:line:col lines, exit 2 InputError, 3
InternalError, anything else RunError (a status, a signal, a time limit, output that is not
there); and the binary the package finds (REUSESIM, the build tree, PATH)."""

import os
import shutil
import subprocess
import sys

import pytest

import reusesim
from conftest import SRC

# The README's tiny_cnn with out_channels misspelt on line 5: the layer's mapping opens at column 5
# ("  - {"), where out_channels is missing, and the misspelt key starts after
# "  - {name: conv1, type: conv2d, " (32 characters), at column 33.
BROKEN_MODEL = """name: tiny_cnn
precision: int8
input: {channels: 3, height: 32, width: 32}
layers:
  - {name: conv1, type: conv2d, out_chanels: 32, kernel: 3, padding: 1, activation: relu}
  - {name: fc, type: linear, out_features: 10}
"""


def test_check_raises_the_cli_lines(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BROKEN_MODEL)
    lines = [f"{path}:5:5: error: layers.conv1.out_channels: missing required key",
             f'{path}:5:33: error: layers.conv1.out_chanels: unknown key (did you mean "out_channels"?)']
    with pytest.raises(reusesim.InputError) as refused:
        reusesim.check(path)
    assert str(refused.value) == "\n".join(lines)
    assert refused.value.lines == lines and refused.value.returncode == 2
    assert refused.value.command[1:] == ["check", str(path)]


def test_check_of_a_dict_counts_the_lines_of_its_json():
    # json.dumps(indent=2): line 1 "{", 2 "name", 3 "precision", 4 "input": {, 5-7 its keys, 8 "}",
    # 9 "layers": [, 10 "{", 11 "name": "fc", 12 "type", 13 "out_featurez" at column 7 (6 spaces).
    model = {"name": "m", "precision": "int8", "input": {"channels": 3, "height": 8, "width": 8},
             "layers": [{"name": "fc", "type": "linear", "out_featurez": 10}]}
    with pytest.raises(reusesim.InputError) as refused:
        reusesim.check(model, kind="model")
    assert any(line.endswith(":13:7: error: layers.fc.out_featurez: unknown key (did you mean \"out_features\"?)")
               for line in refused.value.lines), refused.value.lines


def test_check_accepts_the_shipped_files():
    assert reusesim.check(["configs/snowflake.yaml", "models/alexnet.yaml"]) == [
        "configs/snowflake.yaml: ok: accelerator snowflake", "models/alexnet.yaml: ok: model alexnet, 13 layers"]


def test_a_refused_run_raises_input_error():
    with pytest.raises(reusesim.InputError) as refused:
        reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml", layers=["fc9"])
    assert refused.value.returncode == 2 and "fc9" in str(refused.value) and refused.value.stderr
    # An empty selection is an error, not "all layers".
    with pytest.raises(TypeError, match="layers: expected an int, a str or a non-empty list"):
        reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml", layers=[])


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """fake(SCRIPT): REUSESIM set to a shell script, run in place of the binary."""

    def install(script):
        path = tmp_path / "fake-reusesim"
        path.write_text("#!/bin/sh\n" + script)
        path.chmod(0o755)
        monkeypatch.setenv("REUSESIM", str(path))
        return path

    return install


def test_exit_3_raises_internal_error(fake):
    fake("echo 'reusesim run: internal error: layer fc6: cycles below the roofline' >&2; exit 3\n")
    with pytest.raises(reusesim.InternalError) as failed:
        reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml")
    assert str(failed.value) == "reusesim run: internal error: layer fc6: cycles below the roofline"
    assert failed.value.returncode == 3


def test_other_statuses_and_signals_raise_run_error(fake):
    fake("echo disk on fire >&2; exit 1\n")
    with pytest.raises(reusesim.RunError, match="exited with status 1: disk on fire"):
        reusesim.analyze("models/mlp.yaml")
    fake("kill -9 $$\n")
    with pytest.raises(reusesim.RunError, match="killed by SIGKILL") as failed:
        reusesim.memtest("ddr4-2400", "seq_read")
    assert failed.value.returncode == -9


def test_a_run_past_its_time_limit_is_killed(fake):
    fake("exec sleep 30\n")
    with pytest.raises(reusesim.RunError, match="killed after 0.5 s"):
        reusesim.footprint("models/mlp.yaml", timeout_s=0.5)


def test_a_run_that_wrote_nothing_raises(fake):
    fake("exit 0\n")
    with pytest.raises(reusesim.RunError, match="cannot read .*results.json"):
        reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml")


def test_reusesim_not_executable_raises(tmp_path, monkeypatch):
    monkeypatch.setenv("REUSESIM", str(tmp_path / "missing"))
    with pytest.raises(reusesim.BinaryNotFoundError, match="missing' is not an executable file"):
        reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml")


def find_binary_of(package_root, path):
    """find_binary() of the package copied under `package_root`, with REUSESIM unset."""
    shutil.copytree(os.path.join(SRC, "python", "reusesim"), package_root / "reusesim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    environment = {key: value for key, value in os.environ.items() if key != "REUSESIM"}
    environment.update(PYTHONPATH=str(package_root), PATH=path, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", "import reusesim; print(reusesim.find_binary())"],
                          capture_output=True, text=True, env=environment)
    return done.stdout.strip() if done.returncode == 0 else done.stderr.strip().splitlines()[-1]


def test_the_binary_is_the_build_tree_beside_a_source_tree_then_path(tmp_path):
    tree = tmp_path / "tree"
    (tree / "python").mkdir(parents=True)
    (tree / "build").mkdir()
    elsewhere = tmp_path / "bin"
    elsewhere.mkdir()
    for binary in (tree / "build" / "reusesim", elsewhere / "reusesim"):
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)
    # Without a CMakeLists.txt beside it, build/ is not a build tree: PATH's binary.
    assert find_binary_of(tree / "python", str(elsewhere)) == str(elsewhere / "reusesim")
    (tree / "CMakeLists.txt").write_text("")
    shutil.rmtree(tree / "python" / "reusesim")
    assert find_binary_of(tree / "python", str(elsewhere)) == str(tree / "build" / "reusesim")
    (tree / "build" / "reusesim").unlink()
    shutil.rmtree(tree / "python" / "reusesim")
    assert find_binary_of(tree / "python", str(tmp_path)).startswith(
        "reusesim.errors.BinaryNotFoundError: no reusesim binary: REUSESIM is not set")
