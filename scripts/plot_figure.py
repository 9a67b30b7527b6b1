#!/usr/bin/python3
"""Draw the Snowflake-style arithmetic-intensity (roofline) figure of `reusesim figure`.

usage: scripts/plot_figure.py POINTS_CSV ROOFS_CSV OUT_PREFIX [--title TEXT]

Writes OUT_PREFIX.png (150 dpi) and OUT_PREFIX.svg, each atomically (OUT.partial, then rename).
Same input gives byte-identical output files. Bad input (unreadable file, missing column,
non-numeric value, unknown panel or kind) prints `plot_figure.py: error: FILE:LINE: ...` and exits
with status 2.

The work is done by the package reusesim.plot in ../python from this file (python/ of the source
tree, share/reusesim/python beside an installed share/reusesim/scripts): the CSV formats are in
reusesim/plot/csv_input.py, the drawing in reusesim/plot/roofline.py and the label placer in
reusesim/plot/labels.py.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or the installation
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from reusesim.plot.commands import plot_figure  # noqa: E402

if __name__ == "__main__":
    sys.exit(plot_figure("plot_figure.py"))
