#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, moved elsewhere afterwards so no path compiled into the
# binary can point at it, then the installed binary run with no REUSESIM_* variables from another
# directory: it finds its DRAM presets, technology tables and plotting scripts beside itself
# (share/reusesim; the scripts' package in share/reusesim/python), runs a model and draws a trace's
# figures; with share/reusesim hidden it says where it looked (the installed binary never falls back
# on the build or source tree).
# Run by ctest with REUSESIM (the binary), SRC (the source tree) and the cmake command as $1.
set -u
source "$(dirname "$0")/lib.sh"

CMAKE=$1
expect 0 "cmake --install" -- "$CMAKE" --install "$(dirname "$REUSESIM")" --prefix "$work/install"
mv "$work/install" "$work/moved"
P=$work/moved
S=$P/share/reusesim
for file in bin/reusesim share/reusesim/configs/dram/ddr3-1066.yaml share/reusesim/configs/energy/45nm.yaml \
            share/reusesim/configs/snowflake.yaml share/reusesim/models/resnet50.yaml \
            share/reusesim/traces/snowflake_figure.yaml share/reusesim/scripts/plot_figure.py \
            share/reusesim/scripts/plot_energy.py share/reusesim/python/reusesim/__init__.py \
            share/reusesim/python/reusesim/plot/commands.py; do
  checks=$((checks + 1))
  [ -f "$P/$file" ] || { echo "FAIL: not installed: $file"; failures=$((failures + 1)); }
done

# installed ARGS...: the installed binary, from the scratch directory, without REUSESIM_* overrides.
installed() {
  (cd "$work" && env -u REUSESIM_PRESET_DIR -u REUSESIM_TECHNOLOGY_DIR -u REUSESIM_SCRIPTS_DIR "$P/bin/reusesim" "$@")
}

expect 0 "installed --version" -- installed --version
contains "shipped files beside the binary" "$out" "shipped files: $S"
contains "presets beside the binary" "$out" "DRAM presets: $S/configs/dram"

# Snowflake names the ddr3-1066 preset and the 45nm technology table: fc6 of AlexNet at batch 1
# runs with energy columns (the table found), 9216 x 4096 = 37,748,736 MACs.
expect 0 "installed run" -- installed run --arch "$S/configs/snowflake.yaml" --model "$S/models/alexnet.yaml" --layers fc6 --format csv
contains "installed run MACs" "$out" "1,fc6,linear,37748736,"
checks=$((checks + 1))
energy=$(csv_col energy_total_uj --where layer=fc6 <<<"$out")
[ -n "$energy" ] && [ "$energy" != "-" ] || { echo "FAIL: installed run has no energy ($energy)"; failures=$((failures + 1)); }
expect 0 "installed memtest by preset name" -- installed memtest --dram ddr4-2400 --pattern seq_read --requests 1000 --format csv
contains "memtest preset" "$out" "ddr4-2400"

# A trace on the installed machine and zoo: both figures drawn by the installed scripts.
cat >"$work/trace.yaml" <<EOF
name: installed
accelerators: $S/configs/snowflake.yaml
models:
  - {model: $S/models/mlp.yaml, batch: [1, 4]}
EOF
expect 0 "installed trace with figures" -- installed trace "$work/trace.yaml" --out "$work/results"
for figure in figure.png figure_energy.png; do
  checks=$((checks + 1))
  [ -s "$work/results/$figure" ] || { echo "FAIL: installed trace drew no $figure"; failures=$((failures + 1)); }
done
expect 0 "installed figure" -- installed figure "$work/results"

# With share/reusesim hidden, presets are looked for there and nowhere else.
mv "$S" "$work/hidden"
expect 2 "presets hidden" -- installed run --arch "$work/hidden/configs/snowflake.yaml" --model "$work/hidden/models/mlp.yaml"
contains "hidden presets message" "$err" "unknown DRAM preset \"ddr3-1066\" (no file $S/configs/dram/ddr3-1066.yaml)"

finish
