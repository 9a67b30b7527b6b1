#!/usr/bin/env bash
# One network of models/ at batch 1 and 16 on one accelerator config: `reusesim run` checks on
# every layer that the replayed MACs equal the analysis, the DRAM bytes equal the program's, and
# the time is no shorter than the roofline bound, and exits 3 naming the layer if not.
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
  # analyze takes the model's --set without the "model." prefix run needs.
  analyze_options=()
  for option in "${@:3}"; do analyze_options+=("${option/#model./}"); done
  expect 0 "$config $model analyze" -- "$REUSESIM" analyze --model "$SRC/models/$model.yaml" --format csv "${analyze_options[@]}"
  first_of_each_type=$(csv_col layer,type <<<"$out" | awk -F, '$1 != "TOTAL" && !seen[$2]++ { print $1 }' | paste -sd,)
  layers=(--layers "$first_of_each_type")
fi
expect 0 "$config $model" -- "$REUSESIM" run --arch "$SRC/configs/$config.yaml" --model "$SRC/models/$model.yaml" --batch 1,16 --format csv "${layers[@]}" "${@:3}"
contains "$config $model total rows" "$out" "16,TOTAL,"
finish
