#!/usr/bin/env bash
# `reusesim trace` over a system (docs/traces-and-figure.md, "Systems"): tests/data/small_switch.yaml
# at 1 and 2 chips, each tensor- and data-parallel, with the MLP (batch 4) and tiny_lm's decode step
# (batch 2): systems.csv has each job's system table row, the same as `run` of that job gives, and
# the scaling figure plots its throughput. A bad plan is refused before any job runs. Run by ctest
# with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

SYSTEM=$SRC/tests/data/small_switch.yaml
cat >"$work/scaling.yaml" <<YAML
name: tiny_scaling
accelerators: [$SYSTEM]
models:
  - model: $SRC/models/mlp.yaml
    batch: [4]
  - model: $SRC/tests/data/tiny_lm.yaml
    phase: decode
    context: [8]
    batch: [2]
sweep:
  chips: [1, 2]
plans:
  - {tensor: chips}
  - {data: chips}
YAML

# Batch 3 on 2 replicas: refused at validation (line 5, column 12: the batch), nothing written.
sed -e 's/batch: \[4\]/batch: [3]/' "$work/scaling.yaml" >"$work/bad.yaml"
expect 2 "a batch 2 replicas cannot share" -- "$REUSESIM" trace "$work/bad.yaml" --out "$work/bad"
same "the error" "$err" "$work/bad.yaml:5:12: error: models.0.batch: on $SYSTEM with chips=2, plan data=chips: batch 3 is not shared evenly by data x micro_batches = 2 (each replica runs batch / data, in micro_batches equal parts)"
same "no results directory" "$([ -e "$work/bad" ] && echo exists)" ""

expect 0 "the system trace" -- "$REUSESIM" trace "$work/scaling.yaml" --out "$work/r" --jobs 2 --no-figure
contains "every job ran" "$err" "8 job(s) run, 0 already finished, 0 failed"
systems=$work/r/systems.csv
# The jobs: chips slowest, then the plans, then the models.
same "systems.csv: a row per job" "$(csv_col job,plan,chips,tensor_parallel,data_parallel "$systems")" \
  "0001-small_switch-chips=1-tensor=chips-mlp-b4,tensor=chips,1,1,1
0002-small_switch-chips=1-tensor=chips-tiny_lm-decode-L8-b2,tensor=chips,1,1,1
0003-small_switch-chips=1-data=chips-mlp-b4,data=chips,1,1,1
0004-small_switch-chips=1-data=chips-tiny_lm-decode-L8-b2,data=chips,1,1,1
0005-small_switch-chips=2-tensor=chips-mlp-b4,tensor=chips,2,2,1
0006-small_switch-chips=2-tensor=chips-tiny_lm-decode-L8-b2,tensor=chips,2,2,1
0007-small_switch-chips=2-data=chips-mlp-b4,data=chips,2,1,2
0008-small_switch-chips=2-data=chips-tiny_lm-decode-L8-b2,data=chips,2,1,2"
same "layers.csv has the plan" "$(csv_col plan --where layer=fc1 "$work/r/layers.csv")" "tensor=chips
data=chips
tensor=chips
data=chips"

# Each job's row is what `run` of it gives: on 2 chips run's system.csv, on one chip (which runs as
# its chip, without a system table) its TOTAL's time, with no collectives.
MLP=(--model "$SRC/models/mlp.yaml" --batch 4)
LM=(--model "$SRC/tests/data/tiny_lm.yaml" --phase decode --context 8 --batch 2)
expect 0 "run: mlp on 1 chip" -- "$REUSESIM" run --arch "$SYSTEM" --set chips=1 "${MLP[@]}" --out "$work/mlp1"
expect 0 "run: tiny_lm on 1 chip" -- "$REUSESIM" run --arch "$SYSTEM" --set chips=1 "${LM[@]}" --out "$work/lm1"
expect 0 "run: mlp tensor-parallel" -- "$REUSESIM" run --arch "$SYSTEM" --set plan.tensor=2 "${MLP[@]}" --out "$work/mlp_t"
expect 0 "run: tiny_lm tensor-parallel" -- "$REUSESIM" run --arch "$SYSTEM" --set plan.tensor=2 "${LM[@]}" --out "$work/lm_t"
expect 0 "run: mlp data-parallel" -- "$REUSESIM" run --arch "$SYSTEM" --set plan.data=2 "${MLP[@]}" --out "$work/mlp_d"
expect 0 "run: tiny_lm data-parallel" -- "$REUSESIM" run --arch "$SYSTEM" --set plan.data=2 "${LM[@]}" --out "$work/lm_d"
total() { csv_col time_s --where layer=TOTAL "$1/results.csv"; }
row() { csv_col time_s,collectives_s,tokens_per_s --where job="$1" "$systems"; }
same "0001: the chip's time" "$(row 0001-small_switch-chips=1-tensor=chips-mlp-b4)" "$(total "$work/mlp1"),0,"
same "0003: the same chip" "$(row 0003-small_switch-chips=1-data=chips-mlp-b4)" "$(total "$work/mlp1"),0,"
lm1=$(total "$work/lm1")
# A decode step runs a token a sample: tokens_per_s = batch 2 / time_s.
same "0002: the chip's time, 2 tokens over it" "$(row 0002-small_switch-chips=1-tensor=chips-tiny_lm-decode-L8-b2)" \
  "$lm1,0,$(awk -v t="$lm1" 'BEGIN { printf "%.10g", 2 / t }')"
for pair in 0005:mlp_t 0006:lm_t 0007:mlp_d 0008:lm_d; do
  job=$(csv_col job "$systems" | grep "^${pair%%:*}-")
  same "$job: run's system.csv" "$(row "$job")" "$(csv_col time_s,collectives_s,tokens_per_s "$work/${pair#*:}/system.csv")"
done
# Replicas do not talk in inference: no collectives; tensor parallelism all-reduces fc5's output.
same "data-parallel: no collectives" "$(csv_col collective_share --where job=0007-small_switch-chips=2-data=chips-mlp-b4 "$systems")" "0"
same "tensor-parallel: collectives" "$(csv_col collective_share --where plan=tensor=chips "$systems" | awk '$1 > 0' | wc -l)" "2"

# samples_per_s is the batch over time_s: 4 / time_s for the MLP, 2 / time_s for tiny_lm.
while IFS=, read -r job batch time_s samples; do
  same "$job: samples_per_s" "$samples" "$(awk -v b="$batch" -v t="$time_s" 'BEGIN { printf "%.10g", b / t }')"
done < <(csv_col job,batch,time_s,samples_per_s "$systems")

# The scaling figure: a panel per workload and batch, a line per plan; tokens/s of the decode step
# and samples/s of the MLP, as systems.csv gives them.
expect 0 "figure" -- "$REUSESIM" figure "$work/r"
scaling=$work/r/figure_scaling.csv
same "figure_scaling.csv" "$(csv_col panel,line,chips,unit "$scaling")" "mlp, batch 4,small_switch, plan tensor=chips,1,samples/s
tiny_lm decode L=8, batch 2,small_switch, plan tensor=chips,1,tokens/s
mlp, batch 4,small_switch, plan data=chips,1,samples/s
tiny_lm decode L=8, batch 2,small_switch, plan data=chips,1,tokens/s
mlp, batch 4,small_switch, plan tensor=chips,2,samples/s
tiny_lm decode L=8, batch 2,small_switch, plan tensor=chips,2,tokens/s
mlp, batch 4,small_switch, plan data=chips,2,samples/s
tiny_lm decode L=8, batch 2,small_switch, plan data=chips,2,tokens/s"
same "the MLP's throughput is samples_per_s" "$(csv_col throughput --where unit=samples/s "$scaling")" \
  "$(csv_col samples_per_s --where model=mlp "$systems")"
same "the decode step's is tokens_per_s" "$(csv_col throughput --where unit=tokens/s "$scaling")" \
  "$(csv_col tokens_per_s --where model=tiny_lm "$systems")"
for file in figure_scaling.png figure_scaling.svg figure.png; do
  same "$file drawn" "$([ -s "$work/r/$file" ] && echo yes)" "yes"
done

finish
