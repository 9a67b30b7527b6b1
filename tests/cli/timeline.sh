#!/usr/bin/env bash
# End-to-end checks of `reusesim run --timeline`: the file is trace-event JSON with the expected
# tracks, each layer's event lasts what the cycles column says and its array spans add up to its
# stall columns, the run's results do not change, the bytes are the same on a second run, and a
# path that cannot be written is an error before the simulation.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

python=/usr/bin/python3  # Debian's, from scripts/install-deps
run() { "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" --batch 1,4 \
          --set dram.channels=2 --format csv "$@"; }

# summarize TIMELINE CSV: one line per property, each "name: value".
summarize() {
  "$python" - "$1" "$2" <<'EOF'
import csv, json, sys
from collections import defaultdict

trace = json.load(open(sys.argv[1]))
rows = [row for row in csv.DictReader(open(sys.argv[2])) if row["layer"] != "TOTAL"]
events = trace["traceEvents"]
print("display unit:", trace["displayTimeUnit"])
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
order = {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in events if e["name"] == "thread_sort_index"}
print("tracks:", " | ".join(threads[key] for key in sorted(threads, key=lambda key: order[key])))
spans = [e for e in events if e["ph"] == "X"]
by_track = defaultdict(list)
for e in spans:
    by_track[threads[(e["pid"], e["tid"])]].append(e)
print("batches:", " ".join(e["name"] for e in by_track["layers"] if e["cat"] == "batch"))

# Layers: one event per CSV row, in order, lasting its cycles (to within rounding to the clock).
mhz = trace["otherData"]["compute_clock_mhz"]
layers = [e for e in by_track["layers"] if e["cat"] == "layer"]
mismatches = [f'{row["batch"]}/{row["layer"]}: {e["name"]} {e["dur"] * mhz:.3f} cycles, csv {row["cycles"]}'
              for e, row in zip(layers, rows)
              if e["name"] != row["layer"] or e["args"]["batch"] != int(row["batch"])
              or abs(e["dur"] * mhz - int(row["cycles"])) > 0.5 + 1e-6 or e["args"]["cycles"] != int(row["cycles"])]
print("layer events:", len(layers), "of", len(rows), "rows;", "mismatches:", mismatches or "none")

# The compute array's spans tile each layer; busy spans add up to compute_cycles and stall spans
# to each stall column, within a cycle: each cause's end is rounded, not each cause
# (docs/conventions.md, "Cycles are counts").
columns = {"stall: weights": "stall_weights_cycles", "stall: inputs": "stall_inputs_cycles",
           "stall: sram": "stall_sram_cycles", "stall: vector": "stall_vector_cycles",
           "stall: output drain": "stall_output_drain_cycles"}
eps = 1e-6
off = []
for layer, row in zip(layers, rows):
    start, end = layer["ts"], layer["ts"] + layer["dur"]
    inside = [e for e in by_track["compute array"] if e["ts"] >= start - eps and e["ts"] + e["dur"] <= end + eps]
    cycles = defaultdict(float)
    for e in inside:
        name = e["name"] if e["name"].startswith("stall") else "compute_cycles"
        cycles[name] += e["dur"] * mhz
    if abs(sum(e["dur"] for e in inside) - layer["dur"]) > eps * (len(inside) + 1):
        off.append(f'{layer["name"]}: array spans cover {sum(e["dur"] for e in inside)} of {layer["dur"]} us')
    for name, column in list(columns.items()) + [("compute_cycles", "compute_cycles")]:
        slack = 0.5 if name == "compute_cycles" else 1
        if abs(cycles[name] - int(row[column])) > slack + eps:
            off.append(f'{row["batch"]}/{layer["name"]} {column}: spans {cycles[name]:.3f}, csv {row[column]}')
print("array spans vs columns:", off or "agree")

# No track but the layers (batches enclose layers) has overlapping events.
overlaps = []
for name, track in by_track.items():
    if name == "layers":
        continue
    track = sorted(track, key=lambda e: e["ts"])
    overlaps += [name for a, b in zip(track, track[1:]) if a["ts"] + a["dur"] > b["ts"] + eps]
print("overlaps:", sorted(set(overlaps)) or "none")

# DMA and DRAM tracks moved what the CSV says the DRAM did.
read = sum(int(row["dram_read_bytes"]) for row in rows)
written = sum(int(row["dram_write_bytes"]) for row in rows)
dma = (sum(e["args"]["bytes"] for e in by_track["DMA load"]), sum(e["args"]["bytes"] for e in by_track["DMA store"]))
dram = (sum(e["args"]["read_bytes"] for t in by_track if t.startswith("DRAM") for e in by_track[t]),
        sum(e["args"]["write_bytes"] for t in by_track if t.startswith("DRAM") for e in by_track[t]))
print("bytes:", "agree" if dma == dram == (read, written) else f"dma {dma}, dram {dram}, csv {(read, written)}")
EOF
}

expect 0 "run without --timeline" -- run
printf '%s\n' "$out" >"$work/plain.csv"
expect 0 "run with --timeline" -- run --timeline "$work/a.json"
printf '%s\n' "$out" >"$work/timeline.csv"
checks=$((checks + 1))
cmp -s "$work/plain.csv" "$work/timeline.csv" || { echo "FAIL: --timeline changed the results"; failures=$((failures + 1)); }
summary=$(summarize "$work/a.json" "$work/timeline.csv" 2>&1)
same "timeline summary" "$summary" "display unit: ns
tracks: layers | compute array | DMA load | DMA store | DRAM channel 0 | DRAM channel 1
batches: batch 1 batch 4
layer events: 10 of 10 rows; mismatches: none
array spans vs columns: agree
overlaps: none
bytes: agree"

# Deterministic: the same inputs give the same bytes.
expect 0 "second run with --timeline" -- run --timeline "$work/b.json"
checks=$((checks + 1))
cmp -s "$work/a.json" "$work/b.json" || { echo "FAIL: the timeline differs between runs"; failures=$((failures + 1)); }

# A network with vector layers and sram stalls on the Snowflake config, batch 1.
expect 0 "resnet50 conv1 and pool" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$SRC/models/resnet50.yaml" \
  --layers conv1,bn1,relu,maxpool --format csv --timeline "$work/resnet.json"
printf '%s\n' "$out" >"$work/resnet.csv"
summary=$(summarize "$work/resnet.json" "$work/resnet.csv" 2>&1)
contains "resnet layer events" "$summary" "layer events: 4 of 4 rows; mismatches: none"
contains "resnet array spans" "$summary" "array spans vs columns: agree"
contains "resnet bytes" "$summary" "bytes: agree"

# A chip of two cores sharing the DRAM, data parallel: each core a process of its own (named as its SystemC
# module) with its array and DMA tracks, the channels once. Batch 1 leaves core_1 without samples
# (it waits the layers through); batch 3 splits 2 + 1. Per core and layer, the array's spans tile
# the layer and add up by kind to cores.csv's compute, stall and sync cycles (each within its
# rounding); per core, the DMA tracks moved the DRAM bytes cores.csv gives it.
expect 0 "two cores with --timeline" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 1,3 --set dram.channels=2 --set cores.count=2 --set cores.partition=samples --out "$work/chip" \
  --timeline "$work/chip.json"
# The summary of a chip's timeline JSON ($1) against the run's cores.csv (in $2).
chip_summary() {
  "$python" - "$1" "$2" <<'EOF2'
import csv, json, sys
from collections import defaultdict

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
processes = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
print("processes:", " | ".join(processes[pid] for pid in sorted(processes)))
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
for pid in sorted(processes):
    print(processes[pid] + ":", " | ".join(threads[key] for key in sorted(threads) if key[0] == pid))
print("tids unique:", len({tid for _, tid in threads}) == len(threads))
print("cores in otherData:", trace["otherData"].get("cores"))
mhz = trace["otherData"]["compute_clock_mhz"]
spans = defaultdict(list)  # (core, track) -> events
for e in events:
    if e["ph"] == "X":
        spans[(processes[e["pid"]], threads[(e["pid"], e["tid"])])].append(e)
layers = [e for e in spans[("accelerator small, model mlp", "layers")] if e["cat"] == "layer"]
rows = list(csv.DictReader(open(sys.argv[2] + "/cores.csv")))
eps = 1e-6
off, totals = [], defaultdict(lambda: [0, 0])
for row in rows:
    core = "core" if row["core"] == "0" else "core_" + row["core"]
    layer = next(e for e in layers if e["name"] == row["layer"] and e["args"]["batch"] == int(row["batch"]))
    start, end = layer["ts"], layer["ts"] + layer["dur"]
    inside = [e for e in spans[(core, "compute array")] if e["ts"] >= start - eps and e["ts"] + e["dur"] <= end + eps]
    cycles = defaultdict(float)
    for e in inside:
        kind = "stall" if e["name"].startswith("stall") else "sync" if e["name"] == "sync" else "compute"
        cycles[kind] += e["dur"] * mhz
    if abs(sum(e["dur"] for e in inside) - layer["dur"]) > eps * (len(inside) + 1):
        off.append(f'{core} {row["batch"]}/{row["layer"]}: spans cover {sum(e["dur"] for e in inside)} of {layer["dur"]} us')
    for kind in ("compute", "stall", "sync"):
        if abs(cycles[kind] - int(row[kind + "_cycles"])) > 1 + eps:
            off.append(f'{core} {row["batch"]}/{row["layer"]} {kind}: spans {cycles[kind]:.3f}, csv {row[kind + "_cycles"]}')
    totals[core][0] += int(row["dram_read_bytes"])
    totals[core][1] += int(row["dram_write_bytes"])
print("array spans vs cores.csv:", off or "agree")
for core in ("core", "core_1"):
    dma = [sum(e["args"]["bytes"] for e in spans[(core, track)]) for track in ("DMA load", "DMA store")]
    print(core, "DMA bytes vs cores.csv:", "agree" if dma == totals[core] else f"dma {dma}, csv {totals[core]}")
batch1 = [e for e in layers if e["args"]["batch"] == 1]
idle = [e["name"] for e in spans[("core_1", "compute array")] if e["ts"] < batch1[-1]["ts"] + batch1[-1]["dur"] - eps]
print("core_1 at batch 1:", " ".join(sorted(set(idle))), len(idle), "spans for", len(batch1), "layers")
EOF2
}
summary=$(chip_summary "$work/chip.json" "$work/chip")
same "two cores' timeline" "$summary" "processes: accelerator small, model mlp | core | core_1 | DRAM ddr4-2400
accelerator small, model mlp: layers
core: compute array | DMA load | DMA store
core_1: compute array | DMA load | DMA store
DRAM ddr4-2400: DRAM channel 0 | DRAM channel 1
tids unique: True
cores in otherData: 2
array spans vs cores.csv: agree
core DMA bytes vs cores.csv: agree
core_1 DMA bytes vs cores.csv: agree
core_1 at batch 1: sync 5 spans for 5 layers"
# Every layer split over the two cores: both work on batch 1, and the spans still add up to cores.csv.
expect 0 "two cores, layers split, with --timeline" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" \
  --model "$SRC/models/mlp.yaml" --batch 1,3 --set dram.channels=2 --set cores.count=2 --set cores.partition=layers \
  --out "$work/split" --timeline "$work/split.json"
summary=$(chip_summary "$work/split.json" "$work/split")
contains "a split chip's spans" "$summary" "array spans vs cores.csv: agree"
contains "a split chip's bytes" "$summary" "core_1 DMA bytes vs cores.csv: agree"
contains "core_1 computes at batch 1" "$summary" "core_1 at batch 1: compute"
# cores.count 1 is the chip without the key: the same file, byte for byte.
expect 0 "one core given as cores.count=1" -- run --set cores.count=1 --timeline "$work/one_core.json"
checks=$((checks + 1))
cmp -s "$work/a.json" "$work/one_core.json" || { echo "FAIL: cores.count=1 changed the timeline"; failures=$((failures + 1)); }

expect 0 "run --help" -- "$REUSESIM" run --help
contains "run help names --timeline" "$out" "--timeline arg"
# A path that cannot be written fails before the simulation, and leaves nothing behind.
expect 2 "timeline into a missing directory" -- run --timeline "$work/no/such/dir.json"
same "timeline error message" "$err" "reusesim run: error: --timeline: cannot write $work/no/such/dir.json.partial: No such file or directory"
same "no results printed" "$out" ""
same "nothing left behind" "$(ls "$work/no" 2>/dev/null | wc -l)" "0"
finish
