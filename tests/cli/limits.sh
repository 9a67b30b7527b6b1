#!/usr/bin/env bash
# Absurd but well-formed inputs either run in bounded memory or are refused up front with a
# message that says why; counts never overflow silently.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs/small.yaml
# Every command here must stay under 3 GB of address space (ASan builds reserve far more: skip it there).
limit_memory() { [ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 3000000; }

# Batch 10^9: refused by every command that takes a batch, naming the one limit (README, "Errors").
expect 2 "run batch 1e9" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --batch 1000000000
contains "run batch message" "$err" "--batch: expected positive integers up to 1000000 separated by commas, got \"1000000000\""
cat >"$work/trace.yaml" <<YAML
name: huge_batch
accelerators: $A
models:
  - {model: $SRC/models/mlp.yaml, batch: [1000000000]}
YAML
expect 2 "trace batch 1e9" -- "$REUSESIM" trace "$work/trace.yaml" --out "$work/r"
# The value's column: "  - {model: " (12), $SRC, "/models/mlp.yaml, batch: [" (26), then it.
contains "trace batch message" "$err" "trace.yaml:4:$((${#SRC} + 39)): error: models.0.batch.0: expected at most 1000000, got 1000000000"

for command in analyze footprint; do
  expect 2 "$command batch 1e9" -- "$REUSESIM" "$command" --model "$SRC/models/mlp.yaml" --batch 1000000000
  contains "$command batch message" "$err" "--batch: expected a positive integer up to 1000000, got 1000000000"
done

# Batch 10^6 without a simulation: analyze and footprint are closed forms and count it exactly.
# MACs per sample: 1000 x 100 + 3 x 100 x 100 + 100 x 10 = 131,000, so 131 x 10^9 in all.
expect 0 "analyze batch 1e6" -- "$REUSESIM" analyze --model "$SRC/models/mlp.yaml" --batch 1000000 --format csv
contains "analyze batch 1e6 MACs" "$out" "TOTAL,,,131000000000,131410,"
# The TOTAL row: 131,410 fp32 weights (525,640 B); the activation column sums every tensor,
# (1000 + 4 x 100 + 10) x 4 B x 10^6 = 5.64 x 10^9 B; total_bytes both, 5,640,525,640. Inference
# holds at most fc1's input and output at once, (1000 + 100) x 4 B x 10^6 = 4.4 x 10^9 B: peak
# 4,400,525,640 B with the weights.
expect 0 "footprint batch 1e6" -- "$REUSESIM" footprint --model "$SRC/models/mlp.yaml" --batch 1000000 --format csv
contains "footprint batch 1e6 total" "$out" "TOTAL,,525640,0,0,5640000000,0,0,0,5640525640,4400525640,4400000000"

# A 10^6 x 10^6 linear layer: 10^12 MACs and 2 TB of fp16 weights. The analysis is exact; the
# replay is refused before it allocates anything: every tiling that fits small's 32 KiB buffers
# needs more than the 4,000,000 steps one layer may have.
cat >"$work/big_linear.yaml" <<'YAML'
name: big_linear
precision: fp16
input: {features: 1000000}
layers:
  - {name: fc, type: linear, out_features: 1000000, bias: false}
YAML
expect 0 "analyze 1e6 x 1e6" -- "$REUSESIM" analyze --model "$work/big_linear.yaml" --format csv
# Columns: layer, type, output shape, MACs, parameters (10^6 x 10^6, no bias).
contains "10^12 MACs" "$out" "fc,linear,1000000,1000000000000,1000000000000,"
# Its time at batch 10^6 on the slowest ideal device --peak-tops takes, 1 Mops/s: 2 x 10^18 ops /
# 10^6 ops/s = 2 x 10^12 s = 2 x 10^18 us, in exponent form (not twenty digits, of which four mean anything).
expect 0 "analyze 1e6 x 1e6 at batch 1e6 on 1 Mops/s" -- "$REUSESIM" analyze --model "$work/big_linear.yaml" \
  --batch 1000000 --peak-tops 1e-6
same "a huge time in exponent form" "$(awk '$1 == "TOTAL" { print $(NF - 4) }' <<<"$out")" "2.000e+18"
expect 2 "run 1e6 x 1e6" -- bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/big_linear.yaml"
contains "1e6 x 1e6 message" "$err" "layer fc: every tiling that fits the SRAM buffers needs more than 4000000 tiles, the step limit of one layer; lower the batch size or give the buffers more capacity"

# A sequence of 10^7 steps through an LSTM (256 -> 256): one GEMM per step is 10^7 GEMMs. The
# analysis counts 4 gates x 256 x (256 + 256) = 524,288 MACs per step, 5,242,880,000,000 in all;
# the replay stops at the per-layer step limit, within the memory limit above.
cat >"$work/long_seq.yaml" <<'YAML'
name: long_seq
precision: fp16
input: {sequence: 10000000, features: 256}
layers:
  - {name: lstm, type: lstm, hidden_size: 256, bias: false}
YAML
expect 0 "analyze seq 1e7" -- "$REUSESIM" analyze --model "$work/long_seq.yaml" --format csv
# MACs, then parameters: 4 x 256 x 512 = 524,288 weights, used at every step.
contains "seq 1e7 MACs" "$out" "lstm,lstm,10000000x256,5242880000000,524288,"
expect 2 "run seq 1e7" -- bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/long_seq.yaml"
contains "seq 1e7 message" "$err" "layer lstm: its program needs more than 4000000 data-movement steps, the limit of one layer; lower the batch size or sequence length, or give the SRAM buffers more capacity"

# The same LSTM over 40,000 steps is 3,240,000 steps a batch, 81 per time step on small (tiles
# m<batch> n1024 k16: 32 K tiles, each a weight load and a compute, 16 of them with an x(t) load,
# and the store of h(t)): three batch sizes pass the 8,000,000-step limit of one run, which says to
# split the run.
sed 's/sequence: 10000000/sequence: 40000/' "$work/long_seq.yaml" >"$work/seq40k.yaml"
expect 2 "run over the run limit" -- bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/seq40k.yaml" --batch 1,2,3
contains "run limit message" "$err" "the run needs more than 8000000 data-movement steps (the limit of one run; reached at layer lstm); run fewer batch sizes or layers at once"

# 10^5 layers run, in bounded memory: 100,000 linear layers of 16 x 16 = 25,600,000 MACs.
{
  printf 'name: many\nprecision: fp16\ninput: {features: 16}\nlayers:\n'
  for i in $(seq 100000); do printf '  - {name: fc%d, type: linear, out_features: 16}\n' "$i"; done
} >"$work/many.yaml"
expect 0 "10^5 layers" -- bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/many.yaml" --format csv
contains "10^5 layers total" "$out" "1,TOTAL,,25600000,"

# Counts past 64 bits are errors, not wrapped numbers: 10^10 x 10^10 = 10^20 MACs > 9.2 x 10^18.
cat >"$work/overflow.yaml" <<'YAML'
name: overflow
precision: fp16
input: {features: 10000000000}
layers:
  - {name: fc, type: linear, out_features: 10000000000}
YAML
expect 2 "overflow" -- "$REUSESIM" analyze --model "$work/overflow.yaml"
contains "overflow message" "$err" "overflow"

finish
