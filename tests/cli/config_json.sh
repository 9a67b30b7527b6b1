#!/usr/bin/env bash
# config.json, the accelerator as resolved (`run --out`), is an accelerator file: a run from it
# repeats the original run byte for byte, with presets and --set overrides already applied, and
# its errors point at its lines like any accelerator file's.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs
M=$SRC/models

# same_file NAME FILE EXPECTED_FILE: byte for byte.
same_file() {
  checks=$((checks + 1))
  if ! cmp -s "$2" "$3"; then
    echo "FAIL: $1: $2 differs from $3"
    diff "$3" "$2" | head -20
    failures=$((failures + 1))
  fi
}

# rerun NAME ARCH [--set ...]: mlp at batch 1 and 4 from ARCH, then from the config.json it wrote;
# every output file of the two runs is the same.
rerun() {
  local name=$1 arch=$2 file
  shift 2
  expect 0 "$name: run" -- "$REUSESIM" run --arch "$arch" --model "$M/mlp.yaml" --batch 1,4 --format csv \
    --out "$work/$name/first" "$@"
  expect 0 "$name: run from config.json" -- "$REUSESIM" run --arch "$work/$name/first/config.json" \
    --model "$M/mlp.yaml" --batch 1,4 --format csv --out "$work/$name/again"
  for file in results.csv results.json dram_channels.csv config.json stats.txt; do
    same_file "$name: $file" "$work/$name/again/$file" "$work/$name/first/$file"
  done
}

for config in small snowflake tpu_v1 tpu_v4i tpu_v4 simba; do
  rerun "$config" "$A/$config.yaml"
done
rerun pinned_partition "$A/small.yaml" --set cores.count=3 --set cores.partition=layers
# Overrides of each kind, a per-bank refreshed LPDDR5, another technology and an ideal memory.
rerun overrides "$A/small.yaml" --set compute.dataflow=os --set compute.output_path=[activation] \
  --set accumulators.capacity_kib=32 --set sram.buffers.inputs.capacity_kib=64 --set dram.channels=2 \
  --set dram.controller.write_drain=drain_all --set dram.address_hash=xor
rerun per_bank "$A/small.yaml" --set dram.preset=lpddr5-6400 --set dram.controller.refresh=per_bank \
  --set dram.trfc_pb=180
rerun technology "$A/snowflake.yaml" --set technology=7nm
rerun ideal "$A/small.yaml" --set 'dram={ideal: {bandwidth_gbps: 34.1, latency_ns: 100}}'
contains "config.json writes the loader's keys" "$(cat "$work/small/first/config.json")" '"write_drain": {'
contains "config.json keeps per-bank refresh's tRFCpb" "$(cat "$work/per_bank/first/config.json")" '"trfc_pb": 180'

# A bad value in config.json is reported at its line and column.
sed 's/"rows": 16,/"rows": 0,/' "$work/small/first/config.json" >"$work/bad.json"
line=$(grep -n '"rows": 0' "$work/bad.json" | cut -d: -f1)
expect 2 "bad config.json" -- "$REUSESIM" run --arch "$work/bad.json" --model "$M/mlp.yaml"
contains "bad config.json: file:line:col" "$err" "$work/bad.json:$line:13: error: compute.rows:"

finish
