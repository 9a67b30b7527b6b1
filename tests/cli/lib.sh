# Shared by the CLI end-to-end scripts: counters, a scratch directory, and check helpers.
# The sourcing script ends with `finish`.
export SC_COPYRIGHT_MESSAGE=DISABLE  # keep SystemC's banner out of the output when run by hand
failures=0
checks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

# The closing line ctest's output shows, and the exit status.
finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
