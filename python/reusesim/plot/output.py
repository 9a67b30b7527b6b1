"""The figures' style and files: the same input gives byte-identical PNG and SVG files (no date,
no software version, fixed SVG ids, text as paths), each written atomically."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DPI = 150   # of the PNG files

# Applied to matplotlib's rcParams by use_style() before a figure is built: text settings take
# effect when text is created, the SVG ones when the file is written.
STYLE = {
    "svg.hashsalt": "reusesim-figure",   # fixed ids in the SVG
    "svg.fonttype": "path",
    "font.family": "DejaVu Sans",
    "text.parse_math": False,            # names with "$" are drawn as they are
    "savefig.dpi": DPI,
}


class OutputError(Exception):
    """A figure file that could not be written; the message names it."""


def use_style():
    plt.rcParams.update(STYLE)


def write_atomically(final, write):
    """Calls write(FINAL.partial), then renames it to FINAL; raises OutputError (leaving no
    .partial file) when either fails."""
    tmp = final + ".partial"
    try:
        write(tmp)
        os.replace(tmp, final)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OutputError(f"{final}: cannot write: {e.strerror or e}")


def save(fig, out_prefix):
    """Writes OUT_PREFIX.png and OUT_PREFIX.svg, each as OUT.partial renamed to OUT; raises
    OutputError (leaving no .partial file) at the first that cannot be written."""
    jobs = (("png", dict(dpi=DPI, metadata={"Software": None})),
            ("svg", dict(metadata={"Date": None})))
    for ext, kw in jobs:
        write_atomically(f"{out_prefix}.{ext}", lambda tmp: fig.savefig(tmp, format=ext, **kw))
