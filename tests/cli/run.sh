#!/usr/bin/env bash
# End-to-end checks of `reusesim run`: columns, TOTAL rows, --out files, and bad input.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs
M=$SRC/models
header="batch,layer,type,macs,cycles,time_s,compute_cycles,stall_cycles,stall_weights_cycles,stall_inputs_cycles,stall_output_drain_cycles,stall_sram_cycles,stall_vector_cycles,vector_ops,dram_read_bytes,dram_write_bytes,dram_read_weight_bytes,dram_read_input_bytes,dram_write_output_bytes,prefetched_weight_bytes,onchip_read_input_bytes,onchip_kept_output_bytes,sram_read_bytes,sram_write_bytes,dram_gbps,dram_span_s,row_hit_rate,arithmetic_intensity,gops,efficiency,element_bytes,mapping,dram_activates,dram_precharges,dram_refreshes,dram_read_commands,dram_write_commands,dram_row_hits,dram_row_misses,dram_row_conflicts,dram_turnarounds,dram_write_drains,dram_read_latency_mean_ns,dram_read_latency_p50_ns,dram_read_latency_p99_ns,dram_write_latency_mean_ns,dram_write_latency_p50_ns,dram_write_latency_p99_ns,energy_total_uj,energy_dram_uj,energy_sram_uj,energy_array_uj,energy_vector_uj,energy_dma_uj,energy_static_uj,energy_dram_activate_uj,energy_dram_read_write_uj,energy_dram_refresh_uj,energy_dram_background_uj,energy_dram_io_uj,pj_per_op,tops_per_w,power_w,dram_read_kv_cache_bytes"

expect 0 "run mlp csv" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 1,16 --format csv
same "csv header" "$(head -1 <<<"$out")" "$header"
# 5 layers and a TOTAL row per batch size, after the header.
same "rows" "$(wc -l <<<"$out")" "13"
contains "batch 1 total: 131,000 MACs" "$out" "1,TOTAL,,131000,"
contains "batch 16 total: 16 x 131,000 MACs" "$out" "16,TOTAL,,2096000,"

expect 0 "run json" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/mlp.yaml" --format json
contains "json peak" "$out" '"peak_gops": 128'
contains "json conventions" "$out" "1 MAC = 2 ops"

expect 0 "run table" -- "$REUSESIM" run --arch "$A/tpu_v1.yaml" --model "$M/mlp.yaml"
contains "table names the accelerator" "$out" "accelerator tpu_v1"
# tpu_v1 has 8-bit operands: run sizes elements by them, whatever the model's precision (fp32 here).
contains "table states the element size" "$out" "accelerator tpu_v1, model mlp, 1-byte elements"

expect 0 "--out writes files" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --out "$work/results" --format csv
for file in results.csv results.json dram_channels.csv config.json stats.txt; do
  checks=$((checks + 1))
  [ -s "$work/results/$file" ] || { echo "FAIL: --out did not write $file"; failures=$((failures + 1)); }
done
same "results.csv equals stdout" "$(cat "$work/results/results.csv")" "$out"
contains "config.json has the resolved DRAM" "$(cat "$work/results/config.json")" '"trcd": 17'
contains "stats.txt states units" "$(cat "$work/results/stats.txt")" "1 MAC = 2 ops"
contains "stats.txt explains element_bytes" "$(cat "$work/results/stats.txt")" "element_bytes: bytes per tensor element"
contains "results.json states the element size" "$(cat "$work/results/results.json")" '"element_bytes": '
checks=$((checks + 1))
if ls -a "$work/results" | grep -q partial; then echo "FAIL: a partial file was left behind"; failures=$((failures + 1)); fi
# DRAM statistics: every read or write command moves one 64-byte burst (ddr4-2400: 64 bits x BL 8),
# so over the batch (TOTAL) the commands account for every DRAM byte; dram_channels.csv's TOTAL rows
# add up to the TOTAL row.
total_of() {  # total_of FILE NAME: column NAME summed over the TOTAL rows
  csv_col "$2" --where layer=TOTAL "$1" | awk '{ s += $1 } END { print s }'
}
same "TOTAL read commands x 64 = DRAM read bytes" "$(( $(total_of "$work/results/results.csv" dram_read_commands) * 64 ))" \
  "$(total_of "$work/results/results.csv" dram_read_bytes)"
same "TOTAL write commands x 64 = DRAM write bytes" "$(( $(total_of "$work/results/results.csv" dram_write_commands) * 64 ))" \
  "$(total_of "$work/results/results.csv" dram_write_bytes)"
for name in dram_activates dram_read_commands dram_row_hits dram_refreshes; do
  same "dram_channels.csv: $name adds up to TOTAL" "$(total_of "$work/results/dram_channels.csv" $name)" \
    "$(total_of "$work/results/results.csv" $name)"
done
contains "stats.txt explains the DRAM counters" "$(cat "$work/results/stats.txt")" "row_hits + row_misses + row_conflicts"
contains "results.json has the channels" "$(cat "$work/results/results.json")" '"dram_channels": ['


# --set goes to the accelerator, --set model.* to the model.
expect 0 "set both files" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --set dram.channels=2 --set model.layers.fc1.out_features=50 --format csv
# fc1 1000 -> 50 feeds fc2 50 -> 100: 1000*50 + 50*100 + 2 * 100*100 + 100*10 = 76,000 MACs.
contains "model override took" "$out" "1,TOTAL,,76000,"
# An ideal memory: no DRAM column commands, so row_hit_rate is empty on every row,
# and config.json says what the memory was.
sed '/^dram:/,$d' "$A/small.yaml" >"$work/ideal.yaml"
printf 'dram:\n  ideal: unlimited\n' >>"$work/ideal.yaml"
expect 0 "run on an ideal memory" -- "$REUSESIM" run --arch "$work/ideal.yaml" --model "$M/mlp.yaml" --format csv --out "$work/ideal"
same "ideal memory: no row_hit_rate" "$(csv_col row_hit_rate <<<"$out" | sort -u)" ""
contains "ideal memory in config.json" "$(cat "$work/ideal/config.json")" '"ideal": "unlimited"'

# Every batch of a run starts from the same machine (DRAM banks precharged, queues empty, refresh
# timers and SRAM ports restarted): a row is the row of the same batch run alone, which is what a
# trace job runs. On small, batch 4,4 printed two different TOTALs (33,129 and 33,513 cycles).
expect 0 "batch 4,4" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 4,4 --format csv
same "batch 4,4: the same rows twice" "$(grep '^4,' <<<"$out" | head -n 6)" "$(grep '^4,' <<<"$out" | tail -n 6)"
expect 0 "batch 1,2,1" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 1,2,1 --format csv
mixed=$out
expect 0 "batch 1 alone" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 1 --format csv
same "batch 1,2,1: the first batch 1 is batch 1 alone" "$(sed -n 2,7p <<<"$mixed")" "$(sed -n 2,7p <<<"$out")"
same "batch 1,2,1: the second batch 1 is batch 1 alone" "$(sed -n 14,19p <<<"$mixed")" "$(sed -n 2,7p <<<"$out")"
expect 0 "batch 2 alone" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 2 --format csv
same "batch 1,2,1: batch 2 is batch 2 alone" "$(sed -n 8,13p <<<"$mixed")" "$(sed -n 2,7p <<<"$out")"

expect 2 "bad batch" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 1,0
contains "bad batch message" "$err" "--batch: expected positive integers up to 1000000 separated by commas, got \"1,0\""
expect 2 "bad arch" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --set compute.rows=0
contains "bad arch message" "$err" "--set compute.rows=0: error: compute.rows: expected a positive integer, got 0"
expect 2 "missing model" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$work/none.yaml"
# Recurrent steps tile K, so only a pinned tiling can fail to fit: all 1000 x 1000 int8 weights in
# one tile need 1,000,000 bytes against half of small's 32 KiB weight buffer.
printf 'name: big\nprecision: int8\ninput: {features: 1000}\nlayers:\n  - {name: fc, type: linear, out_features: 1000, tiling: {m: 1, n: 1000, k: 1000, order: n-m}}\n' >"$work/big.yaml"
expect 2 "nothing fits" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$work/big.yaml"
contains "nothing fits message" "$err" "layer fc: the pinned tiling m1 n1000 k1000 does not fit half the weight, input and output buffers"

# --layers and --layer-types run part of a model; the TOTAL row adds up only those layers.
expect 0 "layers subset" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --layers fc1,fc3 --format csv
# fc1 is 1000 -> 100 and fc3 100 -> 100 (models/mlp.yaml): 100,000 + 10,000 MACs.
same "subset rows" "$(csv_col batch,layer,type,macs <<<"$out" | tr '\n' ' ')" "1,fc1,linear,100000 1,fc3,linear,10000 1,TOTAL,,110000 "
# Two of lstm_lm's five types (its LSTM layers, not selected, take seconds to replay).
expect 0 "layer types subset" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/lstm_lm.yaml" --layer-types embedding,softmax --format csv
same "only embedding and softmax rows" "$(csv_col layer,type <<<"$out" | tr '\n' ' ')" "embedding,embedding prob,softmax TOTAL, "
expect 2 "unknown layer" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --layers fc9
contains "unknown layer message" "$err" '--layers: model mlp has no layer "fc9" (did you mean "fc1"?)'
expect 2 "unknown type" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --layer-types lnear
contains "unknown type message" "$err" '--layer-types: unknown layer type "lnear" (did you mean "linear"?)'
expect 2 "empty selection" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --layer-types conv2d
contains "empty selection message" "$err" "--layers and --layer-types select no layer of model mlp"

# Convolutions of AlexNet, GoogLeNet and ResNet-50 on snowflake sit near the compute roof: over
# all conv layers of each, achieved ops / (time x 128 Gops/s) is at least 90 %.
for model in alexnet googlenet resnet50; do
  expect 0 "$model on snowflake" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/$model.yaml" --format csv
  checks=$((checks + 1))
  csv_col macs,time_s --where type=conv2d <<<"$out" |
    awk -F, '{ ops += 2 * $1; seconds += $2 } END { exit !(ops / seconds / 128e9 >= 0.9) }' ||
    { echo "FAIL: $model convolutions below 90 % of the compute roof"; failures=$((failures + 1)); }
done

# DeepSpeech2's GRU layers climb the bandwidth slope with batch: about 1 op/byte and about the
# 4.27 GB/s DRAM bandwidth in Gops/s at batch 1; at batch 64 over 8 times the Gops/s. gru2 alone
# (the layers before it move its time by under 0.01 %: the DRAM's refresh phase and open rows).
expect 0 "deepspeech2 batch sweep" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/deepspeech2.yaml" --batch 1,64 --layers gru2 --format csv
checks=$((checks + 1))
gru2=$(csv_col batch,arithmetic_intensity,gops --where layer=gru2 <<<"$out")
awk -F, '{ intensity[$1] = $2; gops[$1] = $3 }
         END { exit !(intensity[1] > 0.9 && intensity[1] < 1.1 && gops[1] > 3.5 && gops[1] < 4.3 && gops[64] > 8 * gops[1]) }' <<<"$gru2" ||
  { echo "FAIL: deepspeech2 gru2 does not climb: $gru2"; failures=$((failures + 1)); }

# Deterministic: the same inputs give byte-identical output.
"$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/alexnet.yaml" --format csv >"$work/a.csv"
"$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/alexnet.yaml" --format csv >"$work/b.csv"
checks=$((checks + 1))
cmp -s "$work/a.csv" "$work/b.csv" || { echo "FAIL: run output differs between runs"; failures=$((failures + 1)); }

# check says "ok" of a file only once it has loaded: a bad run or accelerator file prints its error
# and nothing on standard output.
printf 'name: bad\naccelerators: %s\nmodels:\n  - {model: %s, batch: [0]}\n' "$A/small.yaml" "$M/mlp.yaml" >"$work/bad_run.yaml"
expect 2 "check a bad run file" -- "$REUSESIM" check "$work/bad_run.yaml"
same "no ok for a bad run file" "$out" ""
contains "the bad batch named" "$err" "bad_run.yaml:4:"
sed 's/clock_mhz: .*/clock_mhz: 0/' "$A/small.yaml" >"$work/bad_arch.yaml"
expect 2 "check a bad accelerator" -- "$REUSESIM" check "$work/bad_arch.yaml"
same "no ok for a bad accelerator" "$out" ""
finish
