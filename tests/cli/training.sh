#!/usr/bin/env bash
# End-to-end checks of `reusesim run --mode train`: the phase rows, the step's TOTAL and peak
# memory against footprint, and bad input (docs/training.md).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs
M=$SRC/models

expect 0 "mlp training step csv" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/mlp.yaml" --batch 256 --mode train --optimizer adam --format csv
csv=$out
contains "phase after layer" "$(head -1 <<<"$csv")" "batch,layer,phase,type,macs,cycles,"
same "peak memory last" "$(head -1 <<<"$csv" | awk -F, '{ print $NF }')" "peak_memory_bytes"
# 5 forward rows, 5 dgrad (fc1's is its ReLU's backward only), 5 wgrad, 5 updates, TOTAL; and the header.
same "rows" "$(wc -l <<<"$csv")" "22"
same "phases in order" "$(csv_col phase <<<"$csv" | uniq | tr '\n' ' ')" "forward dgrad wgrad dgrad wgrad dgrad wgrad dgrad wgrad dgrad wgrad update step "
# 3 x 33,536,000 forward MACs less fc1's dgrad (100,000 x 256 = 25,600,000): 75,008,000.
contains "step MACs" "$csv" "256,TOTAL,step,,75008000,"
# The step's peak memory is footprint's at snowflake's 2-byte elements: weights, gradients and Adam's
# two moments 4 x 262,820 = 1,051,280, every stored activation (1,410 x 256 x 2 = 721,920) and the
# largest backward step, fc2's output and input gradients (200 x 256 x 2 = 102,400): 1,875,600.
peak=$(csv_col peak_memory_bytes --where layer=TOTAL <<<"$csv")
same "peak memory" "$peak" "1875600"
expect 0 "footprint of the same step" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --batch 256 --mode train --optimizer adam --dtype fp16 --format json
contains "footprint agrees" "$out" "\"peak_bytes\": $peak"

expect 0 "training table" -- "$REUSESIM" run --arch "$A/tpu_v1.yaml" --model "$M/mlp.yaml" --batch 2 --mode train --optimizer sgd
contains "table names the step" "$out" "accelerator tpu_v1, model mlp, training step with sgd, 1-byte elements"
expect 0 "training json" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --batch 4 --mode train --optimizer momentum --format json
contains "json optimizer" "$out" '"optimizer": "momentum"'
contains "json phase" "$out" '"phase": "wgrad"'
expect 0 "training --out" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode train --optimizer sgd --out "$work/step"
contains "legend explains the phase" "$(cat "$work/step/stats.txt")" "phase (after layer): a training step's forward"

# Checkpointing: two segments of a 64-256-32-256-10 chain keep the input and fc2's output and one
# segment's activations (tests/test_training.cpp); the step's peak is still footprint's.
cat >"$work/waist.yaml" <<'YAML'
name: waist
precision: fp16
input: {features: 64}
layers:
  - {name: fc1, type: linear, out_features: 256}
  - {name: fc2, type: linear, out_features: 32}
  - {name: fc3, type: linear, out_features: 256}
  - {name: fc4, type: linear, out_features: 10}
YAML
expect 0 "checkpointed step" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$work/waist.yaml" --batch 4 --mode train --optimizer sgd --checkpoint-segments 2 --format csv
contains "recompute rows" "$out" "4,fc1,recompute,linear,65536,"
contains "checkpointed step MACs" "$out" "4,TOTAL,step,,456704,"
peak=$(csv_col peak_memory_bytes --where layer=TOTAL <<<"$out")
expect 0 "checkpointed footprint" -- "$REUSESIM" footprint --model "$work/waist.yaml" --batch 4 --mode train --optimizer sgd --checkpoint-segments 2 --format json
contains "checkpointed footprint agrees" "$out" "\"peak_bytes\": $peak"
contains "checkpointed activations" "$out" '"peak_activation_bytes": 2896'
expect 2 "segments that do not divide" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$work/waist.yaml" --mode train --optimizer sgd --checkpoint-segments 3 --out "$work/none"
contains "segments message" "$err" "--checkpoint-segments: 3 segments do not divide model waist's 4 layers into equal runs; expected one of 1, 2, 4"
expect 2 "segments with inference" -- "$REUSESIM" footprint --model "$work/waist.yaml" --batch 1 --mode infer --checkpoint-segments 2
contains "segments with inference message" "$err" "--checkpoint-segments applies to --mode train only"

# Mixed precision: 2-byte weights and gradients, fp32 master weights and Adam state (12 B a
# parameter): 131,410 x 16 = 2,102,560 + activations 721,920 + fc2's backward step 102,400.
expect 0 "mixed-precision step" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/mlp.yaml" --batch 256 --mode train --optimizer adam --mixed-precision --format csv
same "mixed-precision peak" "$(csv_col peak_memory_bytes --where layer=TOTAL <<<"$out")" "2926880"
expect 0 "mixed-precision footprint" -- "$REUSESIM" footprint --model "$M/mlp.yaml" --batch 256 --mode train --optimizer adam --mixed-precision --dtype fp16 --format json
contains "mixed-precision footprint agrees" "$out" '"peak_bytes": 2926880'
# ResNet-50: residual gradients held across their branch, batch-norms, flatten sharing a buffer;
# run walks its programs, footprint the network, and they agree.
expect 0 "resnet-50 step" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/resnet50.yaml" --batch 2 --mode train --optimizer adam --format csv
peak=$(csv_col peak_memory_bytes --where layer=TOTAL <<<"$out")
expect 0 "resnet-50 footprint" -- "$REUSESIM" footprint --model "$M/resnet50.yaml" --batch 2 --mode train --optimizer adam --dtype fp16 --format json
contains "resnet-50 footprint agrees" "$out" "\"peak_bytes\": $peak"
expect 2 "mixed precision on 1-byte elements" -- "$REUSESIM" run --arch "$A/tpu_v1.yaml" --model "$M/mlp.yaml" --mode train --optimizer adam --mixed-precision
contains "mixed precision message" "$err" "--mixed-precision computes at 2-byte elements (fp16 or bf16) beside fp32 master weights; the elements here have 1 bytes"
expect 2 "mixed precision with inference" -- "$REUSESIM" run --arch "$A/snowflake.yaml" --model "$M/mlp.yaml" --mixed-precision
contains "mixed precision with inference message" "$err" "--mixed-precision applies to --mode train only"

# Inference is the default and its table has no phase column.
expect 0 "inference default" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --format csv --mode infer
contains "no phase column" "$(head -1 <<<"$out")" "batch,layer,type,macs,"

# Bad input: exit 2, what was expected, nothing written.
expect 2 "optimizer with inference" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --optimizer adam --out "$work/none"
contains "optimizer message" "$err" "reusesim run: error: --optimizer applies to --mode train only"
expect 2 "train without optimizer" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode train --out "$work/none"
contains "optimizer required" "$err" "--optimizer is required with --mode train (sgd, momentum or adam)"
expect 2 "unknown optimizer" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode train --optimizer lamb
contains "unknown optimizer message" "$err" "--optimizer: expected sgd, momentum or adam, got \"lamb\""
expect 2 "unknown mode" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode finetune
contains "unknown mode message" "$err" "--mode: expected infer or train, got \"finetune\""
expect 2 "no backward" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/lstm_lm.yaml" --mode train --optimizer sgd --out "$work/none"
contains "no backward names the layer" "$err" "--mode train: model lstm_lm: layer embedding (type embedding) has no backward pass in a training step"
expect 2 "part of a model" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode train --optimizer sgd --layers fc1
contains "part of a model message" "$err" "--layers and --layer-types apply to --mode infer"
expect 2 "no program dump of a step" -- "$REUSESIM" run --arch "$A/small.yaml" --model "$M/mlp.yaml" --mode train --optimizer sgd --dump-program "$work/none"
contains "program dump message" "$err" "--dump-program applies to --mode infer: the program format has no training phases"
checks=$((checks + 1))
[ ! -e "$work/none" ] || { echo "FAIL: a refused run wrote $work/none"; failures=$((failures + 1)); }

# Traces: a model entry's mode and optimizer (a list: a job per optimizer and batch), inference beside.
cat >"$work/train_trace.yaml" <<YAML
name: train_trace
accelerators: [$A/small.yaml]
models:
  - {model: $M/mlp.yaml, batch: [2]}
  - {model: $M/mlp.yaml, batch: [2], mode: train, optimizer: [sgd, adam]}
YAML
expect 0 "trace with training steps" -- "$REUSESIM" trace "$work/train_trace.yaml" --out "$work/trace" --no-figure
same "networks: inference, then a step per optimizer" "$(csv_col job,selection,layer,phase "$work/trace/networks.csv")" "0001-small-mlp-b2,all,TOTAL,
0002-small-mlp-train-sgd-b2,train sgd,TOTAL,step
0003-small-mlp-train-adam-b2,train adam,TOTAL,step"
contains "inference rows get an empty phase" "$(cat "$work/trace/layers.csv")" "0001-small-mlp-b2,small,mlp,all,,,,2,fc1,,linear,200000,"
contains "the plan records the optimizer" "$(cat "$work/trace/trace.json")" '"optimizer": "adam"'
cat >"$work/bad_trace.yaml" <<YAML
name: bad_trace
accelerators: [$A/small.yaml]
models:
  - {model: $M/mlp.yaml, batch: [1], optimizer: adam}
  - {model: $M/mlp.yaml, batch: [1], mode: train}
  - {model: $M/lstm_lm.yaml, batch: [1], mode: train, optimizer: [sgd, lamb]}
YAML
expect 2 "bad training trace" -- "$REUSESIM" check "$work/bad_trace.yaml"
contains "optimizer with inference in a trace" "$err" ":4:$((${#M} + 47)): error: models.0.optimizer: applies to mode: train only"
contains "train without optimizer in a trace" "$err" "bad_trace.yaml:5:5: error: models.1: mode: train needs optimizer: sgd, momentum or adam"
contains "unknown optimizer in a trace" "$err" "models.2.optimizer: expected one of sgd, momentum, adam, got \"lamb\""
contains "no backward in a trace" "$err" "models.2: mode: train: model lstm_lm: layer embedding (type embedding) has no backward pass"

finish
