#!/usr/bin/env bash
# System files on the command line: `check` tells one by its `chips:` and loads its chip with it;
# overrides reach the system, and under chip. its chip; every problem is a clear error, exit 2.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

S=$SRC/configs/systems/a100_nvlink8.yaml

# Every shipped system loads with its chip and says what it is; a file missing here fails.
shipped=("a100_dgx_x2:16 x a100 (switch in each of 2 nodes of 8, a network between them)" "a100_nvlink8:8 x a100 (switch)" "tpu_v4_8:8 x tpu_v4 (torus)" "tpu_v4_64:64 x tpu_v4 (torus)"
  "wormhole_8:8 x wormhole_n150 (ring)")
files=("$SRC"/configs/systems/*.yaml)
same "every shipped system listed" "${#files[@]}" "${#shipped[@]}"
for entry in "${shipped[@]}"; do
  name=${entry%%:*}
  expect 0 "shipped $name" -- "$REUSESIM" check "$SRC/configs/systems/$name.yaml"
  same "shipped $name" "$out" "$SRC/configs/systems/$name.yaml: ok: system $name, ${entry#*:}"
done
# The 2 x 2 x 2 slice uses 3 of a chip's 6 ICI links, one to each neighbour; its 6 would pair them
# up, which spreads evenly too (2 a neighbour); 5 do not.
expect 0 "6 links over the slice's 3 neighbours" -- "$REUSESIM" check "$SRC/configs/systems/tpu_v4_8.yaml" \
  --set links.per_chip=6
expect 2 "5 links over the slice's 3 neighbours" -- "$REUSESIM" check "$SRC/configs/systems/tpu_v4_8.yaml" \
  --set links.per_chip=5
contains "uneven over a 2 x 2 x 2" "$err" "error: links.per_chip: 5 links do not spread evenly over a chip's 3 neighbours (torus): give a multiple of 3"
expect 0 "--kind system" -- "$REUSESIM" check --kind system "$S" --set chips=4 --set chip.compute.clock_mhz=1000
same "overrides" "$out" "$S: ok: system a100_nvlink8, 4 x a100 (switch)"

# A ring of 8 spreads a chip's links over its 2 neighbours: 12 do, 5 do not.
expect 0 "a ring of 8" -- "$REUSESIM" check "$S" --set topology=ring
expect 2 "5 links over 2 neighbours" -- "$REUSESIM" check "$S" --set topology=ring --set links.per_chip=5
contains "uneven links" "$err" "error: links.per_chip: 5 links do not spread evenly over a chip's 2 neighbours (ring): give a multiple of 2"
expect 2 "a torus without dimensions" -- "$REUSESIM" check "$S" --set topology=torus
contains "torus dimensions" "$err" "error: torus_dimensions: a torus needs its dimensions"
expect 2 "a chip problem" -- "$REUSESIM" check "$S" --set chip.compute.clock_mhz=-1
same "the override as given" "$err" "--set chip.compute.clock_mhz=-1: error: compute.clock_mhz: expected a number from 1 to 100000, got -1"
expect 2 "a chip file's own problem" -- "$REUSESIM" check "$S" --set chip=../small.yaml --set chip.compute.clock_mhz=1000 \
  --set chip.cores.count=0
contains "the chip file's problem" "$err" "error: cores.count"

# run takes a system: GPT-2's decode step (one decoder layer, 64 cached tokens) tensor-parallel over
# 2 A100s on the switch.
L=(--model "$SRC/models/gpt2.yaml" --phase decode --context 64 --set model.parameters.layers=1)
T=$(mktemp -d)
expect 0 "tensor parallel over 2 chips" -- "$REUSESIM" run --arch "$S" "${L[@]}" --set chips=2 --set plan.tensor=2 \
  --out "$T/a100"
same "the header" "$(head -1 <<<"$out")" "system a100_nvlink8, model gpt2: 2 chips, tensor parallel over 2"
same "system.csv: chips, tensor_parallel" "$(csv_col chips,tensor_parallel "$T/a100/system.csv")" "2,2"
# Chip 0's files as a run of the chip writes them: an a100 has 108 cores, so cores.csv too.
same "chip 0's cores" "$(csv_col core "$T/a100/cores.csv" | sort -un | tail -1)" "107"
# Each chip sends a chunk in each of the ring's two phases: an all-reduce of 768 two-byte elements
# (after add_1 and add_2; the model ends at its final layernorm, whole on each chip) sends 2 x 768 B.
for chip in 0 1; do
  same "collectives.csv: chip $chip's bytes" "$(csv_col collective,sent_bytes --where chip=$chip "$T/a100/collectives.csv")" \
    "h/add_1: ring all-reduce of 1536 B over chips 0,1,1536
h/add_2: ring all-reduce of 1536 B over chips 0,1,1536"
done
# Each chip's link up to the switch carries what it sent (2 x 1,536 B), its link down what it received.
same "chip_links.csv" "$(csv_col link,bytes "$T/a100/chip_links.csv")" "chip0 -> switch,3072
switch -> chip0,3072
chip1 -> switch,3072
switch -> chip1,3072"

# Pipeline and tensor parallel: 4 GPT-2 decoder layers in 2 stages of 2 chips, batch 4 in 2
# micro-batches: each stage-0 chip sends each micro-batch's 2 x 768 two-byte features to its
# stage-1 counterpart.
G=(--set model.parameters.layers=4 --set chips=4 --set plan.tensor=2 --set plan.pipeline=2 --set plan.micro_batches=2)
expect 0 "2 stages of 2 chips" -- "$REUSESIM" run --arch "$S" "${L[@]}" "${G[@]}" --batch 4 --out "$T/pipeline"
same "system.csv: the plan" "$(csv_col chips,tensor_parallel,pipeline_stages,micro_batches "$T/pipeline/system.csv")" "4,2,2,2"
same "chip 1's transfers" "$(csv_col collective,sent_bytes --where chip=1 "$T/pipeline/collectives.csv" | grep transfer)" \
  "micro-batch 0 to stage 1: transfer of 3072 B from chip 1 to chip 3,3072
micro-batch 1 to stage 1: transfer of 3072 B from chip 1 to chip 3,3072"
expect 2 "micro-batches that do not make the batch" -- "$REUSESIM" run --arch "$S" "${L[@]}" "${G[@]}" --batch 3
contains "micro-batches" "$err" "plan.micro_batches: 2 equal micro-batches do not make a replica's batch of 3"
expect 2 "a plan short of the chips" -- "$REUSESIM" run --arch "$S" "${L[@]}" --set plan.tensor=2 --set plan.pipeline=2
contains "every chip" "$err" "error: plan: tensor x pipeline x data is 2 x 2 x 1 = 4 chips, but the system has 8: a plan takes every chip"

# Two one-core chips (configs/small.yaml) on a ring: chip 1 is replayed as chip 0's twin, which
# gives the files that replaying it on its own gives, byte for byte.
printf 'name: two_small\nchip: %s\nchips: 2\nlinks: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 500}\nplan: {tensor: 2}\n' \
  "$SRC/configs/small.yaml" > "$T/two_small.yaml"
expect 0 "twins" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" --batch 4 --out "$T/twins"
contains "twins, said" "$out" "(chips that run what another runs replayed as its twins: the same result as replaying each)"
expect 0 "every chip replayed" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" --batch 4 \
  --every-chip --out "$T/every"
for f in system.csv collectives.csv chip_links.csv results.csv; do
  same "--every-chip: $f" "$(cmp "$T/twins/$f" "$T/every/$f" && echo same)" "same"
done
# --timeline on a system: chip 0's tracks as its chip's run draws them, a track per chip of its
# segments, and one per link that carried data, named as chip_links.csv names it: on a ring of two,
# both directions carry the all-reduce's chunks.
expect 0 "timeline" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" --batch 4 \
  --timeline "$T/twins.json"
tracks=$(python3 -c '
import json, sys
trace = json.load(open(sys.argv[1]))
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
processes = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"}
busy = sorted({names[(e["pid"], e["tid"])] for e in trace["traceEvents"] if e["ph"] == "X" and processes[e["pid"]] == sys.argv[2]})
print(",".join(busy))' "$T/twins.json" "links between chips")
same "timeline: the links' tracks" "$tracks" "$(csv_col link "$T/twins/chip_links.csv" | sort | paste -sd,)"
same "timeline: the links' tracks by name" "$tracks" "chip0 -> chip1,chip1 -> chip0"
segments=$(python3 -c '
import json, sys
trace = json.load(open(sys.argv[1]))
print(",".join(sorted({e["name"] for e in trace["traceEvents"] if e["ph"] == "X" and e.get("cat") == "link program"})))' \
  "$T/twins.json")
same "timeline: chip segments are the collectives" "$segments" \
  "$(csv_col collective "$T/twins/collectives.csv" | sort -u | paste -sd,)"
# Chip 1's tracks are its own with twins too: replaying it draws the same file.
expect 0 "timeline, every chip" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" --batch 4 \
  --every-chip --timeline "$T/every.json"
same "timeline: twins == every chip" "$(cmp "$T/twins.json" "$T/every.json" && echo same)" "same"
# A path that cannot be written fails before the simulation, as one chip's run does.
expect 2 "timeline: a path that cannot be written" -- "$REUSESIM" run --arch "$T/two_small.yaml" \
  --model "$SRC/models/mlp.yaml" --timeline "$T/missing/t.json"
same "timeline: unwritable" "$err" "reusesim run: error: --timeline: cannot write $T/missing/t.json.partial: No such file or directory"
same "timeline: nothing printed" "$out" ""

# Two batches through a pipeline: every chip finishes a batch before any starts the next, so chip
# 0 sends the second batch's first micro-batch (its layers done) after the first batch's end; chip
# 0's layers show a block (and a TOTAL) per batch.
P=(--set plan.tensor=1 --set plan.pipeline=2 --set plan.micro_batches=2)
expect 0 "two batches through 2 stages" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 4,4 "${P[@]}" --out "$T/batches"
first_end=$(csv_col time_s "$T/batches/system.csv" | head -1)
second_send=$(csv_col start_s --where chip=0 "$T/batches/collectives.csv" | sed -n 3p)
same "the second batch after the first" "$(python3 -c "print($second_send > $first_end)")" "True"
same "a TOTAL per batch" "$(csv_col layer "$T/batches/results.csv" | grep -c TOTAL)" "2"

# Data parallel: the MLP's batch of 4 as 2 replicas of 2 samples, no collectives in inference;
# replica 1 replayed as replica 0's twin, the same files as replaying it.
D=(--set plan.tensor=1 --set plan.data=2)
expect 0 "2 replicas" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" --batch 4 "${D[@]}" \
  --out "$T/data"
same "data: the plan" "$(csv_col tensor_parallel,data_parallel,collectives_s "$T/data/system.csv")" "1,2,0"
same "data: chip 0's batch" "$(csv_col batch --where layer=TOTAL "$T/data/results.csv")" "2"
expect 0 "2 replicas, every chip" -- "$REUSESIM" run --arch "$T/two_small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 4 "${D[@]}" --every-chip --out "$T/data_every"
same "data: twins == every chip" "$(cmp "$T/data/system.csv" "$T/data_every/system.csv" && echo same)" "same"
expect 2 "replicas that do not share the batch" -- "$REUSESIM" run --arch "$T/two_small.yaml" \
  --model "$SRC/models/mlp.yaml" --batch 3 "${D[@]}"
contains "replicas" "$err" "plan.data: 2 replicas do not share a batch of 3 evenly"
# Not a transformer: no tokens a second.
same "mlp: tokens_per_s" "$(csv_col tokens_per_s "$T/twins/system.csv")" ""

# A system of one chip runs as its chip's file does, byte for byte.
expect 0 "one chip" -- "$REUSESIM" run --arch "$S" "${L[@]}" --set chips=1 --out "$T/one"
one_out=$out
expect 0 "the chip's file" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" "${L[@]}" --out "$T/chip"
same "one chip: standard output" "$one_out" "$out"
for f in results.csv results.json dram_channels.csv config.json stats.txt; do
  same "one chip: $f" "$(cmp "$T/one/$f" "$T/chip/$f" && echo same)" "same"
done
# Its timeline too (the MLP on small: a short replay).
expect 0 "one chip: timeline" -- "$REUSESIM" run --arch "$T/two_small.yaml" --set chips=1 --set plan.tensor=1 \
  --model "$SRC/models/mlp.yaml" --timeline "$T/one.json"
expect 0 "the chip's file: timeline" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --timeline "$T/chip.json"
same "one chip: timeline" "$(cmp "$T/one.json" "$T/chip.json" && echo same)" "same"
rm -rf "$T"

# What a system's run cannot take is a clear error.
expect 2 "no plan" -- "$REUSESIM" run --arch "$S" --model "$SRC/models/mlp.yaml"
contains "no plan: what to add" "$err" "reusesim run: error: $S: a system of 8 chips runs a model by its plan: add e.g. plan: {tensor: 8} or give --set plan.tensor=8 (or plan.pipeline)"
expect 2 "heads that do not divide" -- "$REUSESIM" run --arch "$S" "${L[@]}" --set chips=5 --set plan.tensor=5
contains "heads" "$err" "plan.tensor: 5 chips cannot split layer h/scores (matmul): 12 heads do not divide among the chips"
expect 2 "training on a system" -- "$REUSESIM" run --arch "$S" --model "$SRC/models/mlp.yaml" --mode train --optimizer sgd \
  --set plan.tensor=8
contains "inference" "$err" "--mode train: a system of 8 chips ($S) runs inference so far"
expect 2 "--every-chip on one accelerator" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" --model "$SRC/models/mlp.yaml" --every-chip
contains "not a system" "$err" "--every-chip applies to a system file; $SRC/configs/a100.yaml is not one"

# Two levels: 2 nodes of 2 small chips on a switch each (25 GB/s, 500 ns a hop), the nodes on a
# 5 GB/s network (2 us a hop); the MLP tensor-parallel over all 4, so the ring 0 -> 1 -> 2 -> 3 -> 0
# crosses the network at 1 -> 2 and 3 -> 0. fc2's all-reduce of 400 B: chunks of 100 B, a step
# within a node 2 x 0.5 us + 100 B / 25 GB/s = 1.004 us, across 2 x 2 us + 100 B / 5 GB/s = 4.020 us,
# a reduction of 25 elements 7 cycles at 1 GHz. Every chip's chain alternates the two, so the last
# chunk arrives after 3 steps across, 3 within and 3 reductions: 3 x 4.020 + 3 x 1.004 + 3 x 0.007 =
# 15.093 us. Each network link moves 2 (n - 1) / n of each all-reduce (600 B of 400 x 2) and
# (n - 1) / n of fc5's all-gather of 40 B (30 B): 1,230 B in 15 transfers, busy 1,230 B / 5 GB/s = 246 ns.
printf 'name: nodes\nchip: %s\nchips: 4\ntopology: switch\nlinks: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 500}\nnodes: {chips_per_node: 2, network: {per_chip: 1, bandwidth_gbps: 5, latency_ns: 2000}}\nplan: {tensor: 4}\n' \
  "$SRC/configs/small.yaml" >"$work/nodes.yaml"
expect 0 "two levels" -- "$REUSESIM" run --arch "$work/nodes.yaml" --model "$SRC/models/mlp.yaml" --batch 4 --out "$work/nodes" \
  --timeline "$work/nodes.json"
same "an all-reduce across nodes" "$(csv_col chip,time_s <"$work/nodes/collectives.csv" | grep -c '^[0-3],1.5093e-05$')" 8
same "the network's links" "$(csv_col link,transfers,bytes,busy_s <"$work/nodes/chip_links.csv" | grep network | grep -v ',0,0,0$')" \
  "network -> chip0,15,1230,2.46e-07
chip1 -> network,15,1230,2.46e-07
network -> chip2,15,1230,2.46e-07
chip3 -> network,15,1230,2.46e-07"
same "a node's switch" "$(csv_col bytes,busy_s --where link='chip0 -> node0 switch' <"$work/nodes/chip_links.csv")" "1230,4.92e-08"
# The timeline holds a network link for a 100 B chunk 100 B / 5 GB/s = 20 ns, a node's for 4 ns.
same "spans at each link's rate" "$(/usr/bin/python3 -c 'import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
rates = sorted({(names[(e["pid"], e["tid"])].split(" -> ")[0] == "network" or names[(e["pid"], e["tid"])].endswith("network"),
                 e["dur"], e["args"]["gbps"]) for e in events if e.get("cat") == "chip link" and e["args"]["bytes"] == 100})
print(rates)' "$work/nodes.json")" "[(False, 0.004, 25.0), (True, 0.02, 5.0)]"
expect 2 "nodes that do not divide the chips" -- "$REUSESIM" run --arch "$work/nodes.yaml" --model "$SRC/models/mlp.yaml" --set nodes.chips_per_node=3
contains "says so" "$err" "error: nodes.chips_per_node: nodes of 3 chips do not make the system's 4: give a divisor of chips"

# plan.all_reduce: tree. 4 small chips on a switch (25 GB/s, 500 ns a hop), the MLP tensor-parallel,
# 1-byte elements: fc2's all-reduce of 400 B whole up a binary tree 0 <- {1, 2}, 1 <- {3} and back.
# A transfer: 2 x 0.5 us + 400 B / 25 GB/s = 1.016 us; a reduction of 400 elements on 16 lanes 25 ns.
# Chip 1 gets chip 3's at 1.016, adds by 1.041, chip 0 has it at 2.057 and chip 2's since 1.016:
# done adding at 2.057 + 2 x 0.025 = 2.107 us, when it sends the total to 1 (there at 3.123) and to 2
# behind it on its one bundle up (16 ns later: 3.139); chip 1 passes it to 3 (there at 4.139).
printf 'name: four\nchip: %s\nchips: 4\ntopology: switch\nlinks: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 500}\nplan: {tensor: 4, all_reduce: tree}\n' \
  "$SRC/configs/small.yaml" >"$work/tree.yaml"
expect 0 "tree all-reduces" -- "$REUSESIM" run --arch "$work/tree.yaml" --model "$SRC/models/mlp.yaml" --batch 4 --out "$work/tree"
same "each chip's part of the tree" "$(csv_col chip,time_s,reduce_cycles <"$work/tree/collectives.csv" | grep -n . | sed -n '1p;4p;7p;10p')" \
  "1:0,2.107e-06,50
4:1,3.123e-06,25
7:2,3.139e-06,0
10:3,4.139e-06,0"
# A tree's ranks do different steps: no chip is another's twin (the header would say so).
same "not twins" "$(head -1 <<<"$("$REUSESIM" run --arch "$work/tree.yaml" --model "$SRC/models/mlp.yaml" --batch 4)")" \
  "system four, model mlp: 4 chips, tensor parallel over 4"
expect 2 "an all-reduce that is neither" -- "$REUSESIM" run --arch "$work/tree.yaml" --model "$SRC/models/mlp.yaml" --set plan.all_reduce=star
contains "the choices" "$err" "error: plan.all_reduce: expected one of ring, tree"

finish
