#!/usr/bin/python3
"""Unit tests of the plotting package python/reusesim/plot (the label placer has its own,
tests/test_plot_figure.py): reading the CSV inputs with FILE:LINE errors, the atomic and
byte-identical figure files, the placement geometry, the energy figures' Pareto front, and the
entry points scripts/plot_figure.py, scripts/plot_energy.py and scripts/plot_scaling.py: each names itself in every message
(plot_energy.py used to report write errors as plot_figure.py) and finds the package from the
source tree and from an installed copy."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
sys.path.insert(0, os.path.join(SRC, "python"))
from reusesim.plot import commands, csv_input, energy, geometry, output  # noqa: E402
from reusesim.plot.csv_input import InputError  # noqa: E402
from reusesim.plot.output import plt  # noqa: E402

LAYERS = ",".join(csv_input.LAYER_COLUMNS) + "\np,layer,m,1,l,1,2,3,0.5,4,5\np,layer,m,4,l,0.5,2,3,0.5,4,5\n"
NETWORKS = ",".join(csv_input.NETWORK_COLUMNS) + "\nv1,x=1,m,1,0.1,5,10\nv2,x=2,m,1,0.2,4,10\n"
ROOFS = ",".join(csv_input.ROOF_COLUMNS) + "\np,a,100,10,,\n"
POINTS = ",".join(csv_input.POINT_COLUMNS) + "\np,network,m,,,m,1,2,5,\n"
SCALING = ",".join(csv_input.SCALING_COLUMNS) + ('\n"m, batch 4","s, plan tensor=chips",1,100,samples/s'
                                                  '\n"m, batch 4","s, plan tensor=chips",2,180,samples/s'
                                                  '\n"m, batch 4","s, plan data=chips",2,150,samples/s\n')
TOKENS = ",".join(csv_input.TOKEN_COLUMNS) + ("\nv1,m,decode,128,1,20,50000\nv1,m,decode,128,4,6,166666.7"
                                              "\nv2,m,decode,128,1,25,40000\nv2,m,prefill,,2,1,1000000\n")


class TempDir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text, mode="w"):
        path = os.path.join(self.dir, name)
        with open(path, mode) as f:
            f.write(text)
        return path


class CsvInput(TempDir):
    def rows(self, text, required=("a", "b")):
        return csv_input.read_csv(self.write("t.csv", text), list(required))

    def assert_error(self, text, message, required=("a", "b")):
        with self.assertRaises(InputError) as caught:
            self.rows(text, required)
        self.assertEqual(str(caught.exception), os.path.join(self.dir, "t.csv") + message)

    def test_rows_with_their_lines(self):
        # A byte-order mark and spaces in the header are dropped, blank lines skipped, extra
        # columns kept.
        self.assertEqual(self.rows("\ufeffa, b ,c\n1,2,3\n\n,,\n4,5,6\n"),
                         [(2, {"a": "1", "b": "2", "c": "3"}), (5, {"a": "4", "b": "5", "c": "6"})])

    def test_errors_name_file_and_line(self):
        self.assert_error("a\n1\n", ":1: missing column b (expected header: a,b)")
        self.assert_error("c\n", ":1: missing columns a, b (expected header: a,b)")
        self.assert_error("", ":1: empty file (expected header: a,b)")
        self.assert_error("a,b\n1,2\n1,2,3\n", ":3: 3 fields, the header has 2")
        self.assert_error("a,b\n1,2\n" + "x" * 200000 + ",1\n",
                          ":3: malformed CSV: field larger than field limit (131072)")
        # (the line is where the reader stood when the decoder failed, which reads ahead in blocks:
        # line 1 for a file this small)
        with self.assertRaisesRegex(InputError, r"/t.csv:[0-9]+: not valid UTF-8$"):
            csv_input.read_csv(self.write("t.csv", b"a,b\n1,2\n\xff,3\n", "wb"), ["a", "b"])
        with self.assertRaisesRegex(InputError, r"/missing.csv: cannot open: No such file or directory$"):
            csv_input.read_csv(os.path.join(self.dir, "missing.csv"), ["a"])

    def test_numbers(self):
        self.assertEqual(csv_input.parse_number("f", 3, "x", " 2.5 "), 2.5)
        self.assertIsNone(csv_input.parse_number("f", 3, "x", " ", optional=True))
        with self.assertRaisesRegex(InputError, r"^f:3: x: empty value, expected a number$"):
            csv_input.parse_number("f", 3, "x", "")
        with self.assertRaisesRegex(InputError, r"^f:3: x: non-numeric value 'two'$"):
            csv_input.parse_number("f", 3, "x", "two")

    def test_notes_go_to_the_callable(self):
        notes = []
        roofs = csv_input.load_roofs(self.write("r.csv", ROOFS.replace("10,,", "10,20,")), notes.append)
        self.assertEqual(roofs[0].ridge, 10)
        points = csv_input.load_points(self.write("p.csv", POINTS + "p,layer,m,l,fc,,,0,1,\n"), {"p"}, notes.append)
        self.assertEqual(len(points), 1)
        self.assertEqual(notes, [
            f"{self.dir}/r.csv:2: ridge_ops_per_byte 20 differs from peak_gops/dram_gbps = 10; drawing the ridge at 10",
            f"{self.dir}/p.csv: skipped 1 point with an empty, zero or non-finite ops_per_byte or gops"])

    def test_energy_inputs(self):
        panels = csv_input.load_layers(self.write("l.csv", LAYERS.replace("p,layer,m,4,l,0.5", "p,layer,m,4,l,")))
        self.assertEqual([(title, [bar for bar, _ in bars]) for title, bars in panels], [("m/l on p", ["b1", "b4"])])
        self.assertEqual(panels[0][1][1][1]["dram_uj"], 0.0)     # an ideal memory: no DRAM energy
        self.assertEqual(list(panels[0][1][0][1]), csv_input.ENERGY_COLUMNS)
        networks = csv_input.load_networks(self.write("n.csv", NETWORKS))
        self.assertEqual(networks[1], dict(panel="v2", sweep="x=2", model="m", batch=1, latency=0.2, energy=4.0))
        with self.assertRaisesRegex(InputError, r"/n.csv:2: batch: expected a positive integer, got '0'$"):
            csv_input.load_networks(self.write("n.csv", NETWORKS.replace("x=1,m,1,", "x=1,m,0,")))
        with self.assertRaisesRegex(InputError, r"/l.csv:3: energies must be finite and not negative$"):
            csv_input.load_layers(self.write("l.csv", LAYERS.replace("0.5,2,3,0.5,4,5", "0.5,2,3,0.5,-4,5")))

    def test_energy_components_are_the_energy_columns(self):
        self.assertEqual([column for column, _, _ in energy.COMPONENTS], csv_input.ENERGY_COLUMNS)


class Output(TempDir):
    def tearDown(self):
        plt.close("all")

    @staticmethod
    def figure():
        fig = plt.figure(figsize=(2, 1.5))
        fig.add_subplot(1, 1, 1).plot([1, 2], [2, 1], label="x")
        return fig

    def test_same_figure_same_bytes(self):
        with plt.rc_context():
            output.use_style()
            first, second = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
            output.save(self.figure(), first)
            output.save(self.figure(), second)
        for ext in ("png", "svg"):
            with open(f"{first}.{ext}", "rb") as a, open(f"{second}.{ext}", "rb") as b:
                self.assertEqual(a.read(), b.read(), ext)
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.png", "a.svg", "b.png", "b.svg"])

    def test_unwritable_file_raises_and_leaves_no_partial(self):
        os.mkdir(os.path.join(self.dir, "x.png"))          # the PNG's place is taken by a directory
        with self.assertRaises(output.OutputError) as caught:
            output.save(self.figure(), os.path.join(self.dir, "x"))
        self.assertEqual(str(caught.exception), f"{self.dir}/x.png: cannot write: Is a directory")
        self.assertEqual(os.listdir(self.dir), ["x.png"])


class Geometry(unittest.TestCase):
    def test_segment_samples_about_2_apart_with_both_ends(self):
        grid = geometry.Grid(10)
        grid.add_samples((0, 0), (6, 8))                   # length 10: 5 steps, 6 samples
        self.assertEqual(sorted((round(x, 9), round(y, 9)) for x, y in grid.near(-1, -1, 11, 11)),
                         [(0, 0), (1.2, 1.6), (2.4, 3.2), (3.6, 4.8), (4.8, 6.4), (6, 8)])
        grid = geometry.Grid(10)
        grid.add_samples((3, 3), (3, 3))                   # a point: both ends
        self.assertEqual(list(grid.near(0, 0, 9, 9)), [(3, 3), (3, 3)])

    def test_segments_cross_properly(self):
        self.assertTrue(geometry.segments_cross((0, 0), (2, 2), (0, 2), (2, 0)))
        self.assertFalse(geometry.segments_cross((0, 0), (2, 2), (3, 0), (3, 3)))
        self.assertFalse(geometry.segments_cross((0, 0), (2, 0), (2, 0), (2, 2)))   # touching ends

    def test_rotated_boxes(self):
        # Two 10 x 2 boxes 8 apart on the x axis: their axis-aligned extents overlap both flat and
        # turned 45 degrees; flat they overlap, turned side by side they do not.
        flat_a, flat_b = geometry.Box(0, 0, 5, 1), geometry.Box(8, 0, 5, 1)
        self.assertTrue(flat_a.overlaps(flat_b))
        turned_a, turned_b = geometry.Box(0, 0, 5, 1, 0.785398), geometry.Box(8, 0, 5, 1, 0.785398)
        self.assertFalse(turned_a.overlaps(turned_b))
        self.assertTrue(turned_a.contains(3, 3))
        self.assertFalse(turned_a.contains(3, -3))
        self.assertTrue(turned_a.hits_circle(2, 0, 1.2))     # 0.41 from the box's long side
        self.assertFalse(turned_a.hits_circle(3, -2, 1.2))   # 2.54 from it


class EnergyFigures(unittest.TestCase):
    def test_pareto_front_by_latency(self):
        rows = [dict(latency=lat, energy=e, name=n) for lat, e, n in
                [(3, 1, "slow cheap"), (1, 5, "fast"), (2, 6, "dominated"), (2, 2, "middle"), (1, 7, "fast, dearer")]]
        self.assertEqual([r["name"] for r in energy.pareto(rows)], ["fast", "middle", "slow cheap"])

    def test_grid(self):
        self.assertEqual([energy.grid(n) for n in (1, 3, 4, 7, 12)], [(1, 1), (3, 1), (3, 2), (3, 3), (3, 4)])


class Commands(TempDir):
    """The command lines, in this process: notes and errors carry the caller's name."""

    def run_command(self, command, prog, args):
        err = io.StringIO()
        with plt.rc_context(), contextlib.redirect_stderr(err):
            try:
                status = command(prog, args)
            except SystemExit as e:
                status = e.code
        plt.close("all")
        return status, err.getvalue()

    def test_messages_carry_the_callers_name(self):
        layers, networks = self.write("l.csv", LAYERS), self.write("n.csv", NETWORKS)
        out = os.path.join(self.dir, "none", "x")
        self.assertEqual(self.run_command(commands.plot_energy, "energy-tool", [layers, networks, out]),
                         (2, f"energy-tool: error: {out}_energy.png: cannot write: No such file or directory\n"))
        roofs = self.write("r.csv", ROOFS.replace("10,,", "10,20,"))
        points = self.write("p.csv", POINTS)
        status, err = self.run_command(commands.plot_figure, "roof-tool", [points, roofs, out])
        self.assertEqual(status, 2)
        self.assertEqual(err.splitlines(), [
            f"roof-tool: note: {roofs}:2: ridge_ops_per_byte 20 differs from peak_gops/dram_gbps = 10; "
            "drawing the ridge at 10",
            f"roof-tool: error: {out}.png: cannot write: No such file or directory"])

    def test_energy_figures_written(self):
        layers, networks = self.write("l.csv", LAYERS), self.write("n.csv", NETWORKS)
        out = os.path.join(self.dir, "fig")
        self.assertEqual(self.run_command(commands.plot_energy, "p", [layers, networks, out, "--title", "t"]), (0, ""))
        self.assertEqual(sorted(f for f in os.listdir(self.dir) if f.startswith("fig")),
                         ["fig_design.png", "fig_design.svg", "fig_energy.png", "fig_energy.svg"])

    def test_energy_per_token_figure_written_with_tokens(self):
        layers, networks = self.write("l.csv", LAYERS), self.write("n.csv", NETWORKS)
        tokens = self.write("t.csv", TOKENS)
        out = os.path.join(self.dir, "fig")
        self.assertEqual(self.run_command(commands.plot_energy, "p", [layers, networks, out, "--tokens", tokens]),
                         (0, ""))
        self.assertEqual(sorted(f for f in os.listdir(self.dir) if f.startswith("fig")),
                         ["fig_design.png", "fig_design.svg", "fig_energy.png", "fig_energy.svg", "fig_tokens.png",
                          "fig_tokens.svg"])
        # A prefill's length may be empty (the model's); a phase must be decode or prefill.
        self.assertEqual([r["length"] for r in csv_input.load_tokens(tokens)], [128, 128, 128, None])
        bad = self.write("bad.csv", TOKENS.replace("prefill", "train"))
        self.assertEqual(self.run_command(commands.plot_energy, "p", [layers, networks, out, "--tokens", bad]),
                         (2, f"p: error: {bad}:5: phase: expected decode or prefill, got 'train'\n"))

    def test_no_design_figure_when_no_network_ran_on_two_variants(self):
        # Two variants, but m1 ran on v1 only and m2 on v2 only (the other jobs failed): nothing to
        # compare, so no design figure. It used to be drawn with no panels: ZeroDivisionError.
        layers = self.write("l.csv", LAYERS)
        networks = self.write("n.csv", NETWORKS.replace("x=1,m,", "x=1,m1,").replace("x=2,m,", "x=2,m2,"))
        out = os.path.join(self.dir, "fig")
        self.assertEqual(self.run_command(commands.plot_energy, "p", [layers, networks, out]), (0, ""))
        self.assertEqual(sorted(f for f in os.listdir(self.dir) if f.startswith("fig")),
                         ["fig_energy.png", "fig_energy.svg"])


    def test_scaling_figure_written_and_bad_rows_refused(self):
        scaling = self.write("s.csv", SCALING)
        out = os.path.join(self.dir, "fig")
        self.assertEqual(self.run_command(commands.plot_scaling, "p", [scaling, out, "--title", "t"]), (0, ""))
        self.assertEqual(sorted(f for f in os.listdir(self.dir) if f.startswith("fig")), ["fig.png", "fig.svg"])
        self.assertEqual([(r["line"], r["chips"], r["throughput"]) for r in csv_input.load_scaling(scaling)],
                         [("s, plan tensor=chips", 1, 100), ("s, plan tensor=chips", 2, 180),
                          ("s, plan data=chips", 2, 150)])
        # One unit a panel; chips a positive whole number; no rows: no figure, and a note says why.
        mixed = self.write("m.csv", SCALING.replace("150,samples/s", "150,tokens/s"))
        self.assertEqual(self.run_command(commands.plot_scaling, "p", [mixed, out]),
                         (2, f"p: error: {mixed}:4: panel 'm, batch 4' has rows in samples/s and tokens/s\n"))
        half = self.write("h.csv", SCALING.replace(",2,150,", ",2.5,150,"))
        self.assertEqual(self.run_command(commands.plot_scaling, "p", [half, out]),
                         (2, f"p: error: {half}:4: chips: expected a positive integer, got '2.5'\n"))
        empty = self.write("e.csv", ",".join(csv_input.SCALING_COLUMNS) + "\n")
        self.assertEqual(self.run_command(commands.plot_scaling, "p", [empty, os.path.join(self.dir, "none")]),
                         (0, f"p: note: {empty}: no finished system job, no scaling figure\n"))


class EntryPoints(TempDir):
    """The scripts as `reusesim figure` runs them: /usr/bin/python3 SCRIPT ARGS..."""

    def run_script(self, script, *args):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        proc = subprocess.run([sys.executable, script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, cwd=self.dir, env=env)
        return proc.returncode, proc.stderr

    def check_scripts(self, scripts_dir):
        # plot_energy.py's write errors used to say plot_figure.py: each script names itself.
        layers, networks = self.write("l.csv", LAYERS), self.write("n.csv", NETWORKS)
        roofs, points = self.write("r.csv", ROOFS), self.write("p.csv", POINTS)
        out = os.path.join(self.dir, "none", "x")
        self.assertEqual(self.run_script(os.path.join(scripts_dir, "plot_energy.py"), layers, networks, out),
                         (2, f"plot_energy.py: error: {out}_energy.png: cannot write: No such file or directory\n"))
        self.assertEqual(self.run_script(os.path.join(scripts_dir, "plot_figure.py"), points, roofs, out),
                         (2, f"plot_figure.py: error: {out}.png: cannot write: No such file or directory\n"))
        scaling = self.write("s.csv", SCALING)
        self.assertEqual(self.run_script(os.path.join(scripts_dir, "plot_scaling.py"), scaling, out),
                         (2, f"plot_scaling.py: error: {out}.png: cannot write: No such file or directory\n"))
        self.assertEqual(self.run_script(os.path.join(scripts_dir, "plot_energy.py"), networks, networks, out),
                         (2, f"plot_energy.py: error: {networks}:1: missing columns kind, layer, dram_uj, sram_uj, "
                          "array_uj, vector_uj, dma_uj, static_uj (expected header: "
                          f"{','.join(csv_input.LAYER_COLUMNS)})\n"))

    def test_source_tree(self):
        self.check_scripts(os.path.join(SRC, "scripts"))

    def test_installed_layout(self):
        # As CMakeLists installs them: share/reusesim/scripts beside share/reusesim/python, the
        # scripts reached through a symbolic link from elsewhere, and no source tree on the path.
        share = os.path.join(self.dir, "share", "reusesim")
        os.makedirs(os.path.join(share, "scripts"))
        for script in ("plot_figure.py", "plot_energy.py", "plot_scaling.py"):
            shutil.copy(os.path.join(SRC, "scripts", script), os.path.join(share, "scripts"))
        shutil.copytree(os.path.join(SRC, "python", "reusesim"), os.path.join(share, "python", "reusesim"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        os.symlink(os.path.join(share, "scripts"), os.path.join(self.dir, "linked"))
        self.check_scripts(os.path.join(self.dir, "linked"))
        found = []
        for _, _, files in os.walk(share):
            found += [f for f in files if not f.endswith(".py")]
        self.assertEqual(found, [])        # no __pycache__ written into the installation


if __name__ == "__main__":
    unittest.main()
