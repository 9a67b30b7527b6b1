#!/usr/bin/env bash
# Every network in models/ at batch 1 and 16 on one accelerator config: `reusesim run` checks on
# every layer that the replayed MACs equal the analysis, the DRAM bytes equal the program's, and
# the time is no shorter than the roofline bound, and exits 3 naming the layer if not.
# Usage (ctest sets REUSESIM and SRC): invariants.sh CONFIG
set -u
source "$(dirname "$0")/lib.sh"
config=$1
for model in "$SRC"/models/*.yaml; do
  name=$(basename "$model" .yaml)
  expect 0 "$config $name" -- "$REUSESIM" run --arch "$SRC/configs/$config.yaml" --model "$model" --batch 1,16 --format csv
  contains "$config $name total rows" "$out" "16,TOTAL,"
done
finish
