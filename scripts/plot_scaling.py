#!/usr/bin/python3
"""Draw the scaling figure of `reusesim figure` for a trace over systems (docs/traces-and-figure.md).

usage: scripts/plot_scaling.py SCALING_CSV OUT_PREFIX [--title TEXT]

Writes OUT_PREFIX.png and OUT_PREFIX.svg: throughput (tokens/s of a decode step, samples/s
otherwise) against chips, log2 x, a panel per workload and batch, a line per system variant and
plan. Same input gives byte-identical files. Bad input prints `plot_scaling.py: error: FILE:LINE:
...` and exits with status 2.

The work is done by the package reusesim.plot in ../python from this file (python/ of the source
tree, share/reusesim/python beside an installed share/reusesim/scripts): the CSV format is in
reusesim/plot/csv_input.py, the drawing in reusesim/plot/scaling.py.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or the installation
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from reusesim.plot.commands import plot_scaling  # noqa: E402

if __name__ == "__main__":
    sys.exit(plot_scaling("plot_scaling.py"))
