#!/usr/bin/env bash
# A full disk or an output path that cannot be used gives a clear error and a non-zero exit, and
# never a partial file that looks complete. The full disk is a 16 KiB tmpfs (mounting needs root;
# without it those checks are skipped and say so).
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs/small.yaml
M=$SRC/models/resnet50.yaml

# An output "directory" under a regular file.
touch "$work/file"
expect 2 "run --out under a file" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --out "$work/file/out"
contains "run --out message" "$err" "cannot create output directory $work/file/out: Not a directory"
expect 2 "run --out a file" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --out "$work/file"
contains "run --out a file message" "$err" "reusesim run: error: --out: $work/file exists and is not a directory"
expect 2 "trace --out under a file" -- "$REUSESIM" trace "$SRC/traces/example_run.yaml" --out "$work/file/out"
contains "trace --out message" "$err" "reusesim trace: error: cannot create output directory $work/file/out: Not a directory"
expect 2 "dump-program under a file" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/file/p.txt"
contains "dump-program message" "$err" "cannot write $work/file/p.txt.partial"

# A FILE.partial of someone else is neither overwritten nor renamed into place.
echo mine >"$work/p.txt.partial"
expect 2 "dump-program over a foreign .partial" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/p.txt"
contains "foreign .partial message" "$err" "cannot write $work/p.txt.partial: it exists and ReuseSim cannot tell it wrote it"
same "foreign .partial kept" "$(cat "$work/p.txt.partial")" "mine"

# A device, a FIFO or a symlink given as an output file is written through, never replaced (the
# targets are made in the scratch directory; /dev/full is only ever opened through a link).
ln -s /dev/full "$work/full"
expect 2 "dump-program to a full device" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/full"
contains "full device message" "$err" "reusesim run: error: --dump-program: cannot write $work/full: No space left on device"
checks=$((checks + 1))
[ -L "$work/full" ] || { echo "FAIL: --dump-program replaced a symlink to a device"; failures=$((failures + 1)); }
ln -s /proc/self/fd/1 "$work/stdout-link"
# Through a pipe: a file as standard output would be truncated by the second open.
expect 0 "timeline through a symlink" -- bash -o pipefail -c '"$0" run --arch "$1" --model "$2" --timeline "$3" | cat' \
  "$REUSESIM" "$A" "$SRC/models/mlp.yaml" "$work/stdout-link"
contains "timeline on standard output" "$out" '"traceEvents"'
checks=$((checks + 1))
[ -L "$work/stdout-link" ] || { echo "FAIL: --timeline replaced a symlink"; failures=$((failures + 1)); }
mkfifo "$work/fifo"
timeout 60 cat "$work/fifo" >"$work/from-fifo" &
reader=$!
expect 0 "dump-program into a FIFO" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/fifo"
wait "$reader"
checks=$((checks + 1))
[ -p "$work/fifo" ] || { echo "FAIL: --dump-program replaced a FIFO"; failures=$((failures + 1)); }
"$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/program.txt" >/dev/null
same "the FIFO got the program" "$(cmp "$work/from-fifo" "$work/program.txt" && echo same)" "same"

# Every command checks its writes on standard output (exit 2, with the reason).
cat >"$work/one.yaml" <<YAML
name: one_job
accelerators: [$A]
models:
  - {model: $SRC/models/mlp.yaml, batch: [1]}
YAML
"$REUSESIM" trace "$work/one.yaml" --out "$work/results" --no-figure >/dev/null 2>&1
stdout_full() {
  local name=$1
  shift
  checks=$((checks + 1))
  "$@" >/dev/full 2>"$work/err"
  local code=$?
  if [ "$code" -ne 2 ] || ! grep -qF "reusesim $name: error: cannot write standard output: No space left on device" "$work/err"; then
    echo "FAIL: $name > /dev/full: exit $code, stderr: $(cat "$work/err")"
    failures=$((failures + 1))
  fi
}
stdout_full analyze "$REUSESIM" analyze --model "$M"
stdout_full footprint "$REUSESIM" footprint --model "$M" --batch 1 --mode infer
stdout_full check "$REUSESIM" check "$A"
stdout_full run "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml"
stdout_full run "$REUSESIM" run --help
stdout_full help "$REUSESIM" --help
stdout_full version "$REUSESIM" --version
stdout_full replay "$REUSESIM" replay --arch "$A" --program "$work/program.txt"
stdout_full trace "$REUSESIM" trace "$work/one.yaml" --out "$work/results" --overwrite --no-figure
stdout_full figure "$REUSESIM" figure "$work/results"
stdout_full memtest "$REUSESIM" memtest --dram ddr4-2400 --pattern seq_read

# No partial file may look complete: every file written is whole, and a .partial never survives.
no_partial_files() {
  checks=$((checks + 1))
  if find "$1" -name '*.partial' | grep -q .; then echo "FAIL: $2: a .partial file was left"; failures=$((failures + 1)); fi
}

disk=$work/disk
mkdir -p "$disk"
if mount -t tmpfs -o size=16k tmpfs "$disk" 2>/dev/null; then
  trap 'umount "$disk"; rm -rf "$work"' EXIT
  # ResNet-50's results.csv (about 37 KB) does not fit.
  expect 2 "run --out on a full disk" -- "$REUSESIM" run --arch "$A" --model "$M" --out "$disk/run" --format csv
  contains "full disk message" "$err" "No space left on device"
  no_partial_files "$disk" "run --out on a full disk"
  rm -rf "${disk:?}"/*
  # Standard output redirected to a file on the full disk.
  expect 2 "run > a file on a full disk" -- sh -c '"$0" run --arch "$1" --model "$2" --format csv >"$3"' "$REUSESIM" "$A" "$M" "$disk/f.csv"
  contains "standard output on a full disk" "$err" "reusesim run: error: cannot write standard output: No space left on device"
  rm -rf "${disk:?}"/*
  expect 2 "trace on a full disk" -- "$REUSESIM" trace "$SRC/traces/example_run.yaml" --out "$disk/trace" --no-figure
  contains "trace full disk message" "$err" "No space left on device"
  no_partial_files "$disk" "trace on a full disk"
  # A job directory exists only when the job finished: with its job.json.
  for dir in "$disk"/trace/jobs/*; do
    case $dir in *.failed) continue ;; esac
    checks=$((checks + 1))
    [ ! -d "$dir" ] || [ -s "$dir/job.json" ] || { echo "FAIL: $dir looks finished without job.json"; failures=$((failures + 1)); }
  done
else
  echo "skipped: the full-disk checks need root to mount a tmpfs"
fi

finish
