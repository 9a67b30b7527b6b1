#!/usr/bin/env bash
# End-to-end checks of the reusesim binary: exit codes, output formats and error text.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

M=$SRC/models

expect 0 "analyze alexnet csv" -- "$REUSESIM" analyze --model "$M/alexnet.yaml" --format csv
contains "csv header" "$out" "layer,type,output_shape,macs,params,input_elems,output_elems"
contains "conv1 row" "$out" "conv1,conv2d,96x55x55,105415200,34944,154587,290400"
contains "total row" "$out" "TOTAL,,,724406816,"
[ -z "$err" ] || { echo "FAIL: analyze wrote to stderr: $err"; failures=$((failures + 1)); }

expect 0 "analyze with an ideal device" -- "$REUSESIM" analyze --model "$M/alexnet.yaml" --peak-tops 120
contains "conventions" "$out" "1 MAC = 2 ops"
expect 0 "ideal device csv" -- "$REUSESIM" analyze --model "$M/alexnet.yaml" --peak-tops 120 --format csv
# conv1 at 120 Tops/s: 2 x 105,415,200 / 120e12 = 1.7569 us; 618,348 B / 1.7569 us = 351.95 GB/s in,
# 1,161,600 B / 1.7569 us = 661.16 GB/s out, 139,776 B / 1.7569 us = 79.56 GB/s of weights.
checks=$((checks + 1))
csv_col ideal_time_us,input_gbps,output_gbps,weight_gbps --where layer=conv1 <<<"$out" |
  awk -F, '{ ok = ($1 > 1.7569 && $1 < 1.7570 && $2 > 351.94 && $2 < 351.96 &&
                 $3 > 661.15 && $3 < 661.17 && $4 > 79.55 && $4 < 79.57) }
           END { exit ok ? 0 : 1 }' || { echo "FAIL: conv1 ideal bandwidths: $(grep ^conv1 <<<"$out")"; failures=$((failures + 1)); }

expect 0 "analyze json" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --batch 256 --format json
contains "json batch" "$out" '"batch": 256'
contains "json total macs" "$out" '"macs": 33536000'  # 131,000 MACs per sample x 256

expect 0 "footprint json" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --batch 256 --mode train --optimizer sgd --dtype fp32 --format json
# 2 x 525,640 (weights, gradients) + 465,920 activation elements x 4 bytes.
contains "total_bytes" "$out" '"total_bytes": 2914960'
contains "components" "$out" '"activation_gradient_bytes": 419840'

expect 0 "footprint csv with im2col" -- "$REUSESIM" footprint --model "$M/resnet50.yaml" --batch 2 --mode infer --im2col --format csv
contains "footprint header" "$out" "layer,type,weight_bytes,gradient_bytes,optimizer_bytes,activation_bytes,activation_gradient_bytes,im2col_bytes,kv_cache_bytes"

expect 0 "check every model" -- "$REUSESIM" check "$M"/*.yaml
contains "check says ok" "$out" "ok: model resnet50"
expect 0 "check every config and trace" -- "$REUSESIM" check "$SRC"/configs/*.yaml "$SRC"/configs/dram/*.yaml "$SRC"/traces/*.yaml
contains "the figure trace is valid" "$out" "ok: run snowflake_figure"

# --set overrides a field before validation.
expect 0 "set a parameter" -- "$REUSESIM" analyze --model "$M/deepspeech2.yaml" --set parameters.seq_len=200 --format csv
contains "longer sequence" "$out" "to_sequence,100x1312"

# Bad input: exit 2, file:line:col: error: key.path: message.
cat >"$work/bad.yaml" <<'YAML'
name: bad
precision: fp32
input: {channels: 3, height: 8, width: 8}
layers:
  - {name: conv1, type: conv2d, out_chanels: 16, kernel: 3}
  - {name: conv2, type: conv2d, out_channels: eight, kernel: 3}
YAML
expect 2 "bad model" -- "$REUSESIM" analyze --model "$work/bad.yaml"
contains "unknown key hint" "$err" "$work/bad.yaml:5:33: error: layers.conv1.out_chanels: unknown key (did you mean \"out_channels\"?)"
contains "missing key" "$err" "$work/bad.yaml:5:5: error: layers.conv1.out_channels: missing required key"
contains "wrong type" "$err" "$work/bad.yaml:6:47: error: layers.conv2.out_channels: expected a positive integer, got \"eight\""

expect 2 "missing file" -- "$REUSESIM" analyze --model "$work/none.yaml"
contains "missing file message" "$err" "$work/none.yaml: error: cannot open file"

expect 2 "zero batch" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --batch 0
contains "zero batch message" "$err" "reusesim analyze: error: --batch: expected a positive integer up to 1000000, got 0"

expect 2 "non-numeric batch" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --batch many
expect 2 "unknown format" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --format xml
contains "format message" "$err" "--format: expected table, csv or json, got \"xml\""
expect 2 "unknown option" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --bogus
expect 2 "no command" -- "$REUSESIM"
expect 2 "unknown command" -- "$REUSESIM" simulate
expect 0 "help" -- "$REUSESIM" --help
contains "help names --version" "$out" "reusesim --version the version"
expect 0 "version" -- "$REUSESIM" --version
contains "version line" "$out" "reusesim 0.10.0 (SystemC 2.3.4"
# check validates and prints one line per file: it has no report to format, so --format is refused
# rather than accepted and ignored.
expect 2 "check has no --format" -- "$REUSESIM" check --format xml "$SRC/configs/small.yaml"
contains "check --format message" "$err" "reusesim check: error: unrecognised option '--format'"
# A FIFO nobody writes blocked `check` forever in open(); inputs must be regular files.
mkfifo "$work/fifo.yaml"
expect 2 "check on a FIFO" -- timeout 20 "$REUSESIM" check "$work/fifo.yaml"
contains "FIFO message" "$err" "$work/fifo.yaml: error: is a FIFO (named pipe), not a regular file; inputs are read from regular files"
# An accelerator file given as the model is named for what it is.
expect 2 "accelerator as model" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/configs/small.yaml" --batch 1
contains "accelerator as model message" "$err" "$SRC/configs/small.yaml:5:1: error: this is an accelerator file (it has \`compute:\`), not a model file"
# A --set that breaks a JEDEC relation is reported at the --set, not at the preset's untouched line.
expect 2 "relation broken by --set" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$M/mlp.yaml" --batch 1 --set dram.trcd=100000
contains "relation at the --set" "$err" "--set dram.trcd=100000: error: dram.trcd: 100000 breaks tRAS >= tRCD with tras"
expect 0 "command help" -- "$REUSESIM" footprint --help
expect 2 "optimizer without train" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --batch 1 --mode infer --optimizer adam
contains "optimizer message" "$err" "--optimizer applies to --mode train only"
expect 2 "train without optimizer" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --batch 1 --mode train
expect 2 "bad --set path" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --set layers.fc9.out_features=3
contains "set path hint" "$err" "--set layers.fc9.out_features=3: error: layers.fc9: no list element named or numbered \"fc9\" (did you mean \"fc1\"?)"
expect 2 "absurd but well-formed" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --set layers.fc1.out_features=1099511627776 --set layers.fc2.out_features=1099511627776
contains "overflow is an error" "$err" "count overflow"

# Deterministic: the same inputs give byte-identical output.
"$REUSESIM" analyze --model "$M/googlenet.yaml" --format json >"$work/a.json"
"$REUSESIM" analyze --model "$M/googlenet.yaml" --format json >"$work/b.json"
checks=$((checks + 1))
cmp -s "$work/a.json" "$work/b.json" || { echo "FAIL: analyze output differs between runs"; failures=$((failures + 1)); }

finish
