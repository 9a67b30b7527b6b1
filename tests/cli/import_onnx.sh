#!/usr/bin/env bash
# `reusesim import onnx` on real PyTorch exports (tests/data/onnx, written by scripts/export-onnx-tests
# with the weights stripped): the imported networks count what the zoo and torchvision count, ResNet-50
# runs on Snowflake layer for layer as the zoo's, and bad files are refused with the file and node.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

D=$SRC/tests/data/onnx

# total_of MODEL COLUMN: the TOTAL row's value of an analyze column.
total_of() {
  "$REUSESIM" analyze --model "$1" --format csv | csv_col "$2" --where layer=TOTAL
}

# import NAME [ARGS]: imports $D/NAME.onnx into $work/NAME.yaml.
import() {
  local name=$1
  shift
  expect 0 "import $name" -- "$REUSESIM" import onnx "$D/$name.onnx" "$@" -o "$work/$name.yaml"
}

# ResNet-50 (torchvision, v1.5): 4,089,184,256 MACs and 25,557,032 parameters, as models/resnet50.yaml
# (models/README.md derives both) and torchvision's own count (sum of p.numel(): 25,557,032).
import resnet50
contains "resnet50 summary" "$out" "175 layers, 4089184256 MACs per sample, 25557032 parameters"
same "resnet50 MACs = zoo" "$(total_of "$work/resnet50.yaml" macs)" "$(total_of "$SRC/models/resnet50.yaml" macs)"
same "resnet50 params = zoo" "$(total_of "$work/resnet50.yaml" params)" "25557032"
contains "resnet50 keeps node names" "$(cat "$work/resnet50.yaml")" \
  "{name: layer1_layer1_0_conv1_Conv, type: conv2d, out_channels: 64, kernel: 1, bias: false}  # node /layer1/layer1.0/conv1/Conv (Conv)"
contains "resnet50 shortcut input" "$(cat "$work/resnet50.yaml")" \
  "{name: layer1_layer1_0_downsample_downsample_0_Conv, type: conv2d, inputs: [maxpool_MaxPool]"

# GoogLeNet (torchvision: BN, the "5x5" branch a 3x3, ceil-mode pools, no aux heads): 1,498,376,192
# MACs and 6,624,904 parameters, as models/googlenet.yaml.
import googlenet
same "googlenet MACs = zoo" "$(total_of "$work/googlenet.yaml" macs)" "$(total_of "$SRC/models/googlenet.yaml" macs)"
same "googlenet MACs" "$(total_of "$work/googlenet.yaml" macs)" "1498376192"
same "googlenet params = zoo" "$(total_of "$work/googlenet.yaml" params)" "6624904"

# MobileNet V2 (not in the zoo): torchvision counts 3,504,872 parameters. MACs per sample: stem conv
# 3x3 s2 3->32 at 112x112: 112*112*32*27 = 10,838,016; the 17 inverted-residual blocks (expand 1x1
# by t, depthwise 3x3 at the block's stride: 9 MACs per output, project 1x1; settings t, c, n, s =
# 1,16,1,1 6,24,2,2 6,32,3,2 6,64,4,2 6,96,3,1 6,160,3,2 6,320,1,1), e.g. the first (t=1, 32->16
# at 112x112) 112*112*(32*9 + 32*16) = 10,035,200, all 17 summed 268,585,856; the last 1x1 conv
# 320->1280 at 7x7: 49*1280*320 = 20,070,400; classifier 1280*1000 = 1,280,000. Total 300,774,272
# (torchvision quotes 0.30 GFLOPS, counting MACs).
import mobilenet_v2
same "mobilenet_v2 params" "$(total_of "$work/mobilenet_v2.yaml" params)" "3504872"
same "mobilenet_v2 MACs" "$(total_of "$work/mobilenet_v2.yaml" macs)" "300774272"
contains "mobilenet_v2 depthwise" "$(cat "$work/mobilenet_v2.yaml")" "type: conv2d, out_channels: 32, kernel: 3, padding: 1, groups: 32, bias: false}"
contains "mobilenet_v2 relu6 from Clip(0, 6)" "$(cat "$work/mobilenet_v2.yaml")" "type: relu6}  # node /features/features.0/features.0.2/Clip (Clip)"

# The zoo's LSTM language model: 945,602,560 MACs (35 tokens x 27,017,216) and 37,283,600
# parameters, as models/lstm_lm.yaml; the decoder's MatMul + Add is one linear layer with a bias.
import lstm_lm --batch-dim batch
same "lstm_lm MACs = zoo" "$(total_of "$work/lstm_lm.yaml" macs)" "$(total_of "$SRC/models/lstm_lm.yaml" macs)"
same "lstm_lm params = zoo" "$(total_of "$work/lstm_lm.yaml" params)" "37283600"
same "lstm_lm layers" "$(grep -o 'type: [a-z]*' "$work/lstm_lm.yaml" | tr '\n' ' ')" \
  "type: embedding type: lstm type: lstm type: linear type: softmax "

# A bidirectional GRU(16 -> 32) over 20 steps, its output gated by sigmoid(Linear(64, 64)) (Mul),
# then Linear(64, 10) per step. Parameters: GRU 2 directions x 3 gates x (32 (16 + 32) + 2 x 32)
# = 9,600; gate 64 x 64 + 64 = 4,160; classifier 64 x 10 + 10 = 650; 14,410. MACs: GRU 20 steps x
# 2 x 3 x 32 x 48 = 184,320; gate 20 x 4,096 = 81,920; classifier 20 x 640 = 12,800; 279,040.
import gated_gru --batch-dim batch
same "gated_gru MACs" "$(total_of "$work/gated_gru.yaml" macs)" "279040"
same "gated_gru params" "$(total_of "$work/gated_gru.yaml" params)" "14410"
contains "gated_gru mul" "$(cat "$work/gated_gru.yaml")" "{name: Mul, type: mul, inputs: [gru_GRU, Sigmoid]}"

# ResNet-50 from ONNX on Snowflake: every layer's row equals the zoo model's (names aside); the zoo
# appends a softmax, which is its only extra row.
expect 0 "run imported resnet50" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$work/resnet50.yaml" --format csv
unnamed=$(head -1 <<<"$out" | tr , '\n' | grep -vxe batch -e layer | paste -sd,)  # every column but the names
imported=$(sed '$d' <<<"$out" | csv_col "$unnamed")
expect 0 "run zoo resnet50" -- "$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$SRC/models/resnet50.yaml" --format csv
same "resnet50 rows as the zoo's" "$imported" "$(grep -v ',prob,softmax,' <<<"$out" | sed '$d' | csv_col "$unnamed")"

# Standard output without -o; the same text as the file.
expect 0 "import to standard output" -- "$REUSESIM" import onnx "$D/resnet50.onnx"
same "standard output = file" "$out" "$(cat "$work/resnet50.yaml")"

# LayerNormalization over a sequence's 64 features (scale and bias: 2 x 64 = 128 parameters), then a
# MatMul to 32 (2,048 weights, 64 x 32 = 2,048 MACs a token): 10 tokens, 20,480 MACs, 2,176 parameters.
import layer_norm
contains "layer_norm summary" "$out" "2 layers, 20480 MACs per sample, 2176 parameters"
contains "layer_norm layer" "$(cat "$work/layer_norm.yaml")" "{name: ln, type: layernorm}  # node ln (LayerNormalization)"
same "layer_norm params" "$(total_of "$work/layer_norm.yaml" params)" "2176"
expect 2 "LayerNormalization over two axes" -- "$REUSESIM" import onnx "$D/layer_norm_two_axes.onnx"
same "two axes message" "$err" "reusesim import onnx: error: $D/layer_norm_two_axes.onnx: node ln (LayerNormalization): LayerNormalization over axes 1.. of a rank-3 tensor: the layer library's layernorm normalizes the last axis (the features) only"

# Bad input: exit 2, naming the file and the node.
head -c 1000 "$D/resnet50.onnx" >"$work/truncated.onnx"
expect 2 "truncated file" -- "$REUSESIM" import onnx "$work/truncated.onnx"
same "truncated message" "$err" "reusesim import onnx: error: $work/truncated.onnx: not an ONNX model (the file does not parse as an ONNX ModelProto; is it truncated?)"
expect 2 "not ONNX" -- "$REUSESIM" import onnx "$SRC/models/mlp.yaml"
contains "not ONNX message" "$err" "$SRC/models/mlp.yaml: not an ONNX model"
expect 2 "shape inference cannot fill" -- "$REUSESIM" import onnx "$D/unknown_shape.onnx"
same "unknown shape message" "$err" "reusesim import onnx: error: $D/unknown_shape.onnx: node reshape1 (Reshape): the output flat has no shape, and ONNX shape inference could not fill it"
expect 2 "dynamic batch without --batch-dim" -- "$REUSESIM" import onnx "$D/lstm_lm.onnx"
same "dynamic dim message" "$err" "reusesim import onnx: error: $D/lstm_lm.onnx: the graph input tokens [35, batch]: the dynamic dimension \"batch\" has no size; if it is the batch, say so with --batch-dim batch (any other dimension needs a fixed size)"
expect 2 "wrong --batch-dim" -- "$REUSESIM" import onnx "$D/lstm_lm.onnx" --batch-dim seq
contains "wrong --batch-dim message" "$err" "--batch-dim seq: the input tokens has no such dimension (its dimensions are [35, batch])"
expect 2 "unsupported operator" -- "$REUSESIM" import onnx "$D/unsupported_op.onnx"
same "unsupported message" "$err" "reusesim import onnx: error: $D/unsupported_op.onnx: node norm1 (LRN): the operator LRN has no layer in ReuseSim's layer library; docs/import.md lists the operators that map"
# Strides of 0, which ONNX's shape inference divides by (it died of SIGFPE, exit 136): refused first.
expect 2 "Conv strides [0, 0]" -- "$REUSESIM" import onnx "$D/conv_stride_zero.onnx"
same "strides message" "$err" "reusesim import onnx: error: $D/conv_stride_zero.onnx: node conv1 (Conv): strides [0, 0]: each value must be 1..1099511627776"

# Node and producer names that end their line and write YAML after it (a linear layer of
# 8 -> 1,000,000, 8,000,000 MACs, and a key) stay in their comments: the model is the two ReLUs,
# 0 MACs and 0 parameters, in the summary and in the file as `analyze` reads it.
import injected_names
contains "injected names summary" "$out" "2 layers, 0 MACs per sample, 0 parameters"
same "injected names MACs" "$(total_of "$work/injected_names.yaml" macs)" "0"
same "injected names layers" "$(grep -c '^  - {' "$work/injected_names.yaml")" "2"
same "injected names keys" "$(grep -v '^#' "$work/injected_names.yaml" | grep -o '^[a-z_]*:' | paste -sd' ')" "name: precision: input: layers:"
contains "injected name kept" "$(cat "$work/injected_names.yaml")" \
  '{name: relu1___-__name__evil__type__linear__out_features__1000000____, type: relu}  # node relu1\x0A  - {name: evil, type: linear, out_features: 1000000}  # (Relu)'

expect 2 "missing file" -- "$REUSESIM" import onnx "$work/none.onnx"
contains "missing file message" "$err" "$work/none.onnx"

expect 2 "unknown import format" -- "$REUSESIM" import caffe "$D/resnet50.onnx"
same "unknown format message" "$err" "reusesim import: error: unknown format \"caffe\" (onnx or scalesim)
try: reusesim import --help"

# -o follows the output rules: a .partial of someone else is left alone, a missing directory fails.
echo mine >"$work/model.yaml.partial"
expect 2 "-o over a foreign .partial" -- "$REUSESIM" import onnx "$D/lstm_lm.onnx" --batch-dim batch -o "$work/model.yaml"
contains "-o foreign .partial" "$err" "it exists and ReuseSim cannot tell it wrote it"
same "foreign .partial kept" "$(cat "$work/model.yaml.partial")" "mine"
expect 2 "-o in a missing directory" -- "$REUSESIM" import onnx "$D/lstm_lm.onnx" --batch-dim batch -o "$work/none/model.yaml"
contains "-o missing directory" "$err" "reusesim import onnx: error: -o: cannot write $work/none/model.yaml"

finish
