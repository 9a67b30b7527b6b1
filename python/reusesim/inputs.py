"""What the commands take, as the CLI's arguments: files given as paths or as Python dicts, batch
lists, layer lists and `--set` overrides."""

import json
import os


def input_file(value, role, directory):
    """The path of an accelerator, model, DRAM or trace input, or a DRAM preset's name: a str or
    path as given (relative to the caller's directory), or a dict written as JSON (valid YAML 1.2,
    which the CLI's loader reads) to `directory`/`role`.yaml, two-space indented: line numbers in
    errors count the lines of json.dumps(value, indent=2)."""
    if isinstance(value, dict):
        path = os.path.join(directory, f"{role}.yaml")
        with open(path, "w", encoding="utf-8") as file:
            file.write(json.dumps(value, indent=2) + "\n")
        return path
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{role}: expected a path or a dict, got {type(value).__name__}")


def listed(value, name):
    """A number, a name, or a list of them as the CLI's comma-separated list: [1, 16] -> "1,16"."""
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(item, (str, int)) and not isinstance(item, bool) for item in value):
        return ",".join(str(item) for item in value)
    raise TypeError(f"{name}: expected an int, a str or a non-empty list of them, got {value!r}")


def set_value(value):
    """A Python value as the text of `--set key=value`: a str as it is (YAML text, as on the
    command line), a bool as true/false, anything else as JSON (YAML 1.2 flow)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def overrides(values):
    """`--set key=value` arguments of a {key.path: value} dict, in its order."""
    if values is None:
        return []
    if not isinstance(values, dict):
        raise TypeError(f"set: expected a dict {{key.path: value}}, got {type(values).__name__}")
    arguments = []
    for key, value in values.items():
        arguments += ["--set", f"{key}={set_value(value)}"]
    return arguments


def options(pairs):
    """Arguments of (option, value) pairs: a value of None is left out, True is a flag alone,
    False leaves the flag out, anything else follows its option."""
    arguments = []
    for option, value in pairs:
        if value is None or value is False:
            continue
        arguments += [option] if value is True else [option, str(value)]
    return arguments
