#!/usr/bin/env bash
# End-to-end checks of N:M structured sparsity of weights (docs/model-format.md, "Structured
# sparsity"; docs/accelerator-format.md, compute.sparsity): a 2:4 layer's weights are stored and
# moved compressed with their metadata; an array with compute.sparsity skips the zero MACs, any
# other decompresses each weight tile on the vector unit and computes densely. Run by ctest with
# REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# A bias-free 4,096 x 4,096 linear layer at 16 bits, 2:4 sparse, and the same layer dense.
printf '%s\n' "name: sparse_projection" "precision: bf16" "input: {features: 4096}" \
  'layers: [{name: q, type: linear, out_features: 4096, bias: false, sparsity: "2:4"}]' >"$work/sparse.yaml"
sed -e 's/, sparsity: "2:4"//' "$work/sparse.yaml" >"$work/dense.yaml"
arch="$SRC/configs/tpu_v4i.yaml"
skipping=(--set "compute.sparsity={n: 2, m: 4}")

# --- analyze: the compressed weights and their metadata. ---
# Values: 4,096 columns x 4,096 / 4 x 2 kept = 8,388,608 values x 2 B = 16,777,216 B; metadata:
# 8,388,608 kept values x ceil(log2 4) = 2 bits / 8 = 2,097,152 B; weight_bytes 18,874,368 B.
expect 0 "analyze" -- "$REUSESIM" analyze --model "$work/sparse.yaml" --format csv
same "weight bytes with the metadata, and the metadata" \
  "$(csv_col weight_bytes,weight_metadata_bytes --where layer=q <<<"$out")" "18874368,2097152"
expect 0 "analyze dense" -- "$REUSESIM" analyze --model "$work/dense.yaml" --format csv
contains "a dense model has no metadata column" "$(head -1 <<<"$out")" "kv_cache_read_bytes"
same "nor the word" "$(grep -c metadata <<<"$(head -1 <<<"$out")")" "0"

# --- run at batch 512 on an array that skips 2:4 zeros: half of K, the same bytes. ---
# The GEMM is one tile (m512 n4096 k4096, weights stay for all m) on tpu_v4i's four 128 x 128 ws
# arrays, N split over them (1,024 each), double-buffered stationary: a fold streams M = 512 rows
# and fill and drain take 2 x 128 + 128 - 2, so a tile of F folds takes 512 + 382 + (F - 1) x 512.
# Dense: F = 4,096 / 128 x 1,024 / 128 = 256 folds, 894 + 255 x 512 = 131,454 cycles.
# Sparse: K 2,048, F = 16 x 8 = 128 folds, 894 + 127 x 512 = 65,918 cycles.
# dram_read_weight_bytes: the weights loaded once, 18,874,368 B; the MACs stay the dense
# 512 x 4,096 x 4,096 = 8,589,934,592, of which the array did half, 4,294,967,296.
expect 0 "run dense" -- "$REUSESIM" run --arch "$arch" --model "$work/dense.yaml" --batch 512 --format csv
same "dense compute cycles and weight bytes" \
  "$(csv_col compute_cycles,dram_read_weight_bytes --where layer=q <<<"$out")" "131454,33554432"
contains "a dense run has no effective_macs column" "$(head -1 <<<"$out")" "macs,cycles"
dense_cycles=$(csv_col cycles --where layer=q <<<"$out")
expect 0 "run 2:4 on a 2:4 array" -- "$REUSESIM" run --arch "$arch" --model "$work/sparse.yaml" --batch 512 \
  "${skipping[@]}" --format csv
same "half the compute cycles, the compressed bytes, dense and effective MACs" \
  "$(csv_col compute_cycles,dram_read_weight_bytes,macs,effective_macs,vector_ops --where layer=q <<<"$out")" \
  "65918,18874368,8589934592,4294967296,0"
contains "the mapping states the metadata and the skipped K" "$(csv_col mapping --where layer=q <<<"$out")" \
  "weights 2:4 sparse, 2097152 B of metadata loaded, zeros skipped as 2:4 (K 2048 of 4096)"
sparse_cycles=$(csv_col cycles --where layer=q <<<"$out")
same "faster than dense" "$((sparse_cycles < dense_cycles))" "1"

# --- 1:4 on the 2:4 array runs as 2:4: the same K, a quarter of the values. ---
# Values 4,096 x 1,024 x 2 B = 8,388,608 B, metadata 4,096 x 1,024 x 2 bits = 1,048,576 B.
sed -e 's/"2:4"/"1:4"/' "$work/sparse.yaml" >"$work/quarter.yaml"
expect 0 "run 1:4 on a 2:4 array" -- "$REUSESIM" run --arch "$arch" --model "$work/quarter.yaml" --batch 512 \
  "${skipping[@]}" --format csv
same "1:4 at 2:4's cycles, with its own bytes" \
  "$(csv_col compute_cycles,dram_read_weight_bytes --where layer=q <<<"$out")" "65918,9437184"

# --- Without compute.sparsity: decompressed on the vector unit, every MAC done. ---
# One op a dense weight a load: at batch 512 the mapper keeps the inputs for all N (m512 n256
# k4096, order m-n), so each weight is loaded once, 16,777,216 ops, at tpu_v4i's 1,024 ops a cycle
# 16,384 cycles; the bytes are the compressed ones, whole columns each load.
expect 0 "run 2:4 on a dense array" -- "$REUSESIM" run --arch "$arch" --model "$work/sparse.yaml" --batch 512 \
  --format csv
same "decompression ops, compressed bytes" \
  "$(csv_col vector_ops,dram_read_weight_bytes --where layer=q <<<"$out")" "16777216,18874368"
contains "the mapping says so" "$(csv_col mapping --where layer=q <<<"$out")" \
  "weights at 16 bits decompressed on the vector unit (16777216 ops, 16384 cycles)"
contains "no effective_macs column: nothing skipped" "$(head -1 <<<"$out")" "macs,cycles"

# --- The dumped program carries kept_k: its replay gives run's figures. ---
expect 0 "run 2:4, dumped" -- "$REUSESIM" run --arch "$arch" --model "$work/sparse.yaml" --batch 512 \
  "${skipping[@]}" --format csv --dump-program "$work/sparse.program"
ran=$(csv_col cycles,compute_cycles,effective_macs,efficiency --where layer=q <<<"$out")
contains "the program has kept_k" "$(cat "$work/sparse.program")" " kept_k 2048 "
expect 0 "replay 2:4" -- "$REUSESIM" replay --arch "$arch" --program "$work/sparse.program" "${skipping[@]}" \
  --format csv
same "the replay of the sparse program" \
  "$(csv_col cycles,compute_cycles,effective_macs,efficiency --where layer=q <<<"$out")" "$ran"

# --- Errors name the file, line and key (exit 2). ---
for pattern in "4:4" "0:4" "2:" "two:four" "1:512"; do
  sed -e "s/\"2:4\"/\"$pattern\"/" "$work/sparse.yaml" >"$work/bad.yaml"
  expect 2 "sparsity $pattern" -- "$REUSESIM" analyze --model "$work/bad.yaml"
  contains "names the file, line and key for $pattern" "$err" "bad.yaml:4:77: error: layers.q.sparsity: "
  contains "says what is expected for $pattern" "$err" \
    "sparsity: expected \"N:M\", N nonzero weights of every M along K with 1 <= N < M <= 256"
done
printf '%s\n' "name: sparse_relu" "precision: bf16" "input: {features: 16}" \
  'layers: [{name: r, type: relu, sparsity: "2:4"}]' >"$work/relu.yaml"
expect 2 "sparsity on a relu" -- "$REUSESIM" analyze --model "$work/relu.yaml"
contains "an unknown key on other layers" "$err" "relu.yaml:4:32: error: layers.r.sparsity: unknown key"
expect 2 "an array pattern n >= m" -- "$REUSESIM" run --arch "$arch" --model "$work/sparse.yaml" \
  --set "compute.sparsity={n: 4, m: 4}"
contains "names compute.sparsity.n" "$err" "compute.sparsity.n: expected fewer nonzeros than the block: n 4 >= m 4"
expect 2 "a training step" -- "$REUSESIM" run --arch "$arch" --model "$work/sparse.yaml" --mode train --optimizer sgd
contains "refused, naming the model" "$err" "sparse.yaml has N:M sparse layers (sparsity); run takes them in inference only"
finish
