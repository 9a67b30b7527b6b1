#!/usr/bin/env bash
# One network of models/ at batch 1 and 16 on one accelerator config: `reusesim run` checks on
# every layer that the replayed MACs equal the analysis, the DRAM bytes equal the program's, and
# on every row (TOTAL too) that cycles = compute_cycles + stall_cycles and no rate passes its roof,
# and exits 3 naming the row if not. The rows it wrote are checked here again, as printed: on every
# row cycles = compute_cycles + stall_cycles = compute_cycles + the stall_*_cycles, no count below
# 0, dram_gbps no more than the memory's peak, gops no more than the compute peak, and the row's
# point on the figure (x = arithmetic_intensity, y = ops over dram_span_s) under both roofs.
# The same run with --fidelity fast must keep those invariants, move the same bytes and MACs, and
# stay within the fast mode's bound (scripts/fidelity compare).
# Usage (ctest sets REUSESIM and SRC): invariants.sh CONFIG MODEL [RUN OPTION]... (MODEL a name in
# models/; the options, e.g. --set model.parameters.layers=2, go to `reusesim run`).
# With REUSESIM_INVARIANT_LAYERS=per-type (the sanitizer build sets it, docs/sanitizers.md) only the
# first layer of each type is replayed, mapped as it runs in the whole network: every code path of
# the replay, without the hours a whole network takes under the sanitizers.
set -u
source "$(dirname "$0")/lib.sh"
config=$1
model=$2
layers=()
if [ "${REUSESIM_INVARIANT_LAYERS:-all}" = per-type ]; then
  # analyze takes the model's --set without the "model." prefix run needs, and no layer selection
  # (run intersects --layer-types with the --layers chosen here). The options come in pairs.
  analyze_options=()
  options=("${@:3}")
  for ((i = 0; i + 1 < ${#options[@]}; i += 2)); do
    if [ "${options[i]}" = --set ]; then analyze_options+=(--set "${options[i + 1]/#model./}"); fi
  done
  expect 0 "$config $model analyze" -- "$REUSESIM" analyze --model "$SRC/models/$model.yaml" --format csv "${analyze_options[@]}"
  first_of_each_type=$(csv_col layer,type <<<"$out" | awk -F, '$1 != "TOTAL" && !seen[$2]++ { print $1 }' | paste -sd,)
  layers=(--layers "$first_of_each_type")
fi
expect 0 "$config $model" -- "$REUSESIM" run --arch "$SRC/configs/$config.yaml" --model "$SRC/models/$model.yaml" --batch 1,16 --format csv --out "$work/run" "${layers[@]}" "${@:3}"
contains "$config $model total rows" "$out" "16,TOTAL,"
checks=$((checks + 1))
/usr/bin/python3 - "$work/run/results.json" <<'PYTHON' || failures=$((failures + 1))
import json, sys
document = json.load(open(sys.argv[1]))
peak_gops, peak_gbps = document["peak_gops"], document["peak_dram_gbps"]  # peak_dram_gbps null: unlimited
# Cells carry 10 significant digits: a rate may print up to 1e-9 of itself above its exact value.
slack = 1 + 1e-8
causes = ["stall_%s_cycles" % cause for cause in ["weights", "inputs", "output_drain", "sram", "vector"]]
if document["rows"] and "stall_noc_cycles" in document["rows"][0]:
    causes.append("stall_noc_cycles")  # a chip with a network-on-chip
problems = []
for row in document["rows"]:
    name = "batch %s %s %s" % (row["batch"], row["layer"], row.get("phase", ""))
    counts = [row["cycles"], row["compute_cycles"], row["stall_cycles"]] + [row[c] for c in causes]
    if min(counts) < 0:
        problems.append("%s: a negative cycle count" % name)
    if row["cycles"] != row["compute_cycles"] + row["stall_cycles"] or row["stall_cycles"] != sum(row[c] for c in causes):
        problems.append("%s: cycles %d, compute_cycles %d, stall_cycles %d, causes %d"
                        % (name, row["cycles"], row["compute_cycles"], row["stall_cycles"], sum(row[c] for c in causes)))
    if row["gops"] is not None and row["gops"] > peak_gops * slack:
        problems.append("%s: %s Gops/s above the compute peak %s" % (name, row["gops"], peak_gops))
    if peak_gbps is not None and row["dram_gbps"] is not None and row["dram_gbps"] > peak_gbps * slack:
        problems.append("%s: %s GB/s above the DRAM peak %s" % (name, row["dram_gbps"], peak_gbps))
    # The figure's point: y = ops over the span the row's DRAM bytes moved in (its time, in the
    # results of a reusesim from before dram_span_s).
    span = row.get("dram_span_s", row["time_s"])
    if row["arithmetic_intensity"] is not None and span > 0:
        y = 2 * row["macs"] / span / 1e9
        roof = peak_gops if peak_gbps is None else min(peak_gops, row["arithmetic_intensity"] * peak_gbps)
        if y > roof * slack:
            problems.append("%s: figure point (%s ops/B, %s Gops/s) above its roof %s"
                            % (name, row["arithmetic_intensity"], y, roof))
for problem in problems:
    print("FAIL: " + problem)
sys.exit(1 if problems else 0)
PYTHON
# A chip of several cores (cores.csv): per layer row, the cores' MACs and DRAM bytes add up to the
# row's; each core's compute + stall + sync cycles are the row's cycles, and its stall causes add up
# to its stall cycles.
if [ -f "$work/run/cores.csv" ]; then
  checks=$((checks + 1))
  /usr/bin/python3 - "$work/run/results.csv" "$work/run/cores.csv" <<'PYTHON' || failures=$((failures + 1))
import csv, sys
rows = {(r["batch"], r["layer"]): r for r in csv.DictReader(open(sys.argv[1])) if r["layer"] != "TOTAL"}
sums, problems = {}, []
cores = list(csv.DictReader(open(sys.argv[2])))
causes = [c for c in cores[0] if c.startswith("stall_") and c != "stall_cycles"] if cores else []
for core in cores:
    key = (core["batch"], core["layer"])
    spent = int(core["compute_cycles"]) + int(core["stall_cycles"]) + int(core["sync_cycles"])
    if spent != int(rows[key]["cycles"]):
        problems.append("batch %s %s core %s: %d cycles spent, the row %s" % (key + (core["core"], spent, rows[key]["cycles"])))
    if sum(int(core[c]) for c in causes) != int(core["stall_cycles"]):
        problems.append("batch %s %s core %s: its stall causes add up to %d, its stall_cycles %s" % (
            key + (core["core"], sum(int(core[c]) for c in causes), core["stall_cycles"])))
    total = sums.setdefault(key, [0, 0, 0])
    for i, column in enumerate(["macs", "dram_read_bytes", "dram_write_bytes"]):
        total[i] += int(core[column])
for key, (macs, read, write) in sums.items():
    row = rows[key]
    if [macs, read, write] != [int(row["macs"]), int(row["dram_read_bytes"]), int(row["dram_write_bytes"])]:
        problems.append("batch %s %s: the cores' MACs and DRAM bytes %s, the row's %s" % (key + (
            [macs, read, write], [row["macs"], row["dram_read_bytes"], row["dram_write_bytes"]])))
for problem in problems[:5]:
    print("FAIL: " + problem)
sys.exit(1 if problems else 0)
PYTHON
fi
# The fast mode (docs/performance.md, "Fast mode") on the same run: the same invariants checked by
# `run` itself, the same bytes, bursts and MACs, and its times within the documented bound of the
# exact run's (scripts/fidelity compare); with the per-type layers of the sanitizer build too. A chip
# of several cores refuses the fast mode.
channel_files=("$work/run/dram_channels.csv")
if ! grep -q '^cores:' "$SRC/configs/$config.yaml"; then
  expect 0 "$config $model fast" -- "$REUSESIM" run --arch "$SRC/configs/$config.yaml" --model "$SRC/models/$model.yaml" --batch 1,16 --format csv --fidelity fast --out "$work/fast" "${layers[@]}" "${@:3}"
  expect 0 "$config $model fast within the bound" -- /usr/bin/python3 "$SRC/scripts/fidelity" compare "$work/run/results.csv" "$work/fast/results.csv"
  channel_files+=("$work/fast/dram_channels.csv")
fi
# Every layer's DRAM command counts, in both modes, per channel: a difference of two counters that
# only grow (the fast mode's are estimates, each kept growing).
checks=$((checks + 1))
/usr/bin/python3 - "${channel_files[@]}" <<'PYTHON' || failures=$((failures + 1))
import csv, sys
counts = ["dram_activates", "dram_precharges", "dram_refreshes", "dram_read_commands", "dram_write_commands",
          "dram_row_hits", "dram_row_misses", "dram_row_conflicts", "dram_turnarounds", "dram_write_drains"]
problems = []
for path in sys.argv[1:]:
    for row in csv.DictReader(open(path)):
        for column in counts:
            if row[column] not in ("", None) and int(row[column]) < 0:
                problems.append("%s: batch %s %s channel %s: %s %s" % (path, row["batch"], row["layer"], row["channel"],
                                                                   column, row[column]))
for problem in problems[:5]:
    print("FAIL: a negative DRAM count: " + problem)
sys.exit(1 if problems else 0)
PYTHON
[ -z "$out" ] || [ "$failures" -eq 0 ] || echo "$out" | grep FAIL | head -n 5
finish
