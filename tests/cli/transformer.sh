#!/usr/bin/env bash
# End-to-end checks of transformer runs: a decode step reads the KV cache and moves every weight
# once, batching shares the weights but not the cache, and bad phases are refused (exit 2).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# total COLUMN...: those columns of $out's TOTAL rows, one row a line (a CSV reader: mapping texts
# hold commas).
total() {
  /usr/bin/python3 -c 'import csv, sys
for row in csv.DictReader(sys.stdin):
    if row["layer"] == "TOTAL": print(" ".join(row[c] for c in sys.argv[1:]))' "$@" <<<"$out"
}

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
same "decode weights, cache, MACs" "$(total batch dram_read_weight_bytes dram_read_kv_cache_bytes macs)" \
  "1 14178816 310272 14466048
4 14183424 1241088 57864192"

# --- The programs round-trip: replaying the dumped decode step gives the same table. ---
expect 0 "gpt2 decode dump" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1,4 --format csv --dump-program "$work/decode.prog"
decode_table=$out
contains "kv_cache loads in the program" "$(cat "$work/decode.prog")" "load kv_cache addr"
contains "matmuls read their second operand from the input buffer" "$(cat "$work/decode.prog")" " stationary inputs "
expect 0 "replay the decode step" -- "$REUSESIM" replay --arch "$work/tpu_ideal.yaml" --program "$work/decode.prog" --format csv
same "replayed decode table" "$out" "$decode_table"

# --- The same model's prefill of 101 tokens reads no cache. ---
expect 0 "gpt2 prefill" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --set model.parameters.seq_len=101 --format csv
same "prefill reads no cache" "$(total dram_read_kv_cache_bytes)" "0"

# --- analyze: per-token MACs and KV-cache bytes of Llama-2-7B. ---
# A decode step after 512 tokens: per layer 4 x 4,096^2 + 3 x 4,096 x 11,008 = 202,375,168 MACs and
# attention over 513 tokens 2 x 513 x 4,096 = 4,202,496; 32 layers and the lm_head 4,096 x 32,000:
# 32 x 206,577,664 + 131,072,000 = 6,741,557,248 MACs. A token adds a key and a value row of 4,096
# per layer to the cache: 32 x 2 x 4,096 x 2 bytes (fp16) = 524,288. At batch 8 each layer's Q K^T
# reads the 512 cached keys of every sample: 512 x 4,096 x 8 x 2 = 33,554,432 bytes.
expect 0 "analyze decode" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode --context 512 --batch 8
contains "per-token line" "$out" "per token: 6,741,557,248 MACs, 524,288 bytes of keys and values in the KV cache"
expect 0 "analyze decode json" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode --context 512 --batch 8 --format json
same "kv read by one scores layer" "$(/usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["macs_per_token"], d["kv_cache_bytes_per_token"],
      [l["kv_cache_read_bytes"] for l in d["layers"] if l["layer"] == "layers_1/scores"][0])' <<<"$out")" "6741557248 524288 33554432"

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

finish
