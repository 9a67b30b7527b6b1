#!/usr/bin/python3
"""Draw the energy figures of `reusesim figure` (docs/energy-model.md).

usage: scripts/plot_energy.py LAYERS_CSV NETWORKS_CSV OUT_PREFIX [--title TEXT]

LAYERS_CSV (figure_energy_layers.csv), one row per layer of a job:
  panel,kind,model,batch,layer,dram_uj,sram_uj,array_uj,vector_uj,dma_uj,static_uj
    kind: `network` (a layer of a whole-network job) or `layer` (a layer a trace entry picked);
    energy per sample (the job's energy / its batch) in microjoules, by component; an empty dram_uj
    is an ideal memory (drawn as 0)
NETWORKS_CSV (figure_energy_networks.csv), one row per whole-network job:
  panel,sweep,model,batch,latency_s,energy_uj,ops
    panel: the accelerator variant; sweep: its swept values ("dram.channels=2 ..."), empty when
    nothing is swept; latency_s: the batch's time; energy_uj: per sample; ops: 1 MAC = 2 ops

Writes OUT_PREFIX_energy.png/.svg: stacked bars of energy per sample by component, one panel per
(variant, network, batch) with a bar per layer, and one per (variant, picked layer) with a bar per
batch (where batching's weight reuse shows); at most 12 panels (a note on stderr names the rest).
When the networks come from more than one variant, also OUT_PREFIX_design.png/.svg: energy per
inference against latency, one panel per (network, batch) run on several variants (at most 6),
the Pareto-optimal variants (no other is both faster and cheaper) joined, marked and labelled by
what was swept. Same input gives byte-identical files. Bad input prints
`plot_energy.py: error: FILE:LINE: ...` and exits with status 2.
"""

import argparse
import math
import sys

from plot_figure import DPI, InputError, parse_number, plt, read_csv, save

PROG = "plot_energy.py"
LAYER_COLUMNS = ["panel", "kind", "model", "batch", "layer", "dram_uj", "sram_uj", "array_uj", "vector_uj", "dma_uj",
                 "static_uj"]
NETWORK_COLUMNS = ["panel", "sweep", "model", "batch", "latency_s", "energy_uj", "ops"]
COMPONENTS = [("dram_uj", "DRAM", "#d62728"), ("sram_uj", "SRAM", "#1f77b4"), ("array_uj", "MAC array", "#2ca02c"),
              ("vector_uj", "vector unit", "#9467bd"), ("dma_uj", "DMA", "#ff7f0e"),
              ("static_uj", "leakage", "#7f7f7f")]
MAX_BAR_PANELS = 12
MAX_DESIGN_PANELS = 6


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def note(msg):
    print(f"{PROG}: note: {msg}", file=sys.stderr)


def batch_of(path, line, text):
    value = parse_number(path, line, "batch", text)
    if value < 1 or value != int(value):
        raise InputError(f"{path}:{line}: batch: expected a positive integer, got {text!r}")
    return int(value)


def load_layers(path):
    """[(title, [(bar label, {component: uJ})])]: the panels in first-seen order."""
    panels = {}
    for line, row in read_csv(path, LAYER_COLUMNS):
        batch = batch_of(path, line, row["batch"])
        parts = {c: parse_number(path, line, c, row[c], optional=(c == "dram_uj")) or 0.0 for c, _, _ in COMPONENTS}
        if any(v < 0 or not math.isfinite(v) for v in parts.values()):
            raise InputError(f"{path}:{line}: energies must be finite and not negative")
        if row["kind"] == "network":
            title, bar = f"{row['model']}, batch {batch} on {row['panel']}", row["layer"]
        elif row["kind"] == "layer":
            title, bar = f"{row['model']}/{row['layer']} on {row['panel']}", f"b{batch}"
        else:
            raise InputError(f"{path}:{line}: kind: expected network or layer, got {row['kind']!r}")
        panels.setdefault(title, []).append((bar, parts))
    return list(panels.items())


def load_networks(path):
    rows = []
    for line, row in read_csv(path, NETWORK_COLUMNS):
        latency = parse_number(path, line, "latency_s", row["latency_s"])
        energy = parse_number(path, line, "energy_uj", row["energy_uj"])
        if not (latency > 0 and energy > 0 and math.isfinite(latency) and math.isfinite(energy)):
            raise InputError(f"{path}:{line}: latency_s and energy_uj must be positive")
        rows.append(dict(panel=row["panel"], sweep=row["sweep"], model=row["model"],
                         batch=batch_of(path, line, row["batch"]), latency=latency, energy=energy))
    return rows


def grid(count):
    cols = min(3, count)
    return cols, (count + cols - 1) // cols


def breakdown_figure(panels, title):
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


def pareto(points):
    """The points no other point beats on both latency and energy, by increasing latency."""
    front = []
    for p in sorted(points, key=lambda p: (p["latency"], p["energy"])):
        if not front or p["energy"] < front[-1]["energy"]:
            front.append(p)
    return front


def design_figure(networks, title):
    groups = {}
    for row in networks:
        groups.setdefault((row["model"], row["batch"]), []).append(row)
    keys = [k for k, rows in groups.items() if len({r["panel"] for r in rows}) > 1]
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
        ax.set_title(f"{model}, batch {batch}: {len(points)} variants, {len(front)} Pareto-optimal", fontsize=9)
        ax.set_xlabel("latency of the batch (ms)", fontsize=8)
        ax.set_ylabel("energy per inference (uJ)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(which="both", color="0.92", linewidth=0.5)
        ax.set_axisbelow(True)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{title}: energy per inference against latency" if title else
                 "Energy per inference against latency", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description="Draw the energy breakdown and design-space figures "
                                 "from the energy CSV files of `reusesim figure`.")
    ap.add_argument("layers_csv", metavar="LAYERS_CSV", help=",".join(LAYER_COLUMNS))
    ap.add_argument("networks_csv", metavar="NETWORKS_CSV", help=",".join(NETWORK_COLUMNS))
    ap.add_argument("out_prefix", metavar="OUT_PREFIX",
                    help="writes OUT_PREFIX_energy.png/.svg and, for a hardware sweep, OUT_PREFIX_design.png/.svg")
    ap.add_argument("--title", default="", help="figure title")
    args = ap.parse_args(argv)

    plt.rcParams["svg.hashsalt"] = "reusesim-figure"
    plt.rcParams["svg.fonttype"] = "path"
    plt.rcParams["font.family"] = "DejaVu Sans"
    plt.rcParams["text.parse_math"] = False
    plt.rcParams["savefig.dpi"] = DPI
    try:
        groups = load_layers(args.layers_csv)
        networks = load_networks(args.networks_csv)
    except InputError as e:
        fail(str(e))
    if groups:
        save(breakdown_figure(groups, args.title), args.out_prefix + "_energy")
    if len({row["panel"] for row in networks}) > 1:
        save(design_figure(networks, args.title), args.out_prefix + "_design")
    return 0


if __name__ == "__main__":
    sys.exit(main())
