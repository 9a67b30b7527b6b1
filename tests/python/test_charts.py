"""reusesim.charts: the Pareto front of a hand-checked table, and the roofline, Pareto and scaling
figures drawn from DataFrames, written only where they are told."""

import os

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


def test_roofline_slope_is_the_nocs_where_a_roofs_frame_gives_noc_gbps():
    """A roofs DataFrame's noc_gbps (the network-on-chip's read bound where it binds) is the memory
    slope of its panel, labelled as the NoC's; a panel with NaN there keeps the DRAM's."""
    roofs = pd.DataFrame({"panel": ["narrow", "wide"], "peak_gops": [2048.0, 2048.0],
                          "dram_gbps": [19.2, 19.2], "noc_gbps": [8.0, float("nan")]})
    rows = pd.DataFrame({"panel": ["narrow", "wide"], "layer": ["TOTAL", "TOTAL"], "model": ["mlp", "mlp"],
                         "batch": [1, 1], "arithmetic_intensity": [2.0, 2.0], "gops": [10.0, 20.0]})
    figure = charts.roofline(rows, roofs=roofs)
    narrow, wide = figure.axes
    # The roof's first point is on its slope: 8 GB/s x ops/B on the NoC's panel, 19.2 on the other;
    # ridges 2,048 / 8 = 256 and 2,048 / 19.2 = 106.67 ops/B.
    for axes, slope in ((narrow, 8.0), (wide, 19.2)):
        xs, ys = axes.get_lines()[0].get_xdata(), axes.get_lines()[0].get_ydata()
        assert ys[0] / xs[0] == pytest.approx(slope)
        assert xs[1] == pytest.approx(2048 / slope)
    assert "8 GB/s NoC" in [text.get_text() for text in narrow.texts]
    assert "19.2 GB/s DRAM" in [text.get_text() for text in wide.texts]
    charts.close(figure)


# The energy figures: the mlp (models/mlp.yaml) on Snowflake, whose 45 nm technology gives energy,
# at two sizes of its maps buffer (two variants), whole at batch 1 and 4 and its fc1 picked alone
# at batch 1 and 4: 8 jobs of a few tenths of a second.
ENERGY_TRACE = """name: mlp_energy
accelerators: {src}/configs/snowflake.yaml
models:
  - {{model: {src}/models/mlp.yaml, batch: [1, 4]}}
  - {{model: {src}/models/mlp.yaml, layers: [fc1], batch: [1, 4]}}
sweep:
  sram.buffers.0.capacity_kib: [64, 128]
"""


@pytest.fixture(scope="module")
def energy_trace(tmp_path_factory):
    """The trace above, run with its figure drawn by `reusesim figure` (figure=True)."""
    directory = tmp_path_factory.mktemp("energy")
    run_file = directory / "mlp_energy.yaml"
    run_file.write_text(ENERGY_TRACE.format(src=os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir,
                                                                             os.pardir))))
    return reusesim.trace(run_file, out=directory / "results", jobs=2, progress=False, figure=True)


def _bars(figure):
    """{panel title: {component label: [bar heights]}} of a breakdown figure's visible panels.
    matplotlib keeps a stacked bar's height as (bottom + height) - bottom of the first bar: equal
    to the height given it to about 1e-15 of the bottom."""
    return {axes.get_title().split(":")[0]: {bars.get_label(): [bar.get_height() for bar in bars]
                                             for bars in axes.containers}
            for axes in figure.axes if axes.get_visible()}


def test_energy_bars_are_the_figure_csvs_energy_per_sample(energy_trace):
    figure = charts.energy(energy_trace)
    drawn = _bars(figure)
    charts.close(figure)
    # What `reusesim figure` wrote for the same trace: a row per bar, per sample, in uJ.
    written = pd.read_csv(energy_trace.dir / "figure_energy_layers.csv", float_precision="round_trip")
    labels = {"dram_uj": "DRAM", "sram_uj": "SRAM", "array_uj": "MAC array", "vector_uj": "vector unit",
              "dma_uj": "DMA", "static_uj": "leakage"}
    expected = {}
    for row in written.to_dict("records"):
        title = (f"{row['model']}, batch {row['batch']} on {row['panel']}" if row["kind"] == "network" else
                 f"{row['model']}/{row['layer']} on {row['panel']}")
        for column, label in labels.items():
            expected.setdefault(title, {}).setdefault(label, []).append(row[column])
    assert list(drawn) == list(expected)  # the panels, in order
    for title, bars in expected.items():
        assert list(drawn[title]) == list(bars)  # the components, bottom to top
        for label, heights in bars.items():
            assert drawn[title][label] == pytest.approx(heights, rel=1e-9), (title, label)
    assert len(drawn) == 6  # 2 variants x (mlp at batch 1, at batch 4, fc1 over both batches)
    # fc1's MAC array per sample, at batch 1 and 4 alike: 100,000 MACs x (0.79 pJ int16 multiply +
    # 0.1 pJ int32 add) = 89,000 pJ, plus 400 accumulator updates per sample (4 k-tiles of 250 x
    # 100 outputs) x (5 + 5) pJ (a read and a write of 32 bits: 10 pJ per 64 bits of a 1 KiB SRAM
    # x 32/64) = 4,000 pJ: 0.093 uJ (configs/energy/45nm.yaml, docs/energy-model.md).
    picked = drawn["mlp/fc1 on snowflake, sram.buffers.0.capacity_kib=64"]
    assert picked["MAC array"] == pytest.approx([0.093, 0.093], rel=1e-9)
    # Per sample: the batch-4 job's DRAM energy over its 4 samples (layers.csv holds the job's).
    layers = energy_trace.layers
    fc1_b4 = layers[(layers["selection"] == "layers fc1") & (layers["batch"] == 4)
                    & (layers["sram.buffers.0.capacity_kib"] == 64)]
    assert picked["DRAM"][1] == pytest.approx(fc1_b4["energy_dram_uj"].item() / 4, rel=1e-9)


@pytest.mark.parametrize("drawn", ["trace", "dataframes"])
def test_energy_figures_have_the_bytes_of_reusesim_figure(energy_trace, tmp_path, drawn):
    """From the Trace, or from its layers and networks tables alone (the panels named from their
    columns), with the trace's name as the title: `reusesim figure`'s files, byte for byte."""
    layers, networks = (energy_trace, energy_trace) if drawn == "trace" else (energy_trace.layers,
                                                                            energy_trace.networks)
    title = energy_trace.plan["trace"]
    for name, figure in (("energy", charts.energy(layers, title=title)),
                         ("design", charts.design(networks, title=title))):
        for extension in ("png", "svg"):
            charts.save(figure, tmp_path / f"{name}.{extension}")
            assert (tmp_path / f"{name}.{extension}").read_bytes() == \
                (energy_trace.dir / f"figure_{name}.{extension}").read_bytes(), f"figure_{name}.{extension}"
        charts.close(figure)


def test_design_marks_the_pareto_variants_of_each_network(energy_trace):
    figure = charts.design(energy_trace)
    titles = [axes.get_title() for axes in figure.axes if axes.get_visible()]
    assert titles == ["mlp, batch 1: 2 variants, 1 Pareto-optimal", "mlp, batch 4: 2 variants, 1 Pareto-optimal"]
    networks = energy_trace.networks[energy_trace.networks["selection"] == "all"]
    for axes, batch in zip(figure.axes, (1, 4)):
        rows = networks[networks["batch"] == batch]
        # x: the batch's latency in ms; y: energy per inference (the job's over its batch).
        points = sorted(offset for collection in axes.collections for offset in collection.get_offsets().tolist())
        expected = sorted([time_s * 1e3, energy_uj / batch] for time_s, energy_uj in zip(rows["time_s"],
                                                                                      rows["energy_total_uj"]))
        assert [pytest.approx(point, rel=1e-9) for point in expected] == points
    charts.close(figure)


def test_energy_of_a_run_has_a_panel_per_batch():
    result = reusesim.run("configs/snowflake.yaml", "models/mlp.yaml", batch=[1, 4], warn=False)
    figure = charts.energy(result, title="mlp")
    drawn = _bars(figure)
    charts.close(figure)
    assert list(drawn) == ["mlp, batch 1 on snowflake", "mlp, batch 4 on snowflake"]
    fc1 = result.layers[result.layers["layer"] == "fc1"]
    # A bar per layer, fc1 first: the run's fc1 energy over the batch's samples.
    assert [drawn[title]["SRAM"][0] for title in drawn] == pytest.approx(
        (fc1["energy_sram_uj"] / fc1["batch"]).tolist(), rel=1e-9)
    # The MAC array's energy per sample, per layer: fc1 0.093 uJ (as above); fc2-fc4 10,000 MACs x
    # 0.89 pJ + 100 updates (one k-tile of 100 x 100 outputs) x 10 pJ = 9,900 pJ; fc5 1,000 MACs x
    # 0.89 pJ + 10 updates x 10 pJ = 990 pJ.
    for title in drawn:
        assert drawn[title]["MAC array"] == pytest.approx([0.093, 0.0099, 0.0099, 0.0099, 0.00099], rel=1e-9)
    with pytest.raises(ValueError, match="design: no network ran on more than one accelerator variant"):
        charts.design(result)


def test_energy_figures_name_what_is_missing(energy_trace):
    # Without a technology the run has no energy: its energy columns are empty.
    plain = reusesim.run("configs/small.yaml", "models/mlp.yaml")
    with pytest.raises(ValueError, match=r"energy: no layer row has energy \(energy_total_uj\): energy needs an "
                                         r"accelerator with a technology and compute.number_format"):
        charts.energy(plain)
    with pytest.raises(ValueError, match=r"design: no TOTAL row has energy"):
        charts.design(plain.totals.assign(accelerator="small", model="mlp"))
    with pytest.raises(KeyError, match="energy: no column energy_dram_uj, energy_static_uj: the energy figures "
                                       "need the rows of a run with energy"):
        charts.energy(energy_trace.layers.drop(columns=["energy_dram_uj", "energy_static_uj"]))
    with pytest.raises(KeyError, match="energy: no `panel` or `accelerator` column"):
        charts.energy(energy_trace.layers.drop(columns=["accelerator"]))
    with pytest.raises(ValueError, match=r"energy: row 3: energies must be finite and not negative"):
        charts.energy(energy_trace.layers.assign(energy_sram_uj=energy_trace.layers["energy_sram_uj"].where(
            energy_trace.layers.index != 3, -1.0)))
    with pytest.raises(TypeError, match="energy: expected a Trace, a Result or a DataFrame, got list"):
        charts.energy([])
    with pytest.raises(ValueError, match="design: no rows to draw"):
        charts.design(energy_trace.networks.iloc[:0])
