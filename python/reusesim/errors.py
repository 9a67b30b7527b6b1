"""The exceptions of the package: every failed `reusesim` process raises one, with what it printed.

    ReuseSimError            base of all; .command (argv), .returncode, .stderr
      InputError             exit status 2: bad input; .lines are the CLI's error lines
                             (`file:line:col: error: key.path: message`), the message joins them
      InternalError          exit status 3: a broken internal invariant (a bug in ReuseSim)
      RunError               any other failure: another status, a signal, a time limit, output
                             the package cannot read
      BinaryNotFoundError    no `reusesim` binary where the package looks (reusesim.process)
    ReuseSimWarning          a warning the CLI printed (`reusesim run: warning: ...`), issued with
                             warnings.warn as it printed it

Nothing here imports pandas: the plotting scripts import the package without it.
"""


class ReuseSimError(Exception):
    """A `reusesim` process that failed, or could not be run."""

    def __init__(self, message, command=None, returncode=None, stderr=""):
        super().__init__(message)
        self.command = list(command) if command else []
        self.returncode = returncode
        self.stderr = stderr


class InputError(ReuseSimError):
    """Exit status 2: the input was refused. `lines` are the CLI's error lines, in its order.
    Also raised by reusesim.load() for a results directory it cannot read (returncode None)."""

    def __init__(self, message, command=None, returncode=None, stderr="", lines=()):
        super().__init__(message, command, returncode, stderr)
        self.lines = list(lines)


class InternalError(ReuseSimError):
    """Exit status 3: ReuseSim found one of its own invariants broken (please report it)."""


class RunError(ReuseSimError):
    """Any other failure of a run: its status, a signal, a time limit or unreadable output."""


class BinaryNotFoundError(ReuseSimError):
    """No usable `reusesim` binary; the message says where the package looked."""


class ReuseSimWarning(UserWarning):
    """A warning line of a command that succeeded, as the CLI printed it."""
