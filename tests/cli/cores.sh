#!/usr/bin/env bash
# End-to-end checks of a chip of several cores (cores.count; docs/accelerator-format.md, "Cores"):
# cores.csv and its legend, each core's compute + stall + sync cycles adding up to its layer's,
# the batch's samples split over the cores (data parallel) or every layer split (model parallel),
# MACs adding up, the chip's peak in results.json, and clear refusals of what describes one core
# only (--dump-program, replay, training).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

small=$SRC/configs/small.yaml
mlp=$SRC/models/mlp.yaml

expect 0 "three cores" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 4 --format csv --set cores.count=3 \
  --set cores.partition=samples --out "$work/chip"
# mlp: 5 layers x 3 cores; batch 4 split 2 + 1 + 1.
same "one row per layer and core" "$(csv_col core "$work/chip/cores.csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" \
  " 5 0; 5 1; 5 2;"
same "the samples split 2 + 1 + 1" "$(csv_col samples --where layer=fc1 "$work/chip/cores.csv" | tr '\n' ' ')" "2 1 1 "
same "each core's cycles add up to its layer's" "$(python3 - "$work/chip" <<'PY'
import csv, sys
layers = {r["layer"]: r for r in csv.DictReader(open(sys.argv[1] + "/results.csv"))}
bad = [r for r in csv.DictReader(open(sys.argv[1] + "/cores.csv"))
       if int(r["compute_cycles"]) + int(r["stall_cycles"]) + int(r["sync_cycles"]) != int(layers[r["layer"]]["cycles"])]
print(len(bad))
PY
)" "0"
same "the cores' MACs are the layer's" "$(python3 - "$work/chip" <<'PY'
import csv, sys
layers = {r["layer"]: int(r["macs"]) for r in csv.DictReader(open(sys.argv[1] + "/results.csv")) if r["layer"] != "TOTAL"}
cores = {}
for r in csv.DictReader(open(sys.argv[1] + "/cores.csv")):
    cores[r["layer"]] = cores.get(r["layer"], 0) + int(r["macs"])
print(cores == layers)
PY
)" "True"
# small: 16 x 16 at 1 GHz = 512 Gops/s a core; three cores 1,536.
same "the chip's peak counts every core" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_gops"])' "$work/chip/results.json")" "1536.0"
# configs/simba.yaml: 36 chiplets x 16 PEs x 8 x 8 MACs x 2 ops x 1.733 GHz = 127,770.624 Gops/s;
# its NoP a 6 x 6 mesh, so every link that moved data joins grid neighbours (no wrap-around).
expect 0 "simba" -- "$REUSESIM" run --arch "$SRC/configs/simba.yaml" --model "$mlp" --batch 1,4 --format csv --out "$work/simba"
same "simba's peak" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_gops"])' "$work/simba/results.json")" "127770.624"
same "simba's links join neighbours" "$(csv_col link "$work/simba/noc_links.csv" | sort -u | python3 -c '
import sys
links = [[int(n.strip("n")) for n in l.split(" -> ")] for l in sys.stdin.read().split("\n") if l]
print(len(links) > 0, sum(abs(a % 6 - b % 6) + abs(a // 6 - b // 6) != 1 for a, b in links))')" "True 0"
contains "stats.txt explains cores.csv" "$(cat "$work/chip/stats.txt")" "cores.csv sync_cycles: after the core's last step"
contains "the mapping says how the batch is split" "$(csv_col mapping --where layer=fc1 "$work/chip/results.csv")" \
  "; data parallel over 3 cores: 2 + 1 + 1 samples"
same "config.json keeps the cores" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cores"])' "$work/chip/config.json")" "{'count': 3, 'partition': 'samples'}"

# Batch 1 on three cores, the partition the mapper's: data parallel would leave two cores idle, so
# every layer is split; fc1 (1000 -> 100) over K: 333 + 333 + 334 of its 1,000 inputs, each core
# all 100 columns (7 column tiles of small's 16), then each reduces its third of the outputs. By
# columns, 33 + 33 + 34 would take 3 column tiles a core (48 columns' worth) over all of K.
expect 0 "batch 1 on three cores" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=3 --out "$work/split"
same "fc1's K over the cores" "$(csv_col part --where layer=fc1 "$work/split/cores.csv" | tr '\n' ';')" \
  "k 0..332 of 1000;k 333..665 of 1000;k 666..999 of 1000;"
same "every core works on the sample" "$(csv_col samples --where layer=fc1 "$work/split/cores.csv" | tr '\n' ' ')" "1 1 1 "
contains "the mapping says how the layer is split and why" "$(csv_col mapping --where layer=fc1 "$work/split/results.csv")" \
  "; then reduces outputs 0..32 over the 3 cores' partial sums in 1 chunk; split over 3 cores by k (chosen by the network's estimate: data parallel"
# Pinned to columns (the model's partition), fc1 splits by its 100 columns: 33 + 33 + 34.
sed 's/name: fc1, type: linear, out_features: 100,/name: fc1, type: linear, out_features: 100, partition: columns,/' "$mlp" >"$work/mlp_columns.yaml"
expect 0 "fc1 pinned to columns" -- "$REUSESIM" run --arch "$small" --model "$work/mlp_columns.yaml" --set cores.count=3 --out "$work/columns"
same "fc1's columns over the cores" "$(csv_col part --where layer=fc1 "$work/columns/cores.csv" | tr '\n' ';')" \
  "columns 0..32 of 100;columns 33..65 of 100;columns 66..99 of 100;"
same "config.json leaves the partition to the mapper" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cores"])' "$work/split/config.json")" "{'count': 3}"
expect 2 "an unknown partition" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=3 --set cores.partition=rows
contains "the partition's choices" "$err" "cores.partition: expected one of auto, samples, layers, got \"rows\""
expect 0 "one core writes no cores.csv" -- "$REUSESIM" run --arch "$small" --model "$mlp" --out "$work/one"
same "no cores.csv on one core" "$(ls "$work/one" | grep -c cores)" "0"

expect 2 "zero cores" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=0
contains "zero cores is out of range" "$err" "cores.count: expected a positive integer, got 0"
expect 2 "dump of a chip" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=2 --dump-program "$work/p"
contains "the dump refuses a chip" "$err" "--dump-program writes one core's programs"
expect 2 "replay on a chip" -- "$REUSESIM" replay --arch "$small" --program /dev/null --set cores.count=2
contains "replay refuses a chip" "$err" "is replayed by \`run\` only"
expect 2 "the fast mode on a chip" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=2 --fidelity fast
contains "the fast mode refuses a chip" "$err" "--fidelity fast models one core's DRAM streams: a chip of 2 cores (cores.count) runs exact"
expect 2 "training on a chip" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=2 --mode train --optimizer sgd
contains "training refuses a chip" "$err" "a training step is mapped on one core"
same "no file left behind" "$(ls "$work" | grep -c '^p$')" "0"

# A shared memory (docs/accelerator-format.md, "Shared memory"): three cores data parallel at batch 3
# map each sample as one core maps batch 1, and read the one copy of every weight; with 1 MiB in
# front of the DRAM the DRAM reads each weight once, as one core does, and the shared memory serves
# the other two cores, while the loads' bytes (the DRAM's and the shared memory's) stay three times
# one core's.
l2=(--set shared_memory.name=l2 --set shared_memory.capacity_kib=1024 --set shared_memory.line_bytes=128
  --set shared_memory.banks=8 --set shared_memory.bank_width_bytes=32 --set shared_memory.clock_mhz=1000)
expect 0 "one core with a shared memory" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 1 "${l2[@]}" \
  --out "$work/one"
expect 0 "three cores with a shared memory" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 3 \
  --set cores.count=3 --set cores.partition=samples "${l2[@]}" --out "$work/l2"
same "the DRAM reads each weight once, the loads are three cores'" "$(python3 - "$work" <<'PY'
import csv, sys
one = {r["layer"]: r for r in csv.DictReader(open(sys.argv[1] + "/one/results.csv"))}
loads = lambda r: int(r["dram_read_bytes"]) + int(r["shared_read_bytes"])
bad = [r["layer"] for r in csv.DictReader(open(sys.argv[1] + "/l2/results.csv"))
       if r["dram_read_weight_bytes"] != one[r["layer"]]["dram_read_weight_bytes"] or loads(r) != 3 * loads(one[r["layer"]])]
print(bad, sum(int(r["shared_read_bytes"]) > 0 for r in csv.DictReader(open(sys.argv[1] + "/l2/results.csv"))))
PY
)" "[] 6"
expect 0 "three cores without a shared memory" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 3 \
  --set cores.count=3 --set cores.partition=samples --out "$work/direct"
contains "stats.txt explains shared_read_bytes" "$(cat "$work/l2/stats.txt")" "shared_read_bytes (a chip with a shared memory"
contains "config.json keeps the shared memory" "$(cat "$work/l2/config.json")" '"shared_memory": {'
same "a chip without one has no shared_read_bytes column" "$(head -1 "$work/direct/results.csv" | grep -c shared_read_bytes)" "0"
# A network-on-chip (docs/accelerator-format.md, "Network-on-chip"). One core on a 1 x 1 mesh whose
# memory sits on its own node crosses no link: its results equal the run without a network. Four
# cores on a 2 x 2 mesh, the memory on node 3: the cores on nodes 1 and 2 are a hop away, node 0
# two; every read's data reaches node 0 over a link into it (n1 -> n0 or n2 -> n0: XY routes go
# along the row first, so from node 3 through node 2), so the links into node 0 carry what core 0
# loaded. Each TOTAL row adds its batch's layer rows up link by link.
noc=(--set noc.topology=mesh --set noc.link_bytes=16 --set noc.clock_mhz=1000 --set noc.router_latency_cycles=2)
expect 0 "one core on its memory's node" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 2 \
  "${noc[@]}" --set noc.columns=1 --set noc.rows=1 --set noc.memory_nodes=0 --out "$work/noc1"
expect 0 "one core without a network" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 2 --out "$work/nonoc"
# (the network's table has its energy_noc_uj column, empty without a technology, and its
# stall_noc_cycles, all 0 here, besides the others)
same "a network the data never crosses changes no result, and stalls nothing" "$(python3 - "$work" <<'PY'
import csv, sys
noc = list(csv.DictReader(open(sys.argv[1] + "/noc1/results.csv")))
plain = list(csv.DictReader(open(sys.argv[1] + "/nonoc/results.csv")))
extra = ("multicast_read_bytes", "stall_noc_cycles", "energy_noc_uj")
print([{k: v for k, v in r.items() if k not in extra} for r in noc] == plain, {r["stall_noc_cycles"] for r in noc},
      {r["multicast_read_bytes"] for r in noc}, {r["energy_noc_uj"] for r in noc})
PY
)" "True {'0'} {'0'} {''}"
same "nor moves a byte on a link" "$(wc -l < "$work/noc1/noc_links.csv")" "1"
expect 0 "four cores on a 2 x 2 mesh" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 4 \
  --set cores.count=4 --set cores.partition=samples "${noc[@]}" --set noc.columns=2 --set noc.rows=2 \
  --set noc.memory_nodes=3 --out "$work/noc4"
same "core 0's loads come in over n2 -> n0, the totals add up" "$(python3 - "$work/noc4" <<'PY'
import csv, sys
links = list(csv.DictReader(open(sys.argv[1] + "/noc_links.csv")))
cores = list(csv.DictReader(open(sys.argv[1] + "/cores.csv")))
into0 = sum(int(r["bytes"]) for r in links if r["layer"] != "TOTAL" and r["link"].endswith("-> n0"))
core0 = sum(int(r["dram_read_bytes"]) for r in cores if r["core"] == "0")
sums = {}
for r in links:
    if r["layer"] != "TOTAL":
        sums[r["link"]] = sums.get(r["link"], 0) + int(r["bytes"])
totals = {r["link"]: int(r["bytes"]) for r in links if r["layer"] == "TOTAL"}
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
print(into0 == core0 > 0, sorted({r["link"] for r in links if r["link"].endswith("-> n0")}), sums == totals,
      int([r for r in rows if r["layer"] == "TOTAL"][0]["stall_noc_cycles"]) > 0)
PY
)" "True ['n2 -> n0'] True True"
# With noc.multicast the four cores' reads of the same weights (data parallel: each core loads
# every weight) join the first one still waiting for the memory: the DRAM reads less, and what it
# no longer reads comes as copies (the programs are the same, so the loads' bytes add up as before).
expect 0 "four cores, multicast" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 4 \
  --set cores.count=4 --set cores.partition=samples "${noc[@]}" --set noc.columns=2 --set noc.rows=2 \
  --set noc.memory_nodes=3 --set noc.multicast=true --out "$work/noc4m" --timeline "$work/noc4m.json"
same "multicast: copies replace DRAM reads byte for byte, and the links carry less" "$(python3 - "$work" <<'PY'
import csv, sys
def total(run, column):
    rows = list(csv.DictReader(open(sys.argv[1] + "/" + run + "/results.csv")))
    return int([r for r in rows if r["layer"] == "TOTAL"][0][column])
def carried(run):
    return sum(int(r["bytes"]) for r in csv.DictReader(open(sys.argv[1] + "/" + run + "/noc_links.csv"))
               if r["layer"] == "TOTAL")
copies = total("noc4m", "multicast_read_bytes")
print(copies > 0, total("noc4m", "dram_read_bytes") + copies == total("noc4", "dram_read_bytes"),
      total("noc4", "multicast_read_bytes"), carried("noc4m") < carried("noc4"))
PY
)" "True True 0 True"
same "each core's stalls split by cause, the network's among them" "$(python3 - "$work/noc4m" <<'PY'
import csv, sys
causes = ["stall_weights_cycles", "stall_inputs_cycles", "stall_output_drain_cycles", "stall_sram_cycles",
          "stall_vector_cycles", "stall_noc_cycles"]
cores = list(csv.DictReader(open(sys.argv[1] + "/cores.csv")))
print(all(int(r["stall_cycles"]) == sum(int(r[c]) for c in causes) for r in cores),
      sum(int(r["stall_noc_cycles"]) for r in cores) > 0)
PY
)" "True True"
# The timeline has a track per link that moved data, its spans' transfers adding up to the link's
# in noc_links.csv.
same "a timeline track per busy link" "$(python3 - "$work" <<'PY'
import csv, json, sys
events = json.load(open(sys.argv[1] + "/noc4m.json"))["traceEvents"]
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
tracks = {}
for e in events:
    if e.get("ph") == "X" and e.get("cat") == "noc":
        name = threads[(e["pid"], e["tid"])]
        tracks[name] = tracks.get(name, 0) + e["args"]["transfers"]
links = {"link " + r["link"]: int(r["transfers"]) for r in csv.DictReader(open(sys.argv[1] + "/noc4m/noc_links.csv"))
         if r["layer"] == "TOTAL"}
print(tracks == links, len(links) > 0)
PY
)" "True True"
contains "config.json keeps multicast" "$(cat "$work/noc4m/config.json")" '"multicast": true'
contains "stats.txt explains noc_links.csv" "$(cat "$work/noc4/stats.txt")" "noc_links.csv waited_cycles: NoC clocks"
contains "config.json keeps the network" "$(cat "$work/noc4/config.json")" '"noc": {'
expect 2 "a grid too small for the cores" -- "$REUSESIM" run --arch "$small" --model "$mlp" --set cores.count=4 \
  "${noc[@]}" --set noc.columns=3 --set noc.rows=1 --set noc.memory_nodes=0
contains "names the key and the cores" "$err" "noc.columns: a grid of 3 x 1 nodes for 4 cores"
finish
