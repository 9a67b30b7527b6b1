#!/usr/bin/env bash
# What the command line says and assumes: --set overrides that would set nothing, one error per
# problem, typo hints, option ranges named with their reason, missing positional arguments named
# as the usage names them, defaults shared by the commands, footprint's totals in CSV and --version
# (the batch limit: limits.sh).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

M=$SRC/models
A=$SRC/configs/snowflake.yaml

# --- An override that sets nothing is an error, not a silent no-op. ---
# memtest --dram ddr4-2400 starts from the preset, whose power block an override's mapping merges
# into: `power={}` changed nothing and reported nothing.
expect 2 "power={} over a preset" -- "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read --requests 10 --set 'power={}'
same "power={} message" "$err" "--set power={}: error: power: {} (an empty mapping) sets nothing: an override changes the fields it names, as power.<key>=value, and cannot empty a mapping (one given over a preset's merges into it)"
expect 2 "an empty mapping inside the value" -- "$REUSESIM" run --arch "$A" --model "$M/mlp.yaml" \
  --set 'dram.power={rails: {}}'
contains "nested empty mapping names its path" "$err" "--set dram.power={rails: {}}: error: dram.power.rails: {} (an empty mapping) sets nothing"
for value in "" "~" "null"; do
  expect 2 "power=$value" -- "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read --requests 10 --set "power=$value"
  same "power=$value message" "$err" "--set power=$value: error: power: the override sets nothing: expected a value after the = (an override changes a field; it cannot remove one)"
done
# An empty list is a value: TPU v1's output path emptied runs (each layer's output is stored whole).
expect 0 "an empty list is set" -- "$REUSESIM" check "$SRC/configs/tpu_v1.yaml" --set 'compute.output_path=[]'

# --- One problem, one error: a current out of range is not also compared as 0 mA. ---
expect 2 "idd0 out of range" -- "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read --set power.rails.vdd.idd0=1e12
same "one error for idd0" "$err" "--set power.rails.vdd.idd0=1e12: error: power.rails.vdd.idd0: expected a number from 0 to 1e+06, got 1e12"
# A current in range but below its floor is still the relation's error.
expect 2 "idd0 below idd3n" -- "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read --set power.rails.vdd.idd0=1
contains "relation still judged" "$err" "idd0 1 mA is below idd3n"

# --- Typo hints: a key without its unit, a key in the wrong case, --set's first component. ---
expect 2 "bank_width" -- "$REUSESIM" run --arch "$A" --model "$M/mlp.yaml" --set sram.buffers.0.bank_width=4
same "bank_width hint" "$err" "--set sram.buffers.0.bank_width=4: error: sram.buffers.maps.bank_width: unknown key (did you mean \"bank_width_bytes\"?)"
expect 2 "tCCD_L" -- "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read --set tCCD_L=8
same "tCCD_L hint" "$err" "--set tCCD_L=8: error: tCCD_L: unknown key (did you mean \"tccd_l\"? names are case-sensitive)"
expect 2 "modle" -- "$REUSESIM" run --arch "$A" --model "$M/mlp.yaml" --set modle.layers.fc1.out_features=3
same "modle hint" "$err" "--set modle.layers.fc1.out_features=3: error: modle: unknown key (did you mean \"model\"?)"

# --- --peak-tops: the range accepted, and why (numbers past 10^15 in exponent form: limits.sh). ---
for tops in 1e300 1e-300 0; do
  expect 2 "--peak-tops $tops" -- "$REUSESIM" analyze --model "$M/mlp.yaml" --peak-tops "$tops"
  contains "--peak-tops $tops range" "$err" "--peak-tops: expected Tops/s from 1e-06 (1 Mops/s, a microcontroller) to 1e+06 (1 Eops/s, a thousand of today's largest accelerators), got"
done
# --- --checkpoint-segments 0 names the least it takes. ---
expect 2 "--checkpoint-segments 0" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --mode train --optimizer sgd \
  --checkpoint-segments 0
contains "segments message" "$err" "--checkpoint-segments: expected the number of segments, at least 1 (1: no checkpointing), got 0"

# --- A missing positional argument is named as the usage names it. ---
expect 2 "check without files" -- "$REUSESIM" check
same "check message" "$err" "reusesim check: error: missing argument FILE..., the files to validate; usage: reusesim check FILE... [options]
try: reusesim check --help"
expect 2 "trace without a run file" -- "$REUSESIM" trace --out "$work/t"
contains "trace message" "$err" "reusesim trace: error: missing argument TRACE, the run file (batch trace, YAML); usage: reusesim trace TRACE [options]"
expect 2 "figure without a directory" -- "$REUSESIM" figure
contains "figure message" "$err" "reusesim figure: error: missing argument DIR, the results directory of reusesim trace; usage: reusesim figure DIR [options]"
expect 0 "the usage in --help" -- "$REUSESIM" check --help
contains "help usage" "$out" "usage: reusesim check FILE... [options]"
# A missing option is still named as the option.
expect 2 "analyze without --model" -- "$REUSESIM" analyze
contains "option message" "$err" "the option '--model' is required but missing"

# --- footprint defaults as run and analyze do: inference, batch 1. ---
expect 0 "footprint without --mode" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --format csv
defaults=$out
expect 0 "footprint --mode infer --batch 1" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --mode infer --batch 1 --format csv
same "the defaults are infer at batch 1" "$defaults" "$out"

# --- footprint's CSV holds the totals and peaks, in the TOTAL row. ---
# mlp at batch 1, fp32, inference: 131,410 weights x 4 B = 525,640 B; activations: the input 1000
# and the outputs 4 x 100 + 10, x 4 B = 5,640 B; total 531,280 B. Peak: fc1 holds its input and
# output, (1000 + 100) x 4 B = 4,400 B of activations, with the weights 530,040 B.
same "footprint CSV totals" "$(csv_col total_bytes,peak_bytes,peak_activation_bytes --where layer=TOTAL <<<"$defaults")" \
  "531280,530040,4400"
# A layer's total is its own row's sum (fc1: 100,100 weights x 4 B + 100 outputs x 4 B); peaks are the network's.
same "a layer's total" "$(csv_col total_bytes,peak_bytes --where layer=fc1 <<<"$defaults")" "400800,"

# --- --version names the directories in use, REUSESIM_PRESET_DIR and the others included. ---
mkdir -p "$work/presets"
cp "$SRC/configs/dram/ddr4-2400.yaml" "$work/presets/mine.yaml"
expect 0 "--version with REUSESIM_PRESET_DIR" -- env REUSESIM_PRESET_DIR="$work/presets" "$REUSESIM" --version
contains "preset dir" "$out" "DRAM presets: $work/presets (REUSESIM_PRESET_DIR)"
contains "technology dir" "$out" "technology tables: $SRC/configs/energy"
contains "scripts dir" "$out" "plotting scripts: $SRC/scripts"
expect 0 "the preset found there" -- env REUSESIM_PRESET_DIR="$work/presets" "$REUSESIM" memtest --dram mine \
  --pattern seq_read --requests 10 --format csv
expect 0 "--version without overrides" -- env -u REUSESIM_PRESET_DIR "$REUSESIM" --version
same "shipped preset dir" "$(grep '^DRAM presets: ' <<<"$out")" "DRAM presets: $SRC/configs/dram"

finish
