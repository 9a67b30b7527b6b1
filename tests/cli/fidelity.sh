#!/usr/bin/env bash
# End-to-end checks of --fidelity (docs/performance.md, "Fast mode"): an unknown value is exit 2
# naming the option and the allowed values; an exact run's outputs carry no fidelity (today's
# bytes); a fast run's results.csv, results.json, dram_channels.csv, stats.txt, text table and
# timeline say "fast"; the fast run
# moves the same bytes, bursts and MACs; `replay --fidelity fast` replays a dumped program the same
# way. Its times are checked against the bound by the invariant tests (tests/cli/invariants.sh).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

small=$SRC/configs/small.yaml
mlp=$SRC/models/mlp.yaml

expect 2 "unknown fidelity" -- "$REUSESIM" run --arch "$small" --model "$mlp" --fidelity approximate
contains "unknown fidelity names the option and the values" "$err" '--fidelity: expected exact or fast, got "approximate"'
expect 2 "unknown replay fidelity" -- "$REUSESIM" replay --arch "$small" --program /dev/null --fidelity Fast
contains "unknown replay fidelity names the option" "$err" '--fidelity: expected exact or fast, got "Fast"'

expect 0 "exact run" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 1,4 --format csv --out "$work/exact" \
  --dump-program "$work/mlp.program"
expect 0 "default is exact" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 1,4 --format csv --fidelity exact \
  --out "$work/exact_named"
checks=$((checks + 1))
cmp -s "$work/exact/results.csv" "$work/exact_named/results.csv" || { echo "FAIL: --fidelity exact differs from the default"; failures=$((failures + 1)); }
same "exact results.csv has no fidelity column" "$(head -n 1 "$work/exact/results.csv" | tr ',' '\n' | grep -c '^fidelity$')" "0"
same "exact stats.txt has no fidelity line" "$(grep -c '^fidelity' "$work/exact/stats.txt")" "0"

expect 0 "fast run" -- "$REUSESIM" run --arch "$small" --model "$mlp" --batch 1,4 --format csv --fidelity fast --out "$work/fast"
# mlp: 5 layers and a TOTAL at each of 2 batch sizes: 12 rows, every one "fast".
same "fast rows name their fidelity" "$(csv_col fidelity "$work/fast/results.csv" | sort | uniq -c | tr -s ' ')" " 12 fast"
same "fast results.json says fast" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["fidelity"], {r["fidelity"] for r in d["rows"]})' "$work/fast/results.json")" "fast {'fast'}"
contains "fast stats.txt explains the column" "$(cat "$work/fast/stats.txt")" "fidelity (the last column of a fast run)"
# dram_channels.csv: small has one channel, so one row per results.csv row, each estimated and saying so.
same "fast dram_channels.csv rows name their fidelity" "$(csv_col fidelity "$work/fast/dram_channels.csv" | sort | uniq -c | tr -s ' ')" " 12 fast"
same "exact dram_channels.csv has no fidelity column" "$(head -n 1 "$work/exact/dram_channels.csv" | tr ',' '\n' | grep -c '^fidelity$')" "0"
expect 0 "fast timeline" -- "$REUSESIM" run --arch "$small" --model "$mlp" --fidelity fast --timeline "$work/fast_timeline.json"
same "the fast timeline says fast" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["otherData"]["fidelity"])' "$work/fast_timeline.json")" "fast"
expect 0 "fast text table" -- "$REUSESIM" run --arch "$small" --model "$mlp" --fidelity fast
contains "fast text header" "$out" 'fast fidelity (docs/performance.md, "Fast mode")'
same "same MACs" "$(csv_col macs "$work/fast/results.csv")" "$(csv_col macs "$work/exact/results.csv")"
same "same DRAM bytes" "$(csv_col dram_read_bytes,dram_write_bytes "$work/fast/results.csv")" \
  "$(csv_col dram_read_bytes,dram_write_bytes "$work/exact/results.csv")"
same "same bursts per batch" "$(csv_col dram_read_commands,dram_write_commands --where layer=TOTAL "$work/fast/results.csv")" \
  "$(csv_col dram_read_commands,dram_write_commands --where layer=TOTAL "$work/exact/results.csv")"

expect 0 "replay fast" -- "$REUSESIM" replay --arch "$small" --program "$work/mlp.program" --fidelity fast --format csv
printf '%s\n' "$out" >"$work/replay_fast.csv"
same "replay fast rows name their fidelity" "$(csv_col fidelity "$work/replay_fast.csv" | sort -u)" "fast"
same "replay fast times as run fast" "$(csv_col time_s "$work/replay_fast.csv")" "$(csv_col time_s "$work/fast/results.csv")"

# tpu_v1's DRAM clock (tCK 0.9375 ns) is no whole number of picoseconds: answers must still come
# after their requests (the last layer's 1,024-byte write once beat the DRAM's peak).
expect 0 "fast on a fractional clock keeps the roofline" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v1.yaml" \
  --model "$SRC/models/alexnet.yaml" --layers fc8,prob --fidelity fast --format csv

# --- a trace's key fidelity: every job runs fast, the tables and trace.json say so. ---
cat >"$work/fast.yaml" <<YAML
name: fast_demo
fidelity: fast
accelerators: [$small]
models:
  - model: $mlp
    batch: [1, 4]
YAML
expect 0 "fast trace" -- "$REUSESIM" trace "$work/fast.yaml" --out "$work/trace" --no-figure
same "trace jobs ran fast" "$(csv_col fidelity --where layer=TOTAL "$work/trace/networks.csv" | sort | uniq -c | tr -s ' ')" " 2 fast"
same "trace.json names the fidelity" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["fidelity"])' "$work/trace/trace.json")" "fast"
sed 's/fidelity: fast/fidelity: quick/' "$work/fast.yaml" >"$work/quick.yaml"
expect 2 "unknown trace fidelity" -- "$REUSESIM" trace "$work/quick.yaml" --out "$work/quick"
contains "unknown trace fidelity names file, line and key" "$err" "quick.yaml:2:11: error: fidelity: expected one of exact, fast, got \"quick\""
finish
