"""reusesim.run against `reusesim run`: the same rows and cells, typed by the CLI's kinds; an
accelerator and a model given as dicts run as their files; `set=` as `--set`."""

import csv
import io
import math
import os

import pandas as pd
import pytest

import reusesim


def cli_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def assert_cells_equal(frame, rows):
    """Every cell of `frame` equals the CLI's CSV cell: integers exactly, numbers as the CSV's
    text reads, texts as they are, NaN where the CSV cell is empty."""
    assert len(frame) == len(rows)
    for index, row in enumerate(rows):
        assert list(frame.columns) == list(row)
        for column, cell in row.items():
            value = frame[column].iloc[index]
            if cell == "":
                assert pd.isna(value), (index, column)
            elif frame[column].dtype == "int64":
                assert value == int(cell), (index, column)
            elif frame[column].dtype == "float64":
                assert value == float(cell), (index, column)
            else:
                assert value == cell, (index, column)


def test_run_equals_the_cli_alexnet_on_snowflake_batch_1_and_16(cli):
    result = reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml", batch=[1, 16])
    rows = cli_rows(cli("run", "--arch", "configs/snowflake.yaml", "--model", "models/alexnet.yaml", "--batch",
                        "1,16", "--format", "csv"))
    totals = [row for row in rows if row["layer"] == "TOTAL"]
    assert_cells_equal(result.layers, [row for row in rows if row["layer"] != "TOTAL"])
    assert_cells_equal(result.totals, totals)
    assert list(result.totals["cycles"]) == [int(row["cycles"]) for row in totals]
    # AlexNet's MACs by layer (output positions x output channels x kernel volume per group):
    # conv1 55*55*96*(11*11*3) = 105,415,200; conv2 27*27*256*(5*5*48) = 223,948,800;
    # conv3 13*13*384*(3*3*256) = 149,520,384; conv4 13*13*384*(3*3*192) = 112,140,288;
    # conv5 13*13*256*(3*3*192) = 74,760,192; fc6 9216*4096 = 37,748,736; fc7 4096*4096 =
    # 16,777,216; fc8 4096*1000 = 4,096,000; sum 724,406,816 a sample, x16 = 11,590,509,056.
    assert list(result.totals["macs"]) == [724_406_816, 11_590_509_056]
    # 13 layers a batch, 2 batches: 26 layer rows.
    assert len(result.layers) == 26 and list(result.totals["batch"]) == [1, 16]
    assert result.summary["accelerator"] == "snowflake" and result.summary["element_bytes"] == 2
    assert result.dir is None and result.command[1] == "run"


def test_run_columns_have_the_cli_kinds():
    # Snowflake's 1 KiB accumulators sit below the 45nm SRAM curve: the CLI warns, and so does Python.
    warning = r"reusesim run: warning: technology 45nm: .* accumulators \(1 KiB\)"
    with pytest.warns(reusesim.ReuseSimWarning, match=warning):
        result = reusesim.run("configs/snowflake.yaml", "models/alexnet.yaml", layers=["conv1", "pool1"])
    assert "warning: technology 45nm" in result.stderr
    kinds = result.layers.dtypes
    assert kinds["cycles"] == "int64" and kinds["dram_read_bytes"] == "int64" and kinds["batch"] == "int64"
    assert kinds["time_s"] == "float64" and kinds["efficiency"] == "float64"
    assert kinds["mapping"] == "object" and kinds["layer"] == "object"
    # pool1 runs in conv1's output path: no bytes, so no rate (an empty cell in the CSV).
    pool1 = result.layers[result.layers["layer"] == "pool1"].iloc[0]
    assert math.isnan(pool1["dram_gbps"]) and pool1["cycles"] == 0
    assert result.dram_channels["channel"].dtype == "int64"


def test_run_out_keeps_the_directory(tmp_path):
    result = reusesim.run("configs/small.yaml", "models/mlp.yaml", out=tmp_path / "out")
    assert result.dir == tmp_path / "out"
    assert (tmp_path / "out" / "results.csv").is_file() and (tmp_path / "out" / "stats.txt").is_file()


def test_run_of_a_chip_of_cores_reads_cores_csv(tmp_path):
    # mlp at batch 3 on three cores of small, data parallel: one sample each, 5 layers x 3 cores;
    # each core's compute + stall + sync cycles are its layer's, and one core has no cores table.
    result = reusesim.run("configs/small.yaml", "models/mlp.yaml", batch=3,
                          set={"cores.count": 3, "cores.partition": "samples"})
    assert len(result.cores) == 15
    assert list(result.cores["samples"].unique()) == [1]
    assert result.cores["sync_cycles"].dtype == "int64"
    cycles = result.layers.set_index("layer")["cycles"]
    spent = result.cores["compute_cycles"] + result.cores["stall_cycles"] + result.cores["sync_cycles"]
    assert (spent.values == cycles.loc[result.cores["layer"]].values).all()
    assert "cores" not in result.summary
    assert reusesim.run("configs/small.yaml", "models/mlp.yaml").cores.empty


# The README's accelerator and model ("Your own accelerator, model and trace"), as YAML files and
# as the dicts they are.
NPU_YAML = """name: my_npu
compute: {type: systolic, rows: 32, cols: 32, dataflow: ws, clock_mhz: 800,
          operand_bits: 8, vector_ops_per_cycle: 32}
accumulators: {capacity_kib: 64, bits: 32}
sram:
  clock_mhz: 800
  buffers:
    - {name: weights, capacity_kib: 256, banks: 8, bank_width_bytes: 4, read_ports: 1, write_ports: 1,
       holds: [weights]}
    - {name: acts, capacity_kib: 512, banks: 8, bank_width_bytes: 4, read_ports: 1, write_ports: 1,
       holds: [inputs, outputs]}
dram: {preset: lpddr4-3200, channels: 2}
"""
NPU = {"name": "my_npu",
       "compute": {"type": "systolic", "rows": 32, "cols": 32, "dataflow": "ws", "clock_mhz": 800,
                   "operand_bits": 8, "vector_ops_per_cycle": 32},
       "accumulators": {"capacity_kib": 64, "bits": 32},
       "sram": {"clock_mhz": 800, "buffers": [
           {"name": "weights", "capacity_kib": 256, "banks": 8, "bank_width_bytes": 4, "read_ports": 1,
            "write_ports": 1, "holds": ["weights"]},
           {"name": "acts", "capacity_kib": 512, "banks": 8, "bank_width_bytes": 4, "read_ports": 1,
            "write_ports": 1, "holds": ["inputs", "outputs"]}]},
       "dram": {"preset": "lpddr4-3200", "channels": 2}}
CNN_YAML = """name: tiny_cnn
precision: int8
input: {channels: 3, height: 32, width: 32}
layers:
  - {name: conv1, type: conv2d, out_channels: 32, kernel: 3, padding: 1, activation: relu}
  - {name: pool1, type: maxpool, kernel: 2, stride: 2}
  - {name: flat, type: flatten}
  - {name: fc, type: linear, out_features: 10}
"""
CNN = {"name": "tiny_cnn", "precision": "int8", "input": {"channels": 3, "height": 32, "width": 32},
       "layers": [{"name": "conv1", "type": "conv2d", "out_channels": 32, "kernel": 3, "padding": 1,
                   "activation": "relu"},
                  {"name": "pool1", "type": "maxpool", "kernel": 2, "stride": 2},
                  {"name": "flat", "type": "flatten"},
                  {"name": "fc", "type": "linear", "out_features": 10}]}


def test_dict_accelerator_and_model_equal_their_files(tmp_path):
    (tmp_path / "npu.yaml").write_text(NPU_YAML)
    (tmp_path / "cnn.yaml").write_text(CNN_YAML)
    from_files = reusesim.run(tmp_path / "npu.yaml", tmp_path / "cnn.yaml", batch=[1, 8])
    from_dicts = reusesim.run(NPU, CNN, batch=[1, 8])
    pd.testing.assert_frame_equal(from_dicts.layers, from_files.layers)
    pd.testing.assert_frame_equal(from_dicts.totals, from_files.totals)
    assert from_dicts.config == from_files.config
    # conv1: 32*32 positions x 32 channels x 3*3*3 = 884,736 MACs; fc: 16*16*32 = 8,192 inputs x 10
    # = 81,920; 966,656 a sample.
    assert list(from_dicts.totals["macs"]) == [966_656, 8 * 966_656]


def test_set_overrides_as_the_cli_does(tmp_path):
    one_channel = dict(NPU, dram={"preset": "lpddr4-3200", "channels": 1})
    set_on_file = reusesim.run(NPU, CNN, set={"dram.channels": 1, "model.layers.fc.out_features": 10})
    pd.testing.assert_frame_equal(set_on_file.totals, reusesim.run(one_channel, CNN).totals)
    assert set_on_file.config["dram"]["channels"] == 1
    with pytest.raises(reusesim.InputError) as refused:
        reusesim.run(NPU, CNN, set={"dram.chanels": 2})
    assert refused.value.returncode == 2 and "dram.chanels" in str(refused.value)


def test_reuse_blocks_and_every_chip_as_the_cli(tmp_path):
    # tests/data/tiny_decoder.yaml's 6 copies of its block on small with an ideal memory of fixed
    # bandwidth: block reuse gives every row the cycles of the whole run (tests/cli/reuse_blocks.sh),
    # and the copies after the second say whose figures they repeat.
    decode = dict(phase="decode", context=32, set={"dram": {"ideal": {"bandwidth_gbps": 10, "latency_ns": 50}}})
    whole = reusesim.run("configs/small.yaml", "tests/data/tiny_decoder.yaml", **decode)
    reused = reusesim.run("configs/small.yaml", "tests/data/tiny_decoder.yaml", reuse_blocks=True, **decode)
    assert "--reuse-blocks" in reused.command
    assert list(reused.layers["cycles"]) == list(whole.layers["cycles"])
    assert reused.layers.set_index("layer").loc["blocks_6/up", "mapping"] == "repeats blocks_2/up (--reuse-blocks)"
    assert reused.summary["reused_blocks"] == ["blocks_3 to blocks_6 repeat blocks_2"]
    # Two one-core chips of small, tensor-parallel: chip 0's rows are the same replayed as twins
    # or every chip on its own.
    system = tmp_path / "two.yaml"
    system.write_text(f"name: two\nchip: {os.getcwd()}/configs/small.yaml\nchips: 2\n"
                      "links: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 500}\nplan: {tensor: 2}\n")
    twins = reusesim.run(system, "models/mlp.yaml", batch=2)
    every = reusesim.run(system, "models/mlp.yaml", batch=2, every_chip=True)
    assert "--every-chip" in every.command
    assert list(every.layers["cycles"]) == list(twins.layers["cycles"])
