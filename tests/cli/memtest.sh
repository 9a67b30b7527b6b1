#!/usr/bin/env bash
# End-to-end checks of `reusesim memtest`: the CSV columns, every traffic pattern, trace replay,
# bad traces and usage errors (exit 2 and their text), and deterministic simulated figures.
# Run by ctest with REUSESIM (the binary) and SRC (the source tree) set.
set -u
source "$(dirname "$0")/lib.sh"

# quiet NAME: the last command wrote nothing to stderr.
quiet() {
  checks=$((checks + 1))
  [ -z "$err" ] || { echo "FAIL: $1 wrote to stderr: $err"; failures=$((failures + 1)); }
}

memtest() { "$REUSESIM" memtest "$@"; }

header="pattern,memory,requests,request_bytes,outstanding,read_bytes,write_bytes,simulated_time_us,achieved_gbps,peak_gbps,efficiency,read_latency_mean_ns,read_latency_p50_ns,read_latency_p99_ns,row_hit_rate,activates,refreshes,precharges,read_commands,write_commands,row_hits,row_misses,row_conflicts,turnarounds,write_drains,write_latency_mean_ns,write_latency_p50_ns,write_latency_p99_ns,dram_energy_uj,dram_energy_activate_uj,dram_energy_read_write_uj,dram_energy_refresh_uj,dram_energy_background_uj,dram_energy_io_uj,dram_pj_per_bit,channel"

# --- The CSV: the header line exactly, one data row. ---
expect 0 "seq_read csv" -- memtest --dram ddr4-2400 --pattern seq_read --requests 200 --format csv
same "csv header" "$(head -n 1 <<<"$out")" "$header"
same "one data row" "$(wc -l <<<"$out")" "2"
# 200 requests x 64 B = 12,800 B read, none written; DDR4-2400 peak 64 bit / 8 x 2 / 0.833 ns = 19.21 GB/s.
contains "seq_read row" "$out" "seq_read,ddr4-2400,200,64,32,12800,0,"
contains "ddr4 peak" "$out" ",19.20768307,"
quiet "memtest csv"

# --- Every pattern runs on a DDR4 and an HBM2 preset. ---
# Reads + writes move every request's bytes; efficiency lies in (0, 1]. The default outstanding
# count is 32 per channel: 32 on one DDR4 channel, 256 on HBM2's 8.
for config in "ddr4-2400 32" "hbm2 256"; do
  read -r dram outstanding <<<"$config"
  for pattern in seq_read seq_write seq_mix random_read random_mix stride_row bank_conflict tile; do
    expect 0 "$pattern on $dram" -- memtest --dram "$dram" --pattern "$pattern" --requests 200 --format csv
    contains "$pattern on $dram row" "$out" "$pattern,$dram,200,64,$outstanding,"
    checks=$((checks + 1))
    csv_col read_bytes,write_bytes,efficiency <<<"$out" |
      awk -F, 'NR == 1 { ok = ($1 + $2 == 12800 && $3 > 0 && $3 <= 1) } END { exit ok ? 0 : 1 }' ||
      { echo "FAIL: $pattern on $dram: bytes or efficiency: $(tail -n 1 <<<"$out")"; failures=$((failures + 1)); }
  done
done
expect 0 "seq_write csv" -- memtest --dram ddr4-2400 --pattern seq_write --requests 200 --format csv
contains "seq_write writes only" "$out" "seq_write,ddr4-2400,200,64,32,0,12800,"
expect 0 "seq_mix csv" -- memtest --dram ddr4-2400 --pattern seq_mix --requests 200 --format csv
contains "seq_mix alternates" "$out" "seq_mix,ddr4-2400,200,64,32,6400,6400,"

# One bank and a new row every request is far slower than streaming.
seq_eff=$(memtest --dram ddr4-2400 --pattern seq_read --requests 500 --format csv | csv_col efficiency)
conflict_eff=$(memtest --dram ddr4-2400 --pattern bank_conflict --requests 500 --format csv | csv_col efficiency)
checks=$((checks + 1))
awk -v s="$seq_eff" -v c="$conflict_eff" 'BEGIN { exit (c > 0 && c * 5 < s) ? 0 : 1 }' ||
  { echo "FAIL: bank_conflict efficiency $conflict_eff is not far below seq_read's $seq_eff"; failures=$((failures + 1)); }

# Request size, outstanding limit, table and JSON output, a DRAM file instead of a preset, --set.
expect 0 "128-byte requests" -- memtest --dram ddr4-2400 --pattern seq_read --requests 100 --request-bytes 128 --outstanding 4 --format csv
contains "128-byte row" "$out" "seq_read,ddr4-2400,100,128,4,12800,0,"
expect 0 "json" -- memtest --dram hbm2 --pattern random_read --requests 100 --format json
contains "json pattern" "$out" '"pattern": "random_read"'
# 8 channels x 128 bit / 8 x 2 transfers / 1.0 ns = 256 GB/s (JSON prints the double in full: 255.99999999999997).
checks=$((checks + 1))
awk '/"peak_gbps":/ && !seen { seen = 1; v = $2 + 0; ok = (v > 255.999999 && v < 256.000001) } END { exit ok ? 0 : 1 }' <<<"$out" ||
  { echo "FAIL: json peak: $(grep peak_gbps <<<"$out")"; failures=$((failures + 1)); }
contains "json conventions" "$out" '"conventions": "GB/s = 1e9 bytes/s'
expect 0 "table" -- memtest --dram hbm2 --pattern tile --requests 100
contains "table conventions" "$out" "efficiency = achieved / peak"
contains "table header" "$out" "achieved_gbps"
expect 0 "dram file" -- memtest --dram "$SRC/configs/dram/lpddr4-3200.yaml" --pattern seq_read --requests 100 --format csv
contains "dram file row" "$out" "seq_read,$SRC/configs/dram/lpddr4-3200.yaml,100,"
expect 0 "set channels" -- memtest --dram ddr4-2400 --set channels=2 --pattern seq_read --requests 100 --format csv
contains "two channels double the peak" "$out" ",38.41536615,"  # 2 x 19.20768307

# --- Trace replay. ---
cat >"$work/replay.trace" <<'TRACE'
# four requests, two reads and two writes
0x0 R
40 W
0x80 r 10

c0 w 100   # not issued before DRAM clock 100
TRACE
expect 0 "trace replay" -- memtest --dram ddr4-2400 --trace "$work/replay.trace" --format csv
quiet "trace replay"
contains "trace row" "$out" "$work/replay.trace,ddr4-2400,4,64,32,128,128,"
# The last request, the write at clock 100: ACT at 100, WR at 100 + tRCD 17 = 117, data from
# 117 + CWL 12 = 129 for BL 8 / 2 = 4 clocks, done at 133; 133 x 0.833 ns = 0.110789 us.
contains "trace honours the earliest cycle" "$out" ",128,128,0.110789,"
expect 0 "trace replay, table" -- memtest --dram hbm2 --trace "$work/replay.trace"
contains "trace table row" "$out" "$work/replay.trace"
# A path need not be UTF-8; JSON shows its other bytes as U+FFFD (the JSON writer threw: exit 3).
cp "$work/replay.trace" "$work/latin1-"$'\xe9'".trace"
expect 0 "trace path not UTF-8, json" -- memtest --dram ddr4-2400 --trace "$work/latin1-"$'\xe9'".trace" --format json
contains "path with U+FFFD" "$out" "\"pattern\": \"$work/latin1-"$'\xef\xbf\xbd'".trace\","

# A bad trace: every bad line with file:line:col, exit 2.
cat >"$work/bad.trace" <<'TRACE'
0x0 R
0x40 X
zz W
0x41 R
0x80
0xc0 R -5
0x100 R 1 extra
TRACE
b=$work/bad.trace
# An ideal memory belongs in an accelerator file; a DRAM file with ideal: is refused, saying so.
printf 'ideal: unlimited\n' >"$work/ideal.yaml"
expect 2 "ideal memory refused" -- memtest --dram "$work/ideal.yaml" --pattern seq_read
contains "ideal memory refused: why" "$err" "ideal.yaml:1:8: error: ideal: an ideal memory goes in an accelerator file"
same "ideal memory refused: one message" "$(wc -l <<<"$err")" "1"

expect 2 "bad trace" -- memtest --dram ddr4-2400 --trace "$b"
same "bad trace messages" "$err" "$b:2:6: error: expected R or W, got \"X\"
$b:3:1: error: expected a hexadecimal address, got \"zz\"
$b:4:1: error: address 0x41 is not a multiple of the 64-byte request size
$b:5:5: error: expected R or W after the address
$b:6:8: error: expected an earliest issue cycle (a non-negative integer up to 2^40), got \"-5\"
$b:7:11: error: unexpected \"extra\" (a line is: address R|W [cycle])"
same "bad trace prints no table" "$out" ""

# Aligned to 64 bytes but not to the 128 asked for.
expect 2 "trace misaligned for the request size" -- memtest --dram ddr4-2400 --trace "$work/replay.trace" --request-bytes 128
contains "misaligned message" "$err" "$work/replay.trace:3:1: error: address 40 is not a multiple of the 128-byte request size"
printf '# nothing here\n\n' >"$work/empty.trace"
expect 2 "empty trace" -- memtest --dram ddr4-2400 --trace "$work/empty.trace"
contains "empty trace message" "$err" "$work/empty.trace: error: the trace has no requests"
expect 2 "missing trace" -- memtest --dram ddr4-2400 --trace "$work/none.trace"
contains "missing trace message" "$err" "$work/none.trace: error: cannot open file"

# --- Usage errors: exit 2, `reusesim memtest: error: ...`. ---
expect 2 "pattern and trace" -- memtest --dram ddr4-2400 --pattern seq_read --trace "$work/replay.trace"
contains "pattern and trace message" "$err" "reusesim memtest: error: give exactly one of --pattern and --trace"
expect 2 "neither pattern nor trace" -- memtest --dram ddr4-2400
contains "neither message" "$err" "reusesim memtest: error: give exactly one of --pattern and --trace"
expect 2 "unknown pattern" -- memtest --dram ddr4-2400 --pattern seq_raed
contains "unknown pattern message" "$err" "reusesim memtest: error: --pattern: unknown pattern \"seq_raed\" (did you mean \"seq_read\"?)"
expect 2 "request bytes not a burst multiple" -- memtest --dram ddr4-2400 --pattern seq_read --request-bytes 48
contains "request bytes message" "$err" "reusesim memtest: error: --request-bytes: 48 is not a multiple of the 64-byte burst of ddr4-2400"
expect 2 "zero outstanding" -- memtest --dram ddr4-2400 --pattern seq_read --outstanding 0
contains "outstanding message" "$err" "reusesim memtest: error: --outstanding: expected a positive integer up to 4096, got 0"
expect 2 "zero requests" -- memtest --dram ddr4-2400 --pattern seq_read --requests 0
contains "requests message" "$err" "reusesim memtest: error: --requests: expected a positive integer up to 100000000, got 0"
expect 2 "unknown preset" -- memtest --dram ddr4-240 --pattern seq_read
contains "unknown preset message" "$err" "--dram ddr4-240: error: preset: unknown DRAM preset \"ddr4-240\""
contains "unknown preset hint" "$err" "(did you mean \"ddr4-2400\"?)"
expect 2 "bad --set value" -- memtest --dram ddr4-2400 --set tccd_l=abc --pattern seq_read
contains "bad --set message" "$err" "--set tccd_l=abc: error: tccd_l: expected a positive integer, got \"abc\""
expect 2 "missing --dram" -- memtest --pattern seq_read
contains "missing --dram message" "$err" "reusesim memtest: error: the option '--dram' is required but missing"
expect 2 "unknown format" -- memtest --dram ddr4-2400 --pattern seq_read --format xml
contains "format message" "$err" "--format: expected table, csv or json, got \"xml\""
expect 0 "help" -- memtest --help
contains "help lists patterns" "$out" "bank_conflict"

# --- Deterministic: the same inputs give the same bytes, in every format. ---
for pattern in random_mix tile; do
  for format in csv json table; do
    memtest --dram ddr4-2400 --pattern "$pattern" --requests 2000 --format "$format" >"$work/a.txt"
    memtest --dram ddr4-2400 --pattern "$pattern" --requests 2000 --format "$format" >"$work/b.txt"
    checks=$((checks + 1))
    if ! [ -s "$work/a.txt" ] || ! cmp -s "$work/a.txt" "$work/b.txt"; then
      echo "FAIL: $pattern $format: output differs between runs"
      diff "$work/a.txt" "$work/b.txt" | head -n 5
      failures=$((failures + 1))
    fi
  done
done
# --wall-time adds the simulator's speed, the only figures that vary.
expect 0 "wall time" -- memtest --dram ddr4-2400 --pattern seq_read --requests 1000 --format csv --wall-time
same "wall time header" "$(head -1 <<<"$out")" "$header,wall_time_s,requests_per_wall_second"
memtest --dram hbm2 --trace "$work/replay.trace" --format csv >"$work/a.csv"
memtest --dram hbm2 --trace "$work/replay.trace" --format csv >"$work/b.csv"
checks=$((checks + 1))
cmp -s "$work/a.csv" "$work/b.csv" || { echo "FAIL: trace replay differs between runs"; failures=$((failures + 1)); }

# --- Refresh must leave a request room: timings that could never serve one are refused up front. ---
# HBM2: tREFI >= tRFC + max(tRC, max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP + banks - 1) + tRCD
#   = 260 + max(48, max(34, 5, 4 + 2 + 16) + 14 + 16 - 1) + 14 = 260 + 63 + 14 = 337.
# Before the check, trefi 262 (and 310, 320) spun forever. A hang here is caught by ctest's timeout
# and by `timeout`.
for trefi in 262 336; do
  expect 2 "hbm2 trefi $trefi refused" -- timeout 60 "$REUSESIM" memtest --dram hbm2 --set trefi=$trefi --pattern seq_read
  contains "hbm2 trefi $trefi message" "$err" \
    "trefi: $trefi clocks leaves $((trefi - 260)) after tRFC (260), too few to serve a request between refreshes"
  contains "hbm2 trefi $trefi bound" "$err" "needs at least tRFC + 63 + tRCD = 337"
done
for pattern in seq_read seq_write seq_mix random_read random_mix stride_row bank_conflict tile; do
  expect 0 "hbm2 trefi 337: $pattern completes" -- timeout 60 "$REUSESIM" memtest --dram hbm2 --set trefi=337 \
    --pattern "$pattern" --requests 2000 --outstanding 32 --format csv
  contains "hbm2 trefi 337: $pattern row" "$out" "$pattern,hbm2,2000,64,32,"
done
# DDR4-2400: 420 + max(56, max(39, 9, 12 + 4 + 18) + 17 + 16 - 1) + 17 = 420 + 71 + 17 = 508.
for trefi in 421 441 481 507; do
  expect 2 "ddr4 trefi $trefi refused" -- timeout 60 "$REUSESIM" memtest --dram ddr4-2400 --set trefi=$trefi --pattern seq_read
  contains "ddr4 trefi $trefi bound" "$err" "needs at least tRFC + 71 + tRCD = 508"
done
expect 0 "ddr4 trefi 508 completes" -- timeout 60 "$REUSESIM" memtest --dram ddr4-2400 --set trefi=508 --pattern random_mix \
  --requests 2000 --format csv
expect 2 "check refuses the same file" -- "$REUSESIM" check "$SRC/configs/dram/hbm2.yaml" --set trefi=262
contains "check names the key" "$err" "trefi: 262 clocks leaves 2 after tRFC (260)"

# --- The newer presets stream sequential reads at 0.9 to 1.0 of peak x (1 - tRFC / tREFI), the
# refresh bound: ddr5-4800 38.4 x (1 - 708/9360) = 35.50, lpddr5-6400 51.2 x (1 - 896/12499) = 47.53,
# gddr6 64 x (1 - 958/15200) = 59.97, hbm2e 409.6 x (1 - 560/6240) = 372.84 GB/s. ---
for config in "ddr5-4800 35.50" "lpddr5-6400 47.53" "gddr6 59.97" "hbm2e 372.84"; do
  read -r dram bound <<<"$config"
  expect 0 "$dram seq_read" -- memtest --dram "$dram" --pattern seq_read --requests 100000 --format csv
  checks=$((checks + 1))
  csv_col achieved_gbps <<<"$out" | awk -v b="$bound" 'NR == 1 { ok = ($1 >= 0.9 * b && $1 <= b) } END { exit ok ? 0 : 1 }' ||
    { echo "FAIL: $dram seq_read outside 0.9..1.0 of $bound GB/s: $(tail -n 1 <<<"$out")"; failures=$((failures + 1)); }
done

# --- Statistics (docs/dram-model.md, "Statistics"), read by column name. ---
printf '0x0 R 0\n' >"$work/one.trace"
expect 0 "one idle read" -- memtest --dram ddr4-2400 --trace "$work/one.trace" --format csv
# ACT at 0, RD at tRCD 17, data until 17 + CL 17 + BL/2 4 = 38 clocks x 0.833 ns = 31.654 ns; the
# RD is the first column after the request's own activate to a closed bank: a row miss.
same "idle read: p50" "$(csv_col read_latency_p50_ns <<<"$out")" "31.654"
same "idle read: commands" "$(csv_col activates,precharges,read_commands,write_commands <<<"$out")" "1,0,1,0"
same "idle read: hit, miss, conflict" "$(csv_col row_hits,row_misses,row_conflicts <<<"$out")" "0,1,0"
same "idle read: no writes, so no write latency" "$(csv_col write_latency_p50_ns <<<"$out")" ""
# A 1 KiB read: 16 bursts = 16 read commands. The bank-group bits sit right above the burst
# (ro,ra,ba,co,bg,ch), so burst n goes to bank group n % 4: 4 activates (4 misses), then 12 hits.
expect 0 "1 KiB read" -- memtest --dram ddr4-2400 --trace "$work/one.trace" --request-bytes 1024 --format csv
same "1 KiB read: columns" "$(csv_col read_commands,activates,row_misses,row_hits <<<"$out")" "16,4,4,12"
# Per channel: 8 rows after the whole memory's, whose counts add up to it.
expect 0 "per channel" -- memtest --dram hbm2 --pattern random_mix --requests 2000 --per-channel --format csv
same "per channel: rows" "$(tail -n +2 <<<"$out" | wc -l)" "9"
same "per channel: names" "$(csv_col channel <<<"$out" | sed -n '1p;2p;9p' | tr '\n' ' ')" "all 0 7 "
for name in activates read_commands write_commands row_hits row_misses row_conflicts turnarounds write_drains; do
  values=$(csv_col "$name" <<<"$out")  # the whole memory's, then each channel's
  same "per channel: $name adds up" "$(( $(tail -n +2 <<<"$values" | paste -sd+) ))" "$(head -1 <<<"$values")"
done
same "per channel: read and write commands are the requests' bursts" \
  "$(( $(csv_col read_commands,write_commands --where channel=all <<<"$out" | tr , +) ))" "2000"
# The default outstanding count follows the channels: 32 per channel.
same "per channel: default outstanding" "$(csv_col outstanding --where channel=all <<<"$out")" "256"
expect 0 "json channels" -- memtest --dram hbm2 --pattern seq_read --requests 100 --format json
contains "json has the channels" "$out" '"channels": ['
contains "json channel 7" "$out" '"channel": "7"'

# --- Large requests: latency counts the pieces the channels see, row hits the column commands; help says so. ---
expect 0 "memtest --help" -- memtest --help
contains "help: request pieces" "$(tr -s ' \n' ' ' <<<"$out")" "read latency counts each piece a DRAM channel serves, row_hit_rate each column command (burst)"
contains "help: what limits outstanding" "$(tr -s ' \n' ' ' <<<"$out")" "by Little's law a stream moves at most outstanding x request bytes per request latency"

# --- Streams over many HBM2 channels reach the timings' bounds (docs/dram-model.md, "What the timings allow"). ---
# at_least NAME VALUE FLOOR: VALUE >= FLOOR.
at_least() {
  checks=$((checks + 1))
  awk -v v="$2" -v f="$3" 'BEGIN { exit (v >= f) ? 0 : 1 }' || { echo "FAIL: $1: $2 < $3"; failures=$((failures + 1)); }
}
# Random reads open a row per 64 B burst: tFAW 30 allows 4 per 30 ns per channel, 8 channels x 4 x
# 64 B / 30 ns = 68.27 GB/s, x (1 - tRFC 260 / tREFI 3900) = 63.72. A full channel queue must not
# stop the others (the DMA's lanes): at least 95 % of that, 60.53 GB/s.
gbps=$(memtest --dram hbm2 --pattern random_read --requests 50000 --format csv | csv_col achieved_gbps)
at_least "random reads on 8 channels: 95 % of the tFAW bound" "$gbps" 60.53
# 16 channels with 256 requests in flight (TPUv4i's DMA) hold 16 per channel: enough for a row switch
# to a closed bank (tRCD + CL + BL/2 = 30 clocks, 15 bursts) but not to a bank with another row open
# (tRP + 30 = 44, 22 bursts), which costs at most 44 - 16 x 2 = 12 clocks per 128 bursts (256 clocks)
# of a channel's stream, if the controller takes the next row's PRE and ACT as soon as their request
# arrives: at least 256 / 268 = 95.5 % of the refresh bound 512 x 0.9333 = 477.87 GB/s, 456.5.
gbps=$(memtest --dram hbm2 --set channels=16 --outstanding 256 --pattern seq_read --requests 50000 --format csv | csv_col achieved_gbps)
at_least "16 channels, 16 requests each: row switches cost at most a conflict's shortfall" "$gbps" 456.5

finish
