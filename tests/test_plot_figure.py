#!/usr/bin/python3
"""Unit tests of the label placer of the roofline figure (python/reusesim/plot/labels.py): the work
it does per label must not grow with the markers piled up under the candidate positions or with the
labels placed elsewhere (a 3,000-job trace has thousands of both), and its faster search must pick
what the exhaustive rule picks. Work is counted as calls of the geometric tests of Box, not timed.
Also: a panel without a DRAM roof (an unlimited ideal memory), and one whose network-on-chip binds."""

import math
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python"))
from reusesim.plot import csv_input, geometry, labels, roofline  # noqa: E402
from reusesim.plot.output import DPI, plt  # noqa: E402

R_LAYER_PT = math.sqrt(roofline.S_LAYER) / 2


def new_placer():
    """A Placer on one 6.6 x 4.9 in log-log panel, 1..1000 on both axes."""
    fig = plt.figure(figsize=(roofline.PANEL_W_IN, roofline.PANEL_H_IN), dpi=DPI)
    ax = fig.add_subplot(1, 1, 1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1, 1000)
    ax.set_ylim(1, 1000)
    return fig, labels.Placer(ax, fig.canvas.get_renderer())


class Counting:
    """Counts the calls of Box's geometric tests while active."""
    NAMES = ("hits_circle", "overlaps", "contains")

    def __enter__(self):
        self.calls = dict.fromkeys(self.NAMES, 0)
        self.saved = {name: getattr(geometry.Box, name) for name in self.NAMES}
        for name, test in self.saved.items():
            setattr(geometry.Box, name, self.counted(name, test))
        return self

    def counted(self, name, test):
        def wrapper(*args):
            self.calls[name] += 1
            return test(*args)
        return wrapper

    def __exit__(self, *_):
        for name, test in self.saved.items():
            setattr(geometry.Box, name, test)


class PlacerWork(unittest.TestCase):
    def tearDown(self):
        plt.close("all")

    def test_blocked_position_costs_one_marker_test_however_many_markers_cover_it(self):
        # K large markers (20 pt) piled on the point (10, 10) cover every position a batch label of
        # that point may take: a non-mandatory label tries gaps 1.5 and 3 pt at 12 angles, at most
        # 3 + 2 x 1.87 + ~25 (label half width) pt from the point, inside the 20 pt discs. So all
        # 2 x 12 = 24 candidates are blocked, none is placed, and each is settled by the first
        # marker tested: 24 hits_circle calls whatever K (the exhaustive count made 24 x K), no
        # label to overlap, no line sample to cover.
        for k in (1, 50, 400):
            with self.subTest(markers=k):
                _, pl = new_placer()
                for _ in range(k):
                    pl.add_marker(10, 10, 20.0)
                with Counting() as work:
                    placed = pl.place_point_label(10, 10, R_LAYER_PT, "b64", roofline.FS_BATCH, False)
                self.assertFalse(placed)
                self.assertEqual(work.calls, {"hits_circle": 24, "overlaps": 0, "contains": 0})

    def test_labels_placed_elsewhere_cost_nothing(self):
        # 300 labels placed along the bottom of the panel (x = 1.5 .. 700, y = 1.5), then one label
        # at (100, 300), ~300 px above them: the placed labels are in no grid cell the new label's
        # candidates touch, so no overlap test runs. Its first candidate (gap 1.5 pt, angle 0,
        # preference 1.5 x 0.25 = 0.375) is free and covers no line; the next one's preference
        # (0.375 + 0.15) exceeds that cost, so the search stops after one candidate: one
        # evaluation, no geometric test at all (the exhaustive rule made 24 x 300 overlap tests).
        _, pl = new_placer()
        for i in range(300):
            pl.place_point_label(1.5 * 1.022 ** i, 1.5, R_LAYER_PT, f"b{i}", roofline.FS_BATCH, False)
        evaluations = []
        evaluate = pl.evaluate
        pl.evaluate = lambda *args, **kw: evaluations.append(1) or evaluate(*args, **kw)
        with Counting() as work:
            self.assertTrue(pl.place_point_label(100, 300, R_LAYER_PT, "mlp b1", roofline.FS_SERIES, True))
        self.assertEqual(len(evaluations), 1)
        self.assertEqual(work.calls, {"hits_circle": 0, "overlaps": 0, "contains": 0})


class PlacerChoice(unittest.TestCase):
    def tearDown(self):
        plt.close("all")

    @staticmethod
    def exhaustive_choice(pl, candidates, mandatory):
        """The index of the candidate the rule of choose() picks, evaluating every candidate: the
        free one of least preference + 0.25 x line samples covered (the first listed on a tie);
        else, if mandatory, the least of 1000 x labels + 50 x markers + preference + 0.25 x line
        samples; else None."""
        free, fallback = None, None
        for index, (box, pref, _, leader) in enumerate(candidates):
            ev = pl.evaluate(box, leader)
            if ev is None:
                continue
            n_lab, n_mark, n_line = ev
            if n_lab == 0 and n_mark == 0:
                free = min(free or (math.inf, 0), (pref + 0.25 * n_line, index))
            else:
                fallback = min(fallback or (math.inf, 0),
                               (1000 * n_lab + 50 * n_mark + pref + 0.25 * n_line, index))
        best = free or (fallback if mandatory else None)
        return None if best is None else best[1]

    def test_choice_matches_the_exhaustive_rule(self):
        # A sweep of 60 points with its line and a cloud of 200 plain points, labelled one by one;
        # before each label, choose() and the exhaustive rule must pick the same candidate among
        # those place_point_label would try near the point and, for mandatory labels, further away.
        _, pl = new_placer()
        sweep = [(2 * 1.08 ** i, 3 * 1.07 ** i) for i in range(60)]
        cloud = [(5 * 1.9 ** (i % 9), 2 * 1.35 ** (i % 17)) for i in range(200)]
        for x, y in sweep + cloud:
            pl.add_marker(x, y, R_LAYER_PT)
        pl.add_polyline([x for x, _ in sweep], [y for _, y in sweep])
        compared = 0
        for i, (x, y) in enumerate(sweep):
            mandatory = i % 10 == 0
            text = f"sweep b{i}" if mandatory else f"b{i}"
            w, h = pl.text_size(text, roofline.FS_BATCH)
            p, r = pl.px(x, y), R_LAYER_PT * pl.ppt
            rings = [([1.5, 4.5], 0.0)] + ([([9, 15, 23, 33, 46, 62, 80], 10.0)] if mandatory else [])
            for gaps, base in rings:
                candidates = pl.point_candidates(p, r, w, h, gaps, pl.NEAR_ANGLES, base, mandatory)
                chosen = pl.choose(candidates, mandatory)
                index = None if chosen is None else next(i for i, c in enumerate(candidates) if c[0] is chosen[0])
                self.assertEqual(index, self.exhaustive_choice(pl, candidates, mandatory))
                compared += 1
            pl.place_point_label(x, y, R_LAYER_PT, text, roofline.FS_BATCH, mandatory)
        self.assertEqual(compared, 60 + 6)


class GridCount(unittest.TestCase):
    def test_items_spanning_cells_are_counted_once(self):
        # Cells of 10: the item (5..25, 5..25) sits in 3 x 3 cells, (12, 12) in one. A query of
        # (0..30, 0..30) visits all 9 cells and counts each item once; with first it stops at 1.
        grid = geometry.Grid(10)
        wide, small = (5, 5, 25, 25), (12, 12, 12, 12)
        grid.add(*wide, wide)
        grid.add(*small, small)
        self.assertEqual(grid.count(0, 0, 30, 30, lambda item: True), 2)
        self.assertEqual(grid.count(0, 0, 30, 30, lambda item: True, first=True), 1)
        self.assertEqual(grid.count(0, 0, 30, 30, lambda item: item is small), 1)
        # (26..29, 26..29) touches only the cell (2, 2): the wide item, once.
        self.assertEqual(grid.count(26, 26, 29, 29, lambda item: True), 1)
        self.assertEqual(grid.count(31, 31, 39, 39, lambda item: True), 0)


class IdealMemoryPanel(unittest.TestCase):
    """A roofs row with an empty dram_gbps (an unlimited ideal memory) has no DRAM slope and no
    ridge: only the flat compute roof, and a note that says why."""

    def tearDown(self):
        plt.close("all")

    def roofs(self, rows):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(",".join(csv_input.ROOF_COLUMNS) + "\n" + rows)
        self.addCleanup(os.unlink, f.name)
        return csv_input.load_roofs(f.name, self.fail)

    @staticmethod
    def point(x, y, batch):
        p = csv_input.Point()
        p.line, p.panel, p.kind, p.model, p.layer, p.type = batch, "ideal", "network", "mlp", "", "network"
        p.series, p.batch, p.x, p.y = "mlp", batch, x, y
        p.sweep, p.text, p.mandatory, p.label_kind = None, None, False, None
        return p

    def test_empty_dram_gbps_reads_as_no_dram_roof(self):
        (roof,) = self.roofs("ideal,tpu_v1,91750.4,,,\n")
        self.assertEqual((roof.peak, roof.dram, roof.ridge, roof.sram), (91750.4, None, None, None))
        with self.assertRaisesRegex(csv_input.InputError, r":2: ridge_ops_per_byte: 30 without a dram_gbps"):
            self.roofs("ideal,tpu_v1,91750.4,,30,\n")

    def test_flat_roof_over_the_points_range_and_a_note(self):
        # Points at 0.5 and 7.5 ops/B: x from 0.5 / 2.2 to 7.5 x 2.2 = 0.23..16.5, 1.86 decades,
        # widened evenly to 2: 0.21..17.7. The roof is one flat segment across it at the peak.
        (roof,) = self.roofs("ideal,tpu_v1,91750.4,,,256\n")
        fig = roofline.build_figure([roof], [self.point(0.5, 20, 1), self.point(7.5, 300, 16)], "")
        ax = fig.axes[0]
        xlo, xhi = ax.get_xlim()
        self.assertAlmostEqual(math.log10(xhi / xlo), 2.0)
        self.assertAlmostEqual(math.sqrt(xlo * xhi), math.sqrt(0.5 / 2.2 * 7.5 * 2.2))
        roof_line = ax.lines[0]
        self.assertEqual(list(roof_line.get_xdata()), [xlo, xhi])
        self.assertEqual(list(roof_line.get_ydata()), [91750.4, 91750.4])
        texts = [t.get_text() for t in ax.texts]
        self.assertIn(roofline.IDEAL_MEMORY_TEXT, texts)
        self.assertIn("91,750 Gops/s peak", texts)
        self.assertFalse([t for t in texts if t.startswith("ridge") or t.endswith("GB/s DRAM")])
        self.assertNotIn("ridge point", [t.get_text() for t in fig.legends[0].get_texts()])

    def test_limits_without_points(self):
        # Nothing to span: 1..100 ops/B, widened by 2.2 each side.
        (roof,) = self.roofs("ideal,tpu_v1,91750.4,,,\n")
        (xlo, xhi), (ylo, yhi) = roofline.axis_limits(roof, [])
        self.assertAlmostEqual(xlo, 1 / 2.2)
        self.assertAlmostEqual(xhi, 220.0)
        self.assertLess(ylo, 91750.4)
        self.assertGreater(yhi, 91750.4)


class NocPanel(unittest.TestCase):
    """A roofs row with a noc_gbps (the network-on-chip's read bound, where it is below the DRAM's)
    draws the NoC's slope, labelled as the NoC's, and its ridge; an empty one, the DRAM's."""

    def tearDown(self):
        plt.close("all")

    def roofs(self, rows):
        notes = []
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(",".join(csv_input.ROOF_COLUMNS) + ",noc_gbps\n" + rows)
        self.addCleanup(os.unlink, f.name)
        return csv_input.load_roofs(f.name, notes.append), notes

    def test_noc_gbps_is_the_slope_and_sets_the_ridge(self):
        # 2,048 Gops/s over the NoC's 8 GB/s: ridge 256 ops/B; over the DRAM's 19.2: 106.67.
        (noc, dram), notes = self.roofs("narrow,small_noc,2048,19.2,256,,8\nwide,small_noc,2048,19.2,,,\n")
        self.assertEqual((noc.slope, noc.slope_name, noc.ridge, noc.dram), (8.0, "NoC", 256.0, 19.2))
        self.assertEqual((dram.slope, dram.slope_name, dram.noc), (19.2, "DRAM", None))
        self.assertAlmostEqual(dram.ridge, 2048 / 19.2)
        self.assertEqual(notes, [])
        # A ridge written for the DRAM's slope is the wrong one: drawn at the NoC's, with a note.
        (noc,), notes = self.roofs("narrow,small_noc,2048,19.2,106.67,,8\n")
        self.assertEqual(noc.ridge, 256.0)
        self.assertEqual(len(notes), 1)
        self.assertIn("differs from peak_gops/noc_gbps = 256", notes[0])
        # An ideal memory behind a NoC that binds: the NoC's slope and ridge all the same.
        (ideal,), notes = self.roofs("ideal,small_noc,2048,,,,8\n")
        self.assertEqual((ideal.slope, ideal.ridge), (8.0, 256.0))

    def test_the_drawn_slope_is_the_nocs(self):
        (roof,), _ = self.roofs("narrow,small_noc,2048,19.2,256,,8\n")
        point = IdealMemoryPanel.point(2.0, 10.0, 1)
        point.panel = "narrow"
        fig = roofline.build_figure([roof], [point], "")
        ax = fig.axes[0]
        xs, ys = list(ax.lines[0].get_xdata()), list(ax.lines[0].get_ydata())
        # The roof rises at 8 GB/s x ops/B to the ridge at (256, 2,048), then stays flat.
        self.assertAlmostEqual(ys[0] / xs[0], 8.0)
        self.assertEqual((xs[1], ys[1], ys[2]), (256.0, 2048.0, 2048.0))
        texts = [t.get_text() for t in ax.texts]
        self.assertIn("8 GB/s NoC", texts)
        self.assertIn("ridge 256 ops/B", texts)
        self.assertFalse([t for t in texts if t.endswith("GB/s DRAM")])


if __name__ == "__main__":
    unittest.main()
