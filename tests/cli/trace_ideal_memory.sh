#!/usr/bin/env bash
# `reusesim trace` and `reusesim figure` on an accelerator with an unlimited ideal memory: it has no
# DRAM slope and no ridge, so trace.json holds its bandwidth as null, figure_roofs.csv leaves
# dram_gbps and ridge_ops_per_byte empty and the figure draws only the flat compute roof. Used to
# fail after the jobs ran: the infinite bandwidth went into trace.json as null and did not read back.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# tpu_v1 with its DRAM (the last block of the file) replaced by an unlimited ideal memory, and
# without its technology: no energy figures to draw, which keeps the test fast.
sed -e 's/^name: tpu_v1$/name: tpu_v1_ideal/' -e '/^technology:/d' -e '/^dram:/,$d' "$SRC/configs/tpu_v1.yaml" \
  >"$work/tpu_v1_ideal.yaml"
printf 'dram: {ideal: unlimited}\n' >>"$work/tpu_v1_ideal.yaml"
cat >"$work/ideal.yaml" <<YAML
name: ideal_memory
accelerators: $work/tpu_v1_ideal.yaml
models:
  - model: $SRC/models/mlp.yaml
    batch: [1, 16]
YAML

expect 0 "trace on an ideal memory" -- "$REUSESIM" trace "$work/ideal.yaml" --out "$work/r" --jobs 2
contains "both jobs ran" "$err" "2 job(s) run, 0 already finished, 0 failed"
contains "trace.json: no DRAM bandwidth" "$(cat "$work/r/trace.json")" '"dram_gbps": null,'
# peak: 256 x 256 = 65,536 MACs x 2 ops at 700 MHz = 91.7504e12 ops/s = 91,750.4 Gops/s. No DRAM
# roof, so no bandwidth and no ridge; no SRAM ceiling either: the ws array wants a row of 256 8-bit
# inputs a cycle and the unified buffer gives 8 banks x 32 B = 256 B a cycle at the array's clock.
same "roofs: no DRAM roof" "$(cat "$work/r/figure_roofs.csv")" \
  "panel,accelerator,peak_gops,dram_gbps,ridge_ops_per_byte,sram_gops
tpu_v1_ideal,tpu_v1_ideal,91750.4,,,"
same "points: mlp at batch 1 and 16" "$(grep -c '^tpu_v1_ideal,network,mlp,,,mlp,' "$work/r/figure_points.csv")" "2"
checks=$((checks + 1))
[ -s "$work/r/figure.png" ] && [ -s "$work/r/figure.svg" ] || { echo "FAIL: no figure drawn"; failures=$((failures + 1)); }

# trace.json reads back: --resume matches it, `reusesim figure` redraws the same files.
expect 0 "resume an ideal-memory trace" -- "$REUSESIM" trace "$work/ideal.yaml" --out "$work/r" --resume --no-figure
contains "resume: nothing to run" "$err" "0 job(s) run, 2 already finished, 0 failed"
cp "$work/r/figure.png" "$work/first.png"
rm "$work/r/figure.png"
expect 0 "figure of an ideal-memory trace" -- "$REUSESIM" figure "$work/r"
checks=$((checks + 1))
cmp -s "$work/r/figure.png" "$work/first.png" || { echo "FAIL: figure.png differs when redrawn"; failures=$((failures + 1)); }

finish
