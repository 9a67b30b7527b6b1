#!/usr/bin/python3
"""Draw the figure of traces/precision.yaml (docs/validation.md, "Number formats").

usage: scripts/plot_precision.py RESULTS_DIR OUT_PREFIX [--title TEXT]

Reads RESULTS_DIR/layers.csv (a `reusesim trace` results directory) by column name and writes
OUT_PREFIX.png/.svg (Llama-2-7B decode step time per format and its speed-up over W16A16, per
machine and batch; ResNet-50's 2:4 sparse speed-up) and OUT_PREFIX.csv (the numbers drawn). Same
input gives byte-identical files. Bad input prints `plot_precision.py: error: FILE:LINE: ...` and
exits with status 2.

The work is done by the package reusesim.plot in ../python from this file: the reading and drawing
in reusesim/plot/precision.py.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or the installation
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from reusesim.plot import precision  # noqa: E402
from reusesim.plot.commands import run  # noqa: E402
from reusesim.plot.output import save  # noqa: E402


def draw(args, note):
    steps = precision.load_steps(os.path.join(args.results_dir, "layers.csv"), note)
    save(precision.build_figure(steps, args.title), args.out_prefix)
    precision.write_table(precision.table(steps), args.out_prefix + ".csv")


if __name__ == "__main__":
    sys.exit(run("plot_precision.py", None, "Draw the figure of traces/precision.yaml from a results directory.",
                 [("RESULTS_DIR", "a `reusesim trace` results directory (its layers.csv: "
                   + ",".join(precision.LAYER_COLUMNS) + ")")],
                 "writes OUT_PREFIX.png, OUT_PREFIX.svg and OUT_PREFIX.csv", draw))
