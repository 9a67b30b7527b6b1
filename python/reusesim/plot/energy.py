"""The energy figures of `reusesim figure` (docs/energy-model.md), from the layers and networks of
reusesim.plot.csv_input.

The breakdown: stacked bars of energy per sample by component, one panel per (variant, network,
batch) with a bar per layer, and one per (variant, picked layer) with a bar per batch (where
batching's weight reuse shows); at most 12 panels (a note names the rest).
The design space, when a network ran at a batch size on more than one variant: energy per
inference against latency, one panel per such (network, batch) (at most 6), the Pareto-optimal
variants (no other is both faster and cheaper) joined, marked and labelled by what was swept.
Energy per token, for a transformer's phases: uJ per token against batch, one panel per (model,
phase) (at most 6), a line per machine (colour) and context or sequence length (line style).
"""

import math

from matplotlib import ticker

from .output import plt
from .roofline import tick_fmt

# The energy columns (csv_input.ENERGY_COLUMNS), bottom to top of a bar: (column, label, colour).
COMPONENTS = [("dram_uj", "DRAM", "#d62728"), ("sram_uj", "SRAM", "#1f77b4"), ("array_uj", "MAC array", "#2ca02c"),
              ("vector_uj", "vector unit", "#9467bd"), ("dma_uj", "DMA", "#ff7f0e"),
              ("static_uj", "leakage", "#7f7f7f")]
MAX_BAR_PANELS = 12
MAX_DESIGN_PANELS = 6


def grid(count):
    """(columns, rows) of a grid of count panels."""
    cols = min(3, count)
    return cols, (count + cols - 1) // cols


def breakdown_figure(panels, title, note):
    """The breakdown figure of the panels of csv_input.load_layers."""
    if len(panels) > MAX_BAR_PANELS:
        note(f"{len(panels) - MAX_BAR_PANELS} panels not drawn (at most {MAX_BAR_PANELS}): "
             + "; ".join(name for name, _ in panels[MAX_BAR_PANELS:]))
        panels = panels[:MAX_BAR_PANELS]
    keys = [name for name, _ in panels]
    groups = dict(panels)
    cols, rows = grid(len(keys))
    fig, axes = plt.subplots(rows, cols, figsize=(6.6 * cols, 4.6 * rows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        layers = [(name, parts) for name, parts in groups[key] if sum(parts.values()) > 0]
        xs = range(len(layers))
        bottom = [0.0] * len(layers)
        for column, label, color in COMPONENTS:
            heights = [parts[column] for _, parts in layers]
            ax.bar(xs, heights, bottom=bottom, color=color, width=0.8, label=label, linewidth=0)
            bottom = [b + h for b, h in zip(bottom, heights)]
        step = max(1, math.ceil(len(layers) / 40))  # at most ~40 names under a panel
        ax.set_xticks(list(xs)[::step])
        ax.set_xticklabels([name for name, _ in layers][::step], rotation=90, fontsize=6)
        ax.set_xlim(-0.6, max(len(layers), 1) - 0.4)
        total = sum(bottom)
        ax.set_title(f"{key}: {total:,.1f} uJ per sample in all", fontsize=9)
        ax.set_ylabel("energy per sample (uJ)", fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", color="0.9", linewidth=0.6)
        ax.set_axisbelow(True)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(COMPONENTS), fontsize=8, frameon=False)
    fig.suptitle(f"{title}: energy per layer by component (per sample)" if title else
                 "Energy per layer by component (per sample)", fontsize=11)
    fig.tight_layout(rect=(0, 0.05, 1, 0.96))
    return fig


def label_panel(ax, title, xlabel, ylabel, legend_size):
    """A panel's title, axis labels, grid and legend (upper right, in legend_size points)."""
    ax.set_title(title, fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(which="both", color="0.92", linewidth=0.5)
    ax.set_axisbelow(True)
    ax.legend(fontsize=legend_size, loc="upper right")


def pareto(points):
    """The points no other point beats on both latency and energy, by increasing latency."""
    front = []
    for p in sorted(points, key=lambda p: (p["latency"], p["energy"])):
        if not front or p["energy"] < front[-1]["energy"]:
            front.append(p)
    return front


def design_groups(networks):
    """{(model, batch): rows} of the networks (csv_input.network_point) run on more than one
    panel, in first-seen order: the design-space figure's panels; empty, it has none."""
    groups = {}
    for row in networks:
        groups.setdefault((row["model"], row["batch"]), []).append(row)
    return {key: rows for key, rows in groups.items() if len({r["panel"] for r in rows}) > 1}


def design_figure(networks, title, note):
    """The design-space figure of the rows of csv_input.load_networks, which must hold a network
    run on more than one panel (design_groups)."""
    groups = design_groups(networks)
    keys = list(groups)
    if len(keys) > MAX_DESIGN_PANELS:
        note(f"{len(keys) - MAX_DESIGN_PANELS} design-space panels not drawn (at most {MAX_DESIGN_PANELS}): "
             + "; ".join(f"{m} b{b}" for m, b in keys[MAX_DESIGN_PANELS:]))
        keys = keys[:MAX_DESIGN_PANELS]
    cols, rows = grid(len(keys))
    fig, axes = plt.subplots(rows, cols, figsize=(6.6 * cols, 4.9 * rows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        points = groups[key]
        front = pareto(points)
        on_front = {id(p) for p in front}
        others = [p for p in points if id(p) not in on_front]
        ms = 1e3  # latency_s -> ms
        ax.scatter([p["latency"] * ms for p in others], [p["energy"] for p in others], s=28, color="0.65",
                   label="dominated", zorder=2)
        ax.plot([p["latency"] * ms for p in front], [p["energy"] for p in front], color="#d62728", linewidth=1,
                drawstyle="steps-post", zorder=3)
        ax.scatter([p["latency"] * ms for p in front], [p["energy"] for p in front], s=46, color="#d62728",
                   edgecolor="black", linewidth=0.5, label="Pareto-optimal", zorder=4)
        for i, p in enumerate(front):
            ax.annotate(p["sweep"] or p["panel"], (p["latency"] * ms, p["energy"]), fontsize=6.5,
                        xytext=(6, 6 if i % 2 == 0 else -10), textcoords="offset points")
        # Variants of one design differ by percents: linear axes, plain numbers.
        ax.ticklabel_format(style="plain", useOffset=False)
        ax.margins(0.15)
        model, batch = key
        label_panel(ax, f"{model}, batch {batch}: {len(points)} variants, {len(front)} Pareto-optimal",
                    "latency of the batch (ms)", "energy per inference (uJ)", 7)
    fig.suptitle(f"{title}: energy per inference against latency" if title else
                 "Energy per inference against latency", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


LINE_STYLES = ["-", "--", ":", "-."]
MACHINE_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"]


def tokens_figure(rows, title, note):
    """The energy-per-token figure of the rows of csv_input.load_tokens (at least one)."""
    groups = {}
    for row in rows:
        groups.setdefault((row["model"], row["phase"]), []).append(row)
    keys = list(groups)
    if len(keys) > MAX_DESIGN_PANELS:
        note(f"{len(keys) - MAX_DESIGN_PANELS} energy-per-token panels not drawn (at most {MAX_DESIGN_PANELS}): "
             + "; ".join(f"{m} {p}" for m, p in keys[MAX_DESIGN_PANELS:]))
        keys = keys[:MAX_DESIGN_PANELS]
    machines = list(dict.fromkeys(row["panel"] for row in rows))
    cols, nrows = grid(len(keys))
    fig, axes = plt.subplots(nrows, cols, figsize=(6.6 * cols, 4.9 * nrows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        model, phase = key
        lengths = list(dict.fromkeys(row["length"] for row in groups[key]))
        letter = "L" if phase == "decode" else "S"
        for machine in machines:
            for length in lengths:
                line = sorted((r["batch"], r["uj"]) for r in groups[key]
                              if r["panel"] == machine and r["length"] == length)
                if not line:
                    continue
                shown = "" if length is None else f", {letter}={length}"
                ax.plot([b for b, _ in line], [uj for _, uj in line],
                        color=MACHINE_COLOURS[machines.index(machine) % len(MACHINE_COLOURS)],
                        linestyle=LINE_STYLES[lengths.index(length) % len(LINE_STYLES)], marker="o", markersize=3.5,
                        linewidth=1.2, label=f"{machine}{shown}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        batches = sorted({r["batch"] for r in groups[key]})
        ax.xaxis.set_major_locator(ticker.FixedLocator(batches))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(tick_fmt))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        ax.yaxis.set_major_locator(ticker.LogLocator(base=10, numticks=12))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(tick_fmt))
        ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10)), numticks=12))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        label_panel(ax, f"{model} {phase}: energy per token", "batch (samples)", "energy per token (uJ)", 6.5)
    fig.suptitle(f"{title}: energy per token against batch" if title else "Energy per token against batch",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
