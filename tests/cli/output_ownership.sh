#!/usr/bin/env bash
# ReuseSim replaces or deletes only what it wrote: `trace --overwrite` and `run --out` leave every
# file of someone else alone, and refuse a directory that holds them rather than empty it.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

A=$SRC/configs/small.yaml
MLP=$SRC/models/mlp.yaml

# present NAME FILE TEXT: FILE still holds exactly TEXT.
present() {
  checks=$((checks + 1))
  if [ "$(cat "$2" 2>/dev/null)" != "$3" ]; then echo "FAIL: $1: $2 was deleted or changed"; failures=$((failures + 1)); fi
}

# One job: the MLP at batch 1 on small (about a second).
cat >"$work/one.yaml" <<YAML
name: one_job
accelerators: [$A]
models:
  - {model: $MLP, batch: [1]}
YAML
job=0001-small-mlp-b1

# --overwrite with files of someone else at the top, in jobs/ and in a job: refused, nothing deleted.
expect 0 "first trace" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/t" --no-figure
same "the job directory" "$(ls "$work/t/jobs")" "$job"
echo mine >"$work/t/notes.txt"
echo mine >"$work/t/jobs/notes.txt"
echo mine >"$work/t/jobs/$job/notes.txt"
expect 2 "overwrite keeps files of others" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/t" --overwrite --no-figure
contains "overwrite names them" "$err" "ReuseSim did not write $work/t/jobs/$job/notes.txt, $work/t/jobs/notes.txt, $work/t/notes.txt (no .reusesim-manifest lists it), so it deletes nothing there"
present "top notes" "$work/t/notes.txt" mine
present "jobs notes" "$work/t/jobs/notes.txt" mine
present "job notes" "$work/t/jobs/$job/notes.txt" mine
checks=$((checks + 1))
[ -s "$work/t/trace.json" ] && [ -s "$work/t/jobs/$job/results.csv" ] || { echo "FAIL: a refused --overwrite deleted results"; failures=$((failures + 1)); }
# Moved away, --overwrite replaces the results; a directory of someone else inside jobs/ counts too.
rm "$work/t/notes.txt" "$work/t/jobs/notes.txt" "$work/t/jobs/$job/notes.txt"
mkdir "$work/t/jobs/drafts"
expect 2 "overwrite keeps a directory of others" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/t" --overwrite --no-figure
contains "directory named" "$err" "ReuseSim did not write $work/t/jobs/drafts"
rmdir "$work/t/jobs/drafts"
expect 0 "overwrite own results" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/t" --overwrite --no-figure
same "overwritten job" "$(ls "$work/t/jobs")" "$job"

# A directory ReuseSim did not create is never emptied, even if it looks like trace results
# (a trace.json holding {}), and never written into.
mkdir "$work/thesis"
echo '{}' >"$work/thesis/trace.json"
echo thesis >"$work/thesis/thesis.tex"
expect 2 "overwrite a foreign directory" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/thesis" --overwrite --no-figure
contains "foreign directory message" "$err" "$work/thesis exists and is not a trace results directory: ReuseSim did not create it (it has no .reusesim-manifest)"
present "thesis" "$work/thesis/thesis.tex" thesis
present "its trace.json" "$work/thesis/trace.json" '{}'
same "nothing added" "$(ls -A "$work/thesis" | tr '\n' ' ')" "thesis.tex trace.json "

# run --out: a non-empty directory ReuseSim did not create is refused before the simulation.
mkdir "$work/mine"
echo mine >"$work/mine/results.csv"
expect 2 "run --out into a foreign directory" -- "$REUSESIM" run --arch "$A" --model "$MLP" --out "$work/mine"
contains "run --out message" "$err" "reusesim run: error: --out: $work/mine is not a directory ReuseSim created (it has no .reusesim-manifest) and is not empty"
present "foreign results.csv" "$work/mine/results.csv" mine
# An empty directory is adopted; run --out may then replace its own files there, never others'.
mkdir "$work/empty"
expect 0 "run --out into an empty directory" -- "$REUSESIM" run --arch "$A" --model "$MLP" --out "$work/empty" --batch 1
echo notes >"$work/empty/notes.txt"
expect 0 "run --out again" -- "$REUSESIM" run --arch "$A" --model "$MLP" --out "$work/empty" --batch 16
contains "replaced its own results" "$(cat "$work/empty/results.csv")" "16,TOTAL,,"
present "kept notes" "$work/empty/notes.txt" notes
# A file of someone else in ReuseSim's directory is never replaced, whatever the option naming it.
echo mine >"$work/empty/timeline.json"
expect 2 "timeline over a foreign file" -- "$REUSESIM" run --arch "$A" --model "$MLP" --timeline "$work/empty/timeline.json"
contains "foreign file message" "$err" "reusesim run: error: --timeline: $work/empty/timeline.json exists and ReuseSim did not write it (.reusesim-manifest does not list it); it is left alone"
present "foreign timeline.json" "$work/empty/timeline.json" mine
# A listed name that someone turned into a symlink is not written through: the link's target (a
# paper's table) would be overwritten with results.csv.
echo table >"$work/table.tex"
ln -sf "$work/table.tex" "$work/empty/results.csv"
expect 2 "run --out over a listed name made a symlink" -- "$REUSESIM" run --arch "$A" --model "$MLP" --out "$work/empty" --batch 1
contains "symlink message" "$err" "cannot write $work/empty/results.csv: it is not a regular file, and in a directory ReuseSim owns it writes only regular files of its own"
present "symlink target untouched" "$work/table.tex" table
# A manifest write cut short leaves .reusesim-manifest.partial: ReuseSim's own, so --overwrite
# clears it instead of refusing it as someone else's.
echo cut >"$work/t/.reusesim-manifest.partial"
expect 0 "overwrite past a cut-short manifest write" -- "$REUSESIM" trace "$work/one.yaml" --out "$work/t" --overwrite --no-figure

finish
