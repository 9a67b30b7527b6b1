#!/usr/bin/python3
"""Draw the energy figures of `reusesim figure` (docs/energy-model.md).

usage: scripts/plot_energy.py LAYERS_CSV NETWORKS_CSV OUT_PREFIX [--title TEXT] [--tokens TOKENS_CSV]

Writes OUT_PREFIX_energy.png/.svg: stacked bars of energy per sample by component, per layer of
each network and per batch of each picked layer. When a network ran at a batch size on more
than one variant, also OUT_PREFIX_design.png/.svg: energy per inference against latency, the
Pareto-optimal variants marked. With TOKENS_CSV (transformer phases' energy per token), also
OUT_PREFIX_tokens.png/.svg: uJ per token against batch, a line per machine and context length. Same input gives byte-identical files. Bad input prints
`plot_energy.py: error: FILE:LINE: ...` and exits with status 2.

The work is done by the package reusesim.plot in ../python from this file (python/ of the source
tree, share/reusesim/python beside an installed share/reusesim/scripts): the CSV formats are in
reusesim/plot/csv_input.py, the drawing in reusesim/plot/energy.py.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or the installation
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from reusesim.plot.commands import plot_energy  # noqa: E402

if __name__ == "__main__":
    sys.exit(plot_energy("plot_energy.py"))
