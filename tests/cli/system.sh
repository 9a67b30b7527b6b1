#!/usr/bin/env bash
# System files on the command line: `check` tells one by its `chips:` and loads its chip with it;
# overrides reach the system, and under chip. its chip; every problem is a clear error, exit 2.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

S=$SRC/configs/systems/a100_nvlink8.yaml

# Every shipped system loads with its chip and says what it is; a file missing here fails.
shipped=("a100_nvlink8:8 x a100 (switch)" "tpu_v4_8:8 x tpu_v4 (torus)" "tpu_v4_64:64 x tpu_v4 (torus)"
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
# A system file where an accelerator belongs says what it is.
expect 2 "a system for --arch" -- "$REUSESIM" run --arch "$S" --model "$SRC/models/mlp.yaml"
contains "kind" "$err" "this is a system file (it has \`chips:\`), not an accelerator file"

finish
