#!/usr/bin/env bash
# `reusesim import scalesim` on SCALE-Sim v2's example files (tests/data/scalesim: its AlexNet and
# M, N, K topologies and its google.cfg and scale.cfg, written out in its formats; scale_8mib_calc.cfg
# is scale.cfg with 8 MiB SRAMs in CALC mode): MACs and, on an ideal memory with buffers that hold
# a layer, compute cycles equal SCALE-Sim's closed forms; bad rows and keys are refused by line.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

D=$SRC/tests/data/scalesim

# import_run TOPOLOGY CONFIG: imports both and runs the model on the accelerator (batch 1, CSV).
import_run() {
  expect 0 "import $1 with $2" -- "$REUSESIM" import scalesim "$D/$1.csv" --config "$D/$2.cfg" \
    --arch-out "$work/$2.yaml" -o "$work/$1.yaml"
  expect 0 "run $1 on $2" -- "$REUSESIM" run --arch "$work/$2.yaml" --model "$work/$1.yaml" --format csv
}

# AlexNet's five convolutions, no padding, ceil((H - F + S) / S) outputs: conv1 224 with 11x11 at
# stride 4 gives 55 (its input is written as the 227 rows the windows cover), conv2 27 - 5 + 1 = 23,
# conv3-5 13 - 3 + 1 = 11. MACs = outputs x window (F^2 C) x filters:
#   conv1 3,025 x 363 x 96 = 105,415,200   conv2 529 x 2,400 x 256 = 325,017,600
#   conv3 121 x 2,304 x 384 = 107,053,056  conv4 121 x 3,456 x 384 = 160,579,584
#   conv5 121 x 3,456 x 256 = 107,053,056  total 805,118,496 (SCALE-Sim's num_mac sum).
# On a 32x32 os array (scale.cfg with 8 MiB SRAMs, an unlimited memory): os maps M (outputs) on
# rows, N (filters) on columns and streams K, each fold T + R + C - 2 = K + 62 cycles:
#   conv1 ceil(3025/32) x ceil(96/32) = 285 folds x 425 = 121,125
#   conv2 17 x 8 = 136 x 2,462 = 334,832    conv3 4 x 12 = 48 x 2,366 = 113,568
#   conv4 48 x 3,518 = 168,864              conv5 4 x 8 = 32 x 3,518 = 112,576
# and nothing stalls, so cycles = compute cycles.
import_run alexnet scale_8mib_calc
same "alexnet MACs" "$(csv_col layer,macs <<<"$out")" "Conv1,105415200
Conv2,325017600
Conv3,107053056
Conv4,160579584
Conv5,107053056
TOTAL,805118496"
same "alexnet os compute cycles" "$(csv_col layer,compute_cycles <<<"$out")" "Conv1,121125
Conv2,334832
Conv3,113568
Conv4,168864
Conv5,112576
TOTAL,850965"
same "alexnet os no stalls" "$(csv_col layer,cycles <<<"$out")" "$(csv_col layer,compute_cycles <<<"$out")"
contains "conv1 input covers the windows" "$(cat "$work/alexnet.yaml")" \
  "{name: Conv1, type: conv2d, input: {channels: 3, height: 227, width: 227}, out_channels: 96, kernel: 11, stride: 4, bias: false}"
contains "accelerator from scale.cfg" "$(cat "$work/scale_8mib_calc.yaml")" \
  "compute: {type: systolic, rows: 32, cols: 32, dataflow: os, clock_mhz: 1000, operand_bits: 8"
contains "CALC: unlimited memory" "$(cat "$work/scale_8mib_calc.yaml")" "dram: {ideal: unlimited}"

# On google.cfg's 256x256 ws array (TPU v1; 6 MiB SRAMs hold each layer): ws maps K on rows, N on
# columns and streams M, each fold 2R + C + T - 2 = 766 + M cycles:
#   conv1 ceil(363/256) x 1 = 2 folds x 3,791 = 7,582   conv2 10 x 1,295 = 12,950
#   conv3 ceil(2304/256) x ceil(384/256) = 18 x 887 = 15,966
#   conv4 14 x 2 = 28 x 887 = 24,836                      conv5 14 x 887 = 12,418
import_run alexnet google
same "alexnet ws compute cycles" "$(csv_col layer,compute_cycles <<<"$out")" "Conv1,7582
Conv2,12950
Conv3,15966
Conv4,24836
Conv5,12418
TOTAL,73752"
contains "accelerator from google.cfg" "$(cat "$work/google.yaml")" "name: GoogleTPU_v1_ws"

# The M, N, K row Test 1 (256, 128, 256) is a GEMM of 256 x 256 by 256 x 128: 8,388,608 MACs; on
# the 256x256 ws array one fold of 2 x 256 + 256 + 256 - 2 = 1,022 cycles.
import_run test_mnk_input google
same "GEMM MACs" "$(csv_col layer,macs <<<"$out" | head -1)" "Test_1,8388608"
same "GEMM compute cycles" "$(csv_col layer,compute_cycles <<<"$out" | head -1)" "Test_1,1022"
contains "GEMM as a linear layer" "$(cat "$work/test_mnk_input.yaml")" \
  "{name: Test_1, type: linear, input: {sequence: 256, features: 256}, out_features: 128, bias: false}"

# scale.cfg as published (64 KiB SRAMs, USER mode: 64 bytes a cycle): the same MACs, and the
# memory of 64 GB/s at 1 GHz makes the layers wait.
import_run alexnet scale
same "scale.cfg MACs" "$(csv_col layer,macs <<<"$out" | tail -1)" "TOTAL,805118496"
contains "USER: ideal memory of the bandwidth" "$(cat "$work/scale.yaml")" "dram: {ideal: {bandwidth_gbps: 64, latency_ns: 0}}"

# Bad input: exit 2 naming the file, line, row, column or key; nothing written.
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nConv1, 224, 224, 11, 11, 3, 96, 4,\nConv2, 27, 27, 5, 5, 96,\n' >"$work/missing.csv"
expect 2 "missing field" -- "$REUSESIM" import scalesim "$work/missing.csv" -o "$work/missing.yaml"
same "missing field message" "$err" "reusesim import scalesim: error: $work/missing.csv:3: row Conv2: the Num Filter column is missing (8 columns expected, 6 found)"
checks=$((checks + 1))
[ ! -e "$work/missing.yaml" ] || { echo "FAIL: a refused topology wrote its model"; failures=$((failures + 1)); }
printf 'Layer Name, M, N, K,\nfc1, 64, 10, ten,\n' >"$work/text.csv"
expect 2 "non-numeric field" -- "$REUSESIM" import scalesim "$work/text.csv"
same "non-numeric message" "$err" "reusesim import scalesim: error: $work/text.csv:2: row fc1, column K: \"ten\" is not a positive integer (up to 2^40)"
printf 'Layer Name, M, N, K,\n\n' >"$work/empty.csv"
expect 2 "zero layers" -- "$REUSESIM" import scalesim "$work/empty.csv"
same "zero layers message" "$err" "reusesim import scalesim: error: $work/empty.csv: no layer rows (a topology needs a header and at least one layer)"
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nbig, 5, 5, 7, 7, 3, 8, 1,\n' >"$work/filter.csv"
expect 2 "filter larger than the IFMAP" -- "$REUSESIM" import scalesim "$work/filter.csv"
contains "filter message" "$err" "$work/filter.csv:2: row big: the filter 7x7 is larger than the IFMAP 5x5"
grep -v ArrayWidth "$D/scale.cfg" >"$work/no_width.cfg"
expect 2 "config key missing" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$work/no_width.cfg" --arch-out "$work/arch.yaml"
same "config key message" "$err" "reusesim import scalesim: error: $work/no_width.cfg: ArrayWidth: missing required key"
sed 's/Dataflow : os/Dataflow : rs/' "$D/scale.cfg" >"$work/rs.cfg"
expect 2 "config bad dataflow" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$work/rs.cfg" --arch-out "$work/arch.yaml"
same "dataflow message" "$err" "reusesim import scalesim: error: $work/rs.cfg:14: Dataflow: \"rs\" is not one of os, ws, is"
checks=$((checks + 1))
[ ! -e "$work/arch.yaml" ] || { echo "FAIL: a refused config wrote an accelerator"; failures=$((failures + 1)); }
expect 2 "--config without --arch-out" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$D/scale.cfg"
contains "--config usage" "$err" "--config and --arch-out go together"

finish
