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
# never_written NAME FILE...: none of the files exists (a refused import writes nothing).
never_written() {
  local name=$1 file
  shift
  for file in "$@"; do
    checks=$((checks + 1))
    [ ! -e "$file" ] || { echo "FAIL: $name: $file was written"; failures=$((failures + 1)); }
  done
}

# refuse_cfg NAME CFG MESSAGE: importing alexnet with CFG exits 2 with MESSAGE and writes nothing.
refuse_cfg() {
  rm -f "$work/arch.yaml" "$work/model.yaml"
  expect 2 "$1" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$2" --arch-out "$work/arch.yaml" \
    -o "$work/model.yaml"
  same "$1 message" "$err" "reusesim import scalesim: error: $3"
  never_written "$1" "$work/arch.yaml" "$work/model.yaml"
}

# The .cfg is read as Python's configparser reads it, which SCALE-Sim uses (scalesim/scale_config.py):
# each key from the section SCALE-Sim reads it from (run_name from [general], InterfaceBandwidth from
# [run_presets], the array, SRAMs, Dataflow and Bandwidth from [architecture_presets]).
grep -v ArrayWidth "$D/scale.cfg" >"$work/no_width.cfg"
refuse_cfg "config key missing" "$work/no_width.cfg" \
  "$work/no_width.cfg:4: architecture_presets.ArrayWidth: missing; SCALE-Sim reads it from [architecture_presets]"
sed 's/Dataflow : os/Dataflow : rs/' "$D/scale.cfg" >"$work/rs.cfg"
refuse_cfg "config bad dataflow" "$work/rs.cfg" "$work/rs.cfg:14: architecture_presets.Dataflow: \"rs\" is not one of os, ws, is"
# A key under another section is not the one SCALE-Sim reads: ArrayHeight 128 in [run_presets] (the
# last section) leaves [architecture_presets]'s 32.
{ cat "$D/scale.cfg"; echo "ArrayHeight: 128"; } >"$work/other_section.cfg"
expect 0 "a key in another section" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$work/other_section.cfg" \
  --arch-out "$work/other_section.yaml" -o "$work/other_section_model.yaml"
contains "[architecture_presets]'s ArrayHeight" "$(cat "$work/other_section.yaml")" "compute: {type: systolic, rows: 32, cols: 32"
# ... and one only there is missing where SCALE-Sim looks.
{ grep -v Bandwidth "$D/scale.cfg"; echo "InterfaceBandwidth: USER"; echo "Bandwidth: 64"; } >"$work/moved.cfg"
refuse_cfg "a key only in another section" "$work/moved.cfg" \
  "$work/moved.cfg:4: architecture_presets.Bandwidth: missing; SCALE-Sim reads it from [architecture_presets]; line 21 sets it in [run_presets], where SCALE-Sim does not read it"
# configparser (strict, its default) refuses a repeated key, compared in lowercase, and a repeated section.
sed '6a arrayheight = 64' "$D/scale.cfg" >"$work/repeated_key.cfg"
refuse_cfg "a repeated key" "$work/repeated_key.cfg" \
  "$work/repeated_key.cfg:7: architecture_presets.arrayheight: the key appeared before in [architecture_presets], at line 5; configparser, which SCALE-Sim reads its .cfg with, refuses a repeated key (keys are compared in lowercase)"
{ cat "$D/scale.cfg"; printf '[general]\nrun_name = again\n'; } >"$work/repeated_section.cfg"
refuse_cfg "a repeated section" "$work/repeated_section.cfg" \
  "$work/repeated_section.cfg:22: [general]: the section appeared before, at line 1; configparser, which SCALE-Sim reads its .cfg with, refuses a repeated section"
sed 's/\[architecture_presets\]/[architecture]/' "$D/scale.cfg" >"$work/no_arch.cfg"
refuse_cfg "no [architecture_presets]" "$work/no_arch.cfg" \
  "$work/no_arch.cfg: no [architecture_presets] section; SCALE-Sim reads ArrayHeight from it"
sed '1,2d' "$D/scale.cfg" >"$work/no_general.cfg"
refuse_cfg "no [general]" "$work/no_general.cfg" "$work/no_general.cfg: no [general] section; SCALE-Sim reads run_name from it"
printf 'ArrayHeight: 32\n' | cat - "$D/scale.cfg" >"$work/no_header.cfg"
refuse_cfg "a key before any section" "$work/no_header.cfg" \
  "$work/no_header.cfg:1: \"ArrayHeight: 32\" comes before any [section]; configparser requires a section header first"
# A line indented deeper than the key before it continues that key's value: ArrayHeight is then
# "32\nArrayWidth: 32", which SCALE-Sim's int() refuses too.
sed 's/^ArrayWidth/  ArrayWidth/' "$D/scale.cfg" >"$work/continued.cfg"
refuse_cfg "a continuation line" "$work/continued.cfg" \
  "$work/continued.cfg:5: architecture_presets.ArrayHeight: \"32\\nArrayWidth:     32\" is not a positive integer"
# configparser's other spellings: keys in any case, '=' or ':', comments, [DEFAULT] seen by every
# section, %(key)s interpolation.
cat >"$work/spellings.cfg" <<'CFG'
# SCALE-Sim configuration in configparser's other spellings
[DEFAULT]
size = 128
Bandwidth = 32

[general]
RUN_NAME = spelled_%(size)s
; a comment, and one indented below
  # not part of any value
[architecture_presets]
arrayheight = 16
ARRAYWIDTH: 8
IfmapSramSzkB: %(size)s
FilterSramSzkB = 256
OfmapSramSzkB: 64
Dataflow: ws
[run_presets]
InterfaceBandwidth = USER
CFG
expect 0 "configparser's spellings" -- "$REUSESIM" import scalesim "$D/test_mnk_input.csv" --config "$work/spellings.cfg" \
  --arch-out "$work/spellings.yaml"
# name from [general] interpolated from [DEFAULT]; 16 x 8 ws; ifmap 128 KiB from [DEFAULT]'s size,
# filter 256; Bandwidth 32 from [DEFAULT].
same "spellings: the accelerator" "$(grep -E '^(name|compute|dram)|ifmap|filter' "$work/spellings.yaml")" "name: spelled_128
compute: {type: systolic, rows: 16, cols: 8, dataflow: ws, clock_mhz: 1000, operand_bits: 8, vector_ops_per_cycle: 8}
    - {name: ifmap, capacity_kib: 128, banks: 1, bank_width_bytes: 16, read_ports: 1, write_ports: 1, holds: [inputs]}
    - {name: filter, capacity_kib: 256, banks: 1, bank_width_bytes: 16, read_ports: 1, write_ports: 1, holds: [weights]}
dram: {ideal: {bandwidth_gbps: 32, latency_ns: 0}}"
sed 's/^IfmapSramSzkB: %(size)s/IfmapSramSzkB: %(size)/' "$work/spellings.cfg" >"$work/bad_reference.cfg"
refuse_cfg "a bad interpolation" "$work/bad_reference.cfg" \
  "$work/bad_reference.cfg:13: architecture_presets.IfmapSramSzkB: in \"%(size)\", '%' must start \"%%\" or \"%(key)s\" (configparser's interpolation)"

# The .cfg's values within what an accelerator file takes, each refused at its key in the .cfg (the
# accelerator file is never written). The accumulators take the ofmap SRAM's size (64 KiB = 65,536
# bytes) and must hold one array row of 32-bit partial sums: 100,000 columns x 4 bytes = 400,000.
sed 's/^ArrayWidth: .*/ArrayWidth: 100000/' "$D/scale.cfg" >"$work/wide.cfg"
refuse_cfg "ArrayWidth past the accumulators" "$work/wide.cfg" \
  "$work/wide.cfg:6: architecture_presets.ArrayWidth: 100000 columns make a row of 400000 bytes of 32-bit partial sums, more than OfmapSramSzkB (64 KiB, line 9) holds: the accumulators take the ofmap SRAM's size and must hold one array row"
# An array has at most 2^20 = 1,048,576 rows; 100,000 rows are within it (rows size no accumulator).
sed 's/^ArrayHeight: .*/ArrayHeight: 2000000/' "$D/scale.cfg" >"$work/tall.cfg"
refuse_cfg "ArrayHeight past 2^20" "$work/tall.cfg" \
  "$work/tall.cfg:5: architecture_presets.ArrayHeight: expected at most 1048576 (the most rows an array may have), got 2000000"
sed 's/^ArrayHeight: .*/ArrayHeight: 100000/' "$D/scale.cfg" >"$work/high.cfg"
expect 0 "ArrayHeight 100000" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$work/high.cfg" --arch-out "$work/high.yaml"
contains "ArrayHeight 100000 rows" "$(cat "$work/high.yaml")" "rows: 100000, cols: 32"
sed 's/^Bandwidth : 64/Bandwidth : 2000000/' "$D/scale.cfg" >"$work/fast.cfg"
refuse_cfg "Bandwidth past an ideal memory" "$work/fast.cfg" \
  "$work/fast.cfg:13: architecture_presets.Bandwidth: expected at most 1000000 (10^6 GB/s at 1 GHz, the fastest ideal memory), got 2000000"
sed 's/^MemoryBanks: 1/MemoryBanks: 4/' "$D/scale.cfg" >"$work/banks.cfg"
refuse_cfg "several memory banks" "$work/banks.cfg" \
  "$work/banks.cfg:15: architecture_presets.MemoryBanks: expected at most 1 (one bank: SCALE-Sim spreads operands over more by memory-map files, not imported), got 4"

# A topology's first row is its header: SCALE-Sim skips it unread (scalesim/topology_utils.py), so
# a file whose first row is a layer is refused rather than imported without that layer.
cat >"$work/headerless.csv" <<'CSV'
Conv1, 224, 224, 11, 11, 3, 96, 4,
Conv2, 27, 27, 5, 5, 96, 256, 1,
CSV
expect 2 "no header row" -- "$REUSESIM" import scalesim "$work/headerless.csv" -o "$work/headerless.yaml"
same "no header row message" "$err" "reusesim import scalesim: error: $work/headerless.csv:1: the first row (Conv1, 224, 224, 11, 11, 3, 96, 4) holds numbers, like a layer, where SCALE-Sim expects its header row (Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides (and optionally a stride width), or Layer, M, N, K); SCALE-Sim skips the first row unread, so this layer would be lost: add the header"
never_written "no header row" "$work/headerless.yaml"
printf 'fc1, 64, 10, 20,\n' >"$work/headerless_gemm.csv"
expect 2 "no GEMM header row" -- "$REUSESIM" import scalesim "$work/headerless_gemm.csv"
contains "no GEMM header row message" "$err" "headerless_gemm.csv:1: the first row (fc1, 64, 10, 20) holds numbers"
# A layer YAML would read as null keeps its name with a '_'.
cat >"$work/null.csv" <<'CSV'
Layer, M, N, K,
null, 4, 4, 4,
CSV
expect 0 "a layer named null" -- "$REUSESIM" import scalesim "$work/null.csv"
contains "null layer" "$out" "{name: null_, type: linear, input: {sequence: 4, features: 4}, out_features: 4, bias: false}"

# The written model must load: a layer name (kept in its comment) is printable UTF-8, and a model
# has at most 100,000 layers, so the 100,001st row is refused where it is.
printf 'Layer, M, N, K,\nfc\001, 4, 4, 4,\nfc\377, 4, 4, 4,\n' >"$work/control.csv"
expect 2 "a control character in a name" -- "$REUSESIM" import scalesim "$work/control.csv"
same "control character message" "$err" "reusesim import scalesim: error: $work/control.csv:2: the layer name holds the byte 0x01, a control character; a name is one line of printable UTF-8 text"
sed -i 2d "$work/control.csv"
expect 2 "a name that is not UTF-8" -- "$REUSESIM" import scalesim "$work/control.csv"
same "not UTF-8 message" "$err" "reusesim import scalesim: error: $work/control.csv:2: the layer name holds the byte 0xff, which is not UTF-8; a name is one line of printable UTF-8 text"
awk 'BEGIN { print "Layer, M, N, K,"; for (i = 0; i < 100001; i++) print "fc, 2, 2, 2," }' >"$work/many.csv"
expect 2 "100,001 layers" -- "$REUSESIM" import scalesim "$work/many.csv" -o "$work/many.yaml"
same "100,001 layers message" "$err" "reusesim import scalesim: error: $work/many.csv:100002: more than 100000 layers, the most a model file may have"
never_written "100,001 layers" "$work/many.yaml"

# Outputs that name an input or each other are refused before anything is written, whatever the
# spelling (paths compared by the file they name).
cp "$D/alexnet.csv" "$work/topology.csv"
cp "$D/scale.cfg" "$work/config.cfg"
mkdir -p "$work/sub"
ln -sf "$work/topology.csv" "$work/link.csv"
expect 2 "-o and --arch-out the same file" -- "$REUSESIM" import scalesim "$work/topology.csv" --config "$work/config.cfg" \
  --arch-out "$work/both.yaml" -o "$work/sub/../both.yaml"
same "-o and --arch-out message" "$(head -1 <<<"$err")" "reusesim import scalesim: error: -o $work/sub/../both.yaml and --arch-out $work/both.yaml name the same file: one would overwrite the other"
never_written "-o and --arch-out the same file" "$work/both.yaml"
for output in "$work/topology.csv" "$work/link.csv" "$work/sub/../topology.csv"; do
  expect 2 "-o $output, the topology" -- "$REUSESIM" import scalesim "$work/topology.csv" -o "$output"
  same "-o $output message" "$(head -1 <<<"$err")" "reusesim import scalesim: error: -o $output names the topology ($work/topology.csv), which writing would overwrite"
done
expect 2 "--arch-out, the config" -- "$REUSESIM" import scalesim "$work/topology.csv" --config "$work/config.cfg" \
  --arch-out "$work/config.cfg" -o "$work/model.yaml"
same "--arch-out, the config message" "$(head -1 <<<"$err")" "reusesim import scalesim: error: --arch-out $work/config.cfg names the --config file ($work/config.cfg), which writing would overwrite"
same "the inputs are untouched" "$(cat "$work/topology.csv" "$work/config.cfg")" "$(cat "$D/alexnet.csv" "$D/scale.cfg")"
never_written "--arch-out, the config" "$work/model.yaml"
# The same check guards `import onnx`.
cp "$SRC/tests/data/onnx/gated_gru.onnx" "$work/model.onnx"
expect 2 "import onnx -o the model" -- "$REUSESIM" import onnx "$work/model.onnx" --batch-dim batch -o "$work/./model.onnx"
same "import onnx -o message" "$(head -1 <<<"$err")" "reusesim import onnx: error: -o $work/./model.onnx names the ONNX model ($work/model.onnx), which writing would overwrite"
checks=$((checks + 1))
cmp -s "$work/model.onnx" "$SRC/tests/data/onnx/gated_gru.onnx" || { echo "FAIL: import onnx overwrote its model"; failures=$((failures + 1)); }

expect 2 "--config without --arch-out" -- "$REUSESIM" import scalesim "$D/alexnet.csv" --config "$D/scale.cfg"
contains "--config usage" "$err" "--config and --arch-out go together"

finish
