# Shared by the CLI end-to-end scripts: counters, a scratch directory, and check helpers.
# The sourcing script ends with `finish`.
export SC_COPYRIGHT_MESSAGE=DISABLE  # keep SystemC's banner out of the output when run by hand
failures=0
checks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Files the trace scripts share, written into $work.
# two.yaml: 2 accelerators x 2 operand widths x (mlp at batch 1 and 16, pinned at 16) = 12 jobs, of
# which 0006 fails: pinned.yaml's fc1 is pinned to 64 x 4 x 1000 tiles, and at batch 16 with 16-bit
# operands its input tile is 16 x 1000 x 2 B = 32,000 B, more than half of small's 32 KiB input
# buffer (16,384 B). Every other combination fits (8-bit on small: 16,000 B; snowflake's maps
# buffer: 128 KiB half).
write_two_accelerator_trace() {
  cat >"$work/pinned.yaml" <<'YAML'
name: pinned
precision: int8
input: {features: 1000}
layers:
  - {name: fc1, type: linear, out_features: 100, tiling: {m: 64, n: 4, k: 1000, order: n-m}}
YAML
  cat >"$work/two.yaml" <<YAML
name: two_accelerators
accelerators: [$SRC/configs/small.yaml, $SRC/configs/snowflake.yaml]
models:
  - model: $SRC/models/mlp.yaml
    batch: [1, 16]
  - model: pinned.yaml
    batch: [16]
sweep:
  compute.operand_bits: [8, 16]
YAML
}
# slow.yaml: DeepSpeech2's GRU layers on snowflake at the batch sizes given ("1, 2"), long enough
# to interrupt: its last GRU layer alone (about 0.6 s a job in Release, 2 s under the sanitizers),
# or with a second argument another selection, as "layer_types: [gru]" (all four, about 3 s a job).
write_slow_trace() {
  cat >"$work/slow.yaml" <<YAML
name: slow
accelerators: $SRC/configs/snowflake.yaml
models:
  - model: $SRC/models/deepspeech2.yaml
    ${2:-layers: [gru4]}
    batch: [$1]
YAML
}

# expect CODE NAME -- command...: runs it, keeps stdout/stderr in $out/$err, checks the exit code.
expect() {
  local code=$1 name=$2
  shift 3
  checks=$((checks + 1))
  "$@" >"$work/out" 2>"$work/err"
  local actual=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
  if [ "$actual" -ne "$code" ]; then
    echo "FAIL: $name: exit $actual, expected $code"
    echo "  stderr: $err"
    failures=$((failures + 1))
  fi
}

# contains NAME TEXT NEEDLE
contains() {
  checks=$((checks + 1))
  if ! grep -qF -- "$3" <<<"$2"; then
    echo "FAIL: $1: output lacks: $3"
    echo "  got: $(head -c 600 <<<"$2")"
    failures=$((failures + 1))
  fi
}

# same NAME ACTUAL EXPECTED: an exact comparison.
same() {
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"
    echo "  expected: $3"
    echo "  got:      $2"
    failures=$((failures + 1))
  fi
}

# csv_col NAME[,NAME...] [--where COLUMN=VALUE] [FILE]: the named columns of a CSV's data rows (of
# FILE, else standard input; the first line is the header), a row a line, several names' values
# joined by commas (unquoted); --where keeps the rows whose COLUMN is VALUE. Read with a CSV reader
# (mapping texts hold commas). A name the header lacks is a failed check, printed with the header
# and counted by finish even from $(...), so a renamed column can never pass.
csv_col() {
  /usr/bin/python3 -c 'import csv, os, sys
names, *args = sys.argv[1:]
names, where = names.split(","), []
if args[:1] == ["--where"]:
    where, args = args[1].split("=", 1), args[2:]
rows = csv.reader(open(args[0], newline="") if args else sys.stdin)
header = next(rows, [])
missing = [n for n in names + where[:1] if n not in header]
if missing:
    sys.exit("FAIL: csv_col: no column %s in the header: %s" % (", ".join(missing), ",".join(header) or "(none: the CSV is empty)"))
try:
    for row in rows:
        if not where or row[header.index(where[0])] == where[1]:
            print(",".join(row[header.index(n)] for n in names))
    sys.stdout.flush()
except BrokenPipeError:  # the reader had enough (head -1)
    os._exit(0)' "$@" ||
    { echo "  (csv_col $* at ${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})" | tee -a "$work/csv_col.failed" >&2; return 1; }
}

# The closing line ctest's output shows, and the exit status; csv_col's failures count here.
finish() {
  if [ -s "$work/csv_col.failed" ]; then
    local failed
    failed=$(wc -l <"$work/csv_col.failed")
    checks=$((checks + failed))
    failures=$((failures + failed))
  fi
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
