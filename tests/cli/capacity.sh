#!/usr/bin/env bash
# DRAM capacity (docs/conventions.md, "DRAM capacity"): a run whose model does not fit its
# accelerator's memory is refused before anything is simulated, naming each part, the total, the
# capacity and the shortfall; one that fits to within the capacity runs.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# Llama-2-7B's decode step at a 2,048-token context, batch 1, on wormhole_n150 (12 GiB, 16-bit
# operands): weights 6,738,415,616 parameters x 2 B = 13,476,831,232 B (12.55 GiB); KV cache
# 32 layers x 2 (keys, values) x 4,096 x 2,048 tokens x 2 B = 1,073,741,824 B (1.00 GiB); the
# activations are footprint's peak of live activations at fp16, which with the other two makes
# its peak_bytes. Capacity 12 x 2^30 = 12,884,901,888 B.
expect 0 "llama footprint" -- "$REUSESIM" footprint --model "$SRC/models/llama2_7b.yaml" --phase decode --context 2048 \
  --dtype fp16 --format csv
same "llama weights and KV cache" "$(csv_col weight_bytes,kv_cache_bytes --where layer=TOTAL <<<"$out")" \
  "13476831232,1073741824"
need=$(csv_col peak_bytes --where layer=TOTAL <<<"$out")
activations=$(csv_col peak_activation_bytes --where layer=TOTAL <<<"$out")
same "llama peak is weights, KV cache and activations" "$need" "$((13476831232 + 1073741824 + activations))"
group() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }  # 1234567 -> 1,234,567
expect 2 "llama decode on wormhole_n150" -- "$REUSESIM" run --arch "$SRC/configs/wormhole_n150.yaml" \
  --model "$SRC/models/llama2_7b.yaml" --phase decode --context 2048 --batch 1
contains "llama message" "$err" "reusesim run: error: model llama2_7b at batch 1 (decode, context 2,048) needs 13.55 GiB ($(group "$need") bytes) of DRAM: weights 12.55 GiB, KV cache 1.00 GiB, activations "
contains "llama capacity and shortfall" "$err" "its DRAM (dram.capacity_gib) holds 12.00 GiB (12,884,901,888 bytes), short by 1.55 GiB ($(group $((need - 12884901888))) bytes); lower the batch size"
contains "llama where" "$err" "(accelerator $SRC/configs/wormhole_n150.yaml, batch 1)"
same "nothing simulated" "$out" ""
# The largest batch of a run counts: batch 1 would fit 70 GiB, batch 64 holds 64 KV caches of
# 1 GiB besides the weights.
expect 2 "llama decode batches 1 and 64" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" \
  --model "$SRC/models/llama2_7b.yaml" --phase decode --context 2048 --batch 1,64 --set dram.capacity_gib=70
contains "the largest batch" "$err" "model llama2_7b at batch 64 (decode, context 2,048) needs "
contains "its KV cache" "$err" "KV cache 64.00 GiB"

# To the byte: mlp on small (8-bit operands, 1-byte elements) at batch N holds 131,410 B of
# weights and, running fc1, the input and fc1's output, (1,000 + 100) x N B. capacity_gib 0.001 is
# 0.001 x 2^30 = 1,073,741.824, 1,073,741 B: batch 856 needs 131,410 + 941,600 = 1,073,010 B and
# fits; batch 857 needs 1,074,110 B, 369 B more than there is.
expect 0 "mlp batch 856 fits" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 856 --set dram.capacity_gib=0.001 --format csv
same "mlp ran" "$(csv_col batch --where layer=TOTAL <<<"$out")" "856"
expect 2 "mlp batch 857 does not" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 857 --set dram.capacity_gib=0.001
contains "mlp message" "$err" "model mlp at batch 857 needs 1.02 MiB (1,074,110 bytes) of DRAM: weights 0.13 MiB, activations 0.90 MiB; its DRAM (dram.capacity_gib) holds 1.02 MiB (1,073,741 bytes), short by 369 B; "
# The organisation's capacity, named as such: small's ddr4-2400 with 1 row a bank holds
# 1 x 2 x 4 x 4 x 1 x 8,192 B = 262,144 B, less than batch 857's.
expect 2 "mlp on one row a bank" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 857 --set dram.rows=1
contains "organisation message" "$err" "its DRAM (channels x ranks x banks x rows x row_bytes) holds 0.25 MiB (262,144 bytes), short by 0.77 MiB (811,966 bytes)"
# A training step also holds gradients and optimizer state: mlp at batch 4 with Adam on 8-bit
# operands, 131,410 B each of weights and gradients and 262,820 B of moments.
expect 2 "mlp training" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 4 --mode train --optimizer adam --set dram.rows=1
contains "training parts" "$err" "weights 0.13 MiB, gradients 0.13 MiB, optimizer state 0.25 MiB, activations and their gradients "

# A bad capacity is an input error naming the --set.
expect 2 "capacity zero" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --set dram.capacity_gib=0
contains "capacity zero message" "$err" "--set dram.capacity_gib=0: error: dram.capacity_gib: expected a number from 0.001 to 1e+06, got 0"

finish
