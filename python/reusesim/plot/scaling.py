"""The scaling figure of `reusesim figure` for a trace over systems (docs/traces-and-figure.md),
from the rows of reusesim.plot.csv_input.load_scaling: throughput against chips, log2 x, log y, a
panel per workload and batch (its unit, tokens/s or samples/s, on its y axis), a line per system
variant and plan; at most 6 panels (a note names the rest)."""

from matplotlib import ticker

from .energy import LINE_STYLES, MACHINE_COLOURS, grid, label_panel
from .output import plt
from .roofline import tick_fmt

MAX_PANELS = 6
NARROW_RATIO = 20  # a panel's highest throughput over its lowest below which its y ticks are plain steps


def scaling_figure(rows, title, note):
    """The figure of the rows of csv_input.load_scaling (at least one)."""
    groups = {}
    for row in rows:
        groups.setdefault(row["panel"], []).append(row)
    panels = list(groups)
    if len(panels) > MAX_PANELS:
        note(f"{len(panels) - MAX_PANELS} scaling panels not drawn (at most {MAX_PANELS}): "
             + "; ".join(panels[MAX_PANELS:]))
        panels = panels[:MAX_PANELS]
    lines = list(dict.fromkeys(row["line"] for row in rows))
    cols, nrows = grid(len(panels))
    fig, axes = plt.subplots(nrows, cols, figsize=(6.6 * cols, 4.9 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, panel in zip(axes.flat, panels):
        for index, line in enumerate(lines):
            points = sorted((r["chips"], r["throughput"]) for r in groups[panel] if r["line"] == line)
            if not points:
                continue
            ax.plot([c for c, _ in points], [t for _, t in points], color=MACHINE_COLOURS[index % len(MACHINE_COLOURS)],
                    linestyle=LINE_STYLES[(index // len(MACHINE_COLOURS)) % len(LINE_STYLES)], marker="o",
                    markersize=3.5, linewidth=1.2, label=line)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        chips = sorted({r["chips"] for r in groups[panel]})
        ax.xaxis.set_major_locator(ticker.FixedLocator(chips))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(tick_fmt))
        ax.xaxis.set_minor_locator(ticker.NullLocator())
        # Within a decade or so a log axis has no power of ten to label: plain steps then.
        values = [r["throughput"] for r in groups[panel]]
        narrow = max(values) / min(values) < NARROW_RATIO
        ax.yaxis.set_major_locator(ticker.MaxNLocator(nbins=6) if narrow else ticker.LogLocator(base=10, numticks=12))
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(tick_fmt))
        ax.yaxis.set_minor_locator(ticker.NullLocator())
        # One unit a panel: csv_input.load_scaling refuses a panel of two.
        unit = groups[panel][0]["unit"]
        label_panel(ax, f"{panel}: {unit} against chips", "chips", f"throughput ({unit})", 6.5)
    fig.suptitle(f"{title}: throughput against chips" if title else "Throughput against chips", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return fig
