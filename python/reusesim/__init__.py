"""ReuseSim from Python: pure Python over the `reusesim` binary (SystemC runs one simulation per
process, so each call is a process of its own), results as pandas DataFrames (docs/python.md).

    run, analyze, footprint, memtest, check   the commands (reusesim.commands)
    load                                      a `reusesim trace` results directory (reusesim.traces)
    sweep                                     a cartesian sweep run by `reusesim trace` (reusesim.sweeps)
    trace                                     `reusesim trace` of a run file, loaded (reusesim.sweeps)
    search                                    a design search with optuna (reusesim.design_search)
    pareto_front                              the non-dominated rows of a table (reusesim.charts, which
                                              also draws roofline, Pareto and scaling figures)
    find_binary                               the binary they run (reusesim.process)
    ReuseSimError, InputError, InternalError, RunError, BinaryNotFoundError, ReuseSimWarning
                                              (reusesim.errors)

reusesim.plot draws the figures of `reusesim figure` from the CSV files a trace writes
(docs/traces-and-figure.md); scripts/plot_figure.py and scripts/plot_energy.py are its command
lines. They need the standard library and matplotlib only, so the functions above, which need
pandas, are imported on first use.
"""

from .errors import BinaryNotFoundError, InputError, InternalError, ReuseSimError, ReuseSimWarning, RunError

# Public name -> the module that defines it, imported when the name is first used.
_LAZY = {"run": "commands", "analyze": "commands", "footprint": "commands", "memtest": "commands",
         "check": "commands", "load": "traces", "sweep": "sweeps", "trace": "sweeps", "search": "design_search",
         "pareto_front": "charts", "find_binary": "process", "Result": "results", "Table": "results",
         "Memtest": "results", "Trace": "results"}

__all__ = ["BinaryNotFoundError", "InputError", "InternalError", "ReuseSimError", "ReuseSimWarning", "RunError",
           *_LAZY]


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'reusesim' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
