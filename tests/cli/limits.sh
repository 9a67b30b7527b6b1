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
# Its 10^12 weight bytes at int8 are past the DRAM bytes limit before anything is mapped; with
# that limit raised, the tiling is.
# Its 10^12 B of weights do not fit small's 16 GiB either (docs/conventions.md, "DRAM capacity"):
# these runs give the memory 10^6 GiB (about 1.07 x 10^15 B), so that the run limits refuse them.
huge=(--set dram.capacity_gib=1000000)
expect 2 "run 1e6 x 1e6" -- bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/big_linear.yaml" "${huge[@]}"
contains "1e6 x 1e6 bytes message" "$err" "the run moves more than 25000000000 bytes through the DRAM model (the limit of one run, minutes of simulation): 1000000000000 with the weights and KV caches of batch 1 alone"
expect 2 "run 1e6 x 1e6, bytes limit raised" -- env REUSESIM_MAX_DRAM_BYTES=9000000000000000000 bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/big_linear.yaml" "${huge[@]}"
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
# split the run. (At batch 2 it has moved 42 GB, past the DRAM bytes limit: raised here.)
sed 's/sequence: 10000000/sequence: 40000/' "$work/long_seq.yaml" >"$work/seq40k.yaml"
expect 2 "run over the run limit" -- env REUSESIM_MAX_DRAM_BYTES=100000000000 bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$A" --model "$work/seq40k.yaml" --batch 1,2,3
contains "run limit message" "$err" "the run needs more than 8000000 data-movement steps (the limit of one run; reached at layer lstm); run fewer batch sizes or layers at once"

# Decode steps whose KV caches the DRAM model would have to move are refused before anything is
# mapped or simulated (each once ran for minutes: batch 1,000 of the case below took 35 s, 100,000
# was still running after 300 s, 1,000,000 after 150 s at 1.7 GB). One GPT-2 block at a 1,023-token
# context reads 2 x 1,023 x 768 = 1,571,328 cached keys and values a sample, 3,142,656 B at bf16;
# its q, k, v, attn_proj (4 x 768 x 769), fc (768 x 3,072 + 3,072) and mlp_proj (3,072 x 768 + 768)
# weights are 7,084,800 x 2 = 14,169,600 B. At batch 100,000: 314,265,600,000 + 14,169,600 =
# 314,279,769,600 B, past the 25,000,000,000-byte limit of one run. (None of them fits tpu_v4i's
# 8 GiB: its memory is given 10^6 GiB, as above, so that the run limits refuse them.)
T=$SRC/configs/tpu_v4i.yaml
decode=(--model "$SRC/models/gpt2.yaml" --phase decode --context 1023 --set model.parameters.layers=1 "${huge[@]}")
expect 2 "decode batch 1e5" -- timeout 60 "$REUSESIM" run --arch "$T" "${decode[@]}" --batch 100000
contains "decode batch 1e5 message" "$err" "the run moves more than 25000000000 bytes through the DRAM model (the limit of one run, minutes of simulation): 314279769600 with the weights and KV caches of batch 100000 alone; lower the batch size (or the context or sequence length), run fewer batch sizes or layers at once, or raise the limit with REUSESIM_MAX_DRAM_BYTES=<bytes> (accelerator $T, batch 100000)"
expect 2 "decode batch 1e6" -- timeout 60 bash -c "$(declare -f limit_memory); limit_memory; exec \"\$0\" \"\$@\"" "$REUSESIM" run --arch "$T" "${decode[@]}" --batch 1000000
contains "decode batch 1e6 message" "$err" "bytes through the DRAM model (the limit of one run, minutes of simulation): 3142670169600 with"
# Llama-2-7B at a 4,095-token context and batch 20,000: 42.9 TB of KV cache, refused at once.
expect 2 "llama decode batch 2e4" -- timeout 60 "$REUSESIM" run --arch "$T" --model "$SRC/models/llama2_7b.yaml" --phase decode --context 4095 --batch 20000 "${huge[@]}"
contains "llama decode message" "$err" "with the weights and KV caches of batch 20000 alone; lower the batch size"
# The environment moves the limits. The MLP on small at batch 1 moves some kilobytes: under a
# limit of 1,000 bytes it is refused, and at 10^-9 simulated seconds too (its 131,000 MACs take
# 2 x 131,000 / 512e9 = 0.51 us at least); a value that is not a number is refused by name.
expect 2 "bytes limit from the environment" -- env REUSESIM_MAX_DRAM_BYTES=1000 "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml"
contains "bytes limit message" "$err" "the run moves more than 1000 bytes through the DRAM model"
expect 2 "time limit from the environment" -- env REUSESIM_MAX_SIMULATED_SECONDS=1e-9 "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml"
contains "time limit message" "$err" "the run simulates more than 1e-09 s of the accelerator's time"
expect 2 "bad limit in the environment" -- env REUSESIM_MAX_DRAM_BYTES=lots "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml"
contains "bad limit message" "$err" "REUSESIM_MAX_DRAM_BYTES: expected a positive integer, got \"lots\""

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
