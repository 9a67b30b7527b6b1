"""The Snowflake-style arithmetic-intensity (roofline) figure of `reusesim figure`, from the roofs
and points of reusesim.plot.csv_input (docs/traces-and-figure.md).

Drawing: one log-log panel per roof (grid of 1-3 columns), the roofline min(peak, bandwidth * x)
solid with its ridge point, the bandwidth the DRAM's or, where the network-on-chip's read bound is
below it, the NoC's (labelled "... GB/s NoC"), the SRAM ceiling dashed, layer points coloured by
type, batch sweeps joined by a thin line in batch order, network points as large stars; one legend
below the panels. A panel without a DRAM bandwidth (nor a NoC that binds) has only the flat compute
roof (and the SRAM ceiling) across its width,
labelled "ideal memory: no DRAM roof" where the DRAM label would be; its x range is its points' (1 to
100 ops/B with none), at least two decades as everywhere.

Labels (placed by reusesim.plot.labels): network points (model name, + " b<batch>" when the model
has several batches in the panel) and batch sweeps ("<series> b<first>" at the first point,
"b<batch>" at the others, one label per batch) are labelled; other layer points are not. Labels are
placed one by one after layout, in order: roof labels (peak, ridge, DRAM), network labels, the SRAM
label, sweep end labels, intermediate batch labels. An intermediate batch label with no free
position is dropped; network labels and the first and last label of a sweep are always drawn (with
a leader line if need be). A roof label with no free position goes into a note in a free corner of
the panel.
"""

import math
import zlib

from matplotlib import ticker
from matplotlib.lines import Line2D

from .labels import Placer
from .output import DPI, plt

PANEL_W_IN = 6.6
PANEL_H_IN = 4.9

# Fixed colours of the usual layer types; other types get a colour from EXTRA_COLORS by a hash of
# their name, so a type has the same colour in every figure.
TYPE_COLORS = {
    "conv2d": "#1f77b4", "conv": "#1f77b4", "depthwise": "#17becf", "dwconv": "#17becf",
    "depthwise_conv2d": "#17becf",
    "linear": "#ff7f0e", "fc": "#ff7f0e", "gemm": "#ff7f0e",
    "matmul": "#6b6ecf",  # activation x activation (attention): apart from the weights' GEMMs
    "lstm": "#2ca02c", "gru": "#d62728", "rnn": "#9467bd",
    "pool": "#8c564b", "maxpool": "#8c564b", "avgpool": "#8c564b",
    "relu": "#e377c2", "activation": "#e377c2",
    "add": "#7f7f7f", "eltwise": "#7f7f7f", "concat": "#7f7f7f",
    "batchnorm": "#bcbd22", "bn": "#bcbd22", "lrn": "#bcbd22", "softmax": "#bcbd22",
}
EXTRA_COLORS = ["#393b79", "#637939", "#7b4173", "#00a087", "#b15928", "#fb9a99", "#a6cee3", "#b2df8a",
                "#cab2d6", "#5254a3", "#e7ba52", "#4d4d4d"]

NETWORK_FACE = "#ffd400"
ROOF_COLOR = "black"
SRAM_COLOR = "#6a3d9a"

S_LAYER = 14          # scatter marker areas, points^2
S_SWEEP = 24
S_NETWORK = 190
RIDGE_MS = 6.5        # ridge marker size (points, diameter)

FS_ROOF = 8
FS_NETWORK = 8
FS_SERIES = 7
FS_BATCH = 6.5

# The label of a panel without dram_gbps, in place of the DRAM slope's.
IDEAL_MEMORY_TEXT = "ideal memory: no DRAM roof"


def type_color(t):
    c = TYPE_COLORS.get(t.lower())
    if c is None:
        c = EXTRA_COLORS[zlib.crc32(t.encode("utf-8")) % len(EXTRA_COLORS)]
    return c


# --------------------------------------------------------------------------------------------
# Number formatting

def fmt_num(v):
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        s = f"{v:.1f}"
        return s[:-2] if s.endswith(".0") else s
    return f"{v:.2g}"


def tick_fmt(v, _pos=None):
    if v <= 0:
        return ""
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


# --------------------------------------------------------------------------------------------
# Figure

def decade_span(lo, hi, min_decades):
    span = math.log10(hi / lo)
    if span < min_decades:
        extra = (min_decades - span) / 2
        lo /= 10 ** extra
        hi *= 10 ** extra
    return lo, hi


def axis_limits(roof, pts):
    xs = [p.x for p in pts]
    ys = [p.y for p in pts]
    if roof.ridge is not None:
        xs_roof = [roof.ridge / 4, roof.ridge * 7]   # a long enough flat roof for its label
    else:
        xs_roof = [] if xs else [1.0, 100.0]         # the flat roof spans any range
    xlo = min(xs + xs_roof)
    xhi = max(xs + xs_roof)
    xlo, xhi = decade_span(xlo / 2.2, xhi * 2.2, 2.0)
    top = max(ys + [roof.peak])
    ylo = min(ys + [roof.peak / 30] + ([roof.slope * xlo * 1.5] if roof.slope is not None else []))
    yhi = top * 3.5
    ylo = ylo / 2.2
    ylo, yhi = decade_span(ylo, yhi, 2.0)
    return (xlo, xhi), (ylo, yhi)


def assign_labels(pts):
    """Sets sweep membership and label text of the points of one panel; returns the sweeps."""
    groups = {}
    for p in pts:
        if p.series and p.batch is not None:
            groups.setdefault((p.kind, p.series), []).append(p)
    sweeps = []
    for (kind, series), members in groups.items():
        if len({p.batch for p in members}) < 2:
            continue
        members.sort(key=lambda p: (p.batch, p.line))
        for p in members:
            p.sweep = series
        sweeps.append((kind, series, members))
    batches = {}
    for p in pts:
        if p.kind == "network" and p.batch is not None:
            batches.setdefault(p.model, set()).add(p.batch)
    for p in pts:
        if p.kind == "network" and p.sweep is None:
            name = p.model or p.series or "network"
            multi = len(batches.get(p.model, ())) > 1
            p.text = name + (f" b{p.batch}" if multi else "")
            p.mandatory, p.label_kind = True, "network"
    for kind, series, members in sweeps:
        # one label per batch: the first point of the first batch, the last point of the last batch
        # and the first point of each batch in between
        first_batch, last_batch = members[0].batch, members[-1].batch
        labelled = []
        for p in members:
            if p.batch == last_batch:
                continue
            if not labelled or labelled[-1].batch != p.batch:
                labelled.append(p)
        labelled.append(members[-1])
        for i, p in enumerate(labelled):
            end = p.batch in (first_batch, last_batch)
            if kind == "network":
                name = p.model or series
                p.text = f"{name} b{p.batch}" if end else f"b{p.batch}"
                p.label_kind = "network" if end else "batch"
            else:
                p.text = f"{series} b{p.batch}" if i == 0 else f"b{p.batch}"
                p.label_kind = "series" if i == 0 else "batch"
            p.mandatory = end
    return sweeps


def draw_panel(ax, roof, pts, sweeps):
    (xlo, xhi), (ylo, yhi) = axis_limits(roof, pts) if pts else axis_limits(roof, [])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(xlo, xhi)
    ax.set_ylim(ylo, yhi)
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(ticker.LogLocator(base=10, numticks=12))
        axis.set_major_formatter(ticker.FuncFormatter(tick_fmt))
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=tuple(range(2, 10)), numticks=12))
        axis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(True, which="major", color="0.88", lw=0.6, zorder=0)
    ax.grid(True, which="minor", color="0.95", lw=0.4, zorder=0)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=8)
    ax.set_xlabel("arithmetic intensity, ops/byte of DRAM traffic (1 MAC = 2 ops)", fontsize=8.5)
    ax.set_ylabel("achieved Gops/s", fontsize=8.5)
    title = roof.panel
    if roof.accelerator and roof.accelerator != roof.panel and roof.accelerator not in roof.panel:
        title += f"  [{roof.accelerator}]"
    ax.set_title(title, fontsize=10)

    # roofs
    if roof.slope is None:
        roof_xs, roof_ys = [xlo, xhi], [roof.peak, roof.peak]
    else:
        x_start = max(xlo, ylo / roof.slope)
        roof_xs = [x_start, roof.ridge, xhi]
        roof_ys = [roof.slope * x_start, roof.peak, roof.peak]
    ax.plot(roof_xs, roof_ys, color=ROOF_COLOR, lw=1.6, zorder=3, solid_capstyle="butt")
    if roof.ridge is not None:
        ax.plot([roof.ridge, roof.ridge], [ylo, roof.peak], color="0.55", lw=0.7, ls=":", zorder=2)
        ax.plot([roof.ridge], [roof.peak], ls="", marker="o", ms=RIDGE_MS, mfc="white", mec="black",
                mew=1.2, zorder=6)
    sram_xs = None
    if roof.sram is not None:
        sx = xlo if roof.slope is None else max(roof.sram / roof.slope, xlo)
        sram_xs = [sx, xhi]
        ax.plot(sram_xs, [roof.sram, roof.sram], color=SRAM_COLOR, lw=1.2, ls=(0, (5, 3)), zorder=3)

    # points: plain layers, sweep lines, sweep points, networks
    plain = [p for p in pts if p.kind == "layer" and p.sweep is None]
    if plain:
        ax.scatter([p.x for p in plain], [p.y for p in plain], s=S_LAYER,
                   c=[type_color(p.type) for p in plain], linewidths=0, alpha=0.8, zorder=4)
    for kind, series, members in sweeps:
        col = "0.25" if kind == "network" else type_color(members[0].type)
        ax.plot([p.x for p in members], [p.y for p in members], color=col, lw=0.9, alpha=0.9, zorder=4.5)
    sweep_layers = [p for p in pts if p.kind == "layer" and p.sweep is not None]
    if sweep_layers:
        ax.scatter([p.x for p in sweep_layers], [p.y for p in sweep_layers], s=S_SWEEP,
                   c=[type_color(p.type) for p in sweep_layers], edgecolors="0.15", linewidths=0.5,
                   zorder=5)
    nets = [p for p in pts if p.kind == "network"]
    if nets:
        ax.scatter([p.x for p in nets], [p.y for p in nets], s=S_NETWORK, marker="*", c=NETWORK_FACE,
                   edgecolors="black", linewidths=0.8, zorder=6)
    for p in pts:
        area = S_NETWORK if p.kind == "network" else (S_SWEEP if p.sweep is not None else S_LAYER)
        p.r_pt = math.sqrt(area) / 2
    return roof_xs, roof_ys, sram_xs


def label_panel(ax, renderer, roof, pts, sweeps, roof_xs, roof_ys, sram_xs):
    pl = Placer(ax, renderer)
    for p in pts:
        pl.add_marker(p.x, p.y, p.r_pt)
    if roof.ridge is not None:
        pl.add_marker(roof.ridge, roof.peak, RIDGE_MS / 2)
    pl.add_polyline(roof_xs, roof_ys)
    if sram_xs:
        pl.add_polyline(sram_xs, [roof.sram, roof.sram])
    for kind, series, members in sweeps:
        pl.add_polyline([p.x for p in members], [p.y for p in members])

    # roof labels first: they sit just above their lines, where points are rare. A roof label with
    # no free place goes into a note in a corner of the panel.
    unplaced = []
    peak_text = f"{fmt_num(roof.peak)} Gops/s peak"
    flat_a, flat_b = pl.px(roof_xs[-2], roof.peak), pl.px(roof_xs[-1], roof.peak)
    if not pl.place_line_label([peak_text], flat_a, flat_b, FS_ROOF, ROOF_COLOR,
                               [k / 10 for k in range(10, -1, -1)]):
        unplaced.append(peak_text)
    if roof.slope is None:
        # no slope to label: say so on the left of the flat roof, where the slope would rise
        dram_text, dram_a, dram_b = IDEAL_MEMORY_TEXT, flat_a, flat_b
        dram_ts = [0.0, 0.15, 0.3, 0.45, 0.6]
    else:
        ridge_text = f"ridge {fmt_num(roof.ridge)} ops/B"
        if not pl.place_point_label(roof.ridge, roof.peak, RIDGE_MS / 2, ridge_text, FS_ROOF, True,
                                    angles=(150, 120, 165, 180, 90, -30, 0, 30, -90, -150), force=False):
            unplaced.append(ridge_text)
        dram_text, dram_a, dram_b = (f"{fmt_num(roof.slope)} GB/s {roof.slope_name}", pl.px(roof_xs[0], roof_ys[0]),
                                     flat_a)
        dram_ts = [0.45, 0.3, 0.6, 0.15, 0.75, 0.0, 0.9]
    if not pl.place_line_label([dram_text], dram_a, dram_b, FS_ROOF, ROOF_COLOR, dram_ts):
        unplaced.append(dram_text)

    labelled = [p for p in pts if p.text]
    order = {"network": 0, "series": 1}
    mandatory = [p for p in labelled if p.mandatory]
    mandatory.sort(key=lambda p: (order.get(p.label_kind, 2), p.line))

    def place(p):
        if p.label_kind == "batch" and pl.duplicate_nearby(p.text, p.x, p.y):
            return
        kind = p.label_kind
        fs = FS_NETWORK if kind == "network" else FS_SERIES if kind == "series" else FS_BATCH
        pl.place_point_label(p.x, p.y, p.r_pt, p.text, fs, True, weight="bold" if kind == "network" else "normal")

    for p in mandatory:
        if p.label_kind == "network":
            place(p)
    if sram_xs:
        # after the network labels: the SRAM ceiling runs through the crowded compute-bound region,
        # where the network points most need their labels
        sram_text = f"SRAM bandwidth {fmt_num(roof.sram)} Gops/s"
        if not pl.place_line_label([sram_text, sram_text.replace(" bandwidth ", " bandwidth\n"),
                                    f"SRAM {fmt_num(roof.sram)} Gops/s"],
                                   pl.px(sram_xs[0], roof.sram), pl.px(sram_xs[1], roof.sram), FS_ROOF,
                                   SRAM_COLOR, [k / 10 for k in range(10, -1, -1)], sides=(0, -1, 1)):
            unplaced.append(sram_text + " (dashed)")
    if unplaced:
        pl.place_corner_note("\n".join(unplaced), FS_ROOF)
    for p in mandatory:
        if p.label_kind != "network":
            place(p)
    for p in labelled:
        if not p.mandatory and not pl.duplicate_nearby(p.text, p.x, p.y):
            pl.place_point_label(p.x, p.y, p.r_pt, p.text, FS_BATCH, False)


def legend_handles(points, roofs):
    handles = []
    types = []
    for p in points:
        if p.kind == "layer" and p.type not in types:
            types.append(p.type)
    for t in types:
        handles.append(Line2D([], [], ls="", marker="o", ms=5, mfc=type_color(t), mec="none", label=t))
    if any(p.kind == "network" for p in points):
        handles.append(Line2D([], [], ls="", marker="*", ms=11, mfc=NETWORK_FACE, mec="black", mew=0.8,
                              label="network"))
    if any(p.sweep is not None for p in points):
        handles.append(Line2D([], [], color="0.3", lw=0.9, marker="o", ms=4, mfc="0.6", mec="0.15", mew=0.5,
                              label="batch sweep"))
    handles.append(Line2D([], [], color=ROOF_COLOR, lw=1.6, label="roofline"))
    if any(r.ridge is not None for r in roofs):
        handles.append(Line2D([], [], ls="", marker="o", ms=RIDGE_MS, mfc="white", mec="black", mew=1.2,
                              label="ridge point"))
    if any(r.sram is not None for r in roofs):
        handles.append(Line2D([], [], color=SRAM_COLOR, lw=1.2, ls=(0, (5, 3)), label="SRAM bandwidth"))
    return handles


def build_figure(roofs, points, title):
    n = len(roofs)
    ncols = 1 if n == 1 else 2 if n <= 4 else 3
    nrows = math.ceil(n / ncols)
    fig = plt.figure(figsize=(PANEL_W_IN * ncols, PANEL_H_IN * nrows), dpi=DPI)
    axes = [fig.add_subplot(nrows, ncols, i + 1) for i in range(n)]

    by_panel = {r.panel: [] for r in roofs}
    for p in points:
        by_panel[p.panel].append(p)
    drawn = []
    for ax, roof in zip(axes, roofs):
        pts = by_panel[roof.panel]
        sweeps = assign_labels(pts)
        lines = draw_panel(ax, roof, pts, sweeps)
        drawn.append((ax, roof, pts, sweeps, lines))

    # legend below the panels, title above; size the figure so the panels keep their size
    handles = legend_handles(points, roofs)
    width_in = PANEL_W_IN * ncols
    max_cols = max(1, min(len(handles), int(width_in / 1.15)))
    rows = math.ceil(len(handles) / max_cols)
    ncol = math.ceil(len(handles) / rows)
    leg = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol, fontsize=8,
                     frameon=False, handletextpad=0.4, columnspacing=1.2)
    sup = None
    if title:
        sup = fig.suptitle(title, fontsize=12, y=0.995, va="top")
        sup.set_in_layout(False)          # the layout rectangle below leaves room for it
    renderer = fig.canvas.get_renderer()
    leg_in = leg.get_window_extent(renderer).height / fig.dpi + 0.08
    title_in = (sup.get_window_extent(renderer).height / fig.dpi + 0.06) if sup else 0.0
    height_in = PANEL_H_IN * nrows + leg_in + title_in
    fig.set_size_inches(width_in, height_in)
    fig.tight_layout(rect=(0, leg_in / height_in, 1, 1 - title_in / height_in), h_pad=1.6, w_pad=1.6)

    renderer = fig.canvas.get_renderer()
    for ax, roof, pts, sweeps, lines in drawn:
        label_panel(ax, renderer, roof, pts, sweeps, *lines)
    return fig

