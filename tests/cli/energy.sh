#!/usr/bin/env bash
# End-to-end checks of energy (docs/energy-model.md): memtest's DRAM energy equals the
# DRAMPower-style sum for the commands issued, and the per-access sum on hbm2, row hits cost less
# per bit than bank conflicts, machines on HBM and GDDR6 report energy, run
# leaves the energy columns empty without a technology, a trace over a hardware sweep writes the
# energy and design-space figures byte-identically, and bad figure input is refused and an unwritable
# figure reported, both under plot_energy.py's own name.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# ddr3-1066 (docs/energy-model.md; the preset's comments): 4 x8 devices at 1.5 V, tCK 1.875 ns, so
# 11.25 pJ per mA-clock. Per command: activate (60 - 45.6) x tRAS 20 x 11.25 = 3,240 pJ; precharge
# (60 - 33) x (tRC 27 - 20) x 11.25 = 2,126.25; read burst (130 - 45.6) x 4 x 11.25 = 3,798 plus I/O
# 4.31 pJ x 256 bits = 1,103.36; active standby 45.6 x 11.25 = 513 and precharged standby
# 33 x 11.25 = 371.25 per clock. A 64 B request is two 32 B bursts.

# --- 8 sequential reads: one activate, 16 row-hit bursts. ---
# ACT at 0, READs at tRCD 7, 11, ..., 67 (tCCD 4); the last data ends 67 + CL 7 + 4 = 78 clocks
# (0.14625 us), the row open all along: 3,240 + 16 x (3,798 + 1,103.36) + 78 x 513 = 121,675.76 pJ
# over 512 B = 4,096 bits: 29.706 pJ per bit.
expect 0 "seq_read energy" -- "$REUSESIM" memtest --dram ddr3-1066 --pattern seq_read --requests 8 --format csv
same "seq_read time" "$(csv_col simulated_time_us <<<"$out")" "0.14625"
same "seq_read commands" "$(csv_col activates,precharges,read_commands <<<"$out")" "1,0,16"
same "seq_read energy" "$(csv_col dram_energy_uj <<<"$out")" "0.12167576"
seq_per_bit=$(csv_col dram_pj_per_bit <<<"$out")
same "seq_read pJ/bit" "$seq_per_bit" "29.70599609"

# --- 8 requests to one bank, each to another row: every one after the first is a conflict. ---
# A request's ACT comes tRC = 27 clocks after the one before (PRE at tRAS 20 after its ACT, then
# tRP 7), so the last ACT is at 7 x 27 = 189, its READs at 196 and 200, its data ends at 211 clocks.
# The rank is precharged only in the 7 tRP gaps (49 clocks), active 162:
# 8 x 3,240 + 7 x 2,126.25 + 16 x (3,798 + 1,103.36) + 162 x 513 + 49 x 371.25 = 220,522.76 pJ,
# 53.839 pJ per bit.
expect 0 "bank_conflict energy" -- "$REUSESIM" memtest --dram ddr3-1066 --pattern bank_conflict --requests 8 --format csv
same "bank_conflict time" "$(csv_col simulated_time_us <<<"$out")" "0.395625"
same "bank_conflict commands" "$(csv_col activates,precharges,read_commands <<<"$out")" "8,7,16"
same "bank_conflict energy" "$(csv_col dram_energy_uj <<<"$out")" "0.22052276"
conflict_per_bit=$(csv_col dram_pj_per_bit <<<"$out")
same "bank_conflict pJ/bit" "$conflict_per_bit" "53.83856445"
checks=$((checks + 1))
awk -v a="$seq_per_bit" -v b="$conflict_per_bit" 'BEGIN { exit !(a < b) }' ||
  { echo "FAIL: a row-hit stream should cost less per bit than a bank-conflict stream"; failures=$((failures + 1)); }

# --- hbm2's per-access power block (configs/dram/hbm2.yaml): per 128-bit channel, activate 1,818
# pJ, a 64 B burst 2.68 pJ x 512 bits = 1,372.16 in the array and 0.80 x 512 = 409.6 of I/O,
# standby 66 mW active and 48 mW precharged, 66 and 48 pJ per 1 ns clock. ---
# One 64 B read: ACT at 0, READ at tRCD 14, data ends 14 + CL 14 + 2 = 30 clocks; its channel
# active for all 30, the other 7 precharged: 1,818 + 1,372.16 + 409.6 + 30 x 66 + 7 x 30 x 48
# = 15,659.76 pJ over 512 bits: 30.585 pJ per bit (the idle channels' standby dominates).
expect 0 "hbm2 energy" -- "$REUSESIM" memtest --dram hbm2 --pattern seq_read --requests 1 --format csv
same "hbm2 one read" "$(csv_col simulated_time_us,activates,read_commands <<<"$out")" "0.03,1,1"
same "hbm2 one read energy" "$(csv_col dram_energy_uj,dram_pj_per_bit <<<"$out")" "0.01565976,30.58546875"
# Eight reads, one per channel (the channel bits are the address's lowest): each channel pays
# 1,818 + 1,372.16 + 409.6 + 30 x 66 = 5,579.76 pJ, 44,638.08 pJ over 4,096 bits: 10.898 pJ per bit.
expect 0 "hbm2 energy, every channel" -- "$REUSESIM" memtest --dram hbm2 --pattern seq_read --requests 8 --format csv
same "hbm2 eight reads" "$(csv_col simulated_time_us,activates,read_commands <<<"$out")" "0.03,8,8"
same "hbm2 eight reads energy" "$(csv_col dram_energy_uj,dram_pj_per_bit <<<"$out")" "0.04463808,10.89796875"

# --- Machines on HBM and GDDR6 report energy (they were refused: "no power block"): the DRAM's
# part is there, and the TOTAL's parts add up to its total. ---
for machine in tpu_v4 h100 wormhole_n150; do
  expect 0 "$machine with a technology" -- "$REUSESIM" run --arch "$SRC/configs/$machine.yaml" \
    --model "$SRC/models/mlp.yaml" --set technology=7nm --format csv
  checks=$((checks + 1))
  /usr/bin/python3 -c '
import csv, sys
total = [row for row in csv.DictReader(sys.stdin) if row["layer"] == "TOTAL"][0]
parts = sum(float(total["energy_%s_uj" % p]) for p in ["dram", "sram", "array", "vector", "dma", "static", "shared", "noc"]
            if "energy_%s_uj" % p in total)
sys.exit(not (float(total["energy_dram_uj"]) > 0 and abs(parts - float(total["energy_total_uj"])) <= 1e-9 * parts))' \
    <<<"$out" || { echo "FAIL: $machine's TOTAL has no DRAM energy or its parts do not add up"; failures=$((failures + 1)); }
done

# --- check reads technology tables, told by their keys or with --kind. ---
expect 0 "check technologies" -- "$REUSESIM" check "$SRC/configs/energy/45nm.yaml" "$SRC/configs/energy/7nm.yaml"
same "check technologies output" "$out" "$SRC/configs/energy/45nm.yaml: ok: technology 45nm, 45 nm
$SRC/configs/energy/7nm.yaml: ok: technology 7nm, 7 nm"
printf 'name: mine\npreset: 45nm\nadd_pj: {int8: 0}\n' >"$work/mine.yaml"
expect 2 "check a bad technology" -- "$REUSESIM" check --kind technology "$work/mine.yaml"
same "bad technology message" "$err" "$work/mine.yaml:3:16: error: add_pj.int8: expected a number from 1e-09 to 1e+09, got 0"

# --- run: energy only with a technology. ---
expect 0 "run without technology" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" --format csv
same "no technology, no energy" "$(csv_col energy_total_uj,tops_per_w --where layer=fc1 <<<"$out")" ","
expect 0 "run with technology" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --set technology=45nm --set compute.number_format=int --format csv
checks=$((checks + 1))
/usr/bin/python3 -c '
import csv, sys
parts = ["dram", "sram", "array", "vector", "dma", "static"]
for row in csv.DictReader(sys.stdin):
    total = float(row["energy_total_uj"])
    if abs(sum(float(row["energy_%s_uj" % p]) for p in parts) - total) > 1e-9 * total:
        sys.exit(1)' <<<"$out" ||
  { echo "FAIL: every row's energy_total_uj is the sum of its components"; failures=$((failures + 1)); }
expect 0 "run json area" -- "$REUSESIM" run --arch "$SRC/configs/small.yaml" --model "$SRC/models/mlp.yaml" \
  --set technology=45nm --set compute.number_format=int --format json
# small: 256 int8 MACs x (282 + 137) um^2 = 0.107264 mm^2; SRAM 80 KiB + accumulators 64 KiB at
# 4,049 um^2 per KiB = 0.583056 mm^2; 0.69032 mm^2.
contains "area total" "$out" '"total_mm2": 0.69032'

# --- SRAM curves are not extrapolated past their points (docs/energy-model.md). small's arrays:
# the weights and inputs buffers' banks of 8 KiB, the outputs' of 4 KiB, 64 KiB of accumulators.
# A steep curve, 1 pJ at 1 KiB and 1,000 pJ at 2 KiB, extended its slope (log 1000 / log 2 = 9.97)
# to 64 KiB: 1000 x 32^9.97 = 1e18 pJ an access. Every array is past its last point now, so it
# costs what a one-point curve of 1,000 pJ costs: the energies of the two runs are equal. The same
# curve moved to 1,024 and 2,048 KiB is below every array: 1 pJ each, as a one-point curve of 1 pJ
# (extended down, it gave (8 / 1024)^9.97 = 1e-21 pJ).
energy_with_curve() {  # CURVE: run the MLP on small with it as both SRAM curves; $out, $err
  sed -e 's/^  operand_bits: 8/&\n  number_format: int/' \
    -e "s/^dram:/technology: {preset: 45nm, sram_read_pj_per_64_bits: $1, sram_write_pj_per_64_bits: $1}\n&/" \
    "$SRC/configs/small.yaml" >"$work/curve.yaml"
  expect 0 "run with curve $1" -- "$REUSESIM" run --arch "$work/curve.yaml" --model "$SRC/models/mlp.yaml" --format csv
  energies=$(csv_col layer,energy_sram_uj,energy_array_uj,energy_total_uj <<<"$out")
}
energy_with_curve '[{kib: 1, pj: 1000}]'
flat_high=$energies
energy_with_curve '[{kib: 1, pj: 1}, {kib: 2, pj: 1000}]'
same "a steep curve is not extended past its last point" "$energies" "$flat_high"
contains "the accumulators past the curve" "$err" "reusesim run: warning: technology 45nm: sram_read_pj_per_64_bits and sram_write_pj_per_64_bits cover 1 KiB to 2 KiB; the accumulators (64 KiB) take the energy at 2 KiB (1000 pJ per 64 bits): a curve is not extrapolated beyond its points"
contains "a bank past the curve" "$err" "the banks of buffer outputs (4 KiB) take the energy at 2 KiB"
energy_with_curve '[{kib: 1024, pj: 1}]'
flat_low=$energies
energy_with_curve '[{kib: 1024, pj: 1}, {kib: 2048, pj: 1000}]'
same "a curve is not extended below its first point" "$energies" "$flat_low"
contains "a bank below the curve" "$err" "cover 1024 KiB to 2048 KiB; the banks of buffer weights (8 KiB) take the energy at 1024 KiB (1 pJ per 64 bits)"

# --- A trace over a hardware sweep: energy tables and both energy figures, byte-identical. ---
sed -e 's/^  operand_bits: 8/&\n  number_format: int/' -e 's/^dram:/technology: 45nm\n&/' "$SRC/configs/small.yaml" >"$work/small45.yaml"
cat >"$work/sweep.yaml" <<YAML
name: energy_sweep
accelerators: $work/small45.yaml
models:
  - {model: $SRC/models/mlp.yaml, batch: [1, 8]}
  - {model: $SRC/models/mlp.yaml, layers: [fc1], batch: [1, 16]}
sweep:
  sram.buffers.0.capacity_kib: [16, 32]
YAML
expect 0 "energy trace" -- "$REUSESIM" trace "$work/sweep.yaml" --out "$work/res" --jobs 2
for file in figure_energy.png figure_energy.svg figure_design.png figure_design.svg; do
  checks=$((checks + 1))
  [ -s "$work/res/$file" ] || { echo "FAIL: the trace wrote no $file"; failures=$((failures + 1)); }
  cp "$work/res/$file" "$work/first-$file"
done
# Per sample: the whole MLP at batches 1 and 8 on 2 variants (4 network rows); its layers, and fc1
# picked at batches 1 and 16.
same "energy networks rows" "$(($(wc -l <"$work/res/figure_energy_networks.csv") - 1))" "4"
kinds=$(csv_col kind "$work/res/figure_energy_layers.csv")
same "energy layers kinds" "$(grep -cx network <<<"$kinds") $(grep -cx layer <<<"$kinds")" "$(( $(grep -c 'type: ' "$SRC/models/mlp.yaml") * 4 )) 4"
expect 0 "figure again" -- "$REUSESIM" figure "$work/res"
for file in figure_energy.png figure_energy.svg figure_design.png figure_design.svg; do
  checks=$((checks + 1))
  cmp -s "$work/res/$file" "$work/first-$file" || { echo "FAIL: $file differs when drawn again"; failures=$((failures + 1)); }
done

# --- Bad energy figure input: file and line, exit 2. ---
printf 'panel,sweep,model,batch,latency_s,energy_uj,ops\np,,m,1,0.1,-5,10\n' >"$work/bad_networks.csv"
expect 2 "plot_energy bad energy" -- /usr/bin/python3 "$SRC/scripts/plot_energy.py" "$work/res/figure_energy_layers.csv" \
  "$work/bad_networks.csv" "$work/bad"
same "plot_energy message" "$err" "plot_energy.py: error: $work/bad_networks.csv:2: latency_s and energy_uj must be positive"
printf 'panel,kind,model,batch,layer,dram_uj,sram_uj,array_uj,vector_uj,dma_uj,static_uj\np,conv,m,1,l,1,1,1,1,1,1\n' \
  >"$work/bad_layers.csv"
expect 2 "plot_energy bad kind" -- /usr/bin/python3 "$SRC/scripts/plot_energy.py" "$work/bad_layers.csv" \
  "$work/res/figure_energy_networks.csv" "$work/bad"
same "plot_energy kind message" "$err" "plot_energy.py: error: $work/bad_layers.csv:2: kind: expected network or layer, got 'conv'"
checks=$((checks + 1))
[ ! -e "$work/bad_energy.png" ] || { echo "FAIL: bad input still wrote a figure"; failures=$((failures + 1)); }
# A figure that cannot be written: the error names plot_energy.py (it used to say plot_figure.py,
# whose writing code it shares).
expect 2 "plot_energy unwritable" -- /usr/bin/python3 "$SRC/scripts/plot_energy.py" "$work/res/figure_energy_layers.csv" \
  "$work/res/figure_energy_networks.csv" "$work/none/fig"
same "plot_energy write message" "$err" "plot_energy.py: error: $work/none/fig_energy.png: cannot write: No such file or directory"

# --- A chip's shared memory and network-on-chip have energy columns of their own. ---
# wormhole_n150's torus: every byte a link moved crossed one hop, at 7 nm 0.0965 pJ a bit
# (configs/energy/7nm.yaml): energy_noc_uj = (the TOTAL's link bytes in noc_links.csv) x 8 x 0.0965 / 1e6.
expect 0 "wormhole mlp energy" -- "$REUSESIM" run --arch "$SRC/configs/wormhole_n150.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 1 --set technology=7nm --format csv --out "$work/noc_energy"
same "noc energy from the links' bytes" "$(/usr/bin/python3 -c 'import csv, sys
d = sys.argv[1]
links = [r for r in csv.DictReader(open(d + "/noc_links.csv")) if r["layer"] == "TOTAL"]
total = [r for r in csv.DictReader(open(d + "/results.csv")) if r["layer"] == "TOTAL"][0]
expected = sum(int(r["bytes"]) for r in links) * 8 * 0.0965 / 1e6
print(len(links) > 0 and expected > 0 and abs(float(total["energy_noc_uj"]) - expected) <= 1e-8 * expected)' "$work/noc_energy")" "True"
same "a chip without a shared memory has no energy_shared_uj" \
  "$(head -1 "$work/noc_energy/results.csv" | tr , '\n' | grep -c '^energy_shared_uj$')" "0"
contains "stats.txt explains energy_noc_uj" "$(cat "$work/noc_energy/stats.txt")" "energy_noc_uj: bits over the network-on-chip's hops"
# a100's L2: its part, and the total still the sum of the parts.
expect 0 "a100 mlp energy" -- "$REUSESIM" run --arch "$SRC/configs/a100.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 1 --set technology=7nm --format csv
same "shared memory energy, in the total" "$(csv_col energy_total_uj,energy_dram_uj,energy_sram_uj,energy_array_uj,energy_vector_uj,energy_dma_uj,energy_static_uj,energy_shared_uj --where layer=TOTAL <<<"$out" |
  /usr/bin/python3 -c 'import sys
total, *parts = map(float, sys.stdin.read().split(","))
print(parts[-1] > 0 and abs(total - sum(parts)) <= 1e-6 * total)')" "True"
same "a chip without a network has no energy_noc_uj" "$(head -1 <<<"$out" | tr , '\n' | grep -c '^energy_noc_uj$')" "0"

# --- Joules per token of a transformer's phase (TOTAL rows). ---
# GPT-2 with two layers on TPU v1 (int8; its file names 45 nm) on an ideal memory: a decode step runs one token a
# sample, so uj_per_token = energy_total_uj / batch and tokens_per_joule = 1e6 / uj_per_token; a
# prefill of 8 tokens at batch 2 runs 16 tokens.
sed -e '/^dram:/,$d' -e '/^technology:/d' "$SRC/configs/tpu_v1.yaml" >"$work/tpu_ideal.yaml"
echo "dram: {ideal: unlimited}" >>"$work/tpu_ideal.yaml"
per_token_ok() {  # reads batch,energy_total_uj,uj_per_token,tokens_per_joule rows; $1 tokens a sample
  /usr/bin/python3 -c 'import sys
ok = True
for line in sys.stdin.read().split():
    batch, total, per_token, per_joule = map(float, line.split(","))
    tokens = batch * int(sys.argv[1])
    ok = ok and abs(per_token - total / tokens) <= 1e-6 * per_token and abs(per_joule - 1e6 / per_token) <= 1e-6 * per_joule
print(ok)' "$1"
}
expect 0 "gpt2 decode energy" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --set technology=45nm --phase decode --context 100 --batch 1,4 --format csv
same "decode uJ per token" "$(csv_col batch,energy_total_uj,uj_per_token,tokens_per_joule --where layer=TOTAL <<<"$out" | per_token_ok 1)" "True"
same "per-token cells only on TOTAL rows" "$(csv_col uj_per_token --where layer=wte <<<"$out" | sort -u)" ""
expect 0 "gpt2 prefill energy" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --set technology=45nm --phase prefill --sequence 8 --batch 2 --format csv
same "prefill uJ per token" "$(csv_col batch,energy_total_uj,uj_per_token,tokens_per_joule --where layer=TOTAL <<<"$out" | per_token_ok 8)" "True"
expect 0 "gpt2 decode without a technology" -- "$REUSESIM" run --arch "$work/tpu_ideal.yaml" --model "$SRC/models/gpt2.yaml" \
  --set model.parameters.layers=2 --phase decode --context 100 --batch 1 --format csv
same "no per-token columns without energy" "$(head -1 <<<"$out" | tr , '\n' | grep -c 'per_token\|tokens_per')" "0"
expect 0 "mlp with a technology" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v1.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 1 --set technology=45nm --format csv
same "no per-token columns for a model without tokens" "$(head -1 <<<"$out" | tr , '\n' | grep -c 'per_token\|tokens_per')" "0"

# --- MACs at the format the array computes them in (docs/energy-model.md, "MACs per number format"). ---
# A bias-free 4,096 x 4,096 linear layer on tpu_v4i (bf16 operands, 32-bit accumulators) at 45 nm,
# batch 512: 512 x 4,096 x 4,096 = 8,589,934,592 MACs, one tile either way
# (tests/cli/quantized_weights.sh), so the same accumulator updates. bf16 weights and activations:
# a bf16 multiply 0.58 + an fp32 add 0.9 = 1.48 pJ a MAC; int8 weights and activations (W8A8), which
# the array multiplies natively (it multiplies two operands of one format: W8A16 is dequantized to
# bf16): an int8 multiply 0.2 + an int32 add 0.1 = 0.3 pJ. The array's energy differs by
# 8,589,934,592 x 1.18 pJ = 10,136.1228 uJ.
printf '%s\n' "name: int8_projection" "precision: {activations: int8, weights: int8}" "input: {features: 4096}" \
  "layers: [{name: q, type: linear, out_features: 4096, bias: false}]" >"$work/int8_q.yaml"
sed -e 's/activations: int8, weights: int8/activations: bf16, weights: bf16/' "$work/int8_q.yaml" >"$work/bf16_q.yaml"
expect 0 "run bf16 weights with energy" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v4i.yaml" \
  --model "$work/bf16_q.yaml" --batch 512 --set compute.native_formats.int8=2 --set technology=45nm --format csv
bf16_array=$(csv_col energy_array_uj --where layer=q <<<"$out")
expect 0 "run int8 native weights with energy" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v4i.yaml" \
  --model "$work/int8_q.yaml" --batch 512 --set compute.native_formats.int8=2 --set technology=45nm --format csv
int8_array=$(csv_col energy_array_uj --where layer=q <<<"$out")
same "int8 native MACs cost an int8 MAC, not a bf16 one" \
  "$(/usr/bin/python3 -c "print(round($bf16_array - $int8_array, 3))")" "10136.123"

# --- A training step's energy per sample (TOTAL: its step row). ---
# The MLP's SGD step at batch 4 on tpu_v1 (45 nm): uj_per_sample = energy_total_uj / 4; inference
# rows have no such column.
expect 0 "mlp training step with energy" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v1.yaml" \
  --model "$SRC/models/mlp.yaml" --mode train --optimizer sgd --batch 4 --format csv
same "uJ per sample of a training step" "$(csv_col energy_total_uj,uj_per_sample --where layer=TOTAL <<<"$out" |
  /usr/bin/python3 -c 'import sys
total, per_sample = map(float, sys.stdin.read().split(","))
print(abs(per_sample - total / 4) <= 1e-9 * per_sample)')" "True"
same "per-sample cells only on the step row" "$(csv_col uj_per_sample --where phase=forward <<<"$out" | sort -u)" ""
expect 0 "mlp inference with energy" -- "$REUSESIM" run --arch "$SRC/configs/tpu_v1.yaml" --model "$SRC/models/mlp.yaml" \
  --batch 4 --format csv
same "no per-sample column for an inference" "$(head -1 <<<"$out" | tr , '\n' | grep -c 'per_sample')" "0"

# --- Energy per token across machines in a trace: one table, the energy-per-token figure. ---
# A small decoder (tests/data/tiny_lm.yaml) on tpu_v4i and on the A100, whose run table
# has its shared memory's columns (shared_read_bytes, energy_shared_uj) that tpu_v4i's lacks:
# networks.csv has every column once, a tpu_v4i row's shared cells empty. figure_energy_tokens.csv
# carries each job's uj_per_token, and the figure draws it.
cat >"$work/tokens.yaml" <<YAML
name: tokens
accelerators: [$SRC/configs/tpu_v4i.yaml, $SRC/configs/a100.yaml]
models:
  - {model: $SRC/tests/data/tiny_lm.yaml, phase: decode, context: [32, 48], batch: [1, 4]}
sweep:
  technology: [7nm]
YAML
expect 0 "energy per token trace" -- "$REUSESIM" trace "$work/tokens.yaml" --out "$work/tokens" --jobs 2
same "every networks.csv row has the header's cells" \
  "$(/usr/bin/python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
print(len(rows) - 1, {len(r) for r in rows} == {len(rows[0])}, rows[0].count("energy_shared_uj"))' "$work/tokens/networks.csv")" \
  "8 True 1"
same "shared memory energy on the A100's rows only" \
  "$(/usr/bin/python3 -c 'import csv, sys
print(sorted({(r["accelerator"], r["energy_shared_uj"] != "") for r in csv.DictReader(open(sys.argv[1]))}))' \
    "$work/tokens/networks.csv")" "[('a100', True), ('tpu_v4i', False)]"
same "the figure's energy per token is the runs'" \
  "$(csv_col batch,uj_per_token "$work/tokens/figure_energy_tokens.csv")" \
  "$(csv_col batch,uj_per_token "$work/tokens/networks.csv")"
for file in figure_tokens.png figure_tokens.svg; do
  checks=$((checks + 1))
  [ -s "$work/tokens/$file" ] || { echo "FAIL: the trace wrote no $file"; failures=$((failures + 1)); }
done

finish
