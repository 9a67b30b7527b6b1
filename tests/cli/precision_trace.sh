#!/usr/bin/env bash
# traces/precision.yaml and its figure (scripts/plot_precision.py; docs/validation.md, "Number
# formats"): the trace's model files are what traces/precision/make_models.sh writes, the trace
# validates, and the figure's table counts a Llama-2-7B step as 32 decoder blocks plus the
# embedding, final norm and lm_head. Without arguments the trace runs cut to tpu_v4i at batch 1
# (seconds); with `full` (a slow-labelled test) the whole trace, both machines and batch sizes.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"
full="${1:-}"
plot="$SRC/scripts/plot_precision.py"

# --- The model files follow the shipped models through their generator. ---
mkdir "$work/models"
expect 0 "make_models.sh" -- bash "$SRC/traces/precision/make_models.sh" "$work/models"
for file in "$work"/models/*.yaml; do
  same "$(basename "$file") is what make_models.sh writes" \
    "$(cmp -s "$file" "$SRC/traces/precision/$(basename "$file")" && echo same)" "same"
done
same "as many model files as it writes" "$(ls "$SRC"/traces/precision/*.yaml | wc -l)" "$(ls "$work"/models/*.yaml | wc -l)"
expect 0 "check the trace" -- "$REUSESIM" check "$SRC/traces/precision.yaml"

# --- A trace over machines whose run tables differ has one table of every job's columns. ---
# a100 (a shared memory: shared_read_bytes) and tpu_v4i (none) run the MLP; each row's cells sit under
# their own columns, tpu_v4i's shared_read_bytes empty, and its time is its own run's.
cat >"$work/two.yaml" <<YAML
name: two_machines
accelerators: [$SRC/configs/a100.yaml, $SRC/configs/tpu_v4i.yaml]
models:
  - model: $SRC/models/mlp.yaml
    batch: [1]
YAML
expect 0 "trace over a100 and tpu_v4i" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/two" --no-figure
expect 0 "run mlp on tpu_v4i" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v4i.yaml" --model "$SRC/models/mlp.yaml" \
  --format csv
alone=$(csv_col macs,time_s,dram_read_bytes --where layer=TOTAL <<<"$out")
same "tpu_v4i's row under its own columns" \
  "$(csv_col macs,time_s,dram_read_bytes,shared_read_bytes --where accelerator=tpu_v4i <"$work/two/networks.csv")" "$alone,"
same "a100's row has its shared-memory bytes" \
  "$(csv_col shared_read_bytes --where accelerator=a100 <"$work/two/networks.csv" | grep -c '^[0-9]')" "1"
same "every layers.csv row as long as its header" \
  "$(/usr/bin/python3 -c 'import csv, sys; print(len({len(r) for r in csv.reader(open(sys.argv[1]))}))' \
    "$work/two/layers.csv")" "1"

# --- Run it (cut unless full) and draw the figure. ---
cut=()
if [ "$full" != full ]; then
  cut=(--set 'accelerators=[../configs/tpu_v4i.yaml]')
  for i in 0 1 2 3 4 5; do cut+=(--set "models.$i.batch=[1]"); done
fi
expect 0 "trace" -- "$REUSESIM" trace "$SRC/traces/precision.yaml" --out "$work/results" --no-figure "${cut[@]}"
expect 0 "plot" -- "$plot" "$work/results" "$work/precision"
table="$work/precision.csv"
for ext in png svg csv; do same "precision.$ext written" "$([ -s "$work/precision.$ext" ] && echo yes)" "yes"; done
cp "$work/precision.png" "$work/first.png"
expect 0 "plot again" -- "$plot" "$work/results" "$work/precision"
same "the same input draws the same PNG" "$(cmp -s "$work/first.png" "$work/precision.png" && echo same)" "same"

# A step of each Llama job: its layers.csv rows under layers/ (the one block) x 32 plus the others,
# summed here apart from the script, in ms to the table's 6 decimals.
layers="$work/results/layers.csv"
for job in $(csv_col job <"$layers" | sort -u | grep llama2_7b_); do
  model=$(csv_col model --where job="$job" <"$layers" | head -1)
  accelerator=$(csv_col accelerator --where job="$job" <"$layers" | head -1)
  batch=$(csv_col batch --where job="$job" <"$layers" | head -1)
  expected=$(csv_col layer,time_s --where job="$job" <"$layers" |
    awk -F, '{ s += ($1 ~ /^layers\//) ? 32 * $2 : $2 } END { printf "%.6f", s * 1e3 }')
  same "$job: a step is 32 blocks and the rest" \
    "$(csv_col accelerator,model,batch,step_ms <"$table" | grep "^$accelerator,$model,$batch,")" \
    "$accelerator,$model,$batch,$expected"
done
# tpu_v4i at batch 1: W16A16 is docs/validation.md's 41.500 ms ("Weight-only quantization"); W8A8
# multiplies int8 at the bf16 rate and moves half the bytes of everything, so it is the fastest.
v4i_b1=$(csv_col accelerator,batch,model,step_ms <"$table" | grep '^tpu_v4i,1,llama' | cut -d, -f3,4)
same "tpu_v4i W16A16 batch 1" "$(grep '^llama2_7b_w16a16,' <<<"$v4i_b1" | cut -d, -f2 | cut -c1-6)" "41.499"
fastest=$(sort -t, -k2 -g <<<"$v4i_b1" | head -1 | cut -d, -f1)
same "W8A8 is the fastest Llama step on tpu_v4i at batch 1" "$fastest" "llama2_7b_w8a8"
same "ResNet-50 2:4 against dense, a speed-up per machine and batch" \
  "$(csv_col model,speedup <"$table" | grep -c '^resnet50_2to4,[0-9]')" "$([ "$full" = full ] && echo 4 || echo 1)"
if [ "$full" = full ]; then
  same "16 Llama steps and 8 ResNet-50 runs" "$(csv_col model <"$table" | wc -l)" "24"
  # On a100 W8A8 runs at int8's 2x rate where W8A16 dequantizes: at batch 32 it beats W8A16.
  w8a8=$(csv_col accelerator,model,batch,speedup <"$table" | grep '^a100,llama2_7b_w8a8,32,' | cut -d, -f4)
  w8a16=$(csv_col accelerator,model,batch,speedup <"$table" | grep '^a100,llama2_7b_w8a16,32,' | cut -d, -f4)
  same "a100 batch 32: W8A8 faster than W8A16" "$(awk -v a="$w8a8" -v b="$w8a16" 'BEGIN { print (a > b) }')" "1"
fi

# --- Bad input: the file and line, exit 2. ---
mkdir "$work/bad"
printf 'job,accelerator,model,batch,layer\nj,a,llama2_7b_w8a8,1,q\n' >"$work/bad/layers.csv"
expect 2 "a layers.csv without time_s" -- "$plot" "$work/bad" "$work/bad/out"
contains "names the file and the column" "$err" "plot_precision.py: error: $work/bad/layers.csv:1: missing column time_s"

finish
