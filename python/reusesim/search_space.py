"""A design search's space (docs/python.md, "Design search"): read from a SPACE.yaml file or a
dict into a typed Space, every problem an InputError naming the file, line and column, the key
path, what was expected and what was there (`space.yaml:7:18: error: parameters.compute.rows:
expected ...`).

    accelerator: the base design (a path, relative to the file, or a mapping)
    set:         {key.path: value} fixed overrides of the base (optional)
    parameters:  {key.path: [choices]}, {key.path: {low, high, step | log}} (integers), or
                 {name: [{key.path: value, ...}, ...]} (a choice of several keys at once)
    workloads:   [{model, batch, phase, sequence, context, layers, layer_types, fidelity, name}]
    objective:   time | energy | edp, or a list of them
    constraints: {area_mm2: max, power_w: max} (optional)
    budget, seed, fidelity, round_size (optional)
"""

import math
import os
from dataclasses import dataclass, field

import yaml

from .errors import InputError

OBJECTIVES = {"time": "time_s", "energy": "energy_uj", "edp": "edp_uj_s"}
CONSTRAINTS = ("area_mm2", "power_w")
FIDELITIES = ("exact", "fast")
WORKLOAD_KEYS = ("model", "batch", "phase", "sequence", "context", "layers", "layer_types", "fidelity", "name")
TOP_KEYS = ("name", "accelerator", "set", "parameters", "workloads", "objective", "constraints", "budget", "seed",
            "fidelity", "round_size")
DEFAULT_BUDGET = 100
DEFAULT_ROUND_SIZE = 8


@dataclass
class Parameter:
    """One dimension of the space: `choices`, each a {key.path: value} dict; `label` names each
    choice in the tables (the value itself for a single key)."""
    name: str
    keys: list
    choices: list
    labels: list


@dataclass
class Workload:
    name: str
    model: object              # an absolute path or a dict
    options: dict              # run()'s keyword arguments: batch, phase, sequence, ...


@dataclass
class Space:
    name: str
    accelerator: object        # an absolute path or a dict
    fixed: dict
    parameters: list
    workloads: list
    objectives: list           # of OBJECTIVES' keys
    constraints: dict          # CONSTRAINTS' names -> the largest value allowed
    budget: int
    seed: int
    round_size: int
    source: str = "<space>"
    lines: dict = field(default_factory=dict)   # key path -> "file:line:col" of where it is given

    def size(self):
        return math.prod(len(parameter.choices) for parameter in self.parameters)

    def where(self, path):
        """`file:line:col` of the key path's value, or the file's name."""
        return self.lines.get(path, self.source)


class _Reader:
    """Plain Python values of YAML nodes, remembering where each key path's value is."""

    def __init__(self, source):
        self.source = source
        self.lines = {}

    def mark(self, node):
        return f"{self.source}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"

    def fail(self, node, path, message):
        where = self.mark(node) if node is not None else self.source
        line = f"{where}: error: {path}: {message}" if path else f"{where}: error: {message}"
        raise InputError(line, lines=[line])

    def value(self, node, path):
        self.lines[path] = self.mark(node)
        if isinstance(node, yaml.MappingNode):
            result = {}
            for key_node, value_node in node.value:
                key = self.value(key_node, path)
                if not isinstance(key, str):
                    self.fail(key_node, path, f"expected a key name, got {key!r}")
                child = f"{path}.{key}" if path else key
                if key in result:
                    self.fail(key_node, child, "given twice")
                result[key] = self.value(value_node, child)
                self.lines[child] = self.mark(value_node)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.value(item, f"{path}.{index}") for index, item in enumerate(node.value)]
        return yaml.safe_load(yaml.serialize(node))

    def node(self, root, path, key=False):
        """The node at a dotted path whose parts are keys (a key with dots is one part when the
        mapping has it whole) or list indices; with `key`, the node of the path's last key."""
        node, rest = root, path
        while rest:
            if isinstance(node, yaml.MappingNode):
                # The longest key the path starts with: `compute.rows` before `compute`.
                matches = [(len(str(name.value)), name, value) for name, value in node.value
                           if rest == str(name.value) or rest.startswith(f"{name.value}.")]
                if not matches:
                    return node
                length, name, node = max(matches, key=lambda match: match[0])
                rest = rest[length + 1:]
                if key and not rest:
                    return name
            elif isinstance(node, yaml.SequenceNode):
                index, _, rest = rest.partition(".")
                node = node.value[int(index)]
            else:
                return node
        return node


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_scalar(value):
    return isinstance(value, (str, int, float, bool))


class _Checker:
    def __init__(self, reader, root):
        self.reader = reader
        self.root = root

    def fail(self, path, message, key=False):
        """An error at the path's value (with `key`, at its key: an unknown key)."""
        node = self.reader.node(self.root, path, key) if self.root is not None else None
        self.reader.fail(node, path, message)

    def mapping(self, value, path, allowed=None):
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping, got {_shown(value)}")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    self.fail(f"{path}.{key}" if path else key,
                              f"unknown key (expected one of {', '.join(allowed)})", key=True)
        return value

    def positive_int(self, value, path, maximum=None):
        if not _is_int(value) or value < 1 or (maximum is not None and value > maximum):
            bound = f" up to {maximum}" if maximum is not None else ""
            self.fail(path, f"expected a positive integer{bound}, got {_shown(value)}")
        return value


def _shown(value):
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _input(value, path, base, check):
    """An accelerator or model: a path relative to the space file, or a mapping."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        return value if os.path.isabs(value) else os.path.normpath(os.path.join(base, value))
    check.fail(path, f"expected a file path or a mapping, got {_shown(value)}")
    return None


def _range_choices(value, path, check):
    check.mapping(value, path, ("low", "high", "step", "log"))
    for key in ("low", "high"):
        if key not in value:
            check.fail(path, f"a range needs low and high (integers), got no {key}")
        if not _is_int(value[key]) or value[key] < 0:
            check.fail(f"{path}.{key}", f"expected a non-negative integer, got {_shown(value[key])}")
    low, high = value["low"], value["high"]
    if high < low:
        check.fail(f"{path}.high", f"expected at least low ({low}), got {high}")
    if value.get("log") is not None and not isinstance(value["log"], bool):
        check.fail(f"{path}.log", f"expected true or false, got {_shown(value['log'])}")
    if value.get("log"):
        if "step" in value:
            check.fail(f"{path}.step", "a log range takes powers of two from low to high: give step or log, not both")
        if low < 1 or low & (low - 1) or high & (high - 1):
            check.fail(path, f"a log range runs over powers of two: low and high must be powers of two, got "
                             f"{low} and {high}")
        return [1 << exponent for exponent in range(low.bit_length() - 1, high.bit_length())]
    step = value.get("step", 1)
    if not _is_int(step) or step < 1:
        check.fail(f"{path}.step", f"expected a positive integer, got {_shown(step)}")
    if (high - low) % step:
        check.fail(f"{path}.high", f"expected low plus a whole number of steps ({low} + k x {step}), got {high}")
    return list(range(low, high + 1, step))


def _parameter(name, value, path, check):
    if isinstance(value, dict):
        values = _range_choices(value, path, check)
        return Parameter(name, [name], [{name: item} for item in values], values)
    if not isinstance(value, list) or not value:
        check.fail(path, "expected a non-empty list of choices, a range {low, high, step | log}, or a list of "
                         f"mappings of keys (a choice of several keys at once), got {_shown(value)}")
    if all(isinstance(item, dict) for item in value):
        keys = []
        for index, item in enumerate(value):
            if not item:
                check.fail(f"{path}.{index}", "expected a mapping of key.path: value, got an empty one")
            for key, setting in item.items():
                if not _is_scalar(setting):
                    check.fail(f"{path}.{index}.{key}", f"expected a value (a number, a name), got {_shown(setting)}")
                if key not in keys:
                    keys.append(key)
        labels = [" ".join(f"{key}={setting}" for key, setting in item.items()) for item in value]
        return Parameter(name, keys, list(value), labels)
    for index, item in enumerate(value):
        if not _is_scalar(item):
            check.fail(f"{path}.{index}", "expected a value (a number, a name) like the other choices, got "
                                          f"{_shown(item)} (a choice of several keys is a list of mappings only)")
    if len(set(map(repr, value))) != len(value):
        check.fail(path, "a choice is given twice")
    return Parameter(name, [name], [{name: item} for item in value], list(value))


def _workload(value, path, base, check):
    check.mapping(value, path, WORKLOAD_KEYS)
    if "model" not in value:
        check.fail(path, "expected a model (a file path or a mapping)")
    model = _input(value["model"], f"{path}.model", base, check)
    options = {key: value[key] for key in WORKLOAD_KEYS if key in value and key not in ("model", "name")}
    if "fidelity" in options and options["fidelity"] not in FIDELITIES:
        check.fail(f"{path}.fidelity", f"expected {' or '.join(FIDELITIES)}, got {_shown(options['fidelity'])}")
    if "batch" in options:
        check.positive_int(options["batch"], f"{path}.batch")
    if "name" in value:
        name = value["name"]
        if not isinstance(name, str) or not name:
            check.fail(f"{path}.name", f"expected a name, got {_shown(name)}")
    elif isinstance(model, str):
        name = os.path.splitext(os.path.basename(model))[0] + (f"_{options['phase']}" if "phase" in options else "")
    else:
        name = str(model.get("name", "model"))
    return Workload(name, model, options)


def parse(document, source="<space>", base=".", reader=None, root=None):
    """The Space of a mapping (read from `source`, paths relative to `base`)."""
    reader = reader or _Reader(source)
    check = _Checker(reader, root)
    check.mapping(document, "", TOP_KEYS)
    for key in ("accelerator", "parameters", "workloads"):
        if key not in document:
            check.fail("", f"expected a key {key} (a space needs accelerator, parameters and workloads)")
    accelerator = _input(document["accelerator"], "accelerator", base, check)
    fixed = check.mapping(document.get("set", {}), "set")
    parameters = []
    for name, value in check.mapping(document["parameters"], "parameters").items():
        parameters.append(_parameter(name, value, f"parameters.{name}", check))
    if not parameters:
        check.fail("parameters", "expected at least one parameter")
    keys = [key for parameter in parameters for key in parameter.keys]
    for parameter in parameters:
        for key in parameter.keys:
            if keys.count(key) > 1:
                check.fail(f"parameters.{parameter.name}", f"{key} is set by two parameters: give it in one")
            if key in fixed:
                check.fail(f"parameters.{parameter.name}", f"{key} is also in set: give it in one of them")
            if key.startswith("model."):
                check.fail(f"parameters.{parameter.name}", "a parameter is an accelerator key; a model's are not "
                                                           "searched")
    workloads_value = document["workloads"]
    if not isinstance(workloads_value, list) or not workloads_value:
        check.fail("workloads", f"expected a non-empty list of workloads, got {_shown(workloads_value)}")
    workloads = [_workload(item, f"workloads.{index}", base, check) for index, item in enumerate(workloads_value)]
    names = [workload.name for workload in workloads]
    for index, name in enumerate(names):
        if names.index(name) != index:
            check.fail(f"workloads.{index}", f"a second workload named {name}: give each a distinct name:")
    objective = document.get("objective", "time")
    objectives = objective if isinstance(objective, list) else [objective]
    for index, item in enumerate(objectives):
        if item not in OBJECTIVES:
            where = f"objective.{index}" if isinstance(objective, list) else "objective"
            check.fail(where, f"expected {', '.join(OBJECTIVES)} (or a list of them), got {_shown(item)}")
    if not objectives or len(set(objectives)) != len(objectives):
        check.fail("objective", "expected one objective, or a list of distinct ones")
    constraints = check.mapping(document.get("constraints", {}), "constraints", CONSTRAINTS)
    for key, limit in constraints.items():
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
            check.fail(f"constraints.{key}", f"expected a positive number, got {_shown(limit)}")
    fidelity = document.get("fidelity")
    if fidelity is not None:
        if fidelity not in FIDELITIES:
            check.fail("fidelity", f"expected {' or '.join(FIDELITIES)}, got {_shown(fidelity)}")
        for workload in workloads:
            workload.options.setdefault("fidelity", fidelity)
    seed = document.get("seed", 0)
    if not _is_int(seed) or seed < 0:
        check.fail("seed", f"expected a non-negative integer, got {_shown(seed)}")
    name = document.get("name", os.path.splitext(os.path.basename(source))[0])
    if not isinstance(name, str) or not name:
        check.fail("name", f"expected a name, got {_shown(name)}")
    return Space(name, accelerator, fixed, parameters, workloads, objectives,
                 {key: float(value) for key, value in constraints.items()},
                 check.positive_int(document.get("budget", DEFAULT_BUDGET), "budget", 100000), seed,
                 check.positive_int(document.get("round_size", DEFAULT_ROUND_SIZE), "round_size", 1000), source,
                 reader.lines)


def read(path):
    """The Space of a SPACE.yaml file; paths in it are relative to the file."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise InputError(f"{path}: error: cannot read: {error.strerror}") from None
    reader = _Reader(os.fspath(path))
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else os.fspath(path)
        raise InputError(f"{where}: error: not YAML: {getattr(error, 'problem', None) or error}") from None
    if root is None:
        raise InputError(f"{path}: error: empty: expected a mapping with accelerator, parameters and workloads")
    document = reader.value(root, "")
    return parse(document, os.fspath(path), os.path.dirname(os.path.abspath(path)), reader, root)
