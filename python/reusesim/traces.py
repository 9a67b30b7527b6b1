"""Reading a `reusesim trace` results directory (docs/traces-and-figure.md), whether the trace ran
here, from the shell or on Slurm."""

import json
from pathlib import Path

import pandas as pd

from .errors import InputError
from .results import Trace
from .tables import frame_from_csv, kinds_of


def _text(path):
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None


def _document(path):
    try:
        return json.loads(_text(path))
    except ValueError as error:
        raise InputError(f"{path}: not JSON: {error}") from None


def _kinds(directory, jobs):
    """The kinds of the tables' columns, from the first finished job: its results.json for the
    columns of `reusesim run`, its job.json for the trace's own (job, accelerator, model,
    selection, sequence, context, batch, status). Without one the columns are typed by their text."""
    done = jobs[jobs["status"] == "done"]["job"] if "status" in jobs and "job" in jobs else []
    if len(done) == 0:
        return {}
    job = directory / "jobs" / done.iloc[0]
    job_fields = {key: value for key, value in _document(job / "job.json").items() if not isinstance(value, dict)}
    return {**kinds_of([job_fields]), **kinds_of(_document(job / "results.json")["rows"])}


def load(results_dir):
    """The tables of a trace's results directory: `layers` (layers.csv), `networks`
    (networks.csv), `jobs` (jobs.csv), typed as `reusesim run`'s (reusesim.tables), and its plan
    (trace.json). Raises InputError naming the file that is missing or unreadable."""
    directory = Path(results_dir)
    if not (directory / "trace.json").is_file():
        raise InputError(f"{directory}: not a reusesim trace results directory (no trace.json)")
    plan = _document(directory / "trace.json")
    jobs = frame_from_csv(_text(directory / "jobs.csv"), {}, directory / "jobs.csv", InputError)
    kinds = _kinds(directory, jobs)
    jobs = frame_from_csv(_text(directory / "jobs.csv"), kinds, directory / "jobs.csv", InputError)
    # A trace none of whose jobs finished writes no tables (its jobs.csv says why): they are empty.
    finished = "status" in jobs and (jobs["status"] == "done").any()
    tables = {name: frame_from_csv(_text(directory / f"{name}.csv"), kinds, directory / f"{name}.csv", InputError)
              if finished or (directory / f"{name}.csv").exists() else pd.DataFrame()
              for name in ("layers", "networks")}
    return Trace(tables["layers"], tables["networks"], jobs, plan, directory)
