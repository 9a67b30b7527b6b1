"""The notebooks in examples/: each runs from its first cell to its last through nbclient without
a cell error (their cells assert their key numbers, so a change that moves one fails here), keeps
its results out of the source tree, and is committed stripped (scripts/strip-notebooks): no
outputs, execution counts null."""

import glob
import importlib.machinery
import importlib.util
import os
import time

import nbformat
import pytest
from nbclient import NotebookClient

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
EXAMPLES = os.path.join(SRC, "examples")
NOTEBOOKS = sorted(glob.glob(os.path.join(EXAMPLES, "*.ipynb")))
# A cell's limit: the longest, the Snowflake figure's trace, takes about 30 s on 2 busy cores.
CELL_TIMEOUT_S = 300
# Top-level entries of the source tree that are not its sources (.gitignore's, and git's).
NOT_SOURCES = (".git", ".pytest_cache", "results")


def _strip_notebooks():
    """scripts/strip-notebooks as a module (its name has no .py)."""
    path = os.path.join(SRC, "scripts", "strip-notebooks")
    loader = importlib.machinery.SourceFileLoader("strip_notebooks", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def _sources():
    """Every file of the source tree but the build directories, with its size and time."""
    found = {}
    for top in os.listdir(SRC):
        if top.startswith("build") or top in NOT_SOURCES:
            continue
        paths = [os.path.join(SRC, top)] if os.path.isfile(os.path.join(SRC, top)) else [
            os.path.join(directory, name) for directory, _, names in os.walk(os.path.join(SRC, top)) for name in names]
        for path in paths:
            status = os.stat(path)
            found[os.path.relpath(path, SRC)] = (status.st_size, status.st_mtime_ns)
    return found


def test_examples_hold_the_three_notebooks():
    names = {os.path.basename(path) for path in NOTEBOOKS}
    assert {"snowflake_figure.ipynb", "compare_accelerators.ipynb", "design_search.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_runs_without_a_cell_error_and_writes_nothing_into_the_source_tree(path, tmp_path, monkeypatch):
    # The kernel inherits the environment: REUSESIM (set by ctest) is the binary the notebook runs,
    # TMPDIR the directory its results go to.
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("PYDEVD_DISABLE_FILE_VALIDATION", "1")   # debugpy's note about frozen modules
    with open(path, encoding="utf-8") as file:
        committed = file.read()
    notebook = nbformat.reads(committed, as_version=4)
    before = _sources()
    start = time.monotonic()
    # Raises CellExecutionError, with the cell and its traceback, at the first cell that fails.
    NotebookClient(notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                   resources={"metadata": {"path": EXAMPLES}}).execute()
    print(f"{os.path.basename(path)}: {time.monotonic() - start:.1f} s")
    assert _sources() == before
    assert os.listdir(tmp_path), "the notebook wrote its results somewhere other than the temporary directory"
    # Every code cell ran; stripped again, the run is the committed file.
    assert all(cell.execution_count for cell in notebook.cells if cell.cell_type == "code")
    assert nbformat.writes(_strip_notebooks().strip(notebook)) + "\n" == committed


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_committed_notebook_is_stripped(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        where = f"{path}: cell {index}: run scripts/strip-notebooks"
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, where
        assert not set(cell.metadata) & {"execution", "collapsed", "scrolled"}, where
    assert notebook.metadata.get("language_info") == {"name": "python"}, f"{path}: run scripts/strip-notebooks"
