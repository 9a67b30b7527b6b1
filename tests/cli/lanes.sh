#!/usr/bin/env bash
# Replayed conv1 of AlexNet-OWT, GoogLeNet and ResNet-50 on configs/snowflake.yaml, whose vMAC lanes
# run along a kernel row (lane_dimension: kernel_row). The lane arithmetic (tests/test_mapper.cpp,
# "snowflake's lanes along a kernel row"): 11x11x3 rows of 33 values take 3 cycles (33/48 lanes
# busy), 399,300 compute cycles; 7x7x3 rows of 21 values take 2 cycles (21/32), 702,464 cycles.
# The replayed efficiency is a little below the lane bound: memory stalls come on top.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

for case in "alexnet_owt 399300 0.6768722225" "googlenet 702464 0.6514417484" "resnet50 702464 0.6514417484"; do
  read -r model compute efficiency <<<"$case"
  expect 0 "$model conv1 on snowflake" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" \
    --model "$SRC/models/$model.yaml" --layers conv1 --format csv
  same "$model conv1 compute cycles" "$(csv_col compute_cycles --where layer=conv1 <<<"$out")" "$compute"
  same "$model conv1 efficiency" "$(csv_col efficiency --where layer=conv1 <<<"$out")" "$efficiency"
done

finish
