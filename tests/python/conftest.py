"""Shared by the package's tests: the source tree's package first on sys.path (the tests fail
without it), the binary every test runs (REUSESIM, set by ctest, else the package's own lookup)
and the CLI run directly, to compare with."""

import os
import subprocess
import sys

import pytest

sys.dont_write_bytecode = True
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
sys.path.insert(0, os.path.join(SRC, "python"))

import reusesim  # noqa: E402


@pytest.fixture(autouse=True)
def in_source_tree(monkeypatch):
    """Paths in the tests are relative to the source tree, as in the README."""
    monkeypatch.chdir(SRC)


@pytest.fixture
def cli():
    """cli(ARGS...): the binary's standard output, which must exit 0."""

    def run(*arguments):
        done = subprocess.run([reusesim.find_binary(), *arguments], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run
