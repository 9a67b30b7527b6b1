"""reusesim.charts: the Pareto front of a hand-checked table, and the roofline, Pareto and scaling
figures drawn from DataFrames, written only where they are told."""

import matplotlib
import pandas as pd
import pytest

import reusesim
from reusesim import charts

# (time, energy) of six designs. Dominated: c (2, 9) by b (2, 6); e (4, 5) by d (3, 4); f (5, 4)
# by d (3, 4). The front: a (1, 10), b (2, 6), d (3, 4), g (6, 1) -- each beats every other row on
# one of the two.
TABLE = pd.DataFrame({"design": list("abcdefg"), "time": [1, 2, 2, 3, 4, 5, 6], "energy": [10, 6, 9, 4, 5, 4, 1]})


def test_pareto_front_is_the_non_dominated_rows_of_a_hand_checked_table():
    front = reusesim.pareto_front(TABLE, ["time", "energy"])
    assert list(front["design"]) == ["a", "b", "d", "g"]
    assert list(front.index) == [0, 1, 3, 6]  # the table's own rows


def test_pareto_front_of_three_objectives_keeps_a_row_best_on_the_third():
    # f (5, 4) is dominated on (time, energy) by d (3, 4), but its area 1 is the smallest: kept.
    table = TABLE.assign(area=[9, 9, 9, 9, 9, 1, 9])
    assert list(reusesim.pareto_front(table, ["time", "energy", "area"])["design"]) == ["a", "b", "d", "f", "g"]


def test_pareto_front_names_a_missing_column():
    with pytest.raises(KeyError, match="no column power"):
        reusesim.pareto_front(TABLE, ["time", "power"])


def test_pareto_figure_highlights_the_front_and_writes_only_its_path(tmp_path):
    figure = charts.pareto(TABLE, "time", "energy", tmp_path / "front.png", label="design")
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["front.png"]
    assert (tmp_path / "front.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    axes = figure.axes[0]
    # The dominated rows grey, the front's in colour, labelled by the design column.
    offsets = [collection.get_offsets().tolist() for collection in axes.collections]
    assert offsets == [[[2, 9], [4, 5], [5, 4]], [[1, 10], [2, 6], [3, 4], [6, 1]]]
    assert [text.get_text() for text in axes.texts] == ["design=a", "design=b", "design=d", "design=g"]
    charts.close(figure)
    nothing = charts.pareto(TABLE, "time", "energy")  # no path: no file
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["front.png"]
    charts.close(nothing)
    assert matplotlib.get_backend().lower() == "agg"


def test_pareto_figure_labels_equal_rows_of_the_front_once():
    # a and b are equal (neither dominates the other): both on the front, one label for the point.
    table = pd.DataFrame({"design": ["a", "b", "c"], "time": [1, 1, 2], "energy": [2, 2, 1]})
    figure = charts.pareto(table, "time", "energy", label="design")
    assert [text.get_text() for text in figure.axes[0].texts] == ["design=a; design=b", "design=c"]
    charts.close(figure)


def test_scaling_draws_a_line_per_series_in_key_order(tmp_path):
    table = pd.DataFrame({"rows": [32, 8, 16, 8, 16, 32], "batch": [1, 1, 1, 4, 4, 4],
                          "time_s": [1.0, 4.0, 2.0, 8.0, 5.0, 3.0]})
    figure = charts.scaling(table, "rows", "time_s", tmp_path / "scaling.svg", series="batch")
    lines = figure.axes[0].get_lines()
    assert [(list(line.get_xdata()), list(line.get_ydata())) for line in lines] == [
        ([8, 16, 32], [4.0, 2.0, 1.0]), ([8, 16, 32], [8.0, 5.0, 3.0])]
    assert [line.get_label() for line in lines] == ["1", "4"]
    assert (tmp_path / "scaling.svg").is_file()
    charts.close(figure)


def test_roofline_of_a_trace_has_its_panels_and_points(tmp_path):
    """A sweep's rows on the figure's roofline: a panel per accelerator variant, titled as
    trace.json's, each network's star at (arithmetic_intensity, gops)."""
    frame = reusesim.sweep("configs/small.yaml", "models/mlp.yaml", over={"compute.rows": [8, 16]}, batch=[1, 4],
                           out=tmp_path / "rows", progress=False)
    trace = reusesim.load(tmp_path / "rows")
    figure = charts.roofline(trace.networks, tmp_path / "roofline.png", roofs=trace)
    assert [axes.get_title() for axes in figure.axes] == ["small, compute.rows=8", "small, compute.rows=16"]
    for axes, rows in zip(figure.axes, (8, 16)):
        points = frame[frame["compute.rows"] == rows]
        stars = [offset for collection in axes.collections for offset in collection.get_offsets().tolist()
                 if collection.get_sizes().tolist() == [190.0]]
        assert sorted(stars) == sorted(points[["arithmetic_intensity", "gops"]].values.tolist())
    assert (tmp_path / "roofline.png").is_file()
    charts.close(figure)
