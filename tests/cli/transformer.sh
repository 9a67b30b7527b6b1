#!/usr/bin/env bash
# End-to-end checks of transformer runs: a decode step reads the KV cache and moves every weight
# once, batching shares the weights but not the cache, and bad phases are refused (exit 2).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# TPU v1 (int8: a byte an element) on an ideal memory, so the bytes are the program's.
sed -e '/^dram:/,$d' "$SRC/configs/tpu_v1.yaml" >"$work/tpu_ideal.yaml"
echo "dram: {ideal: unlimited}" >>"$work/tpu_ideal.yaml"

# --- GPT-2 with two layers, one decode step after 100 tokens. ---
# Weights: each layer 7,087,872 parameters, ln_f 1,536, and one row (768) of wte and of wpe per
# token: 2 x 7,087,872 + 1,536 + 2 x 768 = 14,178,816 bytes at batch 1; at batch 4 the layers' weights
# serve all four tokens and only the embeddings gather more rows: 14,175,744 + 1,536 + 8 x 768 =
# 14,183,424. KV cache: per layer Q K^T reads 101 keys and A V 101 values of 12 heads x 64 = 768
# bytes per sample: 2 x 2 x 101 x 768 = 310,272 bytes, x 4 samples = 1,241,088.
# MACs per token: per layer 4 x 768 x 768 + 2 x 768 x 3,072 = 7,077,888 and attention 2 x 101 x 768
# = 155,136: 2 x 7,233,024 = 14,466,048.
expect 0 "gpt2 decode" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1,4 --format csv
same "decode weights, cache, MACs" \
  "$(csv_col batch,dram_read_weight_bytes,dram_read_kv_cache_bytes,macs --where layer=TOTAL <<<"$out")" \
  "1,14178816,310272,14466048
4,14183424,1241088,57864192"

# --- The programs round-trip: replaying the dumped decode step gives the same table. ---
expect 0 "gpt2 decode dump" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1,4 --format csv --dump-program "$work/decode.prog"
decode_table=$out
contains "kv_cache loads in the program" "$(cat "$work/decode.prog")" "load kv_cache addr"
contains "matmuls read their second operand from the input buffer" "$(cat "$work/decode.prog")" " stationary inputs "
expect 0 "replay the decode step" -- "$REUSESIM" replay --arch "$work/tpu_ideal.yaml" --program "$work/decode.prog" --format csv
# A program file holds no phase: the replay's table lacks the run's per-token columns (a
# technology's uj_per_token and tokens_per_joule), and has every other column the same.
same "replayed decode table" "$out" "$(/usr/bin/python3 -c 'import csv, io, sys
rows = list(csv.reader(io.StringIO(sys.stdin.read())))
keep = [i for i, name in enumerate(rows[0]) if name not in ("uj_per_token", "tokens_per_joule")]
out = io.StringIO()
csv.writer(out, lineterminator="\n").writerows([[r[i] for i in keep] for r in rows])
print(out.getvalue(), end="")' <<<"$decode_table")"

# --- tpu_v4i runs decode attention where it is fastest, moving the same bytes wherever it runs. ---
# bf16 on an ideal memory; 12 heads of 64, 101 tokens (100 cached and the new one), batch 1.
# scores (M 1, K 64, N 101 a head) on the four 128 x 128 arrays, each fold 2 x 128 + 128 + 1 - 2 =
# 383 cycles, the later ones 128 apart (double-buffered). Split by columns, 26 of a head's 101 an
# array: two heads a fold, 6 folds, 383 + 5 x 128 = 1,023; by groups, 3 heads an array, one a fold
# (101 columns), 3 folds: 383 + 2 x 128 = 639, the fastest. context (M 1, K 101, N 64): one head a
# fold either way, by groups 3 folds: 639 (by columns 12 folds: 1,791); transposed (64 rows
# streamed) 3 folds of 446: 446 + 2 x 128 = 702.
# The vector unit: 2 x 12 x 101 x 64 = 155,136 ops / 1,024 a cycle = 151.5 -> 152 cycles each.
sed -e '/^dram:/,$d' "$SRC/configs/tpu_v4i.yaml" >"$work/v4i_ideal.yaml"
echo "dram: {ideal: unlimited}" >>"$work/v4i_ideal.yaml"
expect 0 "v4i decode" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=1 --phase decode --context 100 --format csv
placed=$out
same "attention on the vector unit" "$(csv_col compute_cycles --where layer=h/scores <<<"$placed"),$(
  csv_col compute_cycles --where layer=h/context <<<"$placed")" "152,152"
contains "the mapping says why" "$(csv_col mapping --where layer=h/context <<<"$placed")" \
  "; on the vector unit (estimated cycles: array 639, array transposed 702, vector unit 152)"
expect 0 "v4i decode on the array" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=1 --phase decode --context 100 --format csv \
  --set compute.vector_unit_gemm=false --set compute.swap_operands=false
same "attention on the array" "$(csv_col compute_cycles --where layer=h/scores <<<"$out"),$(
  csv_col compute_cycles --where layer=h/context <<<"$out")" "639,639"
same "the same bytes and MACs wherever attention runs" \
  "$(csv_col macs,dram_read_bytes,dram_write_bytes,dram_read_kv_cache_bytes --where layer=TOTAL <<<"$out")" \
  "$(csv_col macs,dram_read_bytes,dram_write_bytes,dram_read_kv_cache_bytes --where layer=TOTAL <<<"$placed")"

# --- The same model's prefill of 101 tokens reads no cache. ---
expect 0 "gpt2 prefill" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --set model.parameters.seq_len=101 --format csv
same "prefill reads no cache" "$(csv_col dram_read_kv_cache_bytes --where layer=TOTAL <<<"$out")" "0"
prefill_table=$out

# --- analyze: per-token MACs and KV-cache bytes of Llama-2-7B. ---
# A decode step after 512 tokens: per layer 4 x 4,096^2 + 3 x 4,096 x 11,008 = 202,375,168 MACs and
# attention over 513 tokens 2 x 513 x 4,096 = 4,202,496; 32 layers and the lm_head 4,096 x 32,000:
# 32 x 206,577,664 + 131,072,000 = 6,741,557,248 MACs. A token adds a key and a value row of 4,096
# per layer to the cache: 32 x 2 x 4,096 x 2 bytes (fp16) = 524,288. At batch 8 each layer's Q K^T
# reads from the cache the 512 cached keys and the new token's of every sample, as run does:
# 513 x 4,096 x 8 x 2 = 33,619,968 bytes.
expect 0 "analyze decode" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode --context 512 --batch 8
contains "per-token line" "$out" "per token: 6,741,557,248 MACs, 524,288 bytes of keys and values in the KV cache"
expect 0 "analyze decode json" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode --context 512 --batch 8 --format json
same "kv read by one scores layer" "$(/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["macs_per_token"], d["kv_cache_bytes_per_token"],
      [l["kv_cache_read_bytes"] for l in d["layers"] if l["layer"] == "layers_1/scores"][0])' <<<"$out")" "6741557248 524288 33619968"

# --- analyze: Llama-3.1-8B's 32 query heads share 8 key/value heads (grouped-query attention). ---
# A decode step after 512 tokens: per layer q and o 2 x 4,096^2 = 33,554,432, k and v
# 2 x 4,096 x 1,024 = 8,388,608, the MLP 3 x 4,096 x 14,336 = 176,160,768, attention over 513 tokens
# 2 x 513 x 128 x 32 heads = 4,202,496: 222,306,304; 32 layers and the lm_head 4,096 x 128,256:
# 32 x 222,306,304 + 525,336,576 = 7,639,138,304 MACs. The cache holds 1,024 (8 heads x 128) per
# key or value row: each kv_cache matmul reads 513 x 1,024 x 2 B = 1,050,624 bytes, the step
# 64 x 1,050,624 = 67,239,936; a token adds 2 x 32 x 1,024 x 2 B = 131,072 bytes (128 KiB).
expect 0 "llama3 analyze decode" -- "$REUSESIM" analyze --model "$SRC/models/llama3_1_8b.yaml" --phase decode \
  --context 512 --batch 1 --format csv
same "llama3 decode MACs and KV-cache reads" \
  "$(csv_col macs,kv_cache_read_bytes --where layer=TOTAL <<<"$out"),$(csv_col kv_cache_read_bytes --where layer=layers_1/context <<<"$out")" \
  "7639138304,67239936,1050624"
expect 0 "llama3 analyze decode json" -- "$REUSESIM" analyze --model "$SRC/models/llama3_1_8b.yaml" --phase decode \
  --context 512 --batch 1 --format json
same "llama3 per token" "$(/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["macs_per_token"], d["kv_cache_bytes_per_token"])' <<<"$out")" "7639138304 131072"
# footprint: what the cache holds before the step, per matmul L x 1,024 x 2 B and in all 64 times
# that. L = 512: 1,048,576 and 67,108,864. The whole 128 K context (131,071 cached tokens and the
# new one): 268,433,408 and 17,179,738,112 (16 GiB less the new token's 128 KiB).
while read -r context matmul_bytes total_bytes; do
  expect 0 "llama3 footprint decode $context" -- "$REUSESIM" footprint --model "$SRC/models/llama3_1_8b.yaml" \
    --batch 1 --mode infer --phase decode --context "$context" --format csv
  same "llama3 KV cache at $context" "$(csv_col kv_cache_bytes --where layer=layers_32/scores <<<"$out"),$(
    csv_col kv_cache_bytes --where layer=TOTAL <<<"$out")" "$matmul_bytes,$total_bytes"
done <<<"512 1048576 67108864
131071 268433408 17179738112"

# --- footprint of a decode step: the KV cache of the tokens before it, held for the whole step. ---
# Llama-2-7B at batch 8 after 4,095 tokens: each of 32 layers caches 4,095 keys and 4,095 values of
# 4,096 (32 heads x 128) per sample, fp16: 2 x 32 x 4,095 x 4,096 x 8 x 2 B = 17,175,674,880; one
# attention matmul's share 4,095 x 4,096 x 8 x 2 = 268,369,920. Peak: the fp16 weights
# 2 x 6,738,415,616 = 13,476,831,232, the cache, and the most activations live at once (4,325,376:
# the scores of 32 heads x 4,096 positions x 8 samples x 2 B = 2,097,152 and what is live beside them).
expect 0 "footprint decode" -- "$REUSESIM" footprint --model "$SRC/models/llama2_7b.yaml" --batch 8 --mode infer \
  --phase decode --context 4095 --format json
same "footprint KV cache and peak" "$(/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["components"]["kv_cache_bytes"], d["peak_bytes"] - d["peak_activation_bytes"],
      [l["kv_cache_bytes"] for l in d["layers"] if l["layer"] == "layers_7/context"][0])' <<<"$out")" \
  "17175674880 30652506112 268369920"
expect 0 "footprint prefill holds no cache" -- "$REUSESIM" footprint --model "$SRC/models/llama2_7b.yaml" --batch 8 \
  --mode infer --sequence 64 --format json
same "prefill cache" "$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["components"]["kv_cache_bytes"])' <<<"$out")" "0"
expect 2 "footprint decode in training" -- "$REUSESIM" footprint --model "$SRC/models/gpt2.yaml" --batch 8 --mode train \
  --optimizer sgd --phase decode --context 10
contains "footprint decode in training message" "$err" "--phase decode applies to --mode infer"

# --- Bad phases. ---
expect 2 "decode an encoder" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/bert_base.yaml" \
  --phase decode --context 10
same "decode an encoder message" "$err" "--context 10: error: context: decode needs attention with a KV cache: model bert_base has no matmul layer with kv_cache: true (decode is for transformers)"
expect 2 "context beyond the positions" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --phase decode --context 1024
same "context message" "$err" "--context 1024: error: context: 1024 cached tokens and the new one are more than the model's max_sequence 1024"
expect 2 "prefill beyond the positions" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.seq_len=2000
contains "prefill message" "$err" "input.sequence: 2000 tokens are more than the model's max_sequence 1024"
expect 2 "decode without a context" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" --phase decode
contains "no context message" "$err" "--phase decode needs --context N, the tokens already in the KV cache, from 1 to 16777216"
expect 2 "context 0" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" --phase decode --context 0
contains "context 0 message" "$err" "--phase decode needs --context N"
expect 2 "a context without decode" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" --context 5
contains "prefill context message" "$err" "--context applies to --phase decode"
expect 2 "an unknown phase" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" --phase train
contains "phase message" "$err" "--phase: expected prefill or decode, got \"train\""


# --- --sequence sets a prefill's tokens per sample: the same network as the model's seq_len. ---
expect 0 "gpt2 prefill --sequence" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --sequence 101 --format csv
same "--sequence is seq_len" "$out" "$prefill_table"
expect 2 "--sequence with decode" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --phase decode --context 5 --sequence 5
contains "sequence with decode message" "$err" "--sequence applies to --phase prefill"
expect 2 "--sequence beyond the positions" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --sequence 1025
same "--sequence beyond message" "$err" "--sequence 1025: error: sequence: 1025 tokens are more than the model's max_sequence 1024"
expect 2 "--sequence of an image model" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/mlp.yaml" \
  --sequence 8
contains "--sequence of an image model message" "$err" "error: input: --sequence 8 sets the tokens of a sequence input; the input is"
expect 2 "--sequence 0" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" --sequence 0
contains "--sequence 0 message" "$err" "--sequence: expected a positive integer"

# --- Traces run phases: decode contexts and prefill sequences are lengths, each x every batch. ---
# tiny_lm (int8, width 64, 2 heads of 32, no biases): per token q, k, v, out 4 x 64 x 64 = 16,384
# MACs and 16,384 weight bytes, plus the embedding row looked up (64 B).
# Decode after L tokens: attention 2 x (L + 1) x 64 MACs per sample, and it reads (L + 1) keys and
# (L + 1) values of 64 B from the KV cache:
#   L = 8:  16,384 + 1,152 = 17,536 MACs, KV 1,152 B per sample; weights 16,384 + 64 per sample
#   L = 32: 16,384 + 4,224 = 20,608 MACs, KV 4,224 B per sample
# Prefill of S = 40: 40 x 16,384 + 2 x 40 x 40 x 64 = 860,160 MACs, weights 16,384 + 40 x 64 = 18,944.
cp "$SRC/tests/data/tiny_lm.yaml" "$work/tiny_lm.yaml"
# lm_trace ENTRY...: a run file of tiny_lm entries (YAML lines after "- model:") on TPU v1.
lm_trace() {
  {
    echo "name: lm_phases"
    echo "accelerators: $SRC/configs/tpu_v1.yaml"
    echo "models:"
    for entry in "$@"; do printf '  - model: tiny_lm.yaml\n%s\n' "$entry"; done
  } >"$work/lm.yaml"
}
lm_trace "    phase: decode
    context: [8, 32]
    batch: [1, 2]" "    sequence: 40
    batch: 1"
expect 0 "trace decode and prefill" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/lm" --jobs 2
same "jobs with their phases" "$(csv_col job,accelerator,model,selection,sequence_phase,sequence,context,batch "$work/lm/jobs.csv")" \
  "0001-tpu_v1-tiny_lm-decode-L8-b1,tpu_v1,tiny_lm,all,decode,,8,1
0002-tpu_v1-tiny_lm-decode-L8-b2,tpu_v1,tiny_lm,all,decode,,8,2
0003-tpu_v1-tiny_lm-decode-L32-b1,tpu_v1,tiny_lm,all,decode,,32,1
0004-tpu_v1-tiny_lm-decode-L32-b2,tpu_v1,tiny_lm,all,decode,,32,2
0005-tpu_v1-tiny_lm-S40-b1,tpu_v1,tiny_lm,all,,40,,1"
out=$(cat "$work/lm/networks.csv")
same "MACs, weights and KV cache per job" "$(csv_col job,macs,dram_read_weight_bytes,dram_read_kv_cache_bytes <<<"$out")" \
  "0001-tpu_v1-tiny_lm-decode-L8-b1,17536,16448,1152
0002-tpu_v1-tiny_lm-decode-L8-b2,35072,16512,2304
0003-tpu_v1-tiny_lm-decode-L32-b1,20608,16448,4224
0004-tpu_v1-tiny_lm-decode-L32-b2,41216,16512,8448
0005-tpu_v1-tiny_lm-S40-b1,860160,18944,0"
# analyze counts the KV-cache reads run replays: tiny_lm's two matmuls read (8 + 1) rows of 64 B
# per sample, x 2 samples = 2 x 9 x 64 x 2 = 2,304 B, job 0002's dram_read_kv_cache_bytes.
expect 0 "analyze the same decode step" -- "$REUSESIM" analyze --model "$work/tiny_lm.yaml" --phase decode --context 8 \
  --batch 2 --format csv
same "analyze reads the KV cache as run does" "$(csv_col kv_cache_read_bytes --where layer=TOTAL <<<"$out")" "2304"
expect 0 "the same decode step by hand" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v1.yaml" --model "$work/tiny_lm.yaml" \
  --phase decode --context 8 --batch 2 --format csv
same "a trace job is the run it names" "$(cat "$work/lm/jobs/0002-tpu_v1-tiny_lm-decode-L8-b2/results.csv")" "$out"
contains "figure names the phase" "$(cat "$work/lm/figure_points.csv")" "tpu_v1,network,tiny_lm decode L=32,,,tiny_lm decode L=32,2,"
contains "figure names the sequence" "$(cat "$work/lm/figure_points.csv")" "tpu_v1,network,tiny_lm S=40,,,tiny_lm S=40,1,80,"

# Bad phases in a run file: reported at the entry's key, nothing run.
lm_trace "    phase: decode
    batch: 1"
expect 2 "trace decode without context" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "no context" "$err" "lm.yaml:4:5: error: models.0: phase decode needs context"
lm_trace "    context: 8
    batch: 1"
expect 2 "trace context without decode" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "context without decode" "$err" "lm.yaml:5:14: error: models.0.context: context applies to phase: decode"
lm_trace "    phase: decode
    context: [8, 64, 8]
    batch: 1"
expect 2 "trace context beyond the positions, twice" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "context twice" "$err" "error: models.0.context: 8 is given twice; give each length once"
contains "context beyond" "$err" "lm.yaml:6:14: error: models.0.context: with context 64: 64 cached tokens and the new one are more than the model's max_sequence 64"
lm_trace "    phase: decode
    sequence: 8
    context: 8
    batch: 1"
expect 2 "trace sequence with decode" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "sequence with decode" "$err" "error: models.0.sequence: sequence applies to phase prefill"
lm_trace "    phase: decode
    context: 8
    mode: train
    optimizer: sgd
    batch: 1"
expect 2 "trace decode in training" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "decode in training" "$err" "lm.yaml:4:5: error: models.0: phase: decode applies to mode: infer"
lm_trace "    phase: train
    batch: 1"
expect 2 "trace unknown phase" -- "$REUSESIM" trace "$work/lm.yaml" --out "$work/bad"
contains "unknown phase" "$err" "models.0.phase"
same "nothing written for bad phases" "$(ls "$work/bad" 2>&1)" "ls: cannot access '$work/bad': No such file or directory"
sed -e 's/tiny_lm.yaml/mlp.yaml/' -e "s|model: mlp.yaml|model: $SRC/models/mlp.yaml|" -e 's/phase: train/phase: decode\n    context: 4/' \
  "$work/lm.yaml" >"$work/mlp_decode.yaml"
expect 2 "trace decode of an MLP" -- "$REUSESIM" trace "$work/mlp_decode.yaml" --out "$work/bad"
contains "decode of an MLP" "$err" "models.0.context: with context 4: decode runs one token of a sequence; the input is"

# --- A grouped-query decode step on a100 reads every cached key from the HBM once. ---
# Llama-3.1-8B's scores at context 1,023: 8 groups (key/value heads) of M 4 (the query heads that
# share one) x K 128 x N 1,024 tokens, split over the 108 cores by columns (9 or 10 tokens each, all
# 8 heads). The keys: 1,024 x 8 x 128 x 2 B = 2,097,152 B, each column on one core, loaded once (the
# second operand stays for all m), so the L2 holds none of them before the HBM reads them. q: 32 x
# 128 x 2 B = 8,192 B, loaded by every core: the HBM once, the L2 the other 107 x 8,192 = 876,544.
# (Every group read group 0's keys from the core's first column, so the cores read each other's:
# 280,064 B of keys and 4,096 of q from the HBM, the rest from the L2.)
expect 0 "a100 GQA decode scores" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" \
  --model "$SRC/models/llama3_1_8b.yaml" --set model.parameters.layers=1 --phase decode --context 1023 \
  --layers layers/scores --format csv
contains "split by columns, the keys stay" "$(csv_col mapping --where layer=layers/scores <<<"$out")" \
  "gemm 4x9x128 x8 groups, tiles g4 m4 n9 k128, order n-m, the second operand stays for all m; split over 108 cores by columns"
same "every key from the HBM once, q from the L2 after the first core" \
  "$(csv_col dram_read_kv_cache_bytes,dram_read_input_bytes,shared_read_bytes --where layer=layers/scores <<<"$out")" \
  "2097152,8192,876544"

# A KV cache with no addresses: tiny_lm widened to 2^20 features, no max_sequence, 2^24 tokens
# cached at batch 10^6: 2 matmuls x (2^24 + 1) x 2^20 x 10^6 x 1 B = 3.52e19 bytes > 2^63.
sed -e 's/: 64\b/: 1048576/g' -e '/max_sequence/d' "$work/tiny_lm.yaml" >"$work/huge_lm.yaml"
for command in "run --arch $SRC/configs/tpu_v1.yaml" "analyze" "footprint --mode infer"; do
  # shellcheck disable=SC2086  # the command's words
  expect 2 "$command: a KV cache past the address space" -- "$REUSESIM" $command --model "$work/huge_lm.yaml" \
    --batch 1000000 --phase decode --context 16777216
  contains "$command: address space message" "$err" "error: --context 16777216 at batch 1000000: the KV cache would hold 3.52e+19 bytes of keys and values, more than a 64-bit address space (2^63 bytes) can place"
done

finish
