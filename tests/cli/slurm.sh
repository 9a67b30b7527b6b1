#!/usr/bin/env bash
# `trace --slurm` on a real Slurm: a one-node cluster started on this machine (slurm_cluster.sh),
# stopped and removed at the end however the script ends. A 24-job trace as 4 array tasks, one of
# them cancelled before it starts: the collect job names that shard, the command it prints completes
# it, and the tables and figure are those of a trace on one machine, byte for byte. Then a task
# cancelled while it runs: collect names it, and resubmitting its array index completes it.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set; needs root and the Slurm
# packages of scripts/install-deps.
set -u
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"
trap 'stop_cluster; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# munged requires every directory above its socket to be open to all.
chmod 0755 "$work"
if ! start_cluster "$work/cluster"; then
  echo "FAIL: the one-node Slurm cluster did not start; its logs:"
  tail -n 20 "$work"/cluster/log/* 2>/dev/null
  exit 1
fi

# wait_for_jobs IDS: until squeue lists none of the comma-separated job ids (5 minutes at most:
# ctest runs other tests beside this one, and CI runs it sanitized too).
wait_for_jobs() {
  local _
  for _ in $(seq 1500); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  echo "FAIL: Slurm jobs $1 still queued after 5 minutes:"
  squeue
  failures=$((failures + 1))
}

# The job ids in --slurm's output: the array's, then the collect job's.
array_id() { sed -n 's/^submitted: job array \([0-9]*\) .*/\1/p' <<<"$1"; }
collect_id() { sed -n 's/.*, collect job \([0-9]*\) .*/\1/p' <<<"$1"; }

# 2 accelerators x 2 operand widths x 6 batch sizes of the MLP = 24 jobs.
cat >"$work/sweep.yaml" <<YAML
name: sweep
accelerators: [$SRC/configs/small.yaml, $SRC/configs/snowflake.yaml]
models:
  - model: $SRC/models/mlp.yaml
    batch: [1, 2, 4, 8, 16, 32]
sweep:
  compute.operand_bits: [8, 16]
YAML
expect 0 "the sweep on one machine" -- "$REUSESIM" trace "$work/sweep.yaml" --out "$work/one" --jobs 2
contains "24 jobs" "$err" "trace sweep: 24 jobs on 4 accelerator variant(s)"

# Held at submission so that task 3 can be cancelled before it starts, then released.
expect 0 "--slurm" -- "$REUSESIM" trace "$work/sweep.yaml" --out "$work/sl" --slurm --shards 4 --time 10 \
  --sbatch-arg=--hold
array=$(array_id "$out")
collect=$(collect_id "$out")
checks=$((checks + 1))
[ -n "$array" ] && [ -n "$collect" ] || { echo "FAIL: no job ids in: $out"; failures=$((failures + 1)); }
contains "says how to follow" "$out" "follow:  squeue -j $array,$collect"
same "four array tasks" "$(squeue -h -r -j "$array" -o %K | sort | tr '\n' ' ')" "1 2 3 4 "
same "the collect job waits for the array" "$(squeue -h -j "$collect" -o %E)" "afterany:${array}_*(unfulfilled)"
scancel "${array}_3"
scontrol release "$array" "$collect"
wait_for_jobs "$array,$collect"

collect_log=$(cat "$work/sl/shards/collect.log" 2>/dev/null)
contains "the collect job ran" "$collect_log" "collected 4 shard(s): 18 of 24 job(s) done, 0 failed"
contains "it names the cancelled shard" "$collect_log" "  shard 3/4: never started (6 of 6 job(s) not finished)"
contains "and how to resubmit it" "$collect_log" "or on Slurm: sbatch --array=3 $work/sl/shards/array.sbatch"
same "the other shards' logs" "$(ls "$work/sl/shards" | grep -c '^shard-[124]\.log$')" "3"
same "the cancelled shard left no record" "$(ls "$work/sl/shards/shard-3.json" 2>/dev/null)" ""
same "its jobs are pending" "$(grep -c ',pending,' "$work/sl/jobs.csv")" "6"
rerun=$(grep -A1 '  shard 3/4: ' <<<"$collect_log" | tail -1)
contains "the command resumes shard 3" "$rerun" "trace $work/sweep.yaml --out $work/sl --shard 3/4 --resume"
expect 0 "the printed --resume command" -- bash -c "$rerun"
contains "it ran the 6 jobs" "$err" "6 job(s) run, 0 already finished, 0 failed"
expect 0 "collect again" -- "$REUSESIM" trace "$work/sl" --collect
contains "every job done" "$err" "collected 4 shard(s): 24 of 24 job(s) done, 0 failed"
for file in jobs.csv layers.csv networks.csv figure_points.csv figure_roofs.csv figure.png figure.svg; do
  same "$file as on one machine" "$(cmp "$work/one/$file" "$work/sl/$file" 2>&1)" ""
done

# A task cancelled while it runs: scancel sends SIGTERM, the shard stops its workers and records
# it; collect names it, and the array index resubmitted completes it.
write_slow_trace "1, 2" "layer_types: [gru]"
expect 0 "--slurm, slow jobs" -- "$REUSESIM" trace "$work/slow.yaml" --out "$work/slow" --slurm --shards 2
array=$(array_id "$out")
collect=$(collect_id "$out")
for _ in $(seq 1200); do
  grep -qs '"status": "running"' "$work/slow/shards/shard-1.json" && break
  sleep 0.05
done
scancel "${array}_1"
wait_for_jobs "$array,$collect"
collect_log=$(cat "$work/slow/shards/collect.log" 2>/dev/null)
contains "collect names the cancelled task" "$collect_log" "  shard 1/2: interrupted by SIGTERM or SIGINT"
contains "the other shard finished" "$(cat "$work/slow/shards/shard-2.json")" '"status": "done"'
expect 0 "resubmit task 1" -- sbatch --parsable --wait --array=1 "$work/slow/shards/array.sbatch"
expect 0 "collect the slow trace" -- "$REUSESIM" trace "$work/slow" --collect --no-figure
contains "every slow job done" "$err" "collected 2 shard(s): 2 of 2 job(s) done, 0 failed"
checks=$((checks + 1))
if find "$work/slow" -name '*.partial' | grep -q .; then echo "FAIL: partial results left behind"; failures=$((failures + 1)); fi

finish
