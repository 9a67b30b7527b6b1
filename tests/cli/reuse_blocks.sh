#!/usr/bin/env bash
# run --reuse-blocks (docs/performance.md, "Block reuse"): a model's repeated blocks simulated to
# their second copy, the later copies given its figures. With an ideal memory of fixed bandwidth
# nothing differs from copy to copy, so the reuse must equal the full simulation row by row; on a
# DRAM the bytes are the model's and the time departs by the refresh phase and open rows.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

M=$SRC/tests/data/tiny_decoder.yaml
A=$SRC/configs/small.yaml
IDEAL=(--set 'dram={ideal: {bandwidth_gbps: 10, latency_ns: 50}}')
DECODE=(--phase decode --context 32 --batch 1,3)

# One chip, an ideal memory: every row's cycles and bytes as the full run's; the 6 copies' rows all
# there (embed, 6 x 13, norm, head = 81 a batch, TOTAL after each: 164 rows).
expect 0 "full run" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" "${IDEAL[@]}" --format csv
full=$out
expect 0 "reused run" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" "${IDEAL[@]}" --format csv --reuse-blocks
reused=$out
same "rows" "$(csv_col layer <<<"$reused" | wc -l)" 164
same "the same layers" "$(csv_col batch,layer <<<"$reused")" "$(csv_col batch,layer <<<"$full")"
same "every row's cycles and bytes" "$(csv_col cycles,time_s,macs,dram_read_bytes,dram_write_bytes <<<"$reused")" \
  "$(csv_col cycles,time_s,macs,dram_read_bytes,dram_write_bytes <<<"$full")"
same "a later copy names what it repeats" "$(csv_col mapping --where layer=blocks_6/up <<<"$reused" | head -1)" \
  "repeats blocks_2/up (--reuse-blocks)"
contains "the second copy simulated" "$(csv_col mapping --where layer=blocks_2/up <<<"$reused" | head -1)" "gemm"

# The text and JSON say which copies repeat which.
expect 0 "text header" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" --reuse-blocks
contains "header" "$out" "blocks_3 to blocks_6 repeat blocks_2 (--reuse-blocks"
expect 0 "json" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" --reuse-blocks --format json
same "json reused_blocks" "$(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["reused_blocks"])' <<<"$out")" \
  "['blocks_3 to blocks_6 repeat blocks_2']"

# On small's DDR4: the same bytes (the copies' rows are the second's, and every copy moves the same),
# the time within 1 % of the full run's.
expect 0 "full run on DRAM" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" --format csv
full=$out
expect 0 "reused on DRAM" -- "$REUSESIM" run --arch "$A" --model "$M" "${DECODE[@]}" --format csv --reuse-blocks
reused=$out
same "DRAM bytes" "$(csv_col dram_read_bytes,dram_write_bytes --where layer=TOTAL <<<"$reused")" \
  "$(csv_col dram_read_bytes,dram_write_bytes --where layer=TOTAL <<<"$full")"
same "time within 1 %" "$(/usr/bin/python3 -c 'import sys
a, b = (list(map(float, x.split())) for x in sys.argv[1:])
print(all(abs(y / x - 1) < 0.01 for x, y in zip(a, b)))' "$(csv_col time_s --where layer=TOTAL <<<"$full")" \
  "$(csv_col time_s --where layer=TOTAL <<<"$reused")")" True

# A system, tensor-parallel over two chips of an ideal memory: the system's time, each collective
# (names, times) and each link's figures as the full run's.
sys=$work/two.yaml
printf 'name: two\nchip: %s\nchips: 2\ntopology: switch\nlinks: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 500}\nplan: {tensor: 2}\n' "$A" >"$sys"
expect 0 "system full" -- "$REUSESIM" run --arch "$sys" --model "$M" "${DECODE[@]}" --set 'chip.dram={ideal: {bandwidth_gbps: 10, latency_ns: 50}}' --out "$work/sys_full"
expect 0 "system reused" -- "$REUSESIM" run --arch "$sys" --model "$M" "${DECODE[@]}" --set 'chip.dram={ideal: {bandwidth_gbps: 10, latency_ns: 50}}' --out "$work/sys_reused" --reuse-blocks
for file in system.csv collectives.csv chip_links.csv; do
  same "system $file" "$(cat "$work/sys_reused/$file")" "$(cat "$work/sys_full/$file")"
done
same "chip 0's rows" "$(csv_col layer,cycles <"$work/sys_reused/results.csv")" "$(csv_col layer,cycles <"$work/sys_full/results.csv")"
# 2 all-reduces a copy (after o and down) x 6 copies on each chip per batch, plus none elsewhere.
same "collectives of every copy" "$(csv_col collective --where chip=0 <"$work/sys_reused/collectives.csv" | grep -c '^blocks_6/')" 4

# Data-parallel (no collective): each replica's copies take what its second did; the same again.
expect 0 "data-parallel full" -- "$REUSESIM" run --arch "$sys" --model "$M" --phase decode --context 32 --batch 2,6 \
  --set plan.tensor=1 --set plan.data=2 --set 'chip.dram={ideal: {bandwidth_gbps: 10, latency_ns: 50}}' --out "$work/dp_full"
expect 0 "data-parallel reused" -- "$REUSESIM" run --arch "$sys" --model "$M" --phase decode --context 32 --batch 2,6 \
  --set plan.tensor=1 --set plan.data=2 --set 'chip.dram={ideal: {bandwidth_gbps: 10, latency_ns: 50}}' --out "$work/dp_reused" \
  --reuse-blocks
same "data-parallel system.csv" "$(cat "$work/dp_reused/system.csv")" "$(cat "$work/dp_full/system.csv")"

# What it does not go with, and a model without repeats.
for bad in "--mode train --optimizer sgd:a training step's backward pass" "--layers blocks_1/q:runs the whole model" \
  "--dump-program $work/p.txt:--dump-program writes the programs of every layer" \
  "--timeline $work/t.json:--timeline draws what was simulated"; do
  expect 2 "refused: ${bad%%:*}" -- "$REUSESIM" run --arch "$A" --model "$M" --reuse-blocks ${bad%%:*}
  contains "says why: ${bad%%:*}" "$err" "${bad#*:}"
done
expect 2 "refused: a pipeline" -- "$REUSESIM" run --arch "$sys" --model "$M" "${DECODE[@]}" --reuse-blocks --set plan.tensor=1 --set plan.pipeline=2
contains "a pipeline" "$err" "--reuse-blocks: a system of 2 chips ($sys) has plan.pipeline 2: a pipeline's stages are simulated whole so far"
expect 0 "no repeats" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --reuse-blocks --format csv
contains "says every layer runs" "$err" "--reuse-blocks: model mlp repeats no block more than 2 times"
expect 0 "mlp" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --format csv
same "mlp as without" "$(csv_col layer,cycles <<<"$out")" "$(csv_col layer,cycles <<<"$("$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --reuse-blocks --format csv 2>/dev/null)")"

finish
