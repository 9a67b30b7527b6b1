#!/usr/bin/env bash
# The repository stands on its own: no file cites the team's design notes kept outside it, and
# every docs/ page a file cites exists, so a reader who cloned the repository can follow them.
# Run by ctest with SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

cd "$SRC" || exit 1
sources=(README.md CMakeLists.txt docs sim tests models configs traces scripts python)
# Split so that this script does not match itself.
outside_notes="DESIGN""[.]md|[.][.]/shared/"
expect 1 "no file cites notes outside the repository" -- grep -rInE "$outside_notes" "${sources[@]}"
same "citations of notes outside the repository" "$out" ""

missing=""
while IFS= read -r page; do
  [ -f "$page" ] || missing+="$page "
done < <(grep -rhoIE "docs/[A-Za-z0-9_-]+[.]md" "${sources[@]}" | sort -u)
same "cited docs/ pages that do not exist" "$missing" ""

finish
