"""The command line of `reusesim search SPACE.yaml` (scripts/search.py): the options, the front
printed on stdout, errors as the CLI's other commands give them (exit 2 for bad input)."""

import argparse
import sys
import warnings

from .errors import InputError, InternalError, ReuseSimError, ReuseSimWarning

_python_format = warnings.formatwarning

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_RUN_FAILED, EXIT_INTERRUPTED = 0, 2, 3, 4, 130


class _Parser(argparse.ArgumentParser):
    """Usage errors as `reusesim search: error: ...`, exit 2, as the binary's other commands."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"reusesim search: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _parser():
    parser = _Parser(prog="reusesim search", description=(
        "A design search over accelerator keys (the SPACE.yaml file's parameters, docs/python.md, \"Design "
        "search\"): each configuration runs every workload; minimises time, energy or EDP summed over them "
        "under area and power limits. Writes trials.csv, front.csv and front.png/.svg into --out and prints "
        "the Pareto front."))
    parser.add_argument("space", metavar="SPACE.yaml", help="the space: accelerator, parameters, workloads, ...")
    parser.add_argument("--out", required=True, help="results directory (new, empty, or a search's with --resume)")
    parser.add_argument("--budget", type=int, help="distinct configurations to run (default: the file's, else 100)")
    parser.add_argument("--seed", type=int, help="the sampler's seed (default: the file's, else 0)")
    parser.add_argument("--jobs", type=int, help="runs at once (default: the number of cores)")
    parser.add_argument("--sampler", choices=("tpe", "nsga2", "random"), default="tpe",
                        help="optuna's sampler (default: tpe, multivariate)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--resume", action="store_true", help="continue the search in --out (same space)")
    group.add_argument("--overwrite", action="store_true", help="replace the search in --out")
    parser.add_argument("--quiet", action="store_true", help="no line per configuration on stderr")
    return parser


def main(argv):
    arguments = _parser().parse_args(argv)
    for name in ("budget", "jobs"):
        value = getattr(arguments, name)
        if value is not None and value < 1:
            _parser().error(f"--{name}: expected a positive integer, got {value}")
    # pandas and optuna: imported after the arguments, so that --help needs neither
    from .design_search import METRICS, search
    from .search_space import read

    # The CLI's warning lines as it prints them, not as Python's "file:line: Category: ..."
    warnings.formatwarning = lambda message, category, *rest: (
        f"{message}\n" if issubclass(category, ReuseSimWarning) else _python_format(message, category, *rest))

    try:
        space = read(arguments.space)
        front = search(space, budget=arguments.budget, seed=arguments.seed, out=arguments.out,
                       jobs=arguments.jobs, resume=arguments.resume, overwrite=arguments.overwrite,
                       progress=not arguments.quiet, sampler=arguments.sampler)
    except InputError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_INPUT
    except InternalError as error:
        print(error, file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    except ReuseSimError as error:
        print(f"reusesim search: error: {error}", file=sys.stderr)
        return EXIT_RUN_FAILED
    except KeyboardInterrupt:
        print(f"reusesim search: interrupted; continue with --resume --out {arguments.out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    trials = front.attrs["trials"]
    print(f"{len(trials)} trials, {int(trials['feasible'].sum()) if len(trials) else 0} feasible; "
          f"Pareto front ({len(front)}):")
    # The parameters' values (a group's by its keys) and the sums; trials.csv and front.csv have the rest.
    groups = [parameter.name for parameter in space.parameters if parameter.keys != [parameter.name]]
    workload_columns = [f"{workload.name}.{metric}" for workload in space.workloads for metric in METRICS]
    shown = front.drop(columns=groups + workload_columns + ["round", "feasible", "error"], errors="ignore")
    print(shown.to_string(index=False))
    print(f"tables:  {arguments.out}/trials.csv, {arguments.out}/front.csv")
    if len(front):
        print(f"figure:  {arguments.out}/front.png, {arguments.out}/front.svg")
    else:
        print("figure:  none (no configuration meets the constraints)")
    return EXIT_OK
