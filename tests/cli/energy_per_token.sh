#!/usr/bin/env bash
# traces/energy_per_token.yaml end to end (docs/energy-model.md, "Joules per token"): Llama-2-7B's
# first block with its embedding and head (traces/precision/llama2_7b_w16a16.yaml), decode steps on
# tpu_v4i and the A100 at 7 nm, cut to context 128 and batches 1 and 4 (the whole trace's 16 jobs
# take a quarter of an hour). Every job
# finishes; the energy per token falls from batch 1 to 4 on each machine (the weights read once for
# the batch); the batch-1 steps cost what docs/energy-model.md's table says (the same layers as
# --set model.parameters.layers=1); the figure is drawn. Run by ctest with REUSESIM (the binary)
# and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

expect 0 "energy per token trace" -- "$REUSESIM" trace "$SRC/traces/energy_per_token.yaml" --out "$work/res" --jobs 2 \
  --set models.0.context=[128] --set models.0.batch=[1,4]
same "every job done" "$(csv_col status "$work/res/jobs.csv" | sort | uniq -c | tr -s ' ')" " 4 done"
same "energy per token falls with batch on each machine" "$(/usr/bin/python3 -c 'import csv, sys
lines = {}
for r in csv.DictReader(open(sys.argv[1])):
    lines.setdefault((r["panel"], r["length"]), []).append((int(r["batch"]), float(r["uj_per_token"])))
print(len(lines), all(min(v)[1] > max(v)[1] for v in lines.values()))' "$work/res/figure_energy_tokens.csv")" "2 True"
# docs/energy-model.md: 22,816 uJ a token on tpu_v4i, 22,773 on the A100 (batch 1, context 128).
same "batch 1 at context 128 as documented" "$(/usr/bin/python3 -c 'import csv, sys
print(" ".join(r["accelerator"] + ":" + format(float(r["uj_per_token"]), ".0f")
               for r in csv.DictReader(open(sys.argv[1])) if r["context"] == "128" and r["batch"] == "1"))' "$work/res/networks.csv")" "tpu_v4i:22816 a100:22773"
for file in figure_tokens.png figure_tokens.svg figure_energy_tokens.csv; do
  checks=$((checks + 1))
  [ -s "$work/res/$file" ] || { echo "FAIL: the trace wrote no $file"; failures=$((failures + 1)); }
done

finish
