"""ReuseSim's Python side: pure Python (the standard library and Debian's python3-matplotlib).

reusesim.plot draws the figures of `reusesim figure` from the CSV files a trace writes
(docs/traces-and-figure.md); scripts/plot_figure.py and scripts/plot_energy.py are its command lines.
"""
