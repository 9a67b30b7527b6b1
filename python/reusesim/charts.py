"""Figures from DataFrames: the roofline and the energy figures (drawn by reusesim.plot.roofline
and reusesim.plot.energy, the code `reusesim figure` runs), a Pareto front of two objectives, and a
metric against a swept key. Each returns its matplotlib Figure (Agg) and writes a file only when
given `path` (its suffix, .png or .svg, the format), atomically; pareto_front() is the
non-dominated rows of a table."""

import os
import warnings

import pandas as pd
from matplotlib import ticker

from .plot import energy as energy_figures
from .plot import roofline as roofline_figure
from .plot.csv_input import ENERGY_COLUMNS, Point, Roof, layer_panels, network_point, positive_batch
from .plot.output import DPI, plt, use_style
from .results import Result, Trace

FRONT_COLOR = "#d62728"
OTHER_COLOR = "0.65"
# An axis spanning more than this ratio is drawn on a log scale.
LOG_SPAN = 30.0


def pareto_front(frame, objectives):
    """The rows of `frame` no other row beats on every column of `objectives` (each minimised): a
    row is dropped when another is no worse in all and better in one. Rows with an empty
    objective are not candidates. Sorted by the objectives, in their order; the index kept."""
    objectives = list(objectives)
    missing = [name for name in objectives if name not in frame]
    if missing:
        raise KeyError(f"pareto_front: no column {', '.join(missing)} (columns: {', '.join(map(str, frame))})")
    candidates = frame.dropna(subset=objectives).sort_values(objectives, kind="stable")
    values = candidates[objectives].to_numpy(dtype=float)
    kept = []
    for index, row in enumerate(values):
        dominated = any((values[other] <= row).all() and (values[other] < row).any()
                        for other in range(len(values)) if other != index)
        if not dominated:
            kept.append(index)
    return candidates.iloc[kept]


def save(figure, path):
    """Writes the figure to `path` (.png or .svg), atomically; the same figure gives the same bytes."""
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lstrip(".").lower()
    if extension not in ("png", "svg"):
        raise ValueError(f"{path}: expected a .png or .svg file name")
    partial = path + ".partial"
    metadata = {"Software": None} if extension == "png" else {"Date": None}
    figure.savefig(partial, format=extension, dpi=DPI, metadata=metadata)
    os.replace(partial, path)


def _roofs(source):
    """Roofs of the panels, by name: a Trace's (trace.json's panels), a Result's (its summary) or
    a DataFrame with columns panel, peak_gops, dram_gbps and optionally accelerator, sram_gops and
    noc_gbps (where the network-on-chip binds: the slope is then the NoC's)."""
    if isinstance(source, Trace):
        rows = [{"panel": panel["title"], "accelerator": panel["accelerator"], "peak_gops": panel["peak_gops"],
                 "dram_gbps": panel["dram_gbps"], "sram_gops": panel.get("sram_gops"),
                 "noc_gbps": panel.get("noc_gbps")}
                for panel in source.plan["panels"]]
    elif isinstance(source, Result):
        rows = [{"panel": source.summary["accelerator"], "accelerator": source.summary["accelerator"],
                 "peak_gops": source.summary["peak_gops"], "dram_gbps": source.summary["peak_dram_gbps"]}]
    elif isinstance(source, pd.DataFrame):
        rows = source.to_dict("records")
    else:
        raise TypeError(f"roofs: expected a Trace, a Result or a DataFrame, got {type(source).__name__}")
    roofs = {}
    for row in rows:
        roof = Roof()
        roof.panel = str(row["panel"])
        roof.accelerator = str(row.get("accelerator", roof.panel))
        roof.peak = float(row["peak_gops"])
        dram, noc, sram = (row.get(column) for column in ("dram_gbps", "noc_gbps", "sram_gops"))
        roof.set_memory(None if dram is None or pd.isna(dram) else float(dram),
                        None if noc is None or pd.isna(noc) else float(noc))
        roof.sram = None if sram is None or pd.isna(sram) else float(sram)
        roofs[roof.panel] = roof
    return roofs


def _panels(frame, source, roofs):
    """Each row's panel: the frame's `panel` column, a Trace's panel of the row's job, or the one
    roof there is."""
    if "panel" in frame:
        return frame["panel"].astype(str).tolist()
    if isinstance(source, Trace) and "job" in frame:
        titles = {job["id"]: source.plan["panels"][job["panel"]]["title"] for job in source.plan["jobs"]}
        return [titles[job] for job in frame["job"]]
    if len(roofs) == 1:
        return [next(iter(roofs))] * len(frame)
    raise ValueError("roofline: several roofs and no `panel` column (or `job` column of the Trace) to tell "
                     "which rows go on which")


def roofline(frame, path=None, *, roofs, title=""):
    """The roofline figure of `reusesim figure` for the rows of `frame` (run's columns: layer,
    type, macs, batch, arithmetic_intensity, gops), one panel per roof of `roofs` (a Trace, a
    Result or a DataFrame, see _roofs), its points as the figure takes them from a trace: a TOTAL
    row of a whole network (`selection` all, or no such column) is the network's star, the other
    rows with MACs its layers, and a layer run alone (a trace's picked layers) is joined across
    batch sizes."""
    roof_of = _roofs(roofs)
    default_model = roofs.summary.get("model", "") if isinstance(roofs, Result) else ""
    points = []
    for line, (panel, row) in enumerate(zip(_panels(frame, roofs, roof_of), frame.to_dict("records")), start=2):
        if panel not in roof_of:
            raise ValueError(f"roofline: row {line - 2}: panel {panel!r} has no roof (roofs: {', '.join(roof_of)})")
        whole = row.get("selection", "all") == "all"
        network = row.get("layer") == "TOTAL"
        x, y, macs = row.get("arithmetic_intensity"), row.get("gops"), row.get("macs", 1)
        if (network and not whole) or (not network and not macs > 0):
            continue
        if x is None or y is None or pd.isna(x) or pd.isna(y) or not (x > 0 and y > 0):
            continue
        point = Point()
        model = row.get("model", default_model)
        model = default_model if not isinstance(model, str) else model
        point.line, point.panel, point.kind, point.model = line, panel, "network" if network else "layer", model
        point.layer = "" if network else str(row.get("layer", ""))
        layer_type = row.get("type")
        point.type = "network" if network else (str(layer_type) if isinstance(layer_type, str) else "other")
        point.series = model if network else "" if whole else f"{model}/{point.layer}"
        batch = row.get("batch")
        point.batch = None if batch is None or pd.isna(batch) else int(batch)
        point.x, point.y = float(x), float(y)
        point.sweep, point.text, point.mandatory, point.label_kind = None, None, False, None
        points.append(point)
    use_style()
    figure = roofline_figure.build_figure(list(roof_of.values()), points, title)
    if path is not None:
        save(figure, path)
    return figure


# ---------------------------------------------------------------------------------------------
# The energy figures: rows of a trace's layers.csv / networks.csv (or a run's table) turned into the
# rows of figure_energy_layers.csv / figure_energy_networks.csv as `reusesim figure` writes them
# (sim/trace/figure.cpp), then into panels by csv_input, as the CSV files are.

def _present(value):
    return value is not None and not (isinstance(value, float) and pd.isna(value))


def _per_sample(value, batch):
    """A job's energy per sample as the figure's CSV holds it, to 10 significant digits (its
    %.10g): a DataFrame then draws the bytes `reusesim figure` draws."""
    return float(f"{value / batch:.10g}")


def _cell(value):
    """A swept value as the trace's panel titles write it (64, not 64.0)."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _variants(frame, source, who):
    """Each row's (panel, sweep): a Trace's panel of the row's job (trace.json's title and swept
    values); a Result's accelerator; else the `panel` and `sweep` columns, or the trace's layout
    (accelerator, then the swept keys between `context` and `batch`) named as the trace names
    them: `small, compute.rows=8` and `compute.rows=8`."""
    if isinstance(source, Trace):
        panels = source.plan["panels"]
        panel_of = {job["id"]: panels[job["panel"]] for job in source.plan["jobs"]}
        return [(panel_of[job]["title"], " ".join(f"{key}={value}" for key, value in panel_of[job]["sweep"]))
                for job in frame["job"]]
    if isinstance(source, Result):
        return [(str(source.summary["accelerator"]), "")] * len(frame)
    columns = list(frame)
    swept = columns[columns.index("context") + 1:columns.index("batch")] if {"context", "batch"} <= set(columns) else []
    variants = []
    for row in frame.to_dict("records"):
        values = [f"{key}={_cell(row[key])}" for key in swept]
        if "panel" in row:
            panel = str(row["panel"])
        elif "accelerator" in row:
            panel = ", ".join([str(row["accelerator"])] + values)
        else:
            raise KeyError(f"{who}: no `panel` or `accelerator` column to name the rows' accelerator (columns: "
                           f"{', '.join(map(str, frame))})")
        variants.append((panel, str(row["sweep"]) if "sweep" in row else " ".join(values)))
    return variants


def _workload(row, default_model):
    """The model and what of it ran as the figure names it (TraceJob::workload): `gpt2 decode
    L=512`, `mlp train adam`; and whether the whole network ran (its `selection`: `all` or a
    training step) rather than picked layers (`layers fc6+fc7`, `types gru`)."""
    model = row.get("model", default_model)
    text = str(model if isinstance(model, str) else default_model)
    phase = row.get("sequence_phase")
    if isinstance(phase, str) and phase:
        text += " " + phase
    for column, mark in (("sequence", "S"), ("context", "L")):
        if _present(row.get(column)) and row[column] > 0:
            text += f" {mark}={int(row[column])}"
    selection = row.get("selection")
    parts = selection.split(", ") if isinstance(selection, str) else []
    text += "".join(" " + part for part in parts if part.startswith("train "))
    return text, not any(part.startswith(("layers ", "types ")) for part in parts)


def _energy_rows(source, table, who):
    """[(where, panel, sweep, model, whole network, batch, row)] of the rows of `source` with energy
    (a row without is not drawn, as by `reusesim figure`): its `table` ("layers": the layer rows;
    "networks": the TOTAL rows) of a Trace or a Result, or those of the DataFrame itself. Raises
    TypeError for another source, KeyError naming the columns that are missing and ValueError when
    no row has energy."""
    if isinstance(source, Trace):
        frame, default_model = getattr(source, table), ""
    elif isinstance(source, Result):
        frame, default_model = source.layers if table == "layers" else source.totals, source.summary.get("model", "")
    elif isinstance(source, pd.DataFrame):
        frame, default_model = source, ""
    else:
        raise TypeError(f"{who}: expected a Trace, a Result or a DataFrame, got {type(source).__name__}")
    if frame.empty:
        raise ValueError(f"{who}: no rows to draw")
    needed = ["layer", "batch", "energy_total_uj"] + ["model"] * (not default_model)
    needed += [f"energy_{column}" for column in ENERGY_COLUMNS] if table == "layers" else ["time_s"]
    missing = [column for column in needed if column not in frame]
    if missing:
        raise KeyError(f"{who}: no column {', '.join(missing)}: the energy figures need the rows of a run with "
                       f"energy (columns: {', '.join(map(str, frame))})")
    rows = []
    for (panel, sweep), (index, row) in zip(_variants(frame, source, who), frame.to_dict("index").items()):
        if (row["layer"] == "TOTAL") != (table == "networks") or not _present(row["energy_total_uj"]):
            continue
        where = f"{who}: row {index}"
        batch = positive_batch(where, row["batch"], repr(row["batch"]))
        rows.append((where, panel, sweep, *_workload(row, default_model), batch, row))
    if not rows:
        raise ValueError(f"{who}: no {'layer' if table == 'layers' else 'TOTAL'} row has energy (energy_total_uj): "
                         "energy needs an accelerator with a technology and compute.number_format "
                         "(docs/energy-model.md)")
    return rows


def _figure_out(figure, path):
    if path is not None:
        save(figure, path)
    return figure


def _warn(message):
    warnings.warn(message, stacklevel=3)


def _layer_label(row):
    """A row's layer as the figure names it: a training step's layer has a row per phase."""
    phase = row.get("phase")
    return str(row["layer"]) + (f" {phase}" if isinstance(phase, str) and phase else "")


def energy(source, path=None, *, title=""):
    """The energy breakdown of `reusesim figure` (figure_energy.png), drawn by
    reusesim.plot.energy: stacked bars of energy per sample by component, a panel per network
    run (variant, model, batch; a bar per layer) and per picked layer (variant, layer; a bar per
    batch). `source`: a Trace (its layers), a Result of a run with energy, or a DataFrame of layer
    rows with a trace's or run's columns (see _variants, _workload)."""
    rows = [(where, panel, "network" if whole else "layer", model, batch, _layer_label(row),
             {column: _per_sample(row[f"energy_{column}"], batch) if _present(row[f"energy_{column}"]) else None
              for column in ENERGY_COLUMNS})
            for where, panel, _, model, whole, batch, row in _energy_rows(source, "layers", "energy")]
    panels = layer_panels(rows)
    use_style()
    return _figure_out(energy_figures.breakdown_figure(panels, title, _warn), path)


def design(source, path=None, *, title=""):
    """The design-space figure of `reusesim figure` (figure_design.png), drawn by
    reusesim.plot.energy: energy per inference against latency for each network and batch run on
    more than one variant, the Pareto-optimal variants joined and labelled by their swept values.
    `source`: a Trace (its networks), a DataFrame of network rows (a sweep's) or a Result (one
    variant: refused). Raises ValueError when no network ran on two variants."""
    networks = [network_point(where, panel, sweep, model, batch, row["time_s"],
                              _per_sample(row["energy_total_uj"], batch))
                for where, panel, sweep, model, whole, batch, row in _energy_rows(source, "networks", "design")
                if whole]
    if not energy_figures.design_groups(networks):
        raise ValueError("design: no network ran on more than one accelerator variant (panels: "
                         f"{', '.join(sorted({point['panel'] for point in networks}))}); the design space compares "
                         "variants")
    use_style()
    return _figure_out(energy_figures.design_figure(networks, title, _warn), path)


def _scale(axes, which, values):
    """A log scale for an axis whose values span more than LOG_SPAN, its ticks as plain numbers
    (the roofline's: 1, 10, 100k, 1M), the style drawing text without math."""
    positive = [value for value in values if value > 0]
    if positive and len(positive) == len(values) and max(positive) / min(positive) > LOG_SPAN:
        getattr(axes, f"set_{which}scale")("log")
        axis = getattr(axes, f"{which}axis")
        axis.set_major_formatter(ticker.FuncFormatter(roofline_figure.tick_fmt))
        axis.set_minor_formatter(ticker.NullFormatter())


def _label(row, label):
    if label is None:
        return ""
    columns = [label] if isinstance(label, str) else list(label)
    return " ".join(f"{column}={row[column]}" for column in columns)


def pareto(frame, x, y, path=None, *, label=None, title="", x_label=None, y_label=None):
    """`y` against `x` (both minimised) for every row, the Pareto front (pareto_front) in colour,
    joined in steps and labelled by the `label` column(s)."""
    front = pareto_front(frame, [x, y])
    others = frame.drop(index=front.index).dropna(subset=[x, y])
    use_style()
    figure, axes = plt.subplots(figsize=(6.6, 4.9))
    axes.scatter(others[x], others[y], s=24, color=OTHER_COLOR, label=f"dominated ({len(others)})", zorder=2)
    axes.plot(front[x], front[y], color=FRONT_COLOR, linewidth=1, drawstyle="steps-post", zorder=3)
    axes.scatter(front[x], front[y], s=44, color=FRONT_COLOR, edgecolor="black", linewidth=0.5,
                 label=f"Pareto-optimal ({len(front)})", zorder=4)
    # Rows of the front at one point (equal objectives) share one label.
    labels = {}
    for _, row in front.iterrows():
        text = _label(row, label)
        if text:
            labels.setdefault((row[x], row[y]), []).append(text)
    for index, ((x_value, y_value), texts) in enumerate(labels.items()):
        axes.annotate("; ".join(texts), (x_value, y_value), fontsize=6.5, xytext=(6, 6 if index % 2 == 0 else -10),
                      textcoords="offset points")
    _scale(axes, "x", frame[x].dropna().tolist())
    _scale(axes, "y", frame[y].dropna().tolist())
    axes.set_xlabel(x_label or x, fontsize=9)
    axes.set_ylabel(y_label or y, fontsize=9)
    axes.grid(which="both", color="0.92", linewidth=0.5)
    axes.set_axisbelow(True)
    axes.legend(fontsize=8, loc="upper right")
    axes.set_title(title or f"{y} against {x}: {len(front)} of {len(front) + len(others)} Pareto-optimal",
                   fontsize=10)
    figure.tight_layout()
    if path is not None:
        save(figure, path)
    return figure


def scaling(frame, key, metric, path=None, *, series=None, title="", y_label=None):
    """`metric` against the swept `key`, a line per value of the `series` column(s) (e.g. model,
    batch), points in the key's order; a key or metric over more than LOG_SPAN on a log scale."""
    for column in [key, metric] + ([] if series is None else [series] if isinstance(series, str) else list(series)):
        if column not in frame:
            raise KeyError(f"scaling: no column {column!r} (columns: {', '.join(map(str, frame))})")
    use_style()
    figure, axes = plt.subplots(figsize=(6.6, 4.9))
    groups = [("", frame)] if series is None else frame.groupby(series, sort=True)
    for name, rows in groups:
        rows = rows.dropna(subset=[key, metric]).sort_values(key, kind="stable")
        text = " ".join(map(str, name)) if isinstance(name, tuple) else str(name)
        axes.plot(rows[key], rows[metric], marker="o", markersize=4, linewidth=1, label=text or metric)
    keys = frame[key].dropna().tolist()
    if all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in keys):
        _scale(axes, "x", keys)
    _scale(axes, "y", frame[metric].dropna().tolist())
    axes.set_xlabel(key, fontsize=9)
    axes.set_ylabel(y_label or metric, fontsize=9)
    axes.grid(which="both", color="0.92", linewidth=0.5)
    axes.set_axisbelow(True)
    if series is not None:
        axes.legend(fontsize=8, title=series if isinstance(series, str) else ", ".join(series), title_fontsize=8)
    axes.set_title(title or f"{metric} against {key}", fontsize=10)
    figure.tight_layout()
    if path is not None:
        save(figure, path)
    return figure


def close(figure):
    """Frees a figure's memory (pyplot keeps every figure until it is closed)."""
    plt.close(figure)


__all__ = ["close", "design", "energy", "pareto", "pareto_front", "roofline", "save", "scaling"]
