"""What the commands return: the CLI's tables as typed DataFrames (reusesim.tables) beside the
run's summary, the command that ran and what it printed on stderr (warnings)."""

from dataclasses import dataclass, field

import pandas as pd

# The TOTAL columns a Result prints, those the run has (energy only with a technology).
SHOWN_TOTALS = ["batch", "phase", "cycles", "time_s", "gops", "efficiency", "dram_read_bytes",
                "dram_write_bytes", "energy_total_uj"]


def _shown(frame, columns):
    kept = [column for column in columns if column in frame and not frame[column].isna().all()]
    return frame[kept].to_string(index=False)


@dataclass(repr=False)
class Result:
    """`reusesim run`: `layers` (results.csv's rows but TOTAL), `totals` (the TOTAL rows, one per
    batch), `summary` (results.json's other top-level fields), `dram_channels`
    (dram_channels.csv), `config` (config.json: the accelerator as resolved), `dir` (the `out=`
    directory, None when the run wrote into a temporary one), `cores` (cores.csv: each core's
    share of each layer on a chip of several cores; empty on one core)."""
    layers: pd.DataFrame
    totals: pd.DataFrame
    summary: dict
    dram_channels: pd.DataFrame
    config: dict
    dir: object = None
    command: list = field(default_factory=list)
    stderr: str = ""
    cores: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __repr__(self):
        head = (f"reusesim run: {self.summary.get('accelerator')} x {self.summary.get('model')}, "
                f"{len(self.layers)} layer rows; TOTAL:")
        return f"{head}\n{_shown(self.totals, SHOWN_TOTALS)}"


@dataclass(repr=False)
class Table:
    """`reusesim analyze` or `footprint`: `layers` (the CSV's rows but TOTAL), `totals` (the TOTAL
    row), `summary` (the JSON's other top-level fields)."""
    name: str
    layers: pd.DataFrame
    totals: pd.DataFrame
    summary: dict
    command: list = field(default_factory=list)
    stderr: str = ""

    def __repr__(self):
        return f"reusesim {self.name}: {self.summary.get('model')}, {len(self.layers)} layer rows; TOTAL:\n" + \
            self.totals.to_string(index=False)


@dataclass(repr=False)
class Memtest:
    """`reusesim memtest`: `rows` (the whole memory's row, channel `all`, then one per channel, as
    `--per-channel --format csv` prints them), `summary` (the whole memory's row as a dict)."""
    rows: pd.DataFrame
    summary: dict
    command: list = field(default_factory=list)
    stderr: str = ""

    def __repr__(self):
        return f"reusesim memtest: {self.summary.get('memory')}, {self.summary.get('pattern')}:\n" + _shown(
            self.rows, ["channel", "achieved_gbps", "peak_gbps", "efficiency", "read_latency_mean_ns",
                        "row_hit_rate", "dram_pj_per_bit"])


@dataclass(repr=False)
class Trace:
    """A `reusesim trace` results directory: `layers` (layers.csv), `networks` (networks.csv),
    `jobs` (jobs.csv), `plan` (trace.json), `dir`."""
    layers: pd.DataFrame
    networks: pd.DataFrame
    jobs: pd.DataFrame
    plan: dict
    dir: object

    def __repr__(self):
        done = int((self.jobs["status"] == "done").sum()) if "status" in self.jobs else 0
        return (f"reusesim trace {self.plan.get('trace')} in {self.dir}: {len(self.jobs)} jobs, {done} done; "
                f"{len(self.layers)} layer rows, {len(self.networks)} network rows")
