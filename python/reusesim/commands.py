"""The commands of `reusesim` as functions: each runs one process of the binary
(reusesim.process), with the CLI's options under their names (`--layer-types` is `layer_types=`),
and returns its tables as typed DataFrames (reusesim.tables, reusesim.results). Every failure
raises (reusesim.errors)."""

import json
import os
import tempfile
from pathlib import Path

import pandas as pd

from .errors import RunError
from .inputs import input_file, listed, options, overrides
from .process import execute
from .results import Memtest, Result, Table
from .tables import frame_from_csv, frame_from_records, kinds_of, split_totals


def _read(path, parse):
    try:
        with open(path, encoding="utf-8") as file:
            return parse(file.read())
    except (OSError, ValueError) as error:
        raise RunError(f"cannot read {path}: {error}") from None


def _json(text, source):
    try:
        return json.loads(text)
    except ValueError as error:
        raise RunError(f"{source}: not JSON: {error}") from None


def _sequence_options(phase, sequence, context):
    return [("--phase", phase), ("--sequence", sequence), ("--context", context)]


def _training_options(mode, optimizer, checkpoint_segments, mixed_precision):
    return [("--mode", mode), ("--optimizer", optimizer), ("--checkpoint-segments", checkpoint_segments),
            ("--mixed-precision", mixed_precision)]


def read_run(directory, completed=None):
    """The Result of the files `reusesim run --out DIRECTORY` wrote (`completed`: the process)."""
    directory = Path(directory)
    document = _read(directory / "results.json", json.loads)
    rows = _read(directory / "results.csv",
                 lambda text: frame_from_csv(text, kinds_of(document["rows"]), directory / "results.csv"))
    channels = _read(directory / "dram_channels.csv", lambda text: frame_from_csv(
        text, kinds_of(document["dram_channels"]), directory / "dram_channels.csv"))
    # A chip of several cores: cores.csv (its kinds from results.json's cores); one core has none.
    cores = pd.DataFrame()
    if "cores" in document:
        cores = _read(directory / "cores.csv", lambda text: frame_from_csv(
            text, kinds_of(document["cores"]), directory / "cores.csv"))
    layers, totals = split_totals(rows)
    summary = {key: value for key, value in document.items() if key not in ("rows", "dram_channels", "cores")}
    config = _read(directory / "config.json", json.loads)
    if completed is None:
        return Result(layers, totals, summary, channels, config, directory, cores=cores)
    return Result(layers, totals, summary, channels, config, None, completed.command, completed.stderr, cores)


def run(arch, model, batch=1, *, set=None, phase=None, sequence=None, context=None, mode=None, optimizer=None,
        checkpoint_segments=None, mixed_precision=False, fidelity=None, layers=None, layer_types=None,
        out=None, dump_program=None, timeline=None, reuse_blocks=False, every_chip=False, timeout_s=None,
        warn=True):
    """`reusesim run`: `arch` and `model` are paths or dicts, `batch` an int or a list of them,
    `set` a {key.path: value} dict (`model.` paths go to the model). Writes into `out` (the CLI's
    `--out`: a new or empty directory, or one an earlier run wrote) or a temporary directory.
    `reuse_blocks` and `every_chip` are `--reuse-blocks` and `--every-chip`. `warn=False` leaves the
    CLI's warning lines in the Result's `stderr` only."""
    with tempfile.TemporaryDirectory(prefix="reusesim-") as scratch:
        directory = os.fspath(out) if out is not None else os.path.join(scratch, "out")
        arguments = ["run", "--arch", input_file(arch, "arch", scratch), "--model",
                     input_file(model, "model", scratch), "--batch", listed(batch, "batch"), "--out", directory,
                     "--format", "csv"]
        selection = [("--layers", None if layers is None else listed(layers, "layers")),
                     ("--layer-types", None if layer_types is None else listed(layer_types, "layer_types"))]
        arguments += options([*selection,
                              ("--fidelity", fidelity), ("--dump-program", dump_program), ("--timeline", timeline),
                              ("--reuse-blocks", reuse_blocks), ("--every-chip", every_chip),
                              *_sequence_options(phase, sequence, context),
                              *_training_options(mode, optimizer, checkpoint_segments, mixed_precision)])
        result = read_run(directory, execute(arguments + overrides(set), timeout_s, warn))
    if out is not None:
        result.dir = Path(out)
    return result


def _table(name, arguments, timeout_s):
    """A command printing a table with a TOTAL row: its CSV for the cells, its JSON (a second
    process, of milliseconds) for their kinds and the summary."""
    printed = execute(arguments + ["--format", "csv"], timeout_s)
    printed_json = execute(arguments + ["--format", "json"], timeout_s)
    document = _json(printed_json.stdout, f"reusesim {name} --format json")
    # The layers' cells, the TOTAL's (analyze: `total`; footprint: the top-level figures).
    top_level = {key: value for key, value in document.items() if not isinstance(value, (list, dict))}
    records = document["layers"] + [document.get("total", {}), top_level]
    rows = frame_from_csv(printed.stdout, kinds_of(records), f"reusesim {name} --format csv")
    layers, totals = split_totals(rows)
    summary = {key: value for key, value in document.items() if key not in ("layers", "total")}
    return Table(name, layers, totals, summary, printed.command, printed.stderr)


def analyze(model, batch=1, *, peak_tops=None, phase=None, sequence=None, context=None, set=None,
            timeout_s=None):
    """`reusesim analyze`: compulsory traffic and intensity per layer (one batch size)."""
    with tempfile.TemporaryDirectory(prefix="reusesim-") as scratch:
        arguments = ["analyze", "--model", input_file(model, "model", scratch), "--batch", batch]
        arguments += options([("--peak-tops", peak_tops), *_sequence_options(phase, sequence, context)])
        return _table("analyze", arguments + overrides(set), timeout_s)


def footprint(model, batch=1, *, dtype=None, im2col=False, inplace_activations=False, mode=None,
              optimizer=None, checkpoint_segments=None, mixed_precision=False, phase=None, sequence=None,
              context=None, set=None, timeout_s=None):
    """`reusesim footprint`: memory per layer and in total, for inference or a training step."""
    with tempfile.TemporaryDirectory(prefix="reusesim-") as scratch:
        arguments = ["footprint", "--model", input_file(model, "model", scratch), "--batch", batch]
        arguments += options([("--dtype", dtype), ("--im2col", im2col),
                              ("--inplace-activations", inplace_activations),
                              *_training_options(mode, optimizer, checkpoint_segments, mixed_precision),
                              *_sequence_options(phase, sequence, context)])
        return _table("footprint", arguments + overrides(set), timeout_s)


def memtest(dram, pattern=None, *, trace=None, requests=None, request_bytes=None, outstanding=None,
            wall_time=False, set=None, timeout_s=None):
    """`reusesim memtest`: `dram` a preset name, a DRAM file or a dict; `pattern` or `trace` (a
    request file). One process (a simulation): its JSON, whose rows are those of the CSV with
    `--per-channel`, at full double precision (the CSV prints 10 significant digits)."""
    with tempfile.TemporaryDirectory(prefix="reusesim-") as scratch:
        arguments = ["memtest", "--dram", input_file(dram, "dram", scratch)]
        arguments += options([("--pattern", pattern), ("--trace", trace), ("--requests", requests),
                              ("--request-bytes", request_bytes), ("--outstanding", outstanding),
                              ("--wall-time", wall_time)])
        completed = execute(arguments + overrides(set) + ["--format", "json"], timeout_s)
    document = _json(completed.stdout, "reusesim memtest --format json")
    whole = {key: value for key, value in document.items() if key not in ("channels", "conventions")}
    records = [whole] + document["channels"]
    rows = frame_from_records(records, list(whole), kinds_of(records))
    summary = {**whole, "conventions": document.get("conventions")}
    return Memtest(rows, summary, completed.command, completed.stderr)


def check(files, kind=None, *, set=None, timeout_s=None):
    """`reusesim check`: each of `files` (one, or a list; paths or dicts) validated, every problem
    at once; raises InputError with the CLI's `file:line:col: error: ...` lines. Returns the
    CLI's lines for the files it accepted (`FILE: ok: ...`)."""
    with tempfile.TemporaryDirectory(prefix="reusesim-") as scratch:
        given = files if isinstance(files, (list, tuple)) else [files]
        paths = [input_file(file, f"input{index}" if len(given) > 1 else "input", scratch)
                 for index, file in enumerate(given, start=1)]
        completed = execute(["check", *paths] + options([("--kind", kind)]) + overrides(set), timeout_s)
    return completed.stdout.splitlines()
