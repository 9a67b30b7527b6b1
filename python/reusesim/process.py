"""Finding the `reusesim` binary and running it. SystemC runs one simulation per process, so every
command is a process of its own; a failure is raised (reusesim.errors), never swallowed."""

import os
import shutil
import signal
import subprocess
import warnings
from collections import namedtuple
from pathlib import Path

from .errors import BinaryNotFoundError, InputError, InternalError, ReuseSimWarning, RunError

ENVIRONMENT_VARIABLE = "REUSESIM"
# <repo>/python/reusesim: the source tree's package, whose build tree is <repo>/build.
_SOURCE_TREE = Path(__file__).resolve().parent.parent.parent


# A process that ended with status 0: its argv, standard output and standard error as text.
Completed = namedtuple("Completed", ["command", "stdout", "stderr"])


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_binary():
    """The binary every command runs: $REUSESIM when set (and then only it), else the build tree
    beside a source tree's package (<repo>/build/reusesim), else `reusesim` on PATH."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit is not None:
        if _executable(explicit):
            return os.path.abspath(explicit)
        raise BinaryNotFoundError(f"{ENVIRONMENT_VARIABLE}={explicit!r} is not an executable file")
    build = _SOURCE_TREE / "build" / "reusesim"
    if (_SOURCE_TREE / "CMakeLists.txt").is_file() and _executable(build):
        return str(build)
    on_path = shutil.which("reusesim")
    if on_path:
        return on_path
    raise BinaryNotFoundError(
        f"no reusesim binary: {ENVIRONMENT_VARIABLE} is not set, there is no {build} (build it: cmake "
        f"--build build) and none on PATH; set {ENVIRONMENT_VARIABLE}=/path/to/reusesim")


def _text(output):
    if isinstance(output, bytes):
        return output.decode("utf-8", errors="replace")
    return output or ""


def failure(command, returncode, stderr):
    """The exception for a process that ended with `returncode` (not 0)."""
    name = f"{os.path.basename(command[0])} {command[1]}" if len(command) > 1 else command[0]
    if returncode == 2:
        lines = [line for line in stderr.splitlines() if ": error: " in line]
        return InputError("\n".join(lines) if lines else stderr.strip(), command, returncode, stderr, lines)
    if returncode == 3:
        return InternalError(stderr.strip() or f"{name}: internal error (exit status 3)", command, returncode,
                             stderr)
    if returncode < 0:
        ended = f"{name} was killed by {signal.Signals(-returncode).name}"
    else:
        ended = f"{name} exited with status {returncode}"
    return RunError(f"{ended}: {stderr.strip()}" if stderr.strip() else ended, command, returncode, stderr)


def execute(arguments, timeout_s=None, warn=True):
    """Runs `reusesim ARGUMENTS...` in the caller's directory; returns it Completed, its warning
    lines issued as ReuseSimWarning (as the CLI shows them, not hidden in `stderr`) unless `warn`
    is False (a caller that issues them itself: the design search, once per distinct line).
    Raises InputError (exit 2), InternalError (3), RunError (anything else, or past `timeout_s`
    seconds, when the process is killed)."""
    command = [find_binary(), *map(str, arguments)]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as expired:
        raise RunError(f"{' '.join(command)}: killed after {timeout_s} s", command, None,
                       _text(expired.stderr)) from None
    except OSError as error:
        raise RunError(f"cannot run {command[0]}: {error.strerror}", command) from None
    stderr = _text(done.stderr)
    if done.returncode != 0:
        raise failure(command, done.returncode, stderr)
    if warn:
        issue_warnings(stderr, stacklevel=4)
    return Completed(command, _text(done.stdout), stderr)


def issue_warnings(stderr, stacklevel=3):
    """Each warning line of `stderr` issued as a ReuseSimWarning, as the CLI printed it."""
    for line in stderr.splitlines():
        if ": warning: " in line:
            warnings.warn(line, ReuseSimWarning, stacklevel=stacklevel)
