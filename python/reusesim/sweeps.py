"""reusesim.sweep (this module is reusesim.sweeps): the cartesian product of accelerator keys,
batch sizes and sequence lengths, run by `reusesim trace` itself from a trace file the sweep writes
beside its results directory; and reusesim.trace, which runs a trace file as it is.

Why the trace and not a loop over `run`: the results directory is then exactly a trace's (trace.json,
jobs/, jobs.csv, layers.csv, networks.csv, the figure), so `reusesim figure`, `reusesim trace
--resume`, `--collect` and reusesim.load read it with no second writer of that layout to keep in
step; and the trace already runs its jobs in worker processes, kills those past their time limit,
locks the directory, and never shows a half-written job as finished, which is what makes a sweep
resumable."""

import json
import os
import re
import signal
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

from .errors import InputError, InternalError, RunError
from .inputs import input_file, overrides
from .process import failure, find_binary, issue_warnings
from .traces import load

# Keys of `over` the trace sweeps inside a model entry (every other key is an accelerator key).
ENTRY_LISTS = ("batch", "sequence", "context", "optimizer")

# One finished point, as the trace reports it: `[ 3/12] done   ID (1.2 s)` or `[ 3/12] FAILED ID: error`.
Progress = namedtuple("Progress", ["finished", "total", "status", "job", "seconds", "error"])
_DONE = re.compile(r"^\[\s*(\d+)/(\d+)\] done\s+(\S+) \(([\d.]+) s\)$")
_FAILED = re.compile(r"^\[\s*(\d+)/(\d+)\] FAILED (\S+): (.*)$")


def _progress(line):
    """The Progress of a trace's stderr line, None for any other line."""
    done = _DONE.match(line)
    if done:
        return Progress(int(done[1]), int(done[2]), "done", done[3], float(done[4]), None)
    failed = _FAILED.match(line)
    if failed:
        return Progress(int(failed[1]), int(failed[2]), "failed", failed[3], None, failed[4])
    return None


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _entry_values(name, value):
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{name}: expected a value or a non-empty list of values, got []")
        return list(value)
    return [value]


def _accelerator_key(where, key):
    if key.startswith("model.") or key in ("phase", "mode", "layers", "layer_types", "fidelity"):
        raise ValueError(f"{where}: {key}: a sweep varies accelerator keys, batch, sequence, context and optimizer; "
                         f"give the others as arguments, and sweep a model's field by passing a model (a file or "
                         f"dict) per value")


def trace_document(name, arch_paths, model_paths, over, fixed, entry, fidelity):
    """The trace file of a sweep: every accelerator x every combination of the accelerator keys of
    `over` (and `fixed`, one value each) x every model x the entry lists (`over`'s batch, sequence,
    context, optimizer, else `entry`'s)."""
    for key in fixed:
        _accelerator_key("set", key)
    sweep = {key: [value] for key, value in fixed.items()}
    lists = {}
    for key, values in over.items():
        if key not in ENTRY_LISTS:
            _accelerator_key("over", key)
        if key in fixed:
            raise ValueError(f"over: {key} is also in set=: give it in one of them")
        target = lists if key in ENTRY_LISTS else sweep
        target[key] = _entry_values(f"over: {key}", values)
    models = []
    for path in model_paths:
        model = {"model": path}
        for key, value in entry.items():
            if value is not None and key not in lists:
                model[key] = _entry_values(key, value) if key in ENTRY_LISTS + ("layers", "layer_types") else value
        model.update(lists)
        models.append(model)
    document = {"name": name, "accelerators": arch_paths, "models": models}
    if sweep:
        document["sweep"] = sweep
    if fidelity is not None:
        document["fidelity"] = fidelity
    return document


def _write_beside(path, text, overwrite):
    """Writes a file of the sweep beside its results directory, keeping one that holds this text
    already (a resumed sweep) and refusing to replace one that does not unless `overwrite`."""
    if path.exists() and not overwrite:
        if path.read_text(encoding="utf-8") == text:
            return
        raise InputError(f"{path} exists and holds another sweep (or is not the sweep's): its results directory "
                         f"{path.parent} would mix two sweeps; choose another out, or pass overwrite=True")
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _inputs(values, role, out, overwrite):
    """Absolute paths of the accelerators or models: a dict is written beside `out` as
    OUT.ROLE.yaml (OUT.ROLE2.yaml ... for the second and later)."""
    paths = []
    for index, value in enumerate(values, start=1):
        if isinstance(value, dict):
            path = out.with_name(f"{out.name}.{role}{index if index > 1 else ''}.yaml")
            _write_beside(path, json.dumps(value, indent=2) + "\n", overwrite)
            paths.append(str(path))
        else:
            paths.append(os.path.abspath(input_file(value, role, None)))
    return paths


def _run_trace(command, progress):
    """Runs the trace, handing each finished point to `progress`; its failure (exit 2, 3, a
    signal; not 4, failed points) raised. Ctrl-C interrupts the trace, which stops its workers and
    keeps what finished for a resumed sweep. Its stdout (where the tables are) is not needed."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors="replace")
    lines = []
    try:
        for line in process.stderr:
            lines.append(line)
            point = _progress(line.rstrip("\n"))
            if point is None:
                continue
            if callable(progress):
                progress(point)
            elif progress:
                print(line, end="", file=sys.stderr, flush=True)
        process.wait()
    except KeyboardInterrupt:
        process.send_signal(signal.SIGINT)
        process.wait()
        raise
    stderr = "".join(lines)
    if process.returncode not in (0, 4):
        raise failure(command, process.returncode, stderr)
    issue_warnings(stderr)


def _point_failure(trace, job, command, what):
    """The exception of a failed point (`what`: sweep point, trace job): its CLI's message
    (jobs.csv's error) with what it printed."""
    error = job["error"] if isinstance(job["error"], str) else "failed"
    message = f"{what} {job['job']} failed: {error}"
    stderr_file = Path(trace.dir) / "jobs" / f"{job['job']}.failed" / "stderr.txt"
    stderr = stderr_file.read_text(encoding="utf-8", errors="replace") if stderr_file.is_file() else ""
    lines = [line for line in stderr.splitlines() if ": error: " in line]
    if lines:
        return InputError(message, command, None, stderr, lines)
    if ": internal error" in stderr:
        return InternalError(message, command, None, stderr)
    return RunError(message, command, None, stderr)


def sweep(arch, model, *, over, out, batch=1, set=None, phase=None, sequence=None, context=None, mode=None,
          optimizer=None, layers=None, layer_types=None, fidelity=None, jobs=None, resume=True, overwrite=False,
          progress=True, failures="raise", job_timeout_s=None, figure=False):
    """Every combination of `over` ({key: [values]}: accelerator `--set` keys, and batch, sequence,
    context, optimizer) on `arch` x `model` (each a path, a dict, or a list of them), run by
    `reusesim trace` into `out`, `jobs` points at once (default: the trace's, the cores).

    `out` is a trace results directory (docs/traces-and-figure.md); the trace file that made it
    is OUT.trace.yaml beside it (dict inputs OUT.arch.yaml, OUT.model.yaml), so the shell can
    resume or redraw it. `resume` (default) completes a directory of the same sweep: finished
    points are not run again. `overwrite` replaces one of another sweep. `progress`: True prints a
    line per finished point on stderr, a callable gets a Progress per point, False nothing.
    `figure` draws the trace's figure too.

    Returns networks.csv as a DataFrame: one row per point and batch, the swept keys as columns
    beside `reusesim run`'s TOTAL columns. A failed point raises (InputError with the run's error
    lines, InternalError, RunError), unless `failures="collect"`: then the failed points' rows of
    jobs.csv (with their `error`) are in the frame's attrs["failures"]."""
    if failures not in ("raise", "collect"):
        raise ValueError(f"failures: expected 'raise' or 'collect', got {failures!r}")
    if not isinstance(over, dict) or not over:
        raise ValueError("over: expected a non-empty dict {key: [values]}")
    if "batch" in over and batch != 1:
        raise ValueError("batch: given both as batch= and in over: give it in one of them")
    out = Path(os.path.abspath(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    entry = {"batch": batch, "phase": phase, "sequence": sequence, "context": context, "mode": mode,
             "optimizer": optimizer, "layers": layers, "layer_types": layer_types}
    document = trace_document(out.name, _inputs(_as_list(arch), "arch", out, overwrite),
                              _inputs(_as_list(model), "model", out, overwrite), over, dict(set or {}), entry, fidelity)
    trace_file = out.with_name(out.name + ".trace.yaml")
    _write_beside(trace_file, json.dumps(document, indent=2) + "\n", overwrite)

    found = _trace(trace_file, out, [], jobs, resume, overwrite, progress, failures, job_timeout_s, figure,
                   "sweep point")
    networks = found.networks
    networks.attrs["failures"] = found.jobs[found.jobs["status"] != "done"].reset_index(drop=True)
    return networks


def trace(run_file, *, out, jobs=None, resume=True, overwrite=False, set=None, progress=True, failures="raise",
          job_timeout_s=None, figure=False):
    """`reusesim trace RUN_FILE --out OUT`: runs a trace's run file (docs/traces-and-figure.md)
    into the results directory `out` and returns that directory loaded (a Trace, as load(out)).
    `set` overrides fields of the run file, as the trace's --set ({"models.0.batch": [1, 2]});
    `jobs`, `resume`, `overwrite`, `progress`, `failures`, `job_timeout_s` and `figure` are
    sweep()'s. A failed job raises as a failed point of sweep() does, unless failures="collect"
    (the returned jobs table then holds them, with their `error`)."""
    if failures not in ("raise", "collect"):
        raise ValueError(f"failures: expected 'raise' or 'collect', got {failures!r}")
    return _trace(run_file, Path(os.path.abspath(out)), overrides(set), jobs, resume, overwrite, progress, failures,
                  job_timeout_s, figure, "trace job")


def _trace(run_file, out, arguments, jobs, resume, overwrite, progress, failures, job_timeout_s, figure, what):
    """Runs `reusesim trace RUN_FILE --out OUT ARGUMENTS...` and loads `out`; a failed job raised
    as a failed `what` unless failures="collect"."""
    command = [find_binary(), "trace", os.fspath(run_file), "--out", str(out), *arguments]
    if overwrite:
        command.append("--overwrite")
    elif resume and (out / "trace.json").is_file():
        command.append("--resume")
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    if job_timeout_s is not None:
        command += ["--job-timeout", str(job_timeout_s)]
    if not figure:
        command.append("--no-figure")
    _run_trace(command, progress)

    found = load(out)
    failed = found.jobs[found.jobs["status"] != "done"]
    if len(failed) and failures == "raise":
        raise _point_failure(found, failed.iloc[0], command, what)
    return found
