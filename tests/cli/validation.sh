#!/usr/bin/env bash
# scripts/validation: one table per reference network with a TOTAL row, columns found by their CSV
# header name (a reusesim that adds and reorders columns gives the same tables), --write replaces
# only the text between the markers of docs/validation.md, and bad arguments are refused.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

validation=$SRC/scripts/validation
expect 0 "snowflake tables" -- env REUSESIM="$REUSESIM" "$validation" snowflake
tables=$out
same "one table per Snowflake reference network" "$(grep -c '^#### snowflake: ' <<<"$tables")" 3
same "a TOTAL row per table" "$(grep -c '^| \*\*TOTAL\*\* |' <<<"$tables")" 3
contains "AlexNet's conv1 row" "$tables" "| conv1 | conv2d | 70,276,800 |"
contains "the convolutions' own efficiency" "$tables" "The 5 conv2d layers alone:"
same "a summary row per network" "$(grep -cE '^\| (alexnet_owt|googlenet|resnet50) \| 1 \|' <<<"$tables")" 3

# A reusesim whose CSV has an extra first column and the rest in reverse order.
cat >"$work/shuffled" <<SCRIPT
#!/usr/bin/env bash
"$REUSESIM" "\$@" | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
writer = csv.writer(sys.stdout, lineterminator="\n")
for i, row in enumerate(rows):
    writer.writerow(["extra" if i == 0 else "x"] + row[::-1])
'
SCRIPT
chmod +x "$work/shuffled"
expect 0 "columns found by header name" -- env REUSESIM="$work/shuffled" "$validation" snowflake
same "same tables from reordered columns" "$out" "$tables"

printf 'before\n<!-- validation tables -->\nold\n<!-- end of validation tables -->\nafter\n' >"$work/doc.md"
expect 0 "--write" -- env REUSESIM="$REUSESIM" "$validation" --write "$work/doc.md" snowflake
same "--write keeps what is outside the markers" "$(head -2 "$work/doc.md"; tail -2 "$work/doc.md")" \
  "before
<!-- validation tables -->
<!-- end of validation tables -->
after"
contains "--write puts the tables between the markers" "$(cat "$work/doc.md")" "$(head -3 <<<"$tables")"

printf 'no markers\n' >"$work/plain.md"
expect 2 "--write refuses a file without markers" -- env REUSESIM="$REUSESIM" "$validation" --write "$work/plain.md" snowflake
contains "names the markers" "$err" "needs one '<!-- validation tables -->' line"
same "leaves it alone" "$(cat "$work/plain.md")" "no markers"
expect 2 "unknown machine" -- env REUSESIM="$REUSESIM" "$validation" small
contains "names the known ones" "$err" "unknown machine small (known: tpu_v1, snowflake)"
expect 2 "no binary" -- env REUSESIM="$work/none" "$validation" snowflake
contains "says where it looked" "$err" "no reusesim binary at $work/none"

finish
