#!/usr/bin/python3
"""Draw the Snowflake-style arithmetic-intensity (roofline) figure of `reusesim figure`.

usage: scripts/plot_figure.py POINTS_CSV ROOFS_CSV OUT_PREFIX [--title TEXT]

Writes OUT_PREFIX.png (150 dpi) and OUT_PREFIX.svg, each atomically (OUT.partial, then rename).
Same input gives byte-identical output files.

ROOFS_CSV, one row per panel, in panel order:
  panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops
    peak_gops           compute roof, 1e9 ops/s (1 MAC = 2 ops)
    dram_gbps           DRAM bandwidth, 1e9 bytes/s (slope roof: gops = dram_gbps * ops_per_byte);
                        empty: no DRAM roof (an unlimited ideal memory, `dram: {ideal: unlimited}`)
    ridge_ops_per_byte  peak_gops / dram_gbps (empty: computed; a mismatch > 1% is a warning);
                        must be empty when dram_gbps is: without a DRAM slope there is no ridge
    sram_gops           SRAM-bandwidth ceiling in Gops/s, empty when SRAM does not bind

POINTS_CSV, one row per point:
  panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency
    panel         must name a panel of ROOFS_CSV
    kind          `network` or `layer`
    type          layer type (any string; one fixed colour per type)
    series        points of one (panel, kind, series) with more than one batch form a batch sweep
    batch         positive integer (may be empty: never part of a sweep)
    ops_per_byte, gops
                  empty, zero or non-finite: the point is skipped (counted in a note on stderr)
    efficiency    not drawn; checked to be numeric when present

Extra columns are ignored. Bad input (unreadable file, missing column, non-numeric value, unknown
panel or kind) prints `plot_figure.py: error: FILE:LINE: ...` and exits with status 2.

Drawing: one log-log panel per ROOFS_CSV row (grid of 1-3 columns), the roofline
min(peak, dram * x) solid with its ridge point, the SRAM ceiling dashed, layer points coloured by
type, batch sweeps joined by a thin line in batch order, network points as large stars; one legend
below the panels. A panel without dram_gbps has only the flat compute roof (and the SRAM ceiling)
across its width, labelled "ideal memory: no DRAM roof" where the DRAM label would be; its x range
is its points' (1 to 100 ops/B with none), at least two decades as everywhere.

Labels: network points (model name, + " b<batch>" when the model has several batches in the panel)
and batch sweeps ("<series> b<first>" at the first point, "b<batch>" at the others, one label per
batch) are labelled; other layer points are not. Labels are placed one by one after layout, in order:
roof labels (peak, ridge, DRAM), network labels, the SRAM label, sweep end labels, intermediate batch
labels. For each, candidate positions (around the point, or along the roof line) are tried and
rejected when they overlap an already placed label, a leader line or any marker; the extents come from
the renderer (Text.get_window_extent), rotated labels are tested as oriented boxes. Crossing lines is
allowed but avoided. An intermediate batch label with no free position is dropped. Network labels and
the first and last label of a sweep are always drawn: if need be further away (up to 80 pt) with a
thin leader line under the markers (leaders avoid crossing markers and other leaders), and as a last
resort at the least-overlapping position. A roof label with no free position goes into a note in a
free corner of the panel.

The work per label grows with what lies near it, not with all a panel holds (a 3,000-job trace
has thousands of points): placed labels, markers, line samples and leaders sit in bucket grids, a
position is rejected at the first label or marker it hits, and positions are tried in order of
preference, stopping once none left can cost less than the best free one. This gives the same
placement as evaluating every position in full.
"""

import argparse
import csv
import math
import os
import sys
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import patheffects, ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

PROG = "plot_figure.py"

ROOF_COLUMNS = ["panel", "accelerator", "peak_gops", "dram_gbps", "ridge_ops_per_byte", "sram_gops"]
POINT_COLUMNS = ["panel", "kind", "model", "layer", "type", "series", "batch", "ops_per_byte", "gops",
                 "efficiency"]

DPI = 150
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
LABEL_COLOR = "#1a1a1a"
LEADER_COLOR = "0.45"

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


class InputError(Exception):
    pass


def fail(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def note(msg):
    print(f"{PROG}: note: {msg}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Input

def read_csv(path, required):
    """Returns [(line, {column: value})] of the data rows; raises InputError."""
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: cannot open: {e.strerror or e}")
    rows = []
    line = 1
    with f:
        reader = csv.reader(f)
        try:
            header = None
            for row in reader:
                line = reader.line_num
                if header is None:
                    header = [h.strip() for h in row]
                    if header and header[0].startswith("\ufeff"):
                        header[0] = header[0][1:]
                    missing = [c for c in required if c not in header]
                    if missing:
                        raise InputError(
                            f"{path}:{line}: missing column{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)} (expected header: {','.join(required)})")
                    continue
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise InputError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
                rows.append((line, dict(zip(header, row))))
            if header is None:
                raise InputError(f"{path}:1: empty file (expected header: {','.join(required)})")
        except csv.Error as e:
            raise InputError(f"{path}:{reader.line_num or line}: malformed CSV: {e}")
        except UnicodeDecodeError:
            raise InputError(f"{path}:{reader.line_num + 1}: not valid UTF-8")
        except OSError as e:
            raise InputError(f"{path}: cannot read: {e.strerror or e}")
    return rows


def parse_number(path, line, col, text, optional=False):
    s = text.strip()
    if not s:
        if optional:
            return None
        raise InputError(f"{path}:{line}: {col}: empty value, expected a number")
    try:
        return float(s)
    except ValueError:
        raise InputError(f"{path}:{line}: {col}: non-numeric value {s!r}")


class Roof:
    __slots__ = ("panel", "accelerator", "peak", "dram", "ridge", "sram")


class Point:
    __slots__ = ("line", "panel", "kind", "model", "layer", "type", "series", "batch", "x", "y",
                 "r_pt", "label_kind", "text", "mandatory", "sweep")


def load_roofs(path):
    roofs = []
    seen = {}
    for line, r in read_csv(path, ROOF_COLUMNS):
        roof = Roof()
        roof.panel = r["panel"].strip()
        if not roof.panel:
            raise InputError(f"{path}:{line}: panel: empty")
        if roof.panel in seen:
            raise InputError(f"{path}:{line}: panel {roof.panel!r} repeated (first at line {seen[roof.panel]})")
        seen[roof.panel] = line
        roof.accelerator = r["accelerator"].strip()
        for col in ("peak_gops", "dram_gbps"):
            v = parse_number(path, line, col, r[col], optional=col == "dram_gbps")
            if v is not None and not (math.isfinite(v) and v > 0):
                raise InputError(f"{path}:{line}: {col}: {r[col].strip()!r} is not a positive number")
            setattr(roof, "peak" if col == "peak_gops" else "dram", v)
        ridge = parse_number(path, line, "ridge_ops_per_byte", r["ridge_ops_per_byte"], optional=True)
        if ridge is not None and not (math.isfinite(ridge) and ridge > 0):
            raise InputError(f"{path}:{line}: ridge_ops_per_byte: {r['ridge_ops_per_byte'].strip()!r} "
                             "is not a positive number")
        if roof.dram is None:
            if ridge is not None:
                raise InputError(f"{path}:{line}: ridge_ops_per_byte: {ridge:g} without a dram_gbps "
                                 "(an empty dram_gbps means no DRAM roof, so no ridge)")
            roof.ridge = None
        else:
            computed = roof.peak / roof.dram
            if ridge is not None and abs(ridge - computed) > 0.01 * computed:
                note(f"{path}:{line}: ridge_ops_per_byte {ridge:g} differs from peak_gops/dram_gbps "
                     f"= {computed:g}; drawing the ridge at {computed:g}")
            roof.ridge = computed
        sram = parse_number(path, line, "sram_gops", r["sram_gops"], optional=True)
        if sram is not None and not (math.isfinite(sram) and sram > 0):
            raise InputError(f"{path}:{line}: sram_gops: {r['sram_gops'].strip()!r} is not a positive number")
        roof.sram = sram
        roofs.append(roof)
    if not roofs:
        raise InputError(f"{path}:2: no panel rows")
    return roofs


def load_points(path, panels):
    points = []
    skipped = 0
    for line, r in read_csv(path, POINT_COLUMNS):
        p = Point()
        p.line = line
        p.panel = r["panel"].strip()
        if p.panel not in panels:
            raise InputError(f"{path}:{line}: panel {p.panel!r} is not in the roofs file")
        p.kind = r["kind"].strip()
        if p.kind not in ("network", "layer"):
            raise InputError(f"{path}:{line}: kind: {p.kind!r}, expected network or layer")
        p.model = r["model"].strip()
        p.layer = r["layer"].strip()
        p.type = r["type"].strip() or ("network" if p.kind == "network" else "other")
        p.series = r["series"].strip()
        b = parse_number(path, line, "batch", r["batch"], optional=True)
        if b is not None and not (math.isfinite(b) and b >= 1 and b == int(b)):
            raise InputError(f"{path}:{line}: batch: {r['batch'].strip()!r} is not a positive integer")
        p.batch = None if b is None else int(b)
        x = parse_number(path, line, "ops_per_byte", r["ops_per_byte"], optional=True)
        y = parse_number(path, line, "gops", r["gops"], optional=True)
        parse_number(path, line, "efficiency", r["efficiency"], optional=True)
        if x is None or y is None or not (math.isfinite(x) and math.isfinite(y) and x > 0 and y > 0):
            skipped += 1
            continue
        p.x, p.y = x, y
        p.sweep = None
        p.text = None
        p.mandatory = False
        p.label_kind = None
        points.append(p)
    if skipped:
        note(f"{path}: skipped {skipped} point{'s' if skipped != 1 else ''} with an empty, zero or "
             "non-finite ops_per_byte or gops")
    return points


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
# Geometry of label placement, in display pixels

class Box:
    """An oriented rectangle: centre, half width, half height, rotation (radians, ccw)."""
    __slots__ = ("cx", "cy", "hw", "hh", "c", "s", "x0", "y0", "x1", "y1")

    def __init__(self, cx, cy, hw, hh, angle=0.0):
        self.cx, self.cy, self.hw, self.hh = cx, cy, hw, hh
        self.c, self.s = math.cos(angle), math.sin(angle)
        ex = abs(self.c) * hw + abs(self.s) * hh
        ey = abs(self.s) * hw + abs(self.c) * hh
        self.x0, self.y0, self.x1, self.y1 = cx - ex, cy - ey, cx + ex, cy + ey

    def corners(self):
        out = []
        for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            lx, ly = sx * self.hw, sy * self.hh
            out.append((self.cx + lx * self.c - ly * self.s, self.cy + lx * self.s + ly * self.c))
        return out

    def local(self, x, y):
        dx, dy = x - self.cx, y - self.cy
        return dx * self.c + dy * self.s, -dx * self.s + dy * self.c

    def hits_circle(self, x, y, r):
        if x + r < self.x0 or x - r > self.x1 or y + r < self.y0 or y - r > self.y1:
            return False
        lx, ly = self.local(x, y)
        qx = min(max(lx, -self.hw), self.hw)
        qy = min(max(ly, -self.hh), self.hh)
        return (lx - qx) ** 2 + (ly - qy) ** 2 < r * r

    def contains(self, x, y):
        if x < self.x0 or x > self.x1 or y < self.y0 or y > self.y1:
            return False
        lx, ly = self.local(x, y)
        return abs(lx) <= self.hw and abs(ly) <= self.hh

    def overlaps(self, other):
        if self.x1 < other.x0 or other.x1 < self.x0 or self.y1 < other.y0 or other.y1 < self.y0:
            return False
        if self.s == 0 and other.s == 0:
            return True
        ca, cb = self.corners(), other.corners()
        for b in (self, other):
            for ax_x, ax_y in ((b.c, b.s), (-b.s, b.c)):
                pa = [x * ax_x + y * ax_y for x, y in ca]
                pb = [x * ax_x + y * ax_y for x, y in cb]
                if max(pa) < min(pb) or max(pb) < min(pa):
                    return False
        return True


def segments_cross(a, b, c, d):
    """Whether the segments a-b and c-d properly intersect."""
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    d1, d2 = orient(c, d, a), orient(c, d, b)
    d3, d4 = orient(a, b, c), orient(a, b, d)
    return d1 * d2 < 0 and d3 * d4 < 0


class Grid:
    """A bucket grid of items with an axis-aligned extent, for fast neighbourhood queries: an item
    sits in every cell its extent touches, a query visits the cells its rectangle touches, so its
    work depends on what is near, not on how many items the grid holds."""

    def __init__(self, cell):
        self.cell = cell
        self.buckets = {}
        self.spread = False                   # some item sits in several cells

    def cells(self, x0, y0, x1, y1):
        c = self.cell
        return ((i, j) for i in range(int(math.floor(x0 / c)), int(math.floor(x1 / c)) + 1)
                for j in range(int(math.floor(y0 / c)), int(math.floor(y1 / c)) + 1))

    def near(self, x0, y0, x1, y1):
        """The items of the cells the rectangle touches; an item in several of them comes again."""
        for key in self.cells(x0, y0, x1, y1):
            yield from self.buckets.get(key, ())

    def add(self, x0, y0, x1, y1, item):
        keys = list(self.cells(x0, y0, x1, y1))
        self.spread = self.spread or len(keys) > 1
        for key in keys:
            self.buckets.setdefault(key, []).append(item)

    def count(self, x0, y0, x1, y1, hit, first=False):
        """How many items near the rectangle satisfy hit(item), each counted once; with first, 1 as
        soon as one does (0 if none): a blocked label position needs no more than one witness."""
        seen = set() if self.spread and not first else None
        n = 0
        for item in self.near(x0, y0, x1, y1):
            if seen is not None:
                if id(item) in seen:
                    continue
                seen.add(id(item))
            if hit(item):
                if first:
                    return 1
                n += 1
        return n


HALO = [patheffects.withStroke(linewidth=2.0, foreground="white")]


class Placer:
    """Places the labels of one axes, one by one, avoiding placed labels and markers."""

    def __init__(self, ax, renderer):
        self.ax = ax
        self.renderer = renderer
        self.ppt = ax.figure.dpi / 72.0          # display pixels per point
        bb = ax.get_window_extent(renderer)
        pad = 2 * self.ppt
        self.bounds = (bb.x0 + pad, bb.y0 + pad, bb.x1 - pad, bb.y1 - pad)
        self.markers = Grid(20 * self.ppt)
        self.lines = Grid(20 * self.ppt)
        self.leaders = Grid(20 * self.ppt)      # samples of the leader lines
        self.leader_segments = []
        self.labels = Grid(20 * self.ppt)       # placed label boxes
        self.anchors = {}                         # label text: [anchor_px] of its placed labels
        self.sizes = {}

    def px(self, x, y):
        return tuple(self.ax.transData.transform((x, y)))

    def add_marker(self, x, y, r_pt):
        cx, cy = self.px(x, y)
        r = r_pt * self.ppt + 1.0
        self.markers.add(cx - r, cy - r, cx + r, cy + r, (cx, cy, r))

    def add_segment_px(self, a, b):
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 2.0))
        for k in range(n + 1):
            t = k / n
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            self.lines.add(x, y, x, y, (x, y))

    def add_leader_px(self, a, b):
        self.leader_segments.append((a, b))
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 2.0))
        for k in range(n + 1):
            t = k / n
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            self.leaders.add(x, y, x, y, (x, y))

    def add_polyline(self, xs, ys):
        pts = [self.px(x, y) for x, y in zip(xs, ys)]
        x0, y0, x1, y1 = self.bounds
        for a, b in zip(pts, pts[1:]):
            # clip roughly to the axes: skip segments entirely outside
            if max(a[0], b[0]) < x0 or min(a[0], b[0]) > x1 or max(a[1], b[1]) < y0 or min(a[1], b[1]) > y1:
                continue
            self.add_segment_px(a, b)

    def text_size(self, text, fontsize, weight="normal"):
        key = (text, fontsize, weight)
        if key not in self.sizes:
            t = self.ax.text(0, 0, text, fontsize=fontsize, fontweight=weight)
            bb = t.get_window_extent(self.renderer)
            t.remove()
            pad = 1.2 * self.ppt                  # the white halo around the glyphs
            self.sizes[key] = (bb.width + 2 * pad, bb.height + 2 * pad)
        return self.sizes[key]

    def add_label(self, box, text, anchor):
        self.labels.add(box.x0, box.y0, box.x1, box.y1, box)
        self.anchors.setdefault(text, []).append(anchor)

    def inside(self, box):
        x0, y0, x1, y1 = self.bounds
        return box.x0 >= x0 and box.y0 >= y0 and box.x1 <= x1 and box.y1 <= y1

    def evaluate(self, box, leader=None, clean_only=False):
        """(labels hit, markers hit, line samples covered), or None when outside the axes. With a
        leader (start, point, radius) the leader line must not cross a placed label, every other
        marker it crosses counts as 16 covered line samples and every other leader it crosses as 40.
        With clean_only, None as soon as the box or its leader hits a label or a marker: most
        positions in a dense panel are blocked, and one witness settles that."""
        if not self.inside(box):
            return None
        q = (box.x0, box.y0, box.x1, box.y1)
        n_lab = self.labels.count(*q, box.overlaps, clean_only)
        n_lab += self.leaders.count(*q, lambda s: box.contains(*s), clean_only)
        if clean_only and n_lab:
            return None
        n_mark = self.markers.count(*q, lambda m: box.hits_circle(*m), clean_only)
        if clean_only and n_mark:
            return None
        n_line = self.lines.count(*q, lambda s: box.contains(*s))
        if leader is not None and n_lab == 0:
            (sx, sy), (px, py), r = leader
            length = math.hypot(px - sx, py - sy)
            n = max(1, int(length / 2.0))
            crossed = set()
            for k in range(n + 1):
                t = k / n
                x, y = sx + (px - sx) * t, sy + (py - sy) * t
                if math.hypot(px - x, py - y) <= r:
                    break
                if self.labels.count(x, y, x, y, lambda b: b.contains(x, y), True):
                    if clean_only:
                        return None
                    n_lab += 1
                    break
                for m in self.markers.near(x, y, x, y):
                    if (m[0] - x) ** 2 + (m[1] - y) ** 2 < m[2] ** 2 and \
                            (m[0] - px) ** 2 + (m[1] - py) ** 2 > 1.0:
                        crossed.add(m)
            n_line += 16 * len(crossed)
            n_line += 40 * sum(1 for a, b in self.leader_segments if segments_cross(a, b, (sx, sy), (px, py)))
        return n_lab, n_mark, n_line

    def choose(self, candidates, mandatory):
        """candidates: [(Box, preference cost, payload, leader or None)]; returns (Box, payload) of
        the best candidate that overlaps no label or marker (lowest preference + 0.25 x line samples
        covered, then first listed); when there is none, None or, if mandatory, the least-bad one."""
        # In order of preference: a candidate preferred less than the best free one so far costs
        # more whatever lines it covers, so the search stops there.
        best = None
        best_key = None
        for i in sorted(range(len(candidates)), key=lambda i: candidates[i][1]):
            box, pref, payload, leader = candidates[i]
            if best_key is not None and pref > best_key[0]:
                break
            ev = self.evaluate(box, leader, clean_only=True)
            if ev is None:
                continue
            key = (pref + 0.25 * ev[2], i)
            if best_key is None or key < best_key:
                best, best_key = (box, payload), key
        if best is not None or not mandatory:
            return best
        fallback = None
        fallback_cost = None
        for box, pref, payload, leader in candidates:
            ev = self.evaluate(box, leader)
            if ev is None:
                continue
            n_lab, n_mark, n_line = ev
            cost = 1000 * n_lab + 50 * n_mark + pref + 0.25 * n_line
            if fallback is None or cost < fallback_cost:
                fallback, fallback_cost = (box, payload), cost
        return fallback

    # ---- point labels

    LEADER_GAP_PT = 3.0     # labels further than this from their point get a leader line

    @staticmethod
    def leader_start(box, p):
        """The point of the (axis-aligned) box nearest to p."""
        return (min(max(p[0], box.cx - box.hw), box.cx + box.hw),
                min(max(p[1], box.cy - box.hh), box.cy + box.hh))

    def point_candidates(self, p, r, w, h, gaps_pt, angles_deg, base_pref, leaders):
        out = []
        for gi, g_pt in enumerate(gaps_pt):
            d = r + g_pt * self.ppt
            for ai, a in enumerate(angles_deg):
                ux, uy = math.cos(math.radians(a)), math.sin(math.radians(a))
                cx = p[0] + ux * d + (math.copysign(w / 2, ux) if abs(ux) > 1e-6 else 0.0)
                cy = p[1] + uy * d + (math.copysign(h / 2, uy) if abs(uy) > 1e-6 else 0.0)
                pref = base_pref + g_pt * 0.25 + ai * 0.15
                box = Box(cx, cy, w / 2, h / 2)
                leader = (self.leader_start(box, p), p, r) if leaders and g_pt > self.LEADER_GAP_PT else None
                out.append((box, pref, g_pt, leader))
        return out

    NEAR_ANGLES = (0, 30, -30, 180, 150, -150, 90, -90, 60, -60, 120, -120)

    def place_point_label(self, x, y, r_pt, text, fontsize, mandatory, weight="normal", color=LABEL_COLOR,
                          angles=NEAR_ANGLES, force=True):
        """Label the point (x, y) (data coordinates) of marker radius r_pt. Tries positions next to
        the point; a mandatory label then tries positions further away (with a leader line) and, if
        force, finally takes the least-bad position. Returns whether the label was placed."""
        p = self.px(x, y)
        x0, y0, x1, y1 = self.bounds
        if not (x0 <= p[0] <= x1 and y0 <= p[1] <= y1):
            return False
        w, h = self.text_size(text, fontsize, weight)
        r = r_pt * self.ppt
        near_gaps = [1.5, 4.5] if mandatory else [1.5, self.LEADER_GAP_PT]
        chosen = self.choose(self.point_candidates(p, r, w, h, near_gaps, angles, 0.0, mandatory), False)
        if chosen is None and mandatory:
            tried = [a % 360 for a in angles]
            ring = list(angles) + [a for a in range(0, 360, 15) if a not in tried]
            chosen = self.choose(self.point_candidates(p, r, w, h, [9, 15, 23, 33, 46, 62, 80], ring, 10.0, True),
                                 force)
        if chosen is None:
            return False
        box, gap_pt = chosen
        inv = self.ax.transData.inverted()
        xd, yd = inv.transform((box.cx, box.cy))
        self.ax.text(xd, yd, text, ha="center", va="center", fontsize=fontsize, fontweight=weight,
                     color=color, zorder=8, path_effects=HALO)
        if mandatory and gap_pt > self.LEADER_GAP_PT:
            # a leader line from the box edge nearest to the point to the point's centre, under all
            # markers, so that it shows between the label and the marker's edge
            start = self.leader_start(box, p)
            sx, sy = inv.transform(start)
            self.ax.plot([sx, x], [sy, y], color=LEADER_COLOR, lw=0.6, zorder=3.9, solid_capstyle="butt")
            self.add_leader_px(start, p)
        self.add_label(box, text, p)
        return True

    def place_corner_note(self, text, fontsize):
        """A note in a free corner of the axes (top left first); always placed."""
        w, h = self.text_size(text, fontsize)
        x0, y0, x1, y1 = self.bounds
        m = 3 * self.ppt
        cands = []
        for i, (cx, cy) in enumerate(((x0 + m + w / 2, y1 - m - h / 2), (x1 - m - w / 2, y1 - m - h / 2),
                                      (x1 - m - w / 2, y0 + m + h / 2), (x0 + m + w / 2, y0 + m + h / 2))):
            cands.append((Box(cx, cy, w / 2, h / 2), float(i), None, None))
        chosen = self.choose(cands, True) or (cands[0][0], None)
        box = chosen[0]
        xd, yd = self.ax.transData.inverted().transform((box.cx, box.cy))
        self.ax.text(xd, yd, text, fontsize=fontsize, color=LABEL_COLOR, ha="center", va="center",
                     multialignment="left", zorder=8, path_effects=HALO)
        self.add_label(box, text, (box.cx, box.cy))

    def duplicate_nearby(self, text, x, y, dist_pt=8):
        p = self.px(x, y)
        d = dist_pt * self.ppt
        return any(math.hypot(q[0] - p[0], q[1] - p[1]) < d for q in self.anchors.get(text, ()))

    # ---- labels along lines

    def place_line_label(self, texts, a, b, fontsize, color, ts_pref, sides=(1, -1), inset_pt=4):
        """A label along the display segment a-b, rotated with it. texts: variants of the label in
        order of preference (e.g. one line, then two lines); ts_pref: positions (0..1) along the
        segment in order of preference; sides: 1 above the line, -1 below, 0 on it (the white halo
        interrupts the line), in order of preference. Returns False, placing nothing, when every
        position overlaps a label or a marker."""
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy)
        if length < 1:
            return False
        ang = math.atan2(dy, dx)
        ux, uy = dx / length, dy / length
        nx, ny = -uy, ux                          # the normal pointing up
        if ny < 0:
            nx, ny = -nx, -ny
        per_variant = []
        for vi, text in enumerate(texts):
            w, h = self.text_size(text, fontsize)
            inset = inset_pt * self.ppt + w / 2
            cands = []
            for si, side in enumerate(sides):
                for oi, off_pt in enumerate((1.5, 4.0, 7.0) if side else (0.0,)):
                    off = h / 2 + off_pt * self.ppt if side else 0.0
                    for ti, t in enumerate(ts_pref):
                        # a segment shorter than the label: t=0/1 align the label with the start/end
                        # of the segment and let it overhang the other end
                        s = inset + t * (length - 2 * inset)
                        cx = a[0] + ux * s + side * nx * off
                        cy = a[1] + uy * s + side * ny * off
                        pref = vi * 20.0 + si * 5.0 + oi * 1.0 + ti * 0.2
                        cands.append((Box(cx, cy, w / 2, h / 2, ang), pref, text, None))
            per_variant.append(cands)
        chosen = None
        for cands in per_variant:
            chosen = self.choose(cands, False)
            if chosen is not None:
                break
        if chosen is None:
            return False
        box, text = chosen
        xd, yd = self.ax.transData.inverted().transform((box.cx, box.cy))
        self.ax.text(xd, yd, text, fontsize=fontsize, color=color, rotation=math.degrees(ang),
                     rotation_mode="anchor", ha="center", va="center", multialignment="center", zorder=7,
                     path_effects=HALO)
        self.add_label(box, text, (box.cx, box.cy))
        return True


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
    ylo = min(ys + [roof.peak / 30] + ([roof.dram * xlo * 1.5] if roof.dram is not None else []))
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
    if roof.dram is None:
        roof_xs, roof_ys = [xlo, xhi], [roof.peak, roof.peak]
    else:
        x_start = max(xlo, ylo / roof.dram)
        roof_xs = [x_start, roof.ridge, xhi]
        roof_ys = [roof.dram * x_start, roof.peak, roof.peak]
    ax.plot(roof_xs, roof_ys, color=ROOF_COLOR, lw=1.6, zorder=3, solid_capstyle="butt")
    if roof.ridge is not None:
        ax.plot([roof.ridge, roof.ridge], [ylo, roof.peak], color="0.55", lw=0.7, ls=":", zorder=2)
        ax.plot([roof.ridge], [roof.peak], ls="", marker="o", ms=RIDGE_MS, mfc="white", mec="black",
                mew=1.2, zorder=6)
    sram_xs = None
    if roof.sram is not None:
        sx = xlo if roof.dram is None else max(roof.sram / roof.dram, xlo)
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
    if roof.dram is None:
        # no slope to label: say so on the left of the flat roof, where the slope would rise
        dram_text, dram_a, dram_b = IDEAL_MEMORY_TEXT, flat_a, flat_b
        dram_ts = [0.0, 0.15, 0.3, 0.45, 0.6]
    else:
        ridge_text = f"ridge {fmt_num(roof.ridge)} ops/B"
        if not pl.place_point_label(roof.ridge, roof.peak, RIDGE_MS / 2, ridge_text, FS_ROOF, True,
                                    angles=(150, 120, 165, 180, 90, -30, 0, 30, -90, -150), force=False):
            unplaced.append(ridge_text)
        dram_text, dram_a, dram_b = f"{fmt_num(roof.dram)} GB/s DRAM", pl.px(roof_xs[0], roof_ys[0]), flat_a
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


def save(fig, out_prefix):
    jobs = (("png", dict(dpi=DPI, metadata={"Software": None})),
            ("svg", dict(metadata={"Date": None})))
    for ext, kw in jobs:
        final = f"{out_prefix}.{ext}"
        tmp = final + ".partial"
        try:
            fig.savefig(tmp, format=ext, **kw)
            os.replace(tmp, final)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            fail(f"{final}: cannot write: {e.strerror or e}")


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog=PROG, description="Draw the Snowflake-style arithmetic-intensity (roofline) figure "
        "from the CSV files of `reusesim figure`: writes OUT_PREFIX.png and OUT_PREFIX.svg.")
    ap.add_argument("points_csv", metavar="POINTS_CSV",
                    help="panel,kind,model,layer,type,series,batch,ops_per_byte,gops,efficiency")
    ap.add_argument("roofs_csv", metavar="ROOFS_CSV",
                    help="panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops")
    ap.add_argument("out_prefix", metavar="OUT_PREFIX", help="writes OUT_PREFIX.png and OUT_PREFIX.svg")
    ap.add_argument("--title", default="", help="figure title")
    args = ap.parse_args(argv)

    plt.rcParams["svg.hashsalt"] = "reusesim-figure"
    plt.rcParams["svg.fonttype"] = "path"
    plt.rcParams["font.family"] = "DejaVu Sans"
    plt.rcParams["text.parse_math"] = False      # names with "$" are drawn as they are
    try:
        roofs = load_roofs(args.roofs_csv)
        points = load_points(args.points_csv, {r.panel for r in roofs})
    except InputError as e:
        fail(str(e))
    fig = build_figure(roofs, points, args.title)
    save(fig, args.out_prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
