#!/usr/bin/env bash
# `reusesim trace` on a chip whose network-on-chip binds: the figure's memory slope is the NoC's
# read bound where it is below the DRAM's (timing::noc_read_bytes_per_second), in trace.json and in
# figure_roofs.csv's noc_gbps, and no point rises above it; where it does not bind the panel keeps
# the DRAM slope and an empty noc_gbps. Run by ctest with REUSESIM (the binary) and SRC (the source
# tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# small as four cores (one sample each) on a 2 x 2 mesh fed from node 3, its links 4 or 16 bytes.
{
  sed -e 's/^name: small$/name: small_noc/' "$SRC/configs/small.yaml"
  printf 'cores: {count: 4, partition: samples}\n'
  printf 'noc: {topology: mesh, columns: 2, rows: 2, link_bytes: 16, clock_mhz: 1000, router_latency_cycles: 2, memory_nodes: [3]}\n'
} >"$work/small_noc.yaml"
cat >"$work/noc.yaml" <<YAML
name: noc_roof
accelerators: $work/small_noc.yaml
models:
  - model: $SRC/models/mlp.yaml
    batch: [1, 16]
sweep:
  noc.link_bytes: [4, 16]
YAML

expect 0 "trace on a chip with a network-on-chip" -- "$REUSESIM" trace "$work/noc.yaml" --out "$work/r" --jobs 2
contains "every job ran" "$err" "4 job(s) run, 0 already finished, 0 failed"
roofs=$work/r/figure_roofs.csv
narrow="small_noc, noc.link_bytes=4"
wide="small_noc, noc.link_bytes=16"
# Peak: 4 cores x 16 x 16 MACs x 2 ops at 1 GHz = 2,048 Gops/s. X then Y from node 3: core 2 over
# n3 -> n2, core 0 over n3 -> n2 -> n0, core 1 over n3 -> n1; n3 -> n2 carries 2 of the 4 cores'
# bytes, so B <= link_bytes x 1e9 x 4 / 2: 8 GB/s with 4-byte links, below the DDR4-2400 channel's
# 19.2 (the NoC binds; ridge 2,048 / 8 = 256 ops/B), and 32 GB/s with 16-byte ones, above it (no
# noc_gbps; ridge at the DRAM's).
same "4-byte links: the NoC's slope" "$(csv_col peak_gops,noc_gbps,ridge_ops_per_byte --where "panel=$narrow" "$roofs")" \
  "2048,8,256"
same "16-byte links: the DRAM's" "$(csv_col noc_gbps --where "panel=$wide" "$roofs")" ""
same "16-byte links: ridge at peak / dram_gbps" "$(csv_col peak_gops,dram_gbps,ridge_ops_per_byte --where "panel=$wide" "$roofs" |
  python3 -c 'import sys; peak, dram, ridge = map(float, sys.stdin.read().split(",")); print(abs(ridge - peak / dram) < 1e-6 * ridge, dram > 8)')" \
  "True True"
contains "trace.json: the NoC's bound where it binds" "$(cat "$work/r/trace.json")" '"noc_gbps": 8.0'
same "trace.json: only there" "$(grep -c '"noc_gbps"' "$work/r/trace.json")" "1"
# Every point of the 4-byte panel (mlp's layers and network, batch 1 and 16) sits under the NoC's
# slope: its Gops/s at most 8 GB/s x its ops per DRAM byte.
same "no point above the NoC's slope" "$(csv_col ops_per_byte,gops --where "panel=$narrow" "$work/r/figure_points.csv" |
  python3 -c 'import sys; rows = [tuple(map(float, l.split(","))) for l in sys.stdin]; print(len(rows), all(y <= 8 * x for x, y in rows))')" \
  "12 True"
checks=$((checks + 1))
[ -s "$work/r/figure.png" ] && [ -s "$work/r/figure.svg" ] || { echo "FAIL: no figure drawn"; failures=$((failures + 1)); }

# trace.json reads back: `reusesim figure` writes the same roofs.
cp "$roofs" "$work/roofs_first.csv"
expect 0 "figure again" -- "$REUSESIM" figure "$work/r"
checks=$((checks + 1))
cmp -s "$roofs" "$work/roofs_first.csv" || { echo "FAIL: figure_roofs.csv differs when redrawn"; failures=$((failures + 1)); }

finish
