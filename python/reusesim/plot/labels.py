"""The label placer of the roofline figure: labels are placed one by one after layout, each at
the most preferred of its candidate positions (around a point, or along a line) that overlaps no
placed label, leader line or marker, with the extents the renderer gives (Text.get_window_extent);
rotated labels are tested as oriented boxes. Crossing lines is allowed but avoided. A mandatory
label with no free position near its point goes further away (up to 80 pt) with a thin leader line
under the markers (leaders avoid crossing markers and other leaders), and as a last resort to the
least-overlapping position; other labels are dropped.

The work per label grows with what lies near it, not with all an axes holds (a 3,000-job trace
has thousands of points): placed labels, markers, line samples and leaders sit in bucket grids, a
position is rejected at the first label or marker it hits, and positions are tried in order of
preference, stopping once none left can cost less than the best free one. This gives the same
placement as evaluating every position in full (tests/test_plot_figure.py counts the work and
compares the choice).
"""

import math

from matplotlib import patheffects

from .geometry import Box, Grid, segments_cross

LABEL_COLOR = "#1a1a1a"
LEADER_COLOR = "0.45"
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
        self.lines.add_samples(a, b)

    def add_leader_px(self, a, b):
        self.leader_segments.append((a, b))
        self.leaders.add_samples(a, b)

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

