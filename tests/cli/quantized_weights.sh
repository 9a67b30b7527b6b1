#!/usr/bin/env bash
# End-to-end checks of quantized weights in `run` (docs/model-format.md, "Precision per tensor";
# docs/accelerator-format.md, compute.native_formats): a linear layer's weights move at their
# format with their scales, are dequantized on the vector unit unless the array multiplies the
# format natively, and a native format runs at its MAC rate. Run by ctest with REUSESIM (the binary)
# and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# A bias-free 4,096 x 4,096 linear layer, bf16 activations, weights at int4 with fp16 scales per
# 128 along K (and at bf16 and int8 by --set).
printf '%s\n' "name: int4_projection" "precision: {activations: bf16, weights: int4, weight_group_size: 128}" \
  "input: {features: 4096}" "layers: [{name: q, type: linear, out_features: 4096, bias: false}]" >"$work/int4.yaml"
# The same layer with int8 weights (one scale per column, or per 128 along K) and with bf16 ones (the
# operands' width).
sed -e 's/weights: int4, weight_group_size: 128/weights: int8/' "$work/int4.yaml" >"$work/int8.yaml"
sed -e 's/weights: int4/weights: int8/' "$work/int4.yaml" >"$work/int8_g128.yaml"
sed -e 's/weights: int4, weight_group_size: 128/weights: bf16/' "$work/int4.yaml" >"$work/bf16.yaml"
arch="$SRC/configs/tpu_v4i.yaml"

# --- int4, one sample: the weights and their scales, and the dequantization. ---
# Weights 4,096 x 4,096 x 4 bits / 8 = 8,388,608 B; scales 4,096 / 128 = 32 groups a column x 4,096
# columns x 2 B = 262,144 B: 8,650,752 B read. The vector unit dequantizes each weight once (one op a
# weight): 16,777,216 ops, at tpu_v4i's 1,024 ops a cycle 16,777,216 / 1,024 = 16,384 cycles; they are
# the layer's only vector ops (no activation).
expect 0 "run int4" -- "$REUSESIM" run --arch "$arch" --model "$work/int4.yaml" --format csv
same "int4 weight bytes with scales, dequantization ops" \
  "$(csv_col dram_read_weight_bytes,vector_ops --where layer=q <<<"$out")" "8650752,16777216"
contains "the mapping states the dequantization's cycles" "$(csv_col mapping --where layer=q <<<"$out")" \
  "weights at 4 bits dequantized on the vector unit (16777216 ops, 16384 cycles)"
int4_cycles=$(csv_col cycles --where layer=q <<<"$out")

# --- int8 (scales per 128), and bf16 (the operands' width: no scales, no dequantization). ---
# int8: 16,777,216 B of weights + 32 groups x 4,096 columns x 2 B = 262,144 B of scales = 17,039,360 B
# (the K tile the mapper takes here, all of K or a power of two from 128, splits no group).
expect 0 "run int8" -- "$REUSESIM" run --arch "$arch" --model "$work/int8_g128.yaml" --format csv
same "int8 weight bytes with their scales" "$(csv_col dram_read_weight_bytes,vector_ops --where layer=q <<<"$out")" \
  "17039360,16777216"
expect 0 "run bf16" -- "$REUSESIM" run --arch "$arch" --model "$work/bf16.yaml" --format csv
same "bf16 weights as the operands: 4,096 x 4,096 x 2 B, no vector ops" \
  "$(csv_col dram_read_weight_bytes,vector_ops --where layer=q <<<"$out")" "33554432,0"
bf16_cycles=$(csv_col cycles --where layer=q <<<"$out")
# Batch 1 is memory-bound: a quarter of the weight bytes (plus 0.8 % of scales) makes it faster,
# though the dequantization takes its turn on the vector unit.
same "int4 faster than bf16 at batch 1" "$((int4_cycles < bf16_cycles))" "1"

# --- int8 native at 2x the MAC rate applies to W8A8 only: a compute-bound GEMM's array cycles halve. ---
# At batch 512 the GEMM (512 x 4,096 x 4,096) is one tile (m512 n4096 k4096, the weights stay for
# all m); its array cycles at 2x are ceil(bf16's / 2), and nothing is dequantized. With bf16
# activations (W8A16) the array multiplies bf16: the int8 weights are dequantized (4,096 x 4,096 =
# 16,777,216 ops) and nothing runs at 2x.
expect 0 "run bf16 batch 512" -- "$REUSESIM" run --arch "$arch" --model "$work/bf16.yaml" --batch 512 \
  --format csv
bf16_compute=$(csv_col compute_cycles --where layer=q <<<"$out")
sed -e 's/activations: bf16/activations: int8/' "$work/int8.yaml" >"$work/w8a8.yaml"
expect 0 "run W8A8 native batch 512" -- "$REUSESIM" run --arch "$arch" --model "$work/w8a8.yaml" --batch 512 \
  --set compute.native_formats.int8=2 --format csv
same "W8A8 native: half the compute cycles, no vector ops, 1-byte elements" \
  "$(csv_col compute_cycles,vector_ops,element_bytes --where layer=q <<<"$out")" "$(((bf16_compute + 1) / 2)),0,1"
contains "the mapping says so" "$(csv_col mapping --where layer=q <<<"$out")" "operands at 8 bits native at 2x the MAC rate"
w8a8_ran=$(csv_col cycles,compute_cycles,efficiency --where layer=q <<<"$out")
expect 0 "run W8A16 where int8 is native" -- "$REUSESIM" run --arch "$arch" --model "$work/int8.yaml" --batch 512 \
  --set compute.native_formats.int8=2 --format csv
same "W8A16: dequantized, at the bf16 rate" "$(csv_col vector_ops,element_bytes --where layer=q <<<"$out")" "16777216,2"
same "W8A16: nothing native" "$(csv_col mapping --where layer=q <<<"$out" | grep -c native)" "0"

# --- The dumped program carries the dequantization and the MAC rate: its replay gives run's cycles. ---
expect 0 "run int4, dumped" -- "$REUSESIM" run --arch "$arch" --model "$work/int4.yaml" --format csv \
  --dump-program "$work/int4.program"
ran=$(csv_col cycles,vector_ops,dram_read_weight_bytes --where layer=q <<<"$out")
expect 0 "replay int4" -- "$REUSESIM" replay --arch "$arch" --program "$work/int4.program" --format csv
same "the replay of the int4 program" "$(csv_col cycles,vector_ops,dram_read_weight_bytes --where layer=q <<<"$out")" \
  "$ran"
# A W8A8 program is dumped from an accelerator whose operands are 8 bits (replay sizes elements by
# compute.operand_bits): the same figures as the W8A8 run on the 16-bit array, and its replay keeps
# the MAC rate and the peak.
expect 0 "run W8A8 on 8-bit operands, dumped" -- "$REUSESIM" run --arch "$arch" --model "$work/w8a8.yaml" \
  --batch 512 --set compute.operand_bits=8 --set compute.native_formats.int8=2 --format csv \
  --dump-program "$work/int8.program"
ran=$(csv_col cycles,compute_cycles,efficiency --where layer=q <<<"$out")
same "8-bit operands run W8A8 as the 16-bit array does" "$ran" "$w8a8_ran"
expect 0 "replay int8 native" -- "$REUSESIM" replay --arch "$arch" --program "$work/int8.program" --format csv \
  --set compute.operand_bits=8 --set compute.native_formats.int8=2
same "the replay keeps the MAC rate and the peak" "$(csv_col cycles,compute_cycles,efficiency --where layer=q <<<"$out")" \
  "$ran"
expect 2 "W8A8 on the 16-bit array, dumped" -- "$REUSESIM" run --arch "$arch" --model "$work/w8a8.yaml" \
  --set compute.native_formats.int8=2 --dump-program "$work/refused.program"
contains "a dump at narrower activations is refused" "$err" \
  "activations at int8 (8 bits) in a dumped program (replay sizes elements by compute.operand_bits: run with --set compute.operand_bits=8 to dump it)"

# --- Errors name the key or what run cannot move (exit 2). ---
expect 2 "unknown native format" -- "$REUSESIM" run --arch "$arch" --model "$work/int4.yaml" \
  --set compute.native_formats.int3=2
contains "names the key and the choices" "$err" \
  'compute.native_formats.int3: unknown number format "int3"; expected one of int4, int8'
expect 2 "rate 0" -- "$REUSESIM" run --arch "$arch" --model "$work/int4.yaml" --set compute.native_formats.int8=0
contains "a rate below 1 is refused" "$err" "compute.native_formats.int8: expected a positive integer"
expect 2 "fp32 weights on bf16 operands" -- "$REUSESIM" run --arch "$arch" --model "$work/bf16.yaml" \
  --set model.precision.weights=fp32
contains "wider weights are refused" "$err" "needs weights at fp32 (32 bits), wider than the activations"
expect 2 "int4 weights in a training step" -- "$REUSESIM" run --arch "$arch" --model "$work/int4.yaml" --mode train \
  --optimizer sgd
contains "training refuses them" "$err" "needs weights at int4 in a training step"
finish
