#!/usr/bin/env bash
# End-to-end checks of precision per tensor (docs/model-format.md, "Precision per tensor"): analyze
# and footprint size weights (with their scales), activations and the KV cache each at its format;
# run reads the KV cache (and weights) at its format and refuses what it cannot honour yet; --set reaches the
# block; bad formats are errors naming the key (exit 2). Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# --- A 4,096 x 4,096 linear layer (no bias) with int4 weights, fp16 scales per 128 along K. ---
# Weights 16,777,216 x 4 bits = 8,388,608 B; scales 4,096 / 128 = 32 per column x 4,096 columns x
# 2 B = 262,144 B; weight_bytes 8,650,752. Input and output 4,096 fp16 = 8,192 B each at batch 1;
# at batch 4 32,768 each, the weights once per batch.
cat >"$work/int4.yaml" <<'YAML'
name: int4_projection
precision: {activations: fp16, weights: int4, weight_group_size: 128}
input: {features: 4096}
layers:
  - {name: q, type: linear, out_features: 4096, bias: false}
YAML
expect 0 "analyze int4" -- "$REUSESIM" analyze --model "$work/int4.yaml" --batch 4 --format csv
same "int4 weights, scales, activations" \
  "$(csv_col weight_bytes,weight_scale_bytes,input_bytes,output_bytes --where layer=q <<<"$out")" \
  "8650752,262144,32768,32768"
expect 0 "analyze int4 text" -- "$REUSESIM" analyze --model "$work/int4.yaml"
contains "the header names the formats" "$out" \
  "weights int4 (fp16 scales per 128 along K), activations fp16, KV cache fp16"
# Group 64 through --set: 64 groups per column, 64 x 4,096 x 2 = 524,288 B of scales.
expect 0 "analyze int4 group 64" -- "$REUSESIM" analyze --model "$work/int4.yaml" --set precision.weight_group_size=64 \
  --format csv
same "group 64 scales" "$(csv_col weight_bytes,weight_scale_bytes --where layer=q <<<"$out")" "8912896,524288"
expect 0 "footprint int4" -- "$REUSESIM" footprint --model "$work/int4.yaml" --format csv
same "footprint weights with scales" "$(csv_col weight_bytes --where layer=q <<<"$out")" "8650752"

# --- Llama-2-7B, one decode step at context 4,095, KV cache at int8 through --set. ---
# Per layer Q K^T and A V read 4,096 tokens' keys or values of 4,096 elements: 2 x 4,096 x 4,096 =
# 33,554,432 elements, x 32 layers = 1,073,741,824: at fp16 2,147,483,648 B, at int8 half of it.
# footprint holds the 4,095 cached tokens: 32 x 2 x 4,095 x 4,096 = 1,073,479,680 elements.
expect 0 "analyze llama fp16 cache" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode \
  --context 4095 --format csv
same "fp16 cache reads" "$(csv_col kv_cache_read_bytes --where layer=TOTAL <<<"$out")" "2147483648"
expect 0 "analyze llama int8 cache" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode \
  --context 4095 --set precision.kv_cache=int8 --format csv
same "int8 cache reads" "$(csv_col kv_cache_read_bytes,weight_scale_bytes --where layer=TOTAL <<<"$out")" \
  "1073741824,0"
expect 0 "footprint llama int8 cache" -- "$REUSESIM" footprint --model "$SRC/models/llama2_7b.yaml" --phase decode \
  --context 4095 --set precision.kv_cache=int8 --format csv
same "int8 cache held" "$(csv_col kv_cache_bytes --where layer=TOTAL <<<"$out")" "1073479680"
expect 0 "analyze llama json" -- "$REUSESIM" analyze --model "$SRC/models/llama2_7b.yaml" --phase decode \
  --context 4095 --set precision.kv_cache=int8 --format json
contains "json: 2 x 32 x 4,096 = 262,144 B per token at int8" "$out" '"kv_cache_bytes_per_token": 262144'

# --- Errors: file:line:col and key path, exit 2. ---
expect 2 "unknown format" -- "$REUSESIM" analyze --model "$work/int4.yaml" --set precision.weights=int3
contains "names the key and the choices" "$err" \
  "--set precision.weights=int3: error: precision.weights: expected one of int4, int8, int16, fp8_e4m3, fp8_e5m2, fp16, bf16, fp32, got \"int3\""
expect 2 "group size on fp16 weights" -- "$REUSESIM" analyze --model "$work/int4.yaml" --set precision.weights=fp16
contains "group size needs quantized weights" "$err" \
  "int4.yaml:2:66: error: precision.weight_group_size: a group size applies to int4 and int8 weights"
expect 2 "train footprint of a block" -- "$REUSESIM" footprint --model "$work/int4.yaml" --mode train --optimizer sgd
contains "train needs --dtype" "$err" "give --dtype"

# --- run: the KV cache at its format; activations at the operand width. ---
# GPT-2 with two layers, one decode step after 100 tokens, on tpu_v4i (bf16) with an ideal memory:
# per layer Q K^T reads 101 keys and A V 101 values of 12 heads x 64 = 768 elements per sample:
# 2 x 2 x 101 x 768 = 310,272 elements, at bf16 620,544 B, at int8 310,272 B; x 4 samples at batch 4.
sed -e '/^dram:/,$d' "$SRC/configs/tpu_v4i.yaml" >"$work/v4i_ideal.yaml"
echo "dram: {ideal: unlimited}" >>"$work/v4i_ideal.yaml"
expect 0 "run decode bf16 cache" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1,4 --format csv
bf16_cache=$(csv_col batch,dram_read_kv_cache_bytes,macs --where layer=TOTAL <<<"$out")
same "bf16 cache reads" "$bf16_cache" "1,620544,14466048
4,2482176,57864192"
expect 0 "run decode int8 cache" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1,4 --set model.precision.kv_cache=int8 \
  --format csv
same "int8 cache reads, the same MACs" "$(csv_col batch,dram_read_kv_cache_bytes,macs --where layer=TOTAL <<<"$out")" \
  "1,310272,14466048
4,1241088,57864192"
expect 0 "run decode int8 cache, json" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=1 --phase decode --context 10 --set model.precision.kv_cache=int8 --format json
contains "json states the cache's element size" "$out" '"kv_cache_element_bytes": 1'
expect 0 "run decode int8 cache, table" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=1 --phase decode --context 10 --set model.precision.kv_cache=int8
contains "the header states it" "$out" "2-byte elements (the KV cache 1-byte)"
# The weight and activation bytes do not change: the total falls by the cache bytes saved.
expect 0 "run decode bf16 again" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1 --format csv
bf16_read=$(csv_col dram_read_bytes --where layer=TOTAL <<<"$out")
expect 0 "run decode int8 again" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1 --set model.precision.kv_cache=int8 --format csv
int8_read=$(csv_col dram_read_bytes --where layer=TOTAL <<<"$out")
same "only the cache bytes fell" "$((bf16_read - int8_read))" "310272"

# --- run: W8A8, activations at their own format where the array multiplies it natively. ---
# A bias-free 4,096 x 4,096 linear layer, weights and activations int8 (one fp16 scale a column), on
# tpu_v4i with an ideal memory and int8 at 2x the bf16 rate, batch 512: one tile (m512 n4096 k4096).
# Weights 4,096 x 4,096 x 1 B = 16,777,216 B + 4,096 x 2 B of scales = 16,785,408 B; inputs and
# outputs 512 x 4,096 x 1 B = 2,097,152 B each. Array cycles at bf16: 32 x 32 folds of 128 x 128
# over 4 arrays, 256 an array, double-buffered: 2 x 128 + 128 + 512 - 2 = 894, then 255 x 512:
# 131,454; at 2x ceil(131,454 / 2) = 65,727. Efficiency is against the doubled peak.
printf '%s\n' "name: w8a8" "precision: {activations: int8, weights: int8}" "input: {features: 4096}" \
  "layers: [{name: q, type: linear, out_features: 4096, bias: false}]" >"$work/w8a8.yaml"
expect 0 "run W8A8 at 2x" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$work/w8a8.yaml" --batch 512 \
  --set compute.native_formats.int8=2 --format csv
same "W8A8 bytes at 1 B an element, array cycles at 2x" \
  "$(csv_col dram_read_weight_bytes,dram_read_input_bytes,dram_write_output_bytes,compute_cycles,vector_ops,element_bytes --where layer=q <<<"$out")" \
  "16785408,2097152,2097152,65727,0,1"
# tpu_v4i as shipped multiplies int8 at the bf16 rate: the same bytes, 131,454 array cycles.
expect 0 "run W8A8 at 1x" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$work/w8a8.yaml" --batch 512 \
  --format csv
same "W8A8 on tpu_v4i: int8 at 1x" \
  "$(csv_col dram_read_weight_bytes,dram_read_input_bytes,compute_cycles --where layer=q <<<"$out")" \
  "16785408,2097152,131454"
expect 0 "run W8A8 json" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$work/w8a8.yaml" --format json
contains "json: 1-byte elements" "$out" '"element_bytes": 1'
# The KV cache at int8 with int8 activations: GPT-2's two layers after 100 tokens read the same
# 310,272 cache bytes as with bf16 activations (above); the activations' bytes halve.
expect 0 "run decode W8A8, int8 cache" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" \
  --model "$SRC/models/gpt2.yaml" --set model.parameters.layers=2 --phase decode --context 100 \
  --set 'model.precision={activations: int8, kv_cache: int8}' --format csv
same "int8 cache and activations" "$(csv_col dram_read_kv_cache_bytes,element_bytes --where layer=TOTAL <<<"$out")" \
  "310272,1"

# --- run refuses what it cannot honour; a block at the operand width runs as the word does. ---
# int4 weights run (tests/cli/quantized_weights.sh); activations wider than the operands do not,
# nor narrower ones in a format the array does not multiply, nor a fraction of a byte.
expect 2 "run fp32 activations" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$work/int4.yaml" \
  --set model.precision.activations=fp32
contains "run names what it cannot move" "$err" \
  "its precision block (weights int4 (fp16 scales per 128 along K), activations fp32, KV cache fp32) needs activations at fp32 (32 bits), wider than the operands; run moves activations at the accelerator's 16-bit operands (compute.operand_bits 16) or at a narrower whole-byte format compute.native_formats lists"
expect 2 "run int8 activations, no native int8" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" \
  --model "$work/int4.yaml" --set model.precision.activations=int8
contains "names the formats the array multiplies" "$err" \
  "needs activations at int8 (8 bits), a format the array does not multiply (compute.native_formats lists none)"
expect 2 "run int4 activations" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" --model "$work/int4.yaml" \
  --set model.precision.activations=int4
contains "sub-byte activations are refused" "$err" "needs activations at int4 (4 bits), a fraction of a byte per element"
expect 2 "run bf16 weights, int8 activations" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" \
  --model "$work/int4.yaml" --set 'model.precision={activations: int8, weights: bf16}'
contains "weights wider than the activations are refused" "$err" \
  "needs weights at bf16 (16 bits), wider than the activations"
expect 2 "run W8A8 training" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" --model "$work/w8a8.yaml" \
  --mode train --optimizer sgd
contains "narrow activations in a training step are refused" "$err" "needs activations at int8 (8 bits) in a training step"
expect 2 "run fp8 weights, int8 activations" -- "$REUSESIM" run --arch "$SRC/configs/h100.yaml" \
  --model "$work/int4.yaml" --set 'model.precision={activations: int8, weights: fp8_e4m3}'
contains "another format at the activations' width is refused" "$err" \
  "needs weights at fp8_e4m3 (8 bits), another format than the activations at their width"
expect 2 "run int4 cache" -- "$REUSESIM" run --arch "$work/v4i_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=1 --phase decode --context 10 --set model.precision.kv_cache=int4
contains "a sub-byte cache is refused" "$err" "needs a KV cache at int4 (a fraction of a byte per element)"
expect 0 "run fp16 word" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$SRC/models/mlp.yaml" \
  --format csv
word=$out
expect 0 "run fp16 block" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$SRC/models/mlp.yaml" \
  --set model.precision.activations=fp16 --format csv
same "a block at the operand width runs as before" "$out" "$word"

finish
