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
expect 2 "trace --out under a file" -- "$REUSESIM" trace "$SRC/traces/example_run.yaml" --out "$work/file/out"
contains "trace --out message" "$err" "reusesim trace: error: cannot create output directory $work/file/out: Not a directory"
expect 2 "dump-program under a file" -- "$REUSESIM" run --arch "$A" --model "$SRC/models/mlp.yaml" --dump-program "$work/file/p.txt"
contains "dump-program message" "$err" "cannot write $work/file/p.txt.partial"

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
