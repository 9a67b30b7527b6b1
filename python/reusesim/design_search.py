"""reusesim.search (this module is reusesim.design_search): a design search over accelerator
keys with Debian's python3-optuna, each configuration run on every workload by `reusesim run`
(processes in parallel), minimising time, energy or EDP summed over the workloads under area and
power limits (docs/python.md, "Design search").

The search proceeds in rounds: a round asks the sampler for `round_size` configurations (its seed
is the space's seed and the round's number), runs them, and tells the study their results in
trial order, so the configurations tried depend on the seed and nothing else (not on `jobs`, nor
on which run finished first), and a resumed search asks what the uninterrupted one would have.
Everything lives in the results directory: the study (optuna's journal file), every finished
configuration's results (evaluations.jsonl, so a resumed round reruns nothing that finished),
trials.csv, front.csv and the figure."""

import dataclasses
import hashlib
import json
import os
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd

from . import charts, search_space
from .commands import analyze, check, run
from .errors import InputError, ReuseSimWarning, RunError

# The files a search writes in its directory (and only these: a directory holding others is refused).
SPACE_FILE = "search.json"
JOURNAL_FILE = "study.journal"
EVALUATIONS_FILE = "evaluations.jsonl"
TRIALS_FILE = "trials.csv"
FRONT_FILE = "front.csv"
FIGURE_FILES = ("front.png", "front.svg")
OWN_FILES = (SPACE_FILE, JOURNAL_FILE, EVALUATIONS_FILE, TRIALS_FILE, FRONT_FILE) + FIGURE_FILES
# A search whose sampler keeps proposing configurations already run stops after this many trials
# per configuration of its budget.
MAX_TRIALS_PER_CONFIGURATION = 20
METRICS = ("time_s", "energy_uj", "power_w")


def _optuna():
    """optuna, quiet: its log lines and experimental-feature warnings would drown the progress."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    return optuna


def _space(space, objective, constraints, budget, seed):
    if isinstance(space, search_space.Space):
        parsed = dataclasses.replace(space)  # the overrides below change a copy, not the caller's
    elif isinstance(space, dict):
        parsed = search_space.parse(space)
    else:
        parsed = search_space.read(space)
    if objective is not None:
        parsed.objectives = objective if isinstance(objective, list) else [objective]
        unknown = [name for name in parsed.objectives if name not in search_space.OBJECTIVES]
        if unknown or not parsed.objectives or len(set(parsed.objectives)) != len(parsed.objectives):
            raise ValueError(f"objective: expected {', '.join(search_space.OBJECTIVES)} or a list of distinct ones, "
                             f"got {objective!r}")
    if constraints is not None:
        parsed.constraints = {key: float(value) for key, value in constraints.items()}
        unknown = [key for key in parsed.constraints if key not in search_space.CONSTRAINTS]
        if unknown:
            raise ValueError(f"constraints: unknown {', '.join(unknown)} "
                             f"(expected {', '.join(search_space.CONSTRAINTS)})")
    if budget is not None:
        parsed.budget = int(budget)
    if seed is not None:
        parsed.seed = int(seed)
    return parsed


def _document(space):
    """The space as a plain document (what search.json records and a resumed search must match)."""
    return {"name": space.name, "accelerator": space.accelerator, "set": space.fixed,
            "parameters": {parameter.name: parameter.choices for parameter in space.parameters},
            "workloads": [{"name": workload.name, "model": workload.model, **workload.options}
                          for workload in space.workloads],
            "objective": space.objectives, "constraints": space.constraints, "budget": space.budget,
            "seed": space.seed, "round_size": space.round_size}


def _file_hashes(space):
    """The content hash of every input file, so that a resumed search refuses changed inputs."""
    paths = [value for value in [space.accelerator] + [workload.model for workload in space.workloads]
             if isinstance(value, str)]
    hashes = {}
    for path in paths:
        try:
            hashes[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError as error:
            raise InputError(f"{path}: error: cannot read: {error.strerror}") from None
    return hashes


def _has_energy(space):
    """Whether runs give energy, area and power: the accelerator (or a key the space sets) names a
    technology (docs/energy-model.md)."""
    keys = set(space.fixed) | {key for parameter in space.parameters for key in parameter.keys}
    if any(key == "technology" or key.startswith("technology.") for key in keys):
        return True
    accelerator = space.accelerator
    if isinstance(accelerator, str):
        import yaml

        with open(accelerator, encoding="utf-8") as file:
            accelerator = yaml.safe_load(file) or {}
    return isinstance(accelerator, dict) and "technology" in accelerator


def front_objectives(space, has_area):
    """The columns the front is taken over: the objectives' (time_s, energy_uj, edp_uj_s), and the
    area as a second when there is one objective and the runs give an area."""
    columns = [search_space.OBJECTIVES[name] for name in space.objectives]
    return columns + ["area_mm2"] if len(columns) == 1 and has_area else columns


def validate(space):
    """Every parameter's every choice (with `set`) checked against the accelerator by `reusesim
    check`, and every workload by `reusesim analyze`, before anything runs: a bad key or value is
    an InputError at its place in the space file, with the CLI's message."""
    if not _has_energy(space):
        needs = [name for name in space.objectives if name != "time"] + list(space.constraints)
        if needs:
            raise InputError(f"{space.where('objective')}: error: {', '.join(needs)}: needs energy, area and power, "
                             f"which need a technology: the accelerator has none (docs/energy-model.md); add "
                             f"`technology: 45nm` under set")

    def at(path, what, error):
        lines = [f"{space.where(path)}: error: {path}: {what}: {line}" for line in error.lines or [str(error)]]
        return InputError("\n".join(lines), error.command, error.returncode, error.stderr, lines)

    try:
        check(space.accelerator, set=space.fixed or None)
    except InputError as error:
        raise at("set" if space.fixed else "accelerator", "the accelerator", error) from None
    for parameter in space.parameters:
        for index, (choice, label) in enumerate(zip(parameter.choices, parameter.labels)):
            try:
                check(space.accelerator, set={**space.fixed, **choice})
            except InputError as error:
                path = f"parameters.{parameter.name}"
                indexed = f"{path}.{index}"
                raise at(indexed if indexed in space.lines else path, f"choice {label}", error) from None
    for index, workload in enumerate(space.workloads):
        options = {key: workload.options[key] for key in ("batch", "phase", "sequence", "context")
                   if key in workload.options}
        try:
            analyze(workload.model, **options)
        except InputError as error:
            raise at(f"workloads.{index}", f"workload {workload.name}", error) from None


def _prepare(directory, space, resume, overwrite):
    """The results directory, new or of this same search (resume); `overwrite` deletes the files
    a search writes and nothing else. Returns whether it holds a search to resume."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = sorted(entry.name for entry in directory.iterdir())
    foreign = [name for name in entries if name not in OWN_FILES and not name.startswith(JOURNAL_FILE)]
    if foreign:
        raise InputError(f"{directory}: error: holds files a search does not write ({', '.join(foreign)}): a search "
                         f"writes only into a new or empty directory, or one of its own; choose another out")
    # The budget is left out: a search may be resumed to run more configurations.
    recorded = {"space": {key: value for key, value in _document(space).items() if key != "budget"},
                "inputs": _file_hashes(space)}
    space_file = directory / SPACE_FILE
    if space_file.is_file() and not overwrite:
        if not resume:
            raise InputError(f"{directory}: error: holds a search already: resume it (--resume, resume=True), "
                             f"replace it (--overwrite, overwrite=True), or choose another out")
        held = json.loads(space_file.read_text(encoding="utf-8"))
        if held != json.loads(json.dumps(recorded)):
            changed = [key for key in recorded["space"] if held["space"].get(key) != json.loads(
                json.dumps(recorded["space"][key]))] or [f"input file {path}" for path, digest in
                                                        recorded["inputs"].items()
                                                        if held["inputs"].get(path) != digest]
            raise InputError(f"{directory}: error: holds a search of another space or of changed inputs (differs: "
                             f"{', '.join(changed)}): resuming would mix the two; choose another out, or overwrite")
        return True
    for name in entries:
        (directory / name).unlink()
    text = json.dumps(recorded, indent=2) + "\n"
    (directory / (SPACE_FILE + ".partial")).write_text(text, encoding="utf-8")
    os.replace(directory / (SPACE_FILE + ".partial"), space_file)
    return False


def _settings(space, params):
    """The {key.path: value} of a trial's parameters (each an index into its choices)."""
    settings = {}
    for parameter in space.parameters:
        settings.update(parameter.choices[params[parameter.name]])
    return settings


def _suggest(trial, space):
    """The trial's choice of each parameter, as an index: an ordered integer for numbers given in
    increasing order (so the sampler can learn that more is better), a category otherwise."""
    params = {}
    for parameter in space.parameters:
        labels = parameter.labels
        numbers = all(isinstance(label, (int, float)) and not isinstance(label, bool) for label in labels)
        if numbers and labels == sorted(labels):
            params[parameter.name] = trial.suggest_int(parameter.name, 0, len(labels) - 1)
        else:
            params[parameter.name] = trial.suggest_categorical(parameter.name, list(range(len(labels))))
    return params


def _metrics(result):
    totals = result.totals.iloc[0]
    area = result.summary.get("area", {}).get("total_mm2")
    return {"time_s": float(totals["time_s"]), "energy_uj": float(totals["energy_total_uj"]),
            "power_w": float(totals["power_w"]), "area_mm2": None if area is None else float(area)}


def _issue_new_warnings(stderr, issued):
    """The CLI's warning lines not in `issued` yet, as ReuseSimWarning: each configuration's runs
    repeat the same few (an SRAM size beyond a technology's table), once is enough."""
    for line in stderr.splitlines():
        if ": warning: " in line and line not in issued:
            issued.add(line)
            warnings.warn(line, ReuseSimWarning, stacklevel=2)


def _evaluate(space, settings_list, jobs, cached, record, issued):
    """Runs every workload of each configuration not in `cached` (`jobs` processes at once);
    each finished configuration is recorded (record(key, evaluation)) as it completes. A run the
    CLI refuses (exit 2) makes its configuration's evaluation {"error": the CLI's message}; any
    other failure raises."""
    pending = {}
    for settings in settings_list:
        key = _key(settings)
        if key not in cached and key not in pending:
            pending[key] = settings
    runs = [(key, workload) for key in pending for workload in space.workloads]
    results = {key: {} for key in pending}

    def one(key, workload):
        started = time.monotonic()
        try:
            result = run(space.accelerator, workload.model, set={**space.fixed, **pending[key]}, warn=False,
                         **workload.options)
        except InputError as error:
            return key, workload.name, {"error": str(error)}, time.monotonic() - started, ""
        return key, workload.name, _metrics(result), time.monotonic() - started, result.stderr

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one, key, workload) for key, workload in runs]
        try:
            for future in futures:
                key, name, metrics, seconds, stderr = future.result()
                _issue_new_warnings(stderr, issued)
                results[key][name] = metrics
                results[key].setdefault("_seconds", 0.0)
                results[key]["_seconds"] += seconds
                if len(results[key]) == len(space.workloads) + 1:
                    evaluation = _combine(space, results[key])
                    cached[key] = evaluation
                    record(key, pending[key], evaluation)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _combine(space, per_workload):
    """A configuration's evaluation from its workloads' metrics: the sums, the EDP, the largest
    power, the area; or the first workload's error."""
    seconds = per_workload.pop("_seconds")
    errors = [f"{name}: {metrics['error']}" for name, metrics in per_workload.items() if "error" in metrics]
    if errors:
        return {"error": errors[0], "seconds": seconds}
    ordered = [per_workload[workload.name] for workload in space.workloads]
    areas = {metrics["area_mm2"] for metrics in ordered}
    return {"time_s": sum(metrics["time_s"] for metrics in ordered),
            "energy_uj": sum(metrics["energy_uj"] for metrics in ordered),
            "edp_uj_s": sum(metrics["energy_uj"] * metrics["time_s"] for metrics in ordered),
            "area_mm2": areas.pop() if len(areas) == 1 else None,
            "power_w": max(metrics["power_w"] for metrics in ordered),
            "workloads": {workload.name: {name: per_workload[workload.name][name] for name in METRICS}
                          for workload in space.workloads},
            "seconds": seconds}


def _key(settings):
    return json.dumps(settings, sort_keys=True)


def _violations(space, evaluation):
    """Each constraint's excess (value - limit; <= 0 when met), in CONSTRAINTS' order."""
    return [evaluation[name] - limit if evaluation[name] is not None else float("inf")
            for name, limit in sorted(space.constraints.items(), key=lambda item: search_space.CONSTRAINTS.index(
                item[0]))]


def _sampler(optuna, name, seed, round_number):
    """The sampler of one round: seeded by the search's seed and the round's number."""
    round_seed = seed * 1_000_003 + round_number

    def constraints(frozen):
        return frozen.user_attrs.get("constraints", [])

    if name == "tpe":
        return optuna.samplers.TPESampler(seed=round_seed, multivariate=True, constraints_func=constraints)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=round_seed, constraints_func=constraints)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=round_seed)
    raise ValueError(f"sampler: expected tpe, nsga2 or random, got {name!r}")


def _read_evaluations(path):
    cached = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                cached[entry["key"]] = entry["evaluation"]
    return cached


def _trials_frame(study, space, cached):
    """trials.csv: a row per trial (but those an interrupted round asked): its number, round, the
    parameters' choices and their keys' values, the sums, area, power, each workload's metrics,
    whether it meets the constraints, and the CLI's error for a refused configuration."""
    rows = []
    for trial in study.get_trials(deepcopy=False):
        if not trial.user_attrs.get("told"):
            continue  # asked by an interrupted round
        settings = _settings(space, trial.params)
        evaluation = cached.get(_key(settings), {})
        row = {"trial": trial.number, "round": trial.user_attrs.get("round")}
        for parameter in space.parameters:
            row[parameter.name] = parameter.labels[trial.params[parameter.name]]
        for parameter in space.parameters:
            if parameter.keys != [parameter.name]:
                for key in parameter.keys:
                    row[key] = settings.get(key)
        for column in ("time_s", "energy_uj", "edp_uj_s", "area_mm2", "power_w"):
            row[column] = evaluation.get(column)
        for name, metrics in evaluation.get("workloads", {}).items():
            for metric, value in metrics.items():
                row[f"{name}.{metric}"] = value
        complete = "error" not in evaluation
        row["feasible"] = complete and all(value <= 0 for value in _violations(space, evaluation))
        row["error"] = evaluation.get("error")
        rows.append(row)
    return pd.DataFrame(rows)


def _write_csv(frame, path):
    partial = path.with_name(path.name + ".partial")
    frame.to_csv(partial, index=False, float_format="%.10g")
    os.replace(partial, path)


def _figure(front, feasible, objectives, space, directory):
    """front.png/.svg: the first two objectives of the feasible configurations, the front's
    labelled by trial number (front.csv gives their parameters); one objective against the trial."""
    title = f"{space.name}: {len(front)} Pareto-optimal of {len(feasible)} feasible configurations"
    if len(objectives) >= 2:
        figure = charts.pareto(feasible, objectives[0], objectives[1], label="trial", title=title)
    else:
        figure = charts.scaling(feasible, "trial", objectives[0], title=title)
    for name in FIGURE_FILES:
        charts.save(figure, directory / name)
    charts.close(figure)


def _progress_line(done, budget, trial_number, params, evaluation, space):
    """`[ 12/200] trial 15: compute.rows=32 memory=#2: time_s ..., area_mm2 ... (3.1 s)`: a
    parameter of one key by its value, one of several keys by its choice's number (from 0)."""
    shown = " ".join(f"{parameter.name}={parameter.labels[params[parameter.name]]}"
                     if parameter.keys == [parameter.name] else f"{parameter.name}=#{params[parameter.name]}"
                     for parameter in space.parameters)
    if "error" in evaluation:
        outcome = f"refused: {evaluation['error']}"
    else:
        values = [f"{column} {evaluation[column]:.4g}" for column in ("time_s", "energy_uj", "area_mm2", "power_w")
                  if evaluation.get(column) is not None]
        met = all(value <= 0 for value in _violations(space, evaluation))
        outcome = ", ".join(values) + ("" if met else " (violates the constraints)")
    counter = f"[{done:>{len(str(budget))}}/{budget}]"
    return f"{counter} trial {trial_number}: {shown}: {outcome} ({evaluation['seconds']:.1f} s)"


def search(space, objective=None, constraints=None, budget=None, *, out, seed=None, jobs=None, resume=True,
           overwrite=False, progress=True, sampler="tpe"):
    """A design search of `space` (a SPACE.yaml path, a dict of the same, or a Space) into the
    results directory `out`. `objective` ("time", "energy", "edp" or a list), `constraints`
    ({"area_mm2": max, "power_w": max}), `budget` (distinct configurations to run) and `seed`
    replace the space's. `jobs` runs at once (default: the cores). `resume` (default) continues a
    search of the same space in `out`; `overwrite` replaces one. `progress`: True prints a line per
    configuration on stderr, a callable gets (done, budget, trial, settings, evaluation), False
    nothing. `sampler`: "tpe" (default, optuna's multivariate TPE), "nsga2" or "random".

    Returns the Pareto front (front.csv) as a DataFrame: the feasible configurations no other beats
    on every objective (with one objective, on it and the area). Writes trials.csv, front.csv and
    front.png/.svg into `out`."""
    space = _space(space, objective, constraints, budget, seed)
    validate(space)
    optuna = _optuna()
    has_area = _has_energy(space)
    objectives = front_objectives(space, has_area)
    budget = min(space.budget, space.size())
    jobs = jobs or os.cpu_count() or 1
    directory = Path(out)
    resuming = _prepare(directory, space, resume, overwrite)

    from optuna.storages import JournalFileStorage, JournalStorage

    storage = JournalStorage(JournalFileStorage(str(directory / JOURNAL_FILE)))
    directions = ["minimize"] * len(objectives)
    study = optuna.create_study(study_name=space.name, storage=storage, directions=directions,
                                load_if_exists=resuming)
    for trial in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        # Asked by an interrupted round, never told: the resumed round asks them again.
        study.tell(trial.number, state=optuna.trial.TrialState.FAIL)
    evaluations_path = directory / EVALUATIONS_FILE
    cached = _read_evaluations(evaluations_path)
    told = [trial for trial in study.get_trials(deepcopy=False) if trial.user_attrs.get("told")]
    round_number = 1 + max((trial.user_attrs["round"] for trial in told), default=0)
    seen = {_key(_settings(space, trial.params)) for trial in told}
    issued = set()

    with open(evaluations_path, "a", encoding="utf-8") as log:
        def record(key, settings, evaluation):
            log.write(json.dumps({"key": key, "evaluation": evaluation}) + "\n")
            log.flush()
            seen.add(key)
            trial = trial_of[key]
            if callable(progress):
                progress(len(seen), budget, trial.number, settings, evaluation)
            elif progress:
                print(_progress_line(len(seen), budget, trial.number, trial.params, evaluation, space),
                      file=sys.stderr, flush=True)

        while len(seen) < budget and len(told) < MAX_TRIALS_PER_CONFIGURATION * budget:
            study.sampler = _sampler(optuna, sampler, space.seed, round_number)
            asked = []
            for _ in range(min(space.round_size, budget - len(seen))):
                trial = study.ask()
                trial.set_user_attr("round", round_number)
                asked.append((trial, _settings(space, _suggest(trial, space))))
            trial_of = {}
            for trial, settings in asked:
                trial_of.setdefault(_key(settings), trial)
            _evaluate(space, [settings for _, settings in asked], jobs, cached, record, issued)
            for trial, settings in asked:
                evaluation = cached[_key(settings)]
                seen.add(_key(settings))
                trial.set_user_attr("told", True)
                if "error" in evaluation:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    trial.set_user_attr("constraints", _violations(space, evaluation))
                    study.tell(trial, [evaluation[column] for column in objectives])
                told.append(trial)
            round_number += 1

    trials = _trials_frame(study, space, cached)
    _write_csv(trials, directory / TRIALS_FILE)
    feasible = trials[trials["feasible"]].drop_duplicates(subset=[p.name for p in space.parameters]) \
        if len(trials) else trials
    front = charts.pareto_front(feasible, objectives) if len(feasible) else feasible
    _write_csv(front, directory / FRONT_FILE)
    for name in FIGURE_FILES:
        # A figure of an earlier, shorter run of this search is not this one's.
        (directory / name).unlink(missing_ok=True)
    if len(feasible):
        _figure(front, feasible, objectives, space, directory)
    refused = int(trials["error"].notna().sum()) if len(trials) else 0
    if refused and refused == len(trials):
        raise RunError(f"{directory}: every configuration was refused; the first: {trials['error'].iloc[0]}")
    front = front.reset_index(drop=True)
    front.attrs["trials"] = trials
    return front
