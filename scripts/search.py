#!/usr/bin/python3
"""`reusesim search SPACE.yaml --out DIR ...`: the design search's command line, which the binary's
`search` command hands over to (with REUSESIM naming the binary). It may also be run by itself:
scripts/search.py SPACE.yaml --out DIR.

The work is done by the package reusesim in ../python from this file (python/ of the source tree,
share/reusesim/python beside an installed share/reusesim/scripts): reusesim/search_command.py, the
command line; reusesim/search.py, the search; reusesim/search_space.py, SPACE.yaml.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree or the installation
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir, "python"))
from reusesim.search_command import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
