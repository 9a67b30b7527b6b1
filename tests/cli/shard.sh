#!/usr/bin/env bash
# End-to-end checks of sharded traces without a cluster (tests/cli/slurm.sh runs them on Slurm):
# `trace --shard K/N` side by side into one directory and `trace DIR --collect` give the tables and
# figure of a trace on one machine, byte for byte; a shard that did not run is named with the
# command that completes it; --slurm --dry-run writes the job scripts; bad input is refused with
# exit 2 and changes nothing.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# fingerprint DIR: every file under DIR with its checksum, to show that a refusal changed nothing.
fingerprint() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 md5sum); }

# 12 jobs, of which 0006 fails (lib.sh).
write_two_accelerator_trace
failed_job=0006-small-compute.operand_bits=16-pinned-b16

expect 4 "the trace on one machine" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/one" --jobs 2

# Four shards at once into one directory: each runs its own jobs, none waits for another's.
for k in 1 2 3 4; do
  "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard "$k/4" --jobs 1 >"$work/shard$k.out" 2>"$work/shard$k.err" &
  pids[k]=$!
done
shard_failed=
for k in 1 2 3 4; do
  wait "${pids[k]}"
  status=$?
  if grep -q "$failed_job" "$work/shard$k.err"; then
    shard_failed=$k
    same "shard $k, with the failing job, exits 4" "$status" "4"
  else
    same "shard $k exits 0" "$status" "0"
  fi
  contains "shard $k says what it runs" "$(cat "$work/shard$k.err")" "trace two_accelerators shard $k/4: 3 of 12 jobs, 1 worker(s)"
done
checks=$((checks + 1))
[ -n "$shard_failed" ] || { echo "FAIL: no shard ran the failing job"; failures=$((failures + 1)); }
same "every job ran in exactly one shard" "$(cat "$work"/shard?.err | grep -c '^\[./3\] \(done\|FAILED\)')" "12"
same "the split names every job once" "$(grep -o '"00[0-9][0-9]-[^"]*"' "$work/sh/shards/split.json" | sort -u | wc -l)" "12"
contains "each shard records its plan and how it ended" "$(cat "$work/sh/shards/shard-$shard_failed.json")" \
  "\"plan\": \"$(grep -o '"plan": "[0-9a-f]*"' "$work/sh/shards/split.json" | cut -d'"' -f4)\",
  \"shard\": $shard_failed,
  \"shards\": 4,
  \"status\": \"failed\",
  \"jobs\": 3,
  \"done\": 2,
  \"failed\": 1"
checks=$((checks + 1))
[ ! -e "$work/sh/layers.csv" ] || { echo "FAIL: a shard wrote the tables before --collect"; failures=$((failures + 1)); }

expect 4 "collect, with a failed job" -- "$REUSESIM" trace "$work/sh" --collect
contains "collect counts" "$err" "collected 4 shard(s): 11 of 12 job(s) done, 1 failed"
contains "collect names the shard with the failed job" "$err" "  shard $shard_failed/4: 1 of 3 job(s) failed"
contains "and how to complete it" "$err" "trace $work/two.yaml --out $work/sh --shard $shard_failed/4 --resume"
for file in jobs.csv layers.csv networks.csv figure_points.csv figure_roofs.csv figure.png figure.svg; do
  same "$file as on one machine" "$(cmp "$work/one/$file" "$work/sh/$file" 2>&1)" ""
done

# A shard that never ran: collect names it, and the command it prints completes the trace.
for k in 1 2 4; do
  expect 0 "shard $k of 4 of the good jobs" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/part" --shard "$k/4" \
    --set 'models.1.batch=[8]'
done
expect 4 "collect with shard 3 missing" -- "$REUSESIM" trace "$work/part" --collect --no-figure
contains "the missing shard is named" "$err" "  shard 3/4: never started (3 of 3 job(s) not finished)"
rerun=$(grep -A1 '  shard 3/4: ' <<<"$err" | tail -1)
contains "its command keeps the --set" "$rerun" "--set 'models.1.batch=[8]' --out $work/part --shard 3/4 --resume"
same "jobs.csv says pending" "$(grep -c ',pending,' "$work/part/jobs.csv")" "3"
expect 0 "the printed command" -- bash -c "$rerun"
expect 0 "collect again" -- "$REUSESIM" trace "$work/part" --collect --no-figure
contains "complete" "$err" "collected 4 shard(s): 12 of 12 job(s) done, 0 failed"
expect 0 "the same trace on one machine" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/part_one" \
  --set 'models.1.batch=[8]' --no-figure
for file in jobs.csv layers.csv networks.csv; do
  same "$file of the completed shards as on one machine" "$(cmp "$work/part_one/$file" "$work/part/$file" 2>&1)" ""
done
expect 0 "--resume of a finished shard runs nothing" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/part" \
  --shard 2/4 --set 'models.1.batch=[8]' --resume
contains "nothing rerun" "$err" "0 job(s) run, 3 already finished, 0 failed"

# Shards into separate directories (other machines), merged later by --collect --from.
for k in 1 2 3 4; do
  expect 0 "shard $k into a directory of its own" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sep$k" \
    --shard "$k/4" --set 'models.1.batch=[8]'
done
before=$(fingerprint "$work/sep2")
expect 2 "merging a shard of another trace" -- "$REUSESIM" trace "$work/merged_bad" --collect --from "$work/sep2" \
  --from "$work/sh"
# Named by the first field that differs: the third job, pinned at batch 8 (--set) against 16.
contains "another trace message" "$err" "$work/sh holds shards of another trace or split than $work/sep2 (jobs[2].id is \"0003-small-compute.operand_bits=8-pinned-b8\" in $work/sep2/trace.json, \"0003-small-compute.operand_bits=8-pinned-b16\" in $work/sh/trace.json (and 7 more field(s) differ)); merge only the shards of one trace"
checks=$((checks + 1))
[ ! -e "$work/merged_bad" ] || { echo "FAIL: a refused merge created its directory"; failures=$((failures + 1)); }
same "the refused merge changed no source" "$(fingerprint "$work/sep2")" "$before"
expect 0 "merge four directories into a new one" -- "$REUSESIM" trace "$work/merged" --collect --no-figure \
  --from "$work/sep1" --from "$work/sep2" --from "$work/sep3" --from "$work/sep4"
contains "copied every job" "$err" "copied 12 job(s) from 4 directory(ies) into $work/merged"
contains "merged complete" "$err" "collected 4 shard(s): 12 of 12 job(s) done, 0 failed"
expect 0 "merge into the first shard's directory" -- "$REUSESIM" trace "$work/sep1" --collect --no-figure \
  --from "$work/sep1" --from "$work/sep2" --from "$work/sep3" --from "$work/sep4"
contains "copied the others' jobs" "$err" "copied 9 job(s) from 3 directory(ies) into $work/sep1"
for file in jobs.csv layers.csv networks.csv; do
  same "$file merged as on one machine" "$(cmp "$work/part_one/$file" "$work/merged/$file" 2>&1)" ""
  same "$file merged into a shard's directory as on one machine" "$(cmp "$work/part_one/$file" "$work/sep1/$file" 2>&1)" ""
done
same "the shard records came along" "$(ls "$work/merged/shards" | grep -c '^shard-.\.json$')" "4"

# --slurm --dry-run: the scripts, without sbatch. Task K runs shard K with the same binary.
expect 0 "--slurm --dry-run" -- env PATH=/nonexistent "$REUSESIM" trace "$work/two.yaml" --out "$work/dry" --slurm \
  --shards 3 --partition batch --time 1:00:00 --sbatch-arg=--account=arch --dry-run --set 'models.1.batch=[8]'
contains "says where the scripts are" "$out" "scripts: $work/dry/shards/array.sbatch, $work/dry/shards/collect.sbatch"
same "the array script" "$(cat "$work/dry/shards/array.sbatch")" "#!/bin/bash
# Written by reusesim trace --slurm: array task K runs shard K of 3 of trace two_accelerators.
# Resubmit some tasks with: sbatch --array=2,4 $work/dry/shards/array.sbatch
#SBATCH --job-name=reusesim-two_accelerators
#SBATCH --partition=batch
#SBATCH --time=1:00:00
#SBATCH --account=arch
#SBATCH --array=1-3
#SBATCH --output=$work/dry/shards/shard-%a.log
exec $REUSESIM trace $work/two.yaml --set 'models.1.batch=[8]' --out $work/dry --shard \"\$SLURM_ARRAY_TASK_ID/3\" --resume --jobs \"\${SLURM_CPUS_PER_TASK:-1}\""
contains "the collect script" "$(cat "$work/dry/shards/collect.sbatch")" "#SBATCH --output=$work/dry/shards/collect.log
exec $REUSESIM trace $work/dry --collect"
same "every job pending" "$(grep -c ',pending,' "$work/dry/jobs.csv")" "12"
# The script's task 2, run by hand, is shard 2 of 3.
SLURM_ARRAY_TASK_ID=2 expect 0 "array task 2 run by hand" -- bash "$work/dry/shards/array.sbatch"
contains "task 2 is shard 2/3" "$err" "trace two_accelerators shard 2/3: 4 of 12 jobs, 1 worker(s)"

# Bad input: exit 2, and the directory as it was.
before=$(fingerprint "$work/sh")
for shard in 0/4 5/4 x/4 1/0 2 1/4/2 -1/4 ""; do
  expect 2 "--shard '$shard'" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard "$shard"
  contains "--shard '$shard' says what it expects" "$err" "--shard: expected K/N, shard K of N with 1 <= K <= N (e.g. 2/4 is the second of four), got \"$shard\""
done
expect 2 "more shards than jobs" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 1/13
contains "more shards than jobs message" "$err" "--shard: 13 shards of a trace of 12 job(s): at most one shard per job"
expect 2 "a shard of another plan" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 1/4 --set 'models.0.batch=[2]'
# The refusal names the first field that differs and both values: batch [2] gives 8 jobs, the first
# of them at batch 2 where the directory's is at batch 1.
contains "another plan message" "$err" "$work/sh holds results of a different trace: its trace.json does not match $work/two.yaml as given now (jobs[0].id is \"0001-small-compute.operand_bits=8-mlp-b1\" in trace.json, \"0001-small-compute.operand_bits=8-mlp-b2\" as given now (and 26 more field(s) differ)); choose another --out directory"
expect 2 "a shard of another split" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 1/3 --resume
contains "another split message" "$err" "$work/sh is split into 4 shards of \`$work/two.yaml\` (shards/split.json); shard 1/3 of \`$work/two.yaml\` is not one of them (shards is 4 in shards/split.json, 3 as given now (and 12 more field(s) differ)): give the same --shard K/4 and options"
expect 2 "a shard with other options" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 1/4 --resume --timeline
contains "other options message" "$err" "shard 1/4 of \`$work/two.yaml --timeline\` is not one of them (arguments is a list of 1 in shards/split.json, a list of 2 as given now)"
expect 2 "a shard run twice without --resume" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 2/4
contains "already ran message" "$err" "shard 2/4 already ran in $work/sh (shard-2.json is there); add --resume to complete it"
expect 2 "--shard with --overwrite" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 2/4 --overwrite
expect 2 "--shard with --slurm" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --shard 2/4 --slurm
expect 2 "a plain trace on a sharded directory" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh"
contains "plain trace message" "$err" "already holds trace results; add --resume"
expect 2 "--slurm on a directory of another plan" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --slurm \
  --dry-run --set 'models.0.batch=[2]' --resume
contains "--slurm another plan message" "$err" "holds results of a different trace"
same "the refusals changed nothing" "$(fingerprint "$work/sh")" "$before"

expect 2 "--slurm without sbatch" -- env PATH=/nonexistent "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm
same "--slurm without sbatch message" "$err" "reusesim trace: error: --slurm: sbatch is not on the PATH; submit from a machine with Slurm's commands (a login node, or Debian's slurm-client), or add --dry-run to write the job scripts without submitting"
expect 2 "a bad --time" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --time 1h
contains "--time message" "$err" "--time: expected a Slurm time limit (minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S or UNLIMITED), got \"1h\""
expect 2 "a bad --partition" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --partition 'a b'
expect 2 "an empty --partition" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --partition ''
expect 2 "a bad --sbatch-arg" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --sbatch-arg=account
expect 2 "--shards 0" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --shards 0
expect 2 "--shards over the jobs" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --slurm --dry-run --shards 13
expect 2 "--partition without --slurm" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/nosb" --partition p
contains "--partition without --slurm message" "$err" "--partition goes with --slurm"
expect 2 "--slurm into a path with a blank" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/no sb" --slurm --dry-run
checks=$((checks + 1))
[ ! -e "$work/nosb" ] && [ ! -e "$work/no sb" ] || { echo "FAIL: a refused --slurm created its directory"; failures=$((failures + 1)); }

expect 2 "--collect of a trace that was not sharded" -- "$REUSESIM" trace "$work/one" --collect
contains "not sharded message" "$err" "holds a trace that was not sharded (no shards/split.json)"
expect 2 "--collect of a missing directory" -- "$REUSESIM" trace "$work/missing" --collect
checks=$((checks + 1))
[ ! -e "$work/missing" ] || { echo "FAIL: --collect created a directory"; failures=$((failures + 1)); }
expect 2 "--collect with --out" -- "$REUSESIM" trace "$work/sh" --collect --out "$work/sh"
contains "--collect with --out message" "$err" "--collect takes the results directory alone (with --from, --no-figure, --verbose), not --out"
expect 2 "--from without --collect" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/sh" --from "$work/part"

# Printed commands quote what a shell would split: shards into a directory with a blank in its
# path, each saying how to collect, and collect's command for the missing shard run as printed.
expect 0 "shard 1/2 into a path with a blank" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/two sh" --shard 1/2 \
  --set 'models.1.batch=[8]'
contains "the collect command quotes the directory" "$err" "shard 1/2 ended; once every shard has: reusesim trace '$work/two sh' --collect"
expect 4 "collect with shard 2 missing, in a path with a blank" -- "$REUSESIM" trace "$work/two sh" --collect --no-figure
rerun=$(grep -A1 '  shard 2/2: ' <<<"$err" | tail -1)
same "the printed command quotes the directory" "$rerun" \
  "    $REUSESIM trace $work/two.yaml --set 'models.1.batch=[8]' --out '$work/two sh' --shard 2/2 --resume"
expect 0 "the printed command, run as printed" -- bash -c "$rerun"
expect 0 "collect after it" -- "$REUSESIM" trace "$work/two sh" --collect --no-figure
contains "completed" "$err" "collected 2 shard(s): 12 of 12 job(s) done, 0 failed"

# Many unfinished shards are summarised: the first five with why and how, the rest by range, with
# how to see each (--verbose) and the Slurm array to resubmit them all.
expect 0 "12 shards written, none run" -- env PATH=/nonexistent "$REUSESIM" trace "$work/two.yaml" --out "$work/many" \
  --slurm --shards 12 --dry-run
expect 4 "collect of 12 unfinished shards" -- "$REUSESIM" trace "$work/many" --collect --no-figure
same "five named" "$(grep -c '^  shard [0-9]*/12: never started' <<<"$err")" "5"
contains "the count and the range" "$err" "12 shard(s) did not finish (shards 1-12); complete each, then --collect again:"
contains "the rest by range" "$err" "  and 7 more (shards 6-12), each completed by the command above with its own --shard K/12; why each did not finish: reusesim trace $work/many --collect --verbose"
contains "the array as ranges" "$err" "or on Slurm: sbatch --array=1-12 $work/many/shards/array.sbatch; then reusesim trace $work/many --collect"
expect 4 "--verbose names every shard" -- "$REUSESIM" trace "$work/many" --collect --no-figure --verbose
same "twelve named" "$(grep -c '^  shard [0-9]*/12: never started' <<<"$err")" "12"
expect 2 "--verbose without --collect" -- "$REUSESIM" trace "$work/two.yaml" --out "$work/many" --verbose
contains "--verbose message" "$err" "--verbose goes with --collect"

# While a shard runs, a whole trace or --collect on its directory is refused at once (the shard
# holds shards/ shared); the shard itself is not disturbed.
write_slow_trace "1, 2, 4, 8, 16, 32"
"$REUSESIM" trace "$work/slow.yaml" --out "$work/busy" --shard 1/2 --jobs 1 >/dev/null 2>"$work/busy_err" &
busy=$!
for _ in $(seq 600); do
  [ -e "$work/busy/shards/shard-1.json" ] && break
  sleep 0.05
done
expect 2 "a whole trace while a shard runs" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/busy" --resume --no-figure
contains "names the running shard" "$err" "$work/busy/shards is in use by another reusesim trace (process $busy)"
expect 2 "--collect while a shard runs" -- "$REUSESIM" trace "$work/busy" --collect
contains "collect names the running shard" "$err" "(process $busy)"
expect 0 "the other shard beside it" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/busy" --shard 2/2 --jobs 1
wait "$busy"
same "the running shard finished" "$?" "0"
expect 0 "collect after both" -- "$REUSESIM" trace "$work/busy" --collect --no-figure

finish
