#!/usr/bin/env bash
# One network of models/ at batch 1 and 16 on one accelerator config: `reusesim run` checks on
# every layer that the replayed MACs equal the analysis, the DRAM bytes equal the program's, and
# the time is no shorter than the roofline bound, and exits 3 naming the layer if not.
# Usage (ctest sets REUSESIM and SRC): invariants.sh CONFIG MODEL [RUN OPTION]... (MODEL a name in
# models/; the options, e.g. --set model.parameters.layers=2, go to `reusesim run`)
set -u
source "$(dirname "$0")/lib.sh"
config=$1
model=$2
expect 0 "$config $model" -- "$REUSESIM" run --arch "$SRC/configs/$config.yaml" --model "$SRC/models/$model.yaml" --batch 1,16 --format csv "${@:3}"
contains "$config $model total rows" "$out" "16,TOTAL,"
finish
