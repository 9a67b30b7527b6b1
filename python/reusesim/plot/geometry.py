"""Geometry of label placement, in display pixels: oriented boxes (a label's extent, rotated with
it), segment crossings and bucket grids for neighbourhood queries."""

import math


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

    def add_samples(self, a, b):
        """Points of the segment a-b about 2 apart, both ends included, each an item (x, y)."""
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) / 2.0))
        for k in range(n + 1):
            t = k / n
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            self.add(x, y, x, y, (x, y))

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

