#!/usr/bin/env bash
# End-to-end checks of `reusesim run --dump-program` and `reusesim replay`: a dumped program
# replays to byte-identical CSV, hand-written programs replay with the expected totals, malformed
# programs and usage errors give exit 2 and their exact text.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# quiet NAME: the last command wrote nothing to stderr.
quiet() {
  checks=$((checks + 1))
  [ -z "$err" ] || { echo "FAIL: $1 wrote to stderr: $err"; failures=$((failures + 1)); }
}

# identical NAME A B: two files with the same bytes (and not empty).
identical() {
  checks=$((checks + 1))
  if ! [ -s "$2" ] || ! cmp -s "$2" "$3"; then
    echo "FAIL: $1: $2 and $3 differ"
    diff "$2" "$3" | head -n 6
    failures=$((failures + 1))
  fi
}

run() { "$REUSESIM" run "$@"; }
replay() { "$REUSESIM" replay "$@"; }
small=$SRC/configs/small.yaml

# --- run --dump-program, then replay: the same CSV, byte for byte. ---
expect 0 "run mlp with --dump-program" -- run --arch "$small" --model "$SRC/models/mlp.yaml" --batch 1,4 --format csv \
  --dump-program "$work/mlp.program"
quiet "run --dump-program"
printf '%s\n' "$out" >"$work/run.csv"
same "dump header" "$(head -n 1 "$work/mlp.program")" "# reusesim data-movement program, version 1"
contains "dump first layer" "$(cat "$work/mlp.program")" "layer fc1 type linear batch 1
mapping gemm 1x100x1000,"
same "dump has every batch and layer" "$(grep -c '^layer ' "$work/mlp.program")" "10"
same "dump closes every layer" "$(grep -c '^end$' "$work/mlp.program")" "10"
same "no partial file left" "$(ls "$work" | grep -c partial)" "0"
expect 0 "replay mlp" -- replay --arch "$small" --program "$work/mlp.program" --format csv
quiet "replay"
printf '%s\n' "$out" >"$work/replay.csv"
identical "mlp: replay CSV = run CSV" "$work/run.csv" "$work/replay.csv"
same "two batches, two TOTAL rows" "$(grep -c ',TOTAL,' "$work/replay.csv")" "2"

# Convolutions, pooling, a view (flatten) and softmax, with an override given to both commands.
expect 0 "run alexnet" -- run --arch "$SRC/configs/tpu_v1.yaml" --model "$SRC/models/alexnet.yaml" \
  --set compute.clock_mhz=500 --format csv --dump-program "$work/alexnet.program"
printf '%s\n' "$out" >"$work/run.csv"
expect 0 "replay alexnet" -- replay --arch "$SRC/configs/tpu_v1.yaml" --program "$work/alexnet.program" \
  --set compute.clock_mhz=500 --format csv
printf '%s\n' "$out" >"$work/replay.csv"
identical "alexnet: replay CSV = run CSV" "$work/run.csv" "$work/replay.csv"
contains "flatten dumped as an empty layer" "$(cat "$work/alexnet.program")" "layer flatten type flatten batch 1
mapping view of its input: no data moves
end"
# On tpu_v1 pool1 runs in conv1's output path, and the pooled 27 x 27 x 96 = 69,984-byte int8 map
# stays in the Unified Buffer for conv2: the on-chip bytes travel in the program and come back.
contains "fused layer dumped as an empty layer" "$(cat "$work/alexnet.program")" "layer pool1 type maxpool batch 1
mapping fused into conv1's output path
end"
contains "on-chip bytes on the layer line" "$(cat "$work/alexnet.program")" "layer conv2 type conv2d batch 1 onchip_inputs 69984 onchip_outputs 43264"

# The same batch size twice: each pass keeps its own TOTAL.
run --arch "$small" --model "$SRC/models/mlp.yaml" --batch 2,2 --format csv --dump-program "$work/twice.program" >"$work/run.csv"
replay --arch "$small" --program "$work/twice.program" --format csv >"$work/replay.csv"
identical "batch 2,2: replay CSV = run CSV" "$work/run.csv" "$work/replay.csv"
same "batch 2,2: two TOTAL rows" "$(grep -c ',TOTAL,' "$work/replay.csv")" "2"

# Table and JSON name the program file where run names the model.
expect 0 "replay table" -- replay --arch "$small" --program "$work/mlp.program"
contains "table title" "$out" "accelerator small, model $work/mlp.program"
contains "table TOTAL" "$out" "TOTAL"
expect 0 "replay json" -- replay --arch "$small" --program "$work/mlp.program" --format json
contains "json model" "$out" "\"model\": \"$work/mlp.program\""
# A program mapped for one accelerator replays on another with the same operand width (8 bits)...
expect 0 "replay on another accelerator" -- replay --arch "$SRC/configs/tpu_v1.yaml" --program "$work/mlp.program" --format csv
contains "tpu_v1 replays every layer" "$out" "1,fc5,linear,1000,"
# ...but not where a compute step's SRAM bytes cannot hold its weight tile (16-bit operands):
# fc1's int8 tile m1 n100 k144 reads 1 x 144 + 144 x 100 = 14,544 bytes, less than 144 x 100 x 2.
expect 2 "replay on a wider-operand accelerator" -- replay --arch "$SRC/configs/snowflake.yaml" --program "$work/mlp.program"
contains "wider operands message" "$err" \
  "$work/mlp.program:8: error: layer fc1 (batch 1), step 2: compute reads 14544 SRAM bytes, fewer than its k x n weight tile (144 x 100 x 2 bytes on snowflake)"
same "at most 20 messages" "$(wc -l <<<"$err")" "20"

# --- A hand-written program: its totals are what the format defines. ---
cat >"$work/hand.program" <<'PROGRAM'
# reusesim data-movement program, version 1
layer "hand 1" type linear batch 1   # a quoted name
mapping written by hand
load weights addr 0x0 bytes 256 after -
load inputs addr 0x1010 bytes 16 after -
compute m 1 n 16 k 16 vector_ops 16 bytes 272 after 0,1
store outputs addr 0x2000 bytes 16 after 2
end
PROGRAM
expect 0 "hand-written program" -- replay --arch "$small" --program "$work/hand.program" --format csv
quiet "hand-written program"
# 1 x 16 x 16 = 256 MACs; reads 256 B + one 64-byte burst, writes one burst (DDR4 bursts are 64 B).
contains "hand row" "$out" "1,hand 1,linear,256,"
same "hand-written totals" "$(csv_col vector_ops,dram_read_bytes,dram_write_bytes,dram_read_weight_bytes,dram_read_input_bytes \
  --where 'layer=hand 1' <<<"$out")" "16,320,64,256,64"

# --- Malformed programs: every problem as file:line:col, exit 2, no report. ---
cat >"$work/bad.program" <<'PROGRAM'
# reusesim data-movement program, version 1
layer fc1 type linear batch 1
mapping hand-written
load weights addr 0x0 bytes 0 after -
lod inputs addr 0x1000 bytes 16 after -
compute m 1 n 16 k 16 vector_ops 16 bytes 272 after 0,3
store outputs addr 0x2000 bytes 16
PROGRAM
b=$work/bad.program
expect 2 "malformed program" -- replay --arch "$small" --program "$b"
same "malformed program messages" "$err" "$b:2:1: error: layer \"fc1\" has no \"end\"
$b:4:29: error: bytes is 0: every step moves or reads at least one byte
$b:5:1: error: unknown keyword \"lod\" (a line is layer, mapping, load, store, compute, vector or end)
$b:6:55: error: step 1 cannot wait for step 3: only earlier steps can be listed
$b:7:35: error: missing \"after\" (a store line is: store outputs addr 0x<hex> bytes <n> after <steps>)"
same "malformed program prints no report" "$out" ""

printf '# reusesim data-movement program, version 2\n' >"$work/v2.program"
expect 2 "newer format version" -- replay --arch "$small" --program "$work/v2.program"
same "version message" "$err" "$work/v2.program:1:43: error: unsupported format version \"2\" (this reader knows version 1)"
printf '# nothing\n\n' >"$work/empty.program"
expect 2 "empty program" -- replay --arch "$small" --program "$work/empty.program"
same "empty program message" "$err" "$work/empty.program: error: the program has no layers"
expect 2 "missing program file" -- replay --arch "$small" --program "$work/none.program"
same "missing program message" "$err" "$work/none.program: error: cannot open file"
# Well-formed, but the accelerator reads a 16 x 16 weight tile (256 B) for this compute step.
printf 'layer l1 type linear batch 1\nmapping x\ncompute m 1 n 16 k 16 vector_ops 0 bytes 100 after -\nend\n' >"$work/thin.program"
expect 2 "compute step reads less than its weights" -- replay --arch "$small" --program "$work/thin.program"
same "weight tile message" "$err" \
  "$work/thin.program:3: error: layer l1 (batch 1), step 0: compute reads 100 SRAM bytes, fewer than its k x n weight tile (16 x 16 x 1 bytes on small)"

# --- SRAM accesses are what the program says: none is clamped to its buffer, none grows a byte. ---
# small: weights 32 KiB, inputs 32 KiB, outputs 16 KiB (32,768 and 16,384 bytes).
cat >"$work/big.program" <<'PROGRAM'
layer big type linear batch 1
mapping by hand
load inputs addr 0x0 bytes 40000 after -
load weights addr 0x10000 bytes 40000 after -
compute m 1 n 160 k 256 vector_ops 0 bytes 40960 after 1
store outputs addr 0x20000 bytes 20000 after 2
end
PROGRAM
expect 2 "tiles larger than their SRAM buffers" -- replay --arch "$small" --program "$work/big.program"
same "buffer messages name the line, the step and the buffer" "$err" \
  "$work/big.program:3: error: layer big (batch 1), step 0: load inputs writes 40000 bytes, more than SRAM buffer inputs holds (32768 bytes on small)
$work/big.program:4: error: layer big (batch 1), step 1: load weights writes 40000 bytes, more than SRAM buffer weights holds (32768 bytes on small)
$work/big.program:5: error: layer big (batch 1), step 2: compute reads a weight tile of 40960 bytes, more than SRAM buffer weights holds (32768 bytes on small)
$work/big.program:6: error: layer big (batch 1), step 3: store reads 20000 bytes, more than SRAM buffer outputs holds (16384 bytes on small)"
same "no report for a program that does not fit" "$out" ""
# Reads may exceed a buffer (they re-read it) and cost all their bytes: a vector step reading 1 GiB
# from the 32 KiB inputs buffer (4 banks x 4 B = 16 B a cycle at 1000 MHz) reads 1,073,741,824 B
# in 1 GiB / 16 B = 67,108,864 SRAM cycles = 67,108,864 compute cycles (both at 1000 MHz); it was
# clamped to 32 KiB (2,048 cycles).
printf 'layer vec type relu batch 1\nmapping by hand\nvector ops 16 bytes 1073741824 after -\nend\n' >"$work/vec.program"
expect 0 "a vector step reading 1 GiB" -- replay --arch "$small" --program "$work/vec.program" --format csv
same "1 GiB vector read" "$(csv_col cycles,sram_read_bytes --where layer=vec <<<"$out")" "67108864,1073741824"
# A compute step whose SRAM bytes are just its 16 x 16 int8 weight tile reads 256 bytes, no more
# (it was charged a phantom input byte: 257).
cat >"$work/tile.program" <<'PROGRAM'
layer tile type linear batch 1
mapping by hand
load weights addr 0x0 bytes 256 after -
compute m 1 n 16 k 16 vector_ops 0 bytes 256 after 0
end
PROGRAM
expect 0 "compute step of weights only" -- replay --arch "$small" --program "$work/tile.program" --format csv
same "sram bytes of a weights-only compute step" "$(csv_col sram_read_bytes,sram_write_bytes --where layer=tile <<<"$out")" "256,256"

# --- Each batch starts from the same machine: the rows of a batch do not depend on the batches before. ---
run --arch "$small" --model "$SRC/models/mlp.yaml" --batch 4,4 --format csv --dump-program "$work/fours.program" >"$work/run.csv"
same "batch 4,4: both rows equal" "$(grep -c '^4,TOTAL,' "$work/run.csv") $(grep '^4,TOTAL,' "$work/run.csv" | sort -u | wc -l)" "2 1"
replay --arch "$small" --program "$work/fours.program" --format csv >"$work/replay.csv"
identical "batch 4,4: replay CSV = run CSV" "$work/run.csv" "$work/replay.csv"

# A program path need not be UTF-8: JSON shows its other bytes as U+FFFD (the writer threw: exit 3).
cp "$work/mlp.program" "$work/latin1-"$'\xe9'".program"
expect 0 "program path not UTF-8, json" -- replay --arch "$small" --program "$work/latin1-"$'\xe9'".program" --format json
contains "model is the path with U+FFFD" "$out" "\"model\": \"$work/latin1-"$'\xef\xbf\xbd'".program\","

# --- Usage. ---
expect 0 "replay --help" -- replay --help
contains "help names --program" "$out" "--program arg"
contains "help names --arch" "$out" "--arch arg"
contains "help names --format" "$out" "--format"
expect 0 "top-level help" -- "$REUSESIM" --help
contains "usage lists replay" "$out" "  replay     replay a data-movement program file"
expect 0 "run --help" -- run --help
contains "run help names --dump-program" "$out" "--dump-program arg"
expect 2 "replay without --program" -- replay --arch "$small"
contains "missing --program message" "$err" "reusesim replay: error: the option '--program' is required but missing"
expect 2 "replay, bad format" -- replay --arch "$small" --program "$work/mlp.program" --format xml
contains "format message" "$err" "reusesim replay: error: --format: expected table, csv or json, got \"xml\""
expect 2 "replay, bad --set" -- replay --arch "$small" --program "$work/mlp.program" --set compute.rows=0
contains "bad --set names the override" "$err" "--set compute.rows=0: error: compute.rows"
expect 2 "dump into a missing directory" -- run --arch "$small" --model "$SRC/models/mlp.yaml" --dump-program "$work/no/such/dir.program"
same "dump error message" "$err" "reusesim run: error: --dump-program: cannot write $work/no/such/dir.program.partial: No such file or directory"
same "nothing left behind" "$(ls "$work/no" 2>/dev/null | wc -l)" "0"

finish
