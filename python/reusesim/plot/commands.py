"""The command lines of scripts/plot_figure.py and scripts/plot_energy.py. Each takes the name of
the program that calls it and puts it on every note and error; errors exit with status 2."""

import argparse
import sys

from . import energy, roofline, scaling
from .csv_input import (LAYER_COLUMNS, NETWORK_COLUMNS, POINT_COLUMNS, ROOF_COLUMNS, SCALING_COLUMNS, TOKEN_COLUMNS,
                        InputError, load_layers, load_networks, load_points, load_roofs, load_scaling, load_tokens)
from .output import OutputError, save, use_style


class Program:
    """The messages of one program, on stderr: `NAME: note: ...` and `NAME: error: ...`."""

    def __init__(self, name):
        self.name = name

    def note(self, msg):
        print(f"{self.name}: note: {msg}", file=sys.stderr)

    def fail(self, msg):
        print(f"{self.name}: error: {msg}", file=sys.stderr)
        sys.exit(2)


def run(prog, argv, description, inputs, out_help, draw, options=()):
    """The command line INPUT... OUT_PREFIX [--title TEXT] [OPTION FILE]... of the program prog:
    inputs are [(metavar, help)], each read as args.<metavar in lower case>; options
    [(flag, metavar, help)], each optional (args.<flag without dashes>, None when absent). Sets the
    figures' style and calls draw(args, note); InputError and OutputError exit with status 2.
    Returns 0."""
    program = Program(prog)
    ap = argparse.ArgumentParser(prog=prog, description=description)
    for metavar, help_text in inputs + [("OUT_PREFIX", out_help)]:
        ap.add_argument(metavar.lower(), metavar=metavar, help=help_text)
    ap.add_argument("--title", default="", help="figure title")
    for flag, metavar, help_text in options:
        ap.add_argument(flag, metavar=metavar, default=None, help=help_text)
    args = ap.parse_args(argv)
    use_style()
    try:
        draw(args, program.note)
    except (InputError, OutputError) as e:
        program.fail(str(e))
    return 0


def plot_figure(prog, argv=None):
    """POINTS_CSV ROOFS_CSV OUT_PREFIX [--title TEXT]: the roofline figure, OUT_PREFIX.png/.svg."""
    def draw(args, note):
        roofs = load_roofs(args.roofs_csv, note)
        points = load_points(args.points_csv, {r.panel for r in roofs}, note)
        save(roofline.build_figure(roofs, points, args.title), args.out_prefix)

    return run(prog, argv, "Draw the Snowflake-style arithmetic-intensity (roofline) figure from the CSV files of "
               "`reusesim figure`: writes OUT_PREFIX.png and OUT_PREFIX.svg.",
               [("POINTS_CSV", ",".join(POINT_COLUMNS)), ("ROOFS_CSV", ",".join(ROOF_COLUMNS))],
               "writes OUT_PREFIX.png and OUT_PREFIX.svg", draw)


def plot_energy(prog, argv=None):
    """LAYERS_CSV NETWORKS_CSV OUT_PREFIX [--title TEXT] [--tokens TOKENS_CSV]: the energy breakdown,
    OUT_PREFIX_energy.png/.svg, for a network run on several variants the design space,
    OUT_PREFIX_design.png/.svg, and with TOKENS_CSV the energy per token, OUT_PREFIX_tokens.png/.svg."""
    def draw(args, note):
        groups = load_layers(args.layers_csv)
        networks = load_networks(args.networks_csv)
        tokens = load_tokens(args.tokens) if args.tokens else []
        if groups:
            save(energy.breakdown_figure(groups, args.title, note), args.out_prefix + "_energy")
        if energy.design_groups(networks):
            save(energy.design_figure(networks, args.title, note), args.out_prefix + "_design")
        if tokens:
            save(energy.tokens_figure(tokens, args.title, note), args.out_prefix + "_tokens")

    return run(prog, argv, "Draw the energy breakdown, design-space and energy-per-token figures from the energy CSV "
               "files of `reusesim figure`.",
               [("LAYERS_CSV", ",".join(LAYER_COLUMNS)), ("NETWORKS_CSV", ",".join(NETWORK_COLUMNS))],
               "writes OUT_PREFIX_energy.png/.svg, for a hardware sweep OUT_PREFIX_design.png/.svg, and with "
               "--tokens OUT_PREFIX_tokens.png/.svg", draw,
               [("--tokens", "TOKENS_CSV", ",".join(TOKEN_COLUMNS) + ": energy per token of transformer phases")])


def plot_scaling(prog, argv=None):
    """SCALING_CSV OUT_PREFIX [--title TEXT]: throughput against chips, OUT_PREFIX.png/.svg (none
    when the file has no rows: no system job finished)."""
    def draw(args, note):
        rows = load_scaling(args.scaling_csv)
        if rows:
            save(scaling.scaling_figure(rows, args.title, note), args.out_prefix)
        else:
            note(f"{args.scaling_csv}: no finished system job, no scaling figure")

    return run(prog, argv, "Draw the scaling figure (throughput against chips) from the CSV file of `reusesim figure` "
               "for a trace over systems.", [("SCALING_CSV", ",".join(SCALING_COLUMNS))],
               "writes OUT_PREFIX.png and OUT_PREFIX.svg", draw)
