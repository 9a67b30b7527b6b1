#!/usr/bin/env bash
# The README's example accelerator, model and trace files must stay valid: each ```yaml block is
# written out under its `name:` and checked, the trace's ../ paths pointing into the source tree.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

awk -v dir="$work" '
  /^```yaml$/ { inside = 1; text = ""; next }
  /^```$/ && inside { inside = 0; match(text, /name: [A-Za-z0-9_]+/); printf "%s", text > (dir "/" substr(text, RSTART + 6, RLENGTH - 6) ".yaml"); next }
  inside { text = text $0 "\n" }
' "$SRC/README.md"
sed -i "s#\.\./#$SRC/#g" "$work/my_study.yaml"
expect 0 "README examples are valid" -- "$REUSESIM" check "$work/my_npu.yaml" "$work/tiny_cnn.yaml" "$work/my_study.yaml"
same "all three checked" "$out" "$work/my_npu.yaml: ok: accelerator my_npu
$work/tiny_cnn.yaml: ok: model tiny_cnn, 4 layers
$work/my_study.yaml: ok: run my_study"

finish
