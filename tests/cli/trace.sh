#!/usr/bin/env bash
# End-to-end checks of `reusesim trace` and `reusesim figure`: job expansion, the result tables,
# a job that fails alone, --resume after an interruption, determinism across --jobs, bad input.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

write_two_accelerator_trace

# 2 accelerators x 2 sweep values x (2 + 1) batch entries = 12 jobs; one fails.
expect 4 "trace with a broken job" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r1" --jobs 2
contains "announces 12 jobs" "$err" "trace two_accelerators: 12 jobs on 4 accelerator variant(s), 2 worker(s)"
contains "the failure is reported with its error" "$err" "FAILED 0006-small-compute.operand_bits=16-pinned-b16: reusesim run: error: layer fc1: the pinned tiling m64 n4 k1000 does not fit"
contains "summary" "$err" "11 job(s) run, 0 already finished, 1 failed"
contains "says where failures are" "$err" "failed jobs are listed with their errors in $work/r1/jobs.csv"
jobs_csv=$(cat "$work/r1/jobs.csv")
same "jobs.csv header" "$(head -1 <<<"$jobs_csv")" "job,accelerator,model,selection,sequence_phase,sequence,context,compute.operand_bits,batch,status,error"
# Expansion order: accelerator files, then sweep values, then model entries, then batch sizes.
same "job order" "$(csv_col job <<<"$jobs_csv" | tr '\n' ' ')" \
  "0001-small-compute.operand_bits=8-mlp-b1 0002-small-compute.operand_bits=8-mlp-b16 0003-small-compute.operand_bits=8-pinned-b16 0004-small-compute.operand_bits=16-mlp-b1 0005-small-compute.operand_bits=16-mlp-b16 0006-small-compute.operand_bits=16-pinned-b16 0007-snowflake-compute.operand_bits=8-mlp-b1 0008-snowflake-compute.operand_bits=8-mlp-b16 0009-snowflake-compute.operand_bits=8-pinned-b16 0010-snowflake-compute.operand_bits=16-mlp-b1 0011-snowflake-compute.operand_bits=16-mlp-b16 0012-snowflake-compute.operand_bits=16-pinned-b16 "
same "statuses" "$(csv_col status <<<"$jobs_csv" | sort | uniq -c | tr -s ' ' | tr '\n' ';')" " 11 done; 1 failed;"
contains "the failed job's row" "$jobs_csv" '0006-small-compute.operand_bits=16-pinned-b16,small,pinned,all,,,,16,16,failed,"reusesim run: error: layer fc1: the pinned tiling'
checks=$((checks + 1))
[ -s "$work/r1/jobs/0006-small-compute.operand_bits=16-pinned-b16.failed/stderr.txt" ] ||
  { echo "FAIL: the failed job's stderr is not kept"; failures=$((failures + 1)); }
# layers.csv: mlp's 5 layers in 8 jobs and pinned's 1 layer in 3 jobs; networks.csv: 11 TOTAL rows.
same "layer rows" "$(tail -n +2 "$work/r1/layers.csv" | wc -l)" "43"
same "network rows" "$(tail -n +2 "$work/r1/networks.csv" | wc -l)" "11"
run_header=$("$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" --format csv | head -1)
same "layers.csv columns: the job's, then run's" "$(head -1 "$work/r1/layers.csv")" "job,accelerator,model,selection,sequence_phase,sequence,context,compute.operand_bits,$run_header"
# mlp at batch 16: 16 x 131,000 MACs in every variant.
same "mlp b16 totals" "$(grep -c -- "-mlp-b16,.*,16,TOTAL,,2096000," "$work/r1/networks.csv")" "4"
# A job's rows are exactly what `reusesim run` gives for it.
"$REUSESIM" run --arch "$SRC/configs/snowflake.yaml" --model "$SRC/models/mlp.yaml" --batch 16 \
  --set compute.operand_bits=8 --format csv | tail -n +2 | sed 's/^/0008-snowflake-compute.operand_bits=8-mlp-b16,snowflake,mlp,all,,,,8,/' >"$work/expected_rows"
same "rows equal run's" "$(grep '^0008-' "$work/r1/layers.csv" "$work/r1/networks.csv" | cut -d: -f2- | sort)" "$(sort "$work/expected_rows")"
for file in results.csv results.json config.json stats.txt job.json; do
  checks=$((checks + 1))
  [ -s "$work/r1/jobs/0001-small-compute.operand_bits=8-mlp-b1/$file" ] || { echo "FAIL: job lacks $file"; failures=$((failures + 1)); }
done
contains "job.json says what ran" "$(cat "$work/r1/jobs/0005-small-compute.operand_bits=16-mlp-b16/job.json")" '"sweep": {
    "compute.operand_bits": "16"
  },'
checks=$((checks + 1))
if find "$work/r1" -name '*.partial' | grep -q .; then echo "FAIL: partial files left behind"; failures=$((failures + 1)); fi

# The figure: one panel per variant, roofs from each variant's spec; mlp b16 and pinned points.
roofs=$(cat "$work/r1/figure_roofs.csv")
same "roof rows" "$(wc -l <<<"$roofs")" "5"
# small: 16 x 16 MACs at 1 GHz = 512 Gops/s; one DDR4-2400 channel, 8 B x 2 / 0.833 ns = 19.21 GB/s;
# ridge 512 / 19.208 = 26.656 ops/B. With 16-bit operands the array wants 16 x 2 = 32 B of inputs a
# cycle but the input buffer gives 4 banks x 4 B = 16: the SRAM roof is half the peak, 256 Gops/s.
contains "small roof" "$roofs" '"small, compute.operand_bits=8",small,512,19.20768307,26.656,
"small, compute.operand_bits=16",small,512,19.20768307,26.656,256'
# snowflake: 256 MACs at 250 MHz = 128 Gops/s; DDR3-1066, 8 B x 1066.67 MT/s = 4.267 GB/s.
contains "snowflake roof" "$roofs" '"snowflake, compute.operand_bits=16",snowflake,128,4.266666667,30,'
checks=$((checks + 1))
[ -s "$work/r1/figure.png" ] && [ -s "$work/r1/figure.svg" ] || { echo "FAIL: no figure drawn"; failures=$((failures + 1)); }

# --resume retries only the failed job (it fails again) and leaves the tables as they were.
cp "$work/r1/layers.csv" "$work/layers_before.csv"
expect 4 "resume retries the failed job" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r1" --resume --no-figure
contains "resume skipped the finished" "$err" "0 job(s) run, 11 already finished, 1 failed"
same "tables unchanged" "$(cat "$work/r1/layers.csv")" "$(cat "$work/layers_before.csv")"

# Determinism: --jobs 1 gives byte-identical tables and plan.
expect 4 "trace with one worker" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r2" --jobs 1 --no-figure
for file in trace.json jobs.csv layers.csv networks.csv; do
  checks=$((checks + 1))
  cmp -s "$work/r1/$file" "$work/r2/$file" || { echo "FAIL: $file differs between --jobs 2 and --jobs 1"; failures=$((failures + 1)); }
done
# ... and every job's CSV, JSON and stats files.
checks=$((checks + 1))
diff -r "$work/r1/jobs" "$work/r2/jobs" >"$work/jobs.diff" || { echo "FAIL: job files differ between --jobs 2 and --jobs 1"; head -5 "$work/jobs.diff"; failures=$((failures + 1)); }

# An interrupted run: a finished job lost and a half-written one left behind. --resume reruns
# exactly those, and the tables come out as before, without duplicated rows.
rm -rf "$work/r2/jobs/0002-small-compute.operand_bits=8-mlp-b16"
mv "$work/r2/jobs/0011-snowflake-compute.operand_bits=16-mlp-b16" "$work/r2/jobs/0011-snowflake-compute.operand_bits=16-mlp-b16.partial"
rm "$work/r2/jobs/0011-snowflake-compute.operand_bits=16-mlp-b16.partial/job.json"
expect 4 "resume after interruption" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r2" --resume --no-figure
contains "two jobs rerun" "$err" "2 job(s) run, 9 already finished, 1 failed"
same "layers.csv as uninterrupted" "$(cat "$work/r2/layers.csv")" "$(cat "$work/r1/layers.csv")"
same "networks.csv as uninterrupted" "$(cat "$work/r2/networks.csv")" "$(cat "$work/r1/networks.csv")"

# SIGINT mid-run: workers stop, finished jobs stay, and the message says how to resume: a command
# that, pasted into a shell, resumes this trace (its --set kept, a path with a blank quoted).
write_slow_trace "1, 2, 4, 8"
"$REUSESIM" trace "$work/slow.yaml" --out "$work/r 3" --jobs 1 --no-figure --set 'models.0.batch=[1, 2, 4, 8]' \
  >"$work/slow_out" 2>"$work/slow_err" &
trace_pid=$!
for _ in $(seq 600); do
  [ -d "$work/r 3/jobs/0001-snowflake-deepspeech2-gru4-b1" ] && break
  sleep 0.05
done
kill -INT "$trace_pid"
wait "$trace_pid"
same "interrupted exit status" "$?" "130"
resume=$(grep -A1 "^interrupted: the finished jobs are kept; complete the trace with:$" "$work/slow_err" | tail -1)
same "says how to resume, quoting what a shell would split" "$resume" \
  "  reusesim trace $work/slow.yaml --set 'models.0.batch=[1, 2, 4, 8]' --out '$work/r 3' --resume"
checks=$((checks + 1))
if find "$work/r 3" -name '*.partial' | grep -q .; then echo "FAIL: an interrupted job left a partial directory"; failures=$((failures + 1)); fi
mkdir -p "$work/bin" && ln -sf "$REUSESIM" "$work/bin/reusesim"
expect 0 "resume after SIGINT, as printed" -- env PATH="$work/bin:$PATH" bash -c "$resume --jobs 2 --no-figure"
contains "first job not redone" "$err" "already finished, 0 failed"
same "all four jobs' rows" "$(csv_col job "$work/r 3/networks.csv" | tr '\n' ' ')" \
  "0001-snowflake-deepspeech2-gru4-b1 0002-snowflake-deepspeech2-gru4-b2 0003-snowflake-deepspeech2-gru4-b4 0004-snowflake-deepspeech2-gru4-b8 "

# A missing plotting scripts directory is named as such, with where it was looked for, not blamed
# on matplotlib; the command to draw again quotes the directory.
expect 2 "figure without its scripts" -- env REUSESIM_SCRIPTS_DIR="$work/no scripts" "$REUSESIM" figure "$work/r 3"
same "missing scripts message" "$err" "reusesim figure: error: cannot draw the figure: the plotting scripts directory $work/no scripts (from REUSESIM_SCRIPTS_DIR) does not exist
the tables are in $work/r 3; draw again with: reusesim figure '$work/r 3'"
mkdir -p "$work/empty scripts"
expect 2 "figure with its script missing" -- env REUSESIM_SCRIPTS_DIR="$work/empty scripts" "$REUSESIM" figure "$work/r 3"
contains "missing script message" "$err" "the plotting script plot_figure.py is not in $work/empty scripts (from REUSESIM_SCRIPTS_DIR)"

# SIGKILL mid-run: the workers die with the trace, nothing else is lost, and --resume completes
# the trace with the same tables as the run above.
"$REUSESIM" trace "$work/slow.yaml" --out "$work/r6" --jobs 1 --no-figure >/dev/null 2>&1 &
trace_pid=$!
for _ in $(seq 600); do
  [ -d "$work/r6/jobs/0001-snowflake-deepspeech2-gru4-b1" ] && break
  sleep 0.05
done
kill -KILL "$trace_pid"
wait "$trace_pid" 2>/dev/null
sleep 0.5
checks=$((checks + 1))
if pgrep -f -- "--out $work/r6/jobs" >/dev/null; then echo "FAIL: a worker outlived its killed trace"; failures=$((failures + 1)); fi
same "the finished job is intact" "$(head -1 "$work/r6/jobs/0001-snowflake-deepspeech2-gru4-b1/results.csv")" "$(head -1 "$work/r 3/jobs/0001-snowflake-deepspeech2-gru4-b1/results.csv")"
expect 0 "resume after SIGKILL" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r6" --resume --jobs 2 --no-figure
contains "the finished job not redone" "$err" "already finished, 0 failed"
same "tables as the run before" "$(cat "$work/r6/networks.csv")" "$(cat "$work/r 3/networks.csv")"

# A job directory a worker made and was killed in before it listed anything (empty, or holding only
# a cut-short manifest): its parent's manifest lists it, so --resume clears it and goes on. Made by
# hand here, as a SIGKILL at that instant (above) leaves it only sometimes.
mkdir "$work/r6/jobs/0003-snowflake-deepspeech2-gru4-b4.partial"
touch "$work/r6/jobs/0003-snowflake-deepspeech2-gru4-b4.partial/.reusesim-manifest.partial"
expect 0 "resume over an empty job directory" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r6" --resume --jobs 2 --no-figure
checks=$((checks + 1))
[ ! -e "$work/r6/jobs/0003-snowflake-deepspeech2-gru4-b4.partial" ] ||
  { echo "FAIL: the empty job directory was left"; failures=$((failures + 1)); }

# --timeline: every job also writes its Chrome/Perfetto trace (docs/timeline.md).
expect 0 "trace --timeline" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r7" --set 'models.0.batch=[1]' --timeline --no-figure
checks=$((checks + 1))
/usr/bin/python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["traceEvents"]' \
  "$work/r7/jobs/0001-snowflake-deepspeech2-gru4-b1/timeline.json" ||
  { echo "FAIL: trace --timeline wrote no trace-event JSON"; failures=$((failures + 1)); }

# `reusesim figure` redraws from a results directory alone.
rm "$work/r1/figure.png"
expect 0 "figure" -- "$REUSESIM" figure "$work/r1"
contains "figure says where" "$out" "figure:  $work/r1/figure.png"
expect 2 "figure of a non-trace directory" -- "$REUSESIM" figure "$work"
contains "figure error" "$err" "holds no trace results (no trace.json)"
REUSESIM_PYTHON=$work/no-python expect 2 "figure without python" -- "$REUSESIM" figure "$work/r1"
contains "figure without python says what to install" "$err" "apt-get install python3-matplotlib"

# Bad input.
expect 2 "results already there" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r1"
contains "results already there message" "$err" "already holds trace results; add --resume to complete them, --overwrite to replace them"
expect 2 "resume and overwrite" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r1" --resume --overwrite
expect 0 "overwrite a trace" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r 3" --overwrite --no-figure --set 'models.0.batch=[1]'
same "overwritten: one job" "$(tail -n +2 "$work/r 3/jobs.csv" | wc -l)" "1"
expect 2 "resume a different trace" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r1" --resume
contains "different trace message" "$err" "holds results of a different trace"
mkdir -p "$work/other" && touch "$work/other/notes.txt"
expect 2 "not a results directory" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/other"
contains "not a results directory message" "$err" "exists and is not a trace results directory"
expect 2 "bad trace file" -- "$REUSESIM" trace "$work/pinned.yaml" --out "$work/r4"
expect 2 "zero workers" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r4" --jobs 0
expect 2 "bad override" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/r4" --set models.0.batch=[0]
# trace.json keeps the run file's path as JSON text, so it must be UTF-8 (the writer threw: exit 3).
cp "$work/two.yaml" "$work/latin1-"$'\xe9'".yaml"
expect 2 "run file path not UTF-8" -- "$REUSESIM" trace "$work/latin1-"$'\xe9'".yaml" --out "$work/r4"
same "run file path message" "$err" "reusesim trace: error: $work/latin1-"$'\xe9'".yaml: the path is not UTF-8 text (the byte 0xe9), which trace.json cannot record as JSON text; move the run file to a UTF-8 path"
checks=$((checks + 1))
[ ! -e "$work/r4" ] || { echo "FAIL: a refused trace created its results directory"; failures=$((failures + 1)); }
expect 0 "override the run file" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r5" --set 'models.0.batch=[1]' --no-figure
contains "one job" "$err" "trace slow: 1 jobs"

# A results directory is one experiment: trace.json records the hash of every file the jobs read,
# and --resume refuses a changed one by name (before, it ran the rest on the new files and the
# tables held old and new results side by side). Here the model, then the DRAM preset that the
# accelerator names and the preset directory supplies.
mkdir -p "$work/inputs/presets"
cp "$SRC"/configs/dram/*.yaml "$work/inputs/presets/"
cp "$SRC/models/mlp.yaml" "$SRC/configs/small.yaml" "$work/inputs/"
cat >"$work/inputs/run.yaml" <<'YAML'
name: inputs
accelerators: small.yaml
models:
  - {model: mlp.yaml, batch: [1]}
YAML
REUSESIM_PRESET_DIR=$work/inputs/presets expect 0 "a trace to resume" -- "$REUSESIM" trace "$work/inputs/run.yaml" --out "$work/r8" --no-figure
contains "trace.json records the preset's hash" "$(cat "$work/r8/trace.json")" "\"$work/inputs/presets/ddr4-2400.yaml\": \""
sed -i 's/- {name: fc5, type: linear, out_features: 10}/- {name: fc5, type: linear, out_features: 20}/' "$work/inputs/mlp.yaml"
REUSESIM_PRESET_DIR=$work/inputs/presets expect 2 "resume after the model changed" -- "$REUSESIM" trace "$work/inputs/run.yaml" --out "$work/r8" --resume --no-figure
contains "the changed model is named" "$err" "reusesim trace: error: --resume refused: $work/r8 holds results of inputs that have changed:
  $work/inputs/mlp.yaml: changed since the trace started
resuming would mix results of the old and the new files; restore them, or start afresh with --overwrite or another --out directory"
cp "$SRC/models/mlp.yaml" "$work/inputs/mlp.yaml"
REUSESIM_PRESET_DIR=$work/inputs/presets expect 0 "resume with the model restored" -- "$REUSESIM" trace "$work/inputs/run.yaml" --out "$work/r8" --resume --no-figure
contains "nothing to rerun" "$err" "0 job(s) run, 1 already finished, 0 failed"
sed -i 's/^tck_ns: 0.833/tck_ns: 0.834/' "$work/inputs/presets/ddr4-2400.yaml"
REUSESIM_PRESET_DIR=$work/inputs/presets expect 2 "resume after the preset changed" -- "$REUSESIM" trace "$work/inputs/run.yaml" --out "$work/r8" --resume --no-figure
contains "the changed preset is named" "$err" "  $work/inputs/presets/ddr4-2400.yaml: changed since the trace started"

# One trace per results directory: while a trace runs (here one replacing earlier results with
# --overwrite, which empties the directory but keeps it), a second trace or --resume on it fails at
# once, naming the first's process id; the first finishes with only its own jobs. (Before, both
# ran and left a mix of both traces, or failed on a missing .partial.) The lock dies with its
# process: "resume after SIGKILL" above resumed a directory whose trace was killed.
expect 0 "earlier results to overwrite" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r9" --set 'models.0.batch=[1]' --no-figure
"$REUSESIM" trace "$work/slow.yaml" --out "$work/r9" --overwrite --jobs 1 --no-figure --set 'models.0.batch=[1,2,4,8]' \
  >/dev/null 2>"$work/first_err" &
first=$!
for _ in $(seq 600); do
  [ -d "$work/r9/jobs/0001-snowflake-deepspeech2-gru4-b1.partial" ] && break
  sleep 0.05
done
expect 2 "a second trace on a directory in use" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r9" --overwrite --no-figure --set 'models.0.batch=[4]'
contains "names the first trace" "$err" "reusesim trace: error: $work/r9 is in use by another reusesim trace (process $first); wait for it to end, or choose another --out directory"
expect 2 "a --resume on a directory in use" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/r9" --resume --no-figure --set 'models.0.batch=[1,2,4,8]'
contains "resume names the first trace" "$err" "is in use by another reusesim trace (process $first)"
wait "$first"
same "the first trace finished" "$?" "0"
same "its own jobs only" "$(csv_col job,status "$work/r9/jobs.csv" | tr '\n' ' ')" \
  "0001-snowflake-deepspeech2-gru4-b1,done 0002-snowflake-deepspeech2-gru4-b2,done 0003-snowflake-deepspeech2-gru4-b4,done 0004-snowflake-deepspeech2-gru4-b8,done "

# --job-timeout: a job past its limit is killed and recorded as failed with the reason; the others
# go on. The LSTM over 5,000 steps (about 500,000 replay steps, several seconds) stands for a
# hung job; the MLP at batch 1 takes well under a second. (Before, a job that never ended stalled
# the whole trace: there was no limit.)
echo '{name: long_lstm, precision: fp16, input: {sequence: 5000, features: 256},
  layers: [{name: lstm, type: lstm, hidden_size: 256, bias: false}]}' >"$work/long_lstm.yaml"
cat >"$work/timeout.yaml" <<YAML
name: timeout
accelerators: $SRC/configs/small.yaml
models:
  - {model: $work/long_lstm.yaml, batch: [1]}
  - {model: $SRC/models/mlp.yaml, batch: [1]}
YAML
expect 4 "a job past --job-timeout" -- "$REUSESIM" trace "$work/timeout.yaml" --out "$work/r10" --jobs 1 --job-timeout 3 --no-figure
contains "the timeout is reported" "$err" "FAILED 0001-small-long_lstm-b1: timed out after 3 s and was killed (--job-timeout sets the limit)"
contains "the other job ran" "$err" "1 job(s) run, 0 already finished, 1 failed"
same "jobs.csv says why" "$(csv_col job,status,error "$work/r10/jobs.csv")" "0001-small-long_lstm-b1,failed,timed out after 3 s and was killed (--job-timeout sets the limit)
0002-small-mlp-b1,done,"
expect 2 "a negative --job-timeout" -- "$REUSESIM" trace "$work/timeout.yaml" --out "$work/r11" --job-timeout -1
contains "the --job-timeout range" "$err" "--job-timeout: expected seconds from 0 (no limit) to 10000000, got -1"

finish
