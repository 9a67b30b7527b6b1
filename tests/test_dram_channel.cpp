// DRAM channel, system and DMA models under a tiny harness: exact cycle counts with the
// arithmetic written out, and the analytic bandwidth bounds. ctest runs each case in its own
// process (SystemC elaborates once per process).
#include <catch2/catch.hpp>

#include <systemc>

#include "config/accelerator_loader.h"
#include "hw/memory_tester.h"

using namespace reusesim;

namespace {

struct Outcome {
  std::int64_t finish_cycles = 0;  // DRAM clocks until the last response
  results::DramChannelStats dram;
  hw::DmaStats dma;
  std::vector<results::DramChannelStats> per_channel;
};

// Runs `requests` through a DMA engine into the memory and returns what happened.
Outcome run(const spec::DramSpec& spec, std::vector<spec::MemoryRequest> requests, std::int64_t outstanding,
            std::uint64_t request_bytes = 64) {
  hw::MemoryTester tester("tester", spec, std::move(requests), request_bytes, outstanding);
  sc_core::sc_start();
  Outcome outcome;
  const sc_core::sc_time period = tester.dram().channels()[0].clock_period();
  outcome.finish_cycles = static_cast<std::int64_t>(tester.finish_time() / period + 0.5);
  outcome.dram = tester.dram().total_stats();
  outcome.dma = tester.dma().stats();
  for (const hw::DramChannel& channel : tester.dram().channels()) outcome.per_channel.push_back(channel.stats());
  REQUIRE(tester.completed() == static_cast<std::int64_t>(outcome.dma.transfers));
  return outcome;
}

std::vector<spec::MemoryRequest> pattern(const spec::DramSpec& spec, const std::string& name, std::int64_t count) {
  return timing::make_traffic_pattern(name, count, 64, spec, timing::DramAddressMapper(spec));
}

}  // namespace

TEST_CASE("ddr4: an idle read to a closed bank takes tRCD + CL + burst", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  const Outcome outcome = run(spec, {spec::MemoryRequest{0, false, 0}}, 1);
  // ACT at 0, RD at tRCD = 17, data from 17 + CL 17 = 34 for BL/2 = 4 clocks: done at 38.
  CHECK(outcome.finish_cycles == 38);
  CHECK(outcome.dram.read_latency.total_cycles() == 38);
  CHECK(outcome.dram.activates == 1);
  CHECK(outcome.dram.row_hits == 0);
}

TEST_CASE("ddr4: a row hit completes CL + burst after it issues", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  // Two reads of one row (the second 4 KiB in, still column bits only above bg: same bank group 0,
  // column 64), one at a time: the first ends at 38 as above; the second arrives then, finds the
  // row open (tCCD_L from the RD at 17 allows 23) and issues at 38, ending at 38 + 17 + 4 = 59.
  const Outcome outcome = run(spec, {spec::MemoryRequest{0, false, 0}, spec::MemoryRequest{4096, false, 0}}, 1);
  CHECK(outcome.finish_cycles == 59);
  CHECK(outcome.dram.read_latency.total_cycles() == 38 + 21);
  CHECK(outcome.dram.row_hits == 1);
  CHECK(outcome.dram.activates == 1);
}

TEST_CASE("ddr4: a bank_conflict stream delivers one request per tRC", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  // Each request needs ACT (k * tRC = 56k), RD at +17, PRE at +39 (tRAS), next ACT at +56 (tRC =
  // tRAS + tRP). 80 requests finish before the first refresh (cycle 4,680): the last ACT at
  // 79 * 56 = 4,424 ends its data at 4,424 + 38 = 4,462.
  const Outcome outcome = run(spec, pattern(spec, "bank_conflict", 80), 8);
  CHECK(outcome.finish_cycles == 4462);
  CHECK(outcome.dram.activates == 80);
  CHECK(outcome.dram.refreshes == 0);
  // Bandwidth: 64 B per tRC = 64 / (56 * 0.833 ns) = 1.372 GB/s, within 3% over the run.
  const double seconds = static_cast<double>(outcome.finish_cycles) * spec.timing.tck_ns * 1e-9;
  CHECK(80 * 64 / seconds == Approx(64 / (56 * 0.833e-9)).epsilon(0.03));
}

TEST_CASE("ddr4: sequential reads approach peak x (1 - tRFC/tREFI)", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  // Bank groups sit in the lowest address bits (ro,ra,ba,co,bg,ch), so consecutive bursts go to
  // different groups at tCCD_S = 4 = BL/2: the bus never idles except for refresh, which takes
  // the rank for tRFC = 420 of every tREFI = 9,360 clocks. Bound: 19.208 GB/s x (1 - 420/9360) = 18.346 GB/s.
  const Outcome outcome = run(spec, pattern(spec, "seq_read", 200'000), 32);
  const double seconds = static_cast<double>(outcome.finish_cycles) * spec.timing.tck_ns * 1e-9;
  const double achieved = static_cast<double>(outcome.dram.read_bytes) / seconds;
  const double bound = spec.peak_bytes_per_second() * (1.0 - 420.0 / 9360.0);
  CHECK(achieved == Approx(bound).epsilon(0.03));
  CHECK(achieved <= spec.peak_bytes_per_second());
  // Refresh: each of the 2 ranks refreshes once per tREFI.
  const auto expected_refreshes = 2 * outcome.finish_cycles / 9360;
  CHECK(outcome.dram.refreshes >= expected_refreshes - 2);
  CHECK(outcome.dram.refreshes <= expected_refreshes + 2);
}

TEST_CASE("ddr4: closed-page policy activates for every request served alone", "[dram-channel]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400", {"controller.page_policy=closed"});
  // One request at a time: each finds its bank closed again (precharged after its read).
  const Outcome closed = run(spec, pattern(spec, "seq_read", 64), 1);
  CHECK(closed.dram.activates == 64);
  CHECK(closed.dram.row_hits == 0);
  // Each bank closes tRTP after its read; the last one would close after the last data, when the
  // test has already stopped: 63 precharges.
  CHECK(closed.dram.precharges == 63);
}

TEST_CASE("ddr4: open-page policy keeps rows open for later hits", "[dram-channel]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  // 64 sequential bursts cover 4 bank groups x 16 columns of bank 0: one ACT per bank group.
  const Outcome open = run(spec, pattern(spec, "seq_read", 64), 1);
  CHECK(open.dram.activates == 4);
  CHECK(open.dram.row_hits == 60);
}

TEST_CASE("ddr4: row_hit_rate counts column commands, so a long request to one row is mostly hits", "[dram-channel]") {
  // Columns in the lowest bits: one 1 KiB request is one row run of 1024 / 64 = 16 bursts of one
  // bank. ACT at 0; the first RD at tRCD = 17 misses (its row was just opened for it); the other 15
  // RDs follow tCCD_L = 6 apart in the open row and hit: 15 of 16 columns, where counting one per
  // request would give 0 of 1. The last RD at 17 + 15 * 6 = 107 ends its data at 107 + CL 17 + 4 = 128.
  const spec::DramSpec spec = config::load_dram("ddr4-2400", {"address_mapping=ro,ra,bg,ba,co,ch"});
  const Outcome outcome = run(spec, {spec::MemoryRequest{0, false, 0}}, 1, 1024);
  CHECK(outcome.dram.reads == 1);
  CHECK(outcome.dram.activates == 1);
  CHECK(outcome.dram.columns() == 16);
  CHECK(outcome.dram.row_hits == 15);
  CHECK(outcome.finish_cycles == 128);
}

TEST_CASE("a full request queue holds requests back and loses none", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400", {"controller.read_queue_depth=8", "controller.write_queue_depth=8", "controller.write_drain.high=6", "controller.write_drain.low=2"});
  // 100 requests in flight against a queue of 8: the channel answers BEGIN_REQ with END_REQ only
  // when a slot frees; every request still completes exactly once.
  const Outcome outcome = run(spec, pattern(spec, "random_mix", 2000), 100);
  CHECK(outcome.dram.reads == 1000);
  CHECK(outcome.dram.writes == 1000);
  CHECK(outcome.dma.failed_requests == 0);
}

TEST_CASE("hbm2: channels interleave sequential bursts evenly", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("hbm2");
  // The channel field is the lowest (ro,ra,ba,co,bg,ch): burst i goes to channel i mod 8.
  const Outcome outcome = run(spec, pattern(spec, "seq_read", 8000), 64);
  REQUIRE(outcome.per_channel.size() == 8);
  for (const results::DramChannelStats& channel : outcome.per_channel) CHECK(channel.reads == 1000);
}

TEST_CASE("the DMA engine splits transfers where a bank's row run ends", "[dram-channel]") {
  // ddr4-2400's mapping puts bank groups right above the burst offset: a 1 KiB transfer is 16
  // separate 64-byte requests. With the column lowest, 1 KiB stays in one row: one request.
  const spec::DramSpec interleaved = config::load_dram("ddr4-2400");
  CHECK(run(interleaved, {spec::MemoryRequest{0, false, 0}}, 4, 1024).dma.requests == 16);
}

TEST_CASE("the DMA engine keeps a row-local transfer whole", "[dram-channel]") {
  const spec::DramSpec row_major = config::load_dram("ddr4-2400", {"address_mapping=ro,ra,bg,ba,ch,co"});
  const Outcome outcome = run(row_major, {spec::MemoryRequest{0, false, 0}}, 4, 1024);
  CHECK(outcome.dma.requests == 1);
  // One ACT, then 16 bursts at tCCD_L = 6 (same bank group): RD at 17 + 6k, the last (k = 15)
  // at 107, data ends at 107 + 17 + 4 = 128.
  CHECK(outcome.finish_cycles == 128);
}

TEST_CASE("a trace's earliest issue cycle holds a request back", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  // Issued at cycle 1,000 to a closed bank: done at 1,000 + 38.
  const Outcome outcome = run(spec, {spec::MemoryRequest{0, false, 1000}}, 1);
  CHECK(outcome.finish_cycles == 1038);
  CHECK(outcome.dram.read_latency.total_cycles() == 38);
}

TEST_CASE("the DMA engine widens a transfer to the whole bursts it touches", "[dram-channel]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  // 64 bytes from address 32 touch the bursts at 0 and 64: 128 bytes move, as two 64-byte
  // requests (ddr4-2400's runs are one burst long), and nothing fails.
  const Outcome outcome = run(spec, {spec::MemoryRequest{32, false, 0}}, 1);
  CHECK(outcome.dram.read_bytes == 128);
  CHECK(outcome.dma.requests == 2);
  CHECK(outcome.dma.failed_requests == 0);
}

namespace {

// `writes` sequential writes (rank 0) then one read in rank 1 (address 2^17: the rank bit of
// ro,ra,ba,co,bg,ch), all handed over at cycle 0; returns the read's latency in clocks.
std::int64_t read_latency_behind_writes(std::int64_t writes) {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");  // queue 32, drain from 24 down to 8
  std::vector<spec::MemoryRequest> requests;
  for (std::int64_t i = 0; i < writes; ++i) requests.push_back(spec::MemoryRequest{static_cast<std::uint64_t>(i) * 64, true, 0});
  requests.push_back(spec::MemoryRequest{std::uint64_t{1} << 17, false, 0});
  return run(spec, requests, 64).dram.read_latency.total_cycles();
}

}  // namespace

TEST_CASE("write drain: below the high watermark a read goes before queued writes", "[dram-channel]") {
  // 20 queued writes < 24: reads keep priority; the read's ACT goes at 0: 17 + 17 + 4 = 38.
  CHECK(read_latency_behind_writes(20) == 38);
}

TEST_CASE("write drain: at the high watermark writes drain to the low one first", "[dram-channel]") {
  // 24 queued writes reach the high watermark: 16 writes go first (down to 8), each holding the
  // bus 4 clocks, so the read waits at least 16 x 4 = 64 clocks beyond its own 38.
  CHECK(read_latency_behind_writes(24) > 38 + 64);
}

TEST_CASE("refresh: timings that leave no request room between refreshes stop with an SC_ERROR, not a hang",
          "[dram-channel]") {
  // The loader refuses trefi 262 on HBM2 (2 clocks after tRFC 260); a spec built in code is not
  // checked: the channel must still end. Each refresh closes the row the read activated before
  // its RD could issue; after four rounds of the one rank's refresh with no read, an SC_ERROR.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_STOP);
  spec::DramSpec spec = config::load_dram("hbm2", {"channels=1"});
  spec.timing.trefi = 262;
  hw::MemoryTester tester("tester", spec, pattern(spec, "random_read", 100), 64, 8);
  sc_core::sc_start();
  CHECK(sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) == 1);
  // Reads are served until the first refresh (cycle 262): the first one at once (ACT at 0, RD at
  // tRCD 14), so some but not all 100 complete, and none after the channel gave up.
  CHECK(tester.completed() > 0);
  CHECK(tester.completed() < 100);
}

TEST_CASE("refresh: the smallest tREFI the loader accepts serves random reads and writes", "[dram-channel]") {
  // HBM2: tREFI >= tRFC + max(tRC, max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP + banks - 1) + tRCD
  //   = 260 + max(48, max(34, 5, 4 + 2 + 16) + 14 + 16 - 1) + 14 = 260 + 63 + 14 = 337.
  const spec::DramSpec spec = config::load_dram("hbm2", {"trefi=337"});
  CHECK(spec.refresh_bound().min_trefi == 337);
  // One simulation per process: random_mix, which hung at trefi 320 before the check (memtest.sh
  // runs every pattern at this bound).
  sc_core::sc_report_handler::set_actions(sc_core::SC_ERROR, sc_core::SC_DISPLAY | sc_core::SC_STOP);
  hw::MemoryTester tester("tester", spec, pattern(spec, "random_mix", 2000), 64, 32);
  sc_core::sc_start();
  CHECK(sc_core::sc_report_handler::get_count(sc_core::SC_ERROR) == 0);
  CHECK(tester.completed() == 2000);
}

// The controller policies (docs/dram-model.md, "Controller"), each on DDR4-2400 with an exact
// cycle count. Address bits with one channel (mapping ro,ra,ba,co,bg,ch, 64-byte bursts): bg 6-7,
// column 8-14, bank 15-16, rank 17, row 18 up. So 0x100 is row 0 column 1 of bank 0 (bank group 0,
// like 0x0), 0x8000 is bank 1 (bank group 0), 0x40000 is row 1 of bank 0.
// Timings (clocks): tRCD 17, CL 17, CWL 12, BL/2 4, tCCD_L 6, tRRD_L 6, tRAS 39, tRP 17, tRC 56,
// tRTP 9, tWTR_L 9, tRFC 420; rank 0's first refresh falls due at tREFI / 2 = 4,680 (two ranks,
// staggered), rank 1's at 9,360.

TEST_CASE("controller: a drain serves the queued read that hits the open row before closing it", "[dram-channel]") {
  // write_drain {high: 1, low: 0}: one queued write starts a drain. Read A opens row 0 of bank 0
  // (ACT 0, RD 17, data ends 38). At 40 come read B (row 0: a hit) and write W (row 1: a
  // conflict). The drain serves W, which needs row 0 closed, but B hits it: B goes first, RD at 40,
  // ends 40 + 17 + 4 = 61. Then W: PRE at max(tRAS 0 + 39, tRTP 40 + 9) = 49, ACT at max(49 + tRP,
  // tRC 0 + 56) = 66, WR at 66 + tRCD = 83 (read-to-write allows 40 + 17 + 4 + 2 - 12 = 51), data
  // ends 83 + 12 + 4 = 99. Had the drain closed row 0 at 40, B would have paid a conflict too.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.write_drain_high = 1;
  spec.controller.write_drain_low = 0;
  const Outcome outcome = run(spec, {{0x0, false, 0}, {0x100, false, 40}, {0x40000, true, 40}}, 3);
  CHECK(outcome.finish_cycles == 99);  // W's response, at the end of its data
  CHECK(outcome.dram.write_latency.total_cycles() == 99 - 40);
  CHECK(outcome.dram.read_latency.total_cycles() == 38 + 21);
  CHECK(outcome.dram.activates == 2);
  CHECK(outcome.dram.precharges == 1);
  CHECK(outcome.dram.row_misses == 1);     // A
  CHECK(outcome.dram.row_hits == 1);       // B
  CHECK(outcome.dram.row_conflicts == 1);  // W
  CHECK(outcome.dram.turnarounds == 1);    // RD B -> WR W
  CHECK(outcome.dram.write_drains == 1);
}

TEST_CASE("controller: a refresh on schedule lands between two idle-spaced reads", "[dram-channel]") {
  // Read 1: ACT 0, RD 17, ends 38; its row stays open. Rank 0's refresh falls due at 4,680 with
  // the channel idle: PRE at 4,680, REF at 4,680 + tRP = 4,697, busy until 4,697 + 420 = 5,117.
  // Read 2 arrives at 6,000 to the same row, now closed: ACT 6,000, RD 6,017, ends 6,038 - the
  // latency of an idle row miss, 38, not a refresh's.
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  const Outcome outcome = run(spec, {{0x0, false, 0}, {0x0, false, 6000}}, 1);
  CHECK(outcome.finish_cycles == 6038);
  CHECK(outcome.dram.read_latency.total_cycles() == 38 + 38);
  CHECK(outcome.dram.refreshes == 1);
  CHECK(outcome.dram.precharges == 1);
  CHECK(outcome.dram.row_misses == 2);
}

TEST_CASE("controller: refresh off never refreshes", "[dram-channel]") {
  // bank_conflict: one request per tRC = 56; 200 requests end at 199 x 56 + 38 = 11,182, past
  // both ranks' first refresh (4,680 and 9,360), with none.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.refresh = spec::RefreshMode::off;
  const Outcome outcome = run(spec, pattern(spec, "bank_conflict", 200), 8);
  CHECK(outcome.finish_cycles == 11182);
  CHECK(outcome.dram.refreshes == 0);
}

// Writes W1, W2, W3 to row 0 of bank 1 (columns 0, 1, 2) and read R to bank 0, all at cycle 0,
// with a write queue of 3: the same queue contents for both drain policies. W1: ACT 0, WR 17
// (data ends 33); W2 WR 23 (tCCD_L), ends 39.
namespace {
Outcome run_drain_case(spec::DramSpec spec) {
  spec.controller.write_queue_depth = 3;
  return run(spec, {{0x8000, true, 0}, {0x8100, true, 0}, {0x8200, true, 0}, {0x0, false, 0}}, 4);
}
}  // namespace

TEST_CASE("controller: watermarks 2 -> 1 stop the drain after W2, so R goes before W3", "[dram-channel]") {
  // R: ACT at 24 (the command after W2), RD at max(24 + tRCD, W2's data end 39 + tWTR_L) = 48,
  // ends 48 + 17 + 4 = 69. W3 (no read waits): WR at 48 + 17 + 4 + 2 - 12 = 59, ends 75.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.write_drain_high = 2;
  spec.controller.write_drain_low = 1;
  const Outcome outcome = run_drain_case(spec);
  CHECK(outcome.dram.read_latency.total_cycles() == 69);
  CHECK(outcome.dram.write_latency.total_cycles() == 33 + 39 + 75);
  CHECK(outcome.dram.turnarounds == 2);  // WR -> RD -> WR
  CHECK(outcome.dram.write_drains == 1);
}

TEST_CASE("controller: drain_all drains the full write queue to empty, then R", "[dram-channel]") {
  // W3 WR 29, ends 45. R: ACT at 30, RD at max(30 + 17, 45 + tWTR_L) = 54, ends 75.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.write_drain = spec::WriteDrainPolicy::drain_all;
  const Outcome outcome = run_drain_case(spec);
  CHECK(outcome.dram.read_latency.total_cycles() == 75);
  CHECK(outcome.dram.write_latency.total_cycles() == 33 + 39 + 45);
  CHECK(outcome.dram.turnarounds == 1);
  CHECK(outcome.dram.write_drains == 1);
}

// Reads to bank 0 at cycle 0: R1 row 0, R2 row 1, R3 row 0 (column 1).
namespace {
const std::vector<spec::MemoryRequest> kOneBankRequests{{0x0, false, 0}, {0x40000, false, 0}, {0x100, false, 0}};
}  // namespace

TEST_CASE("controller: without command queues FR-FCFS takes a later hit before a conflict", "[dram-channel]") {
  // R1 ACT 0, RD 17; R3 RD 23 (tCCD_L); R2: PRE at max(39, 23 + 9) = 39, ACT 56, RD 73, ends 94.
  const Outcome outcome = run(config::load_dram("ddr4-2400"), kOneBankRequests, 3);
  CHECK(outcome.finish_cycles == 94);
  CHECK(outcome.dram.activates == 2);
  CHECK(outcome.dram.row_hits == 1);
}

TEST_CASE("controller: per-bank command queues of one serve a bank in order", "[dram-channel]") {
  // As above to R2's RD at 73 (R3 waits outside the bank's queue, so it keeps no row open); R3 is
  // then a conflict: PRE at max(56 + tRAS, 73 + tRTP) = 95, ACT 112, RD 129, ends 150.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.command_queue_depth = 1;
  const Outcome outcome = run(spec, kOneBankRequests, 3);
  CHECK(outcome.finish_cycles == 150);
  CHECK(outcome.dram.activates == 3);
  CHECK(outcome.dram.row_conflicts == 2);
  CHECK(outcome.dram.row_hits == 0);
}

// Write W then read R, both to row 0 of bank 0, one request in flight at a time.
namespace {
const std::vector<spec::MemoryRequest> kWriteThenRead{{0x0, true, 0}, {0x100, false, 0}};
}  // namespace

TEST_CASE("controller: a write that is not posted holds its requester until written", "[dram-channel]") {
  // W: ACT 0, WR 17, ends 33, answered then; R arrives at 33: RD at W's data end 33 + tWTR_L = 42,
  // ends 42 + 21 = 63.
  const Outcome outcome = run(config::load_dram("ddr4-2400"), kWriteThenRead, 1);
  CHECK(outcome.finish_cycles == 63);
  CHECK(outcome.dram.read_latency.total_cycles() == 63 - 33);
}

TEST_CASE("controller: a posted write frees its requester at once", "[dram-channel]") {
  // R arrives at 0 too, and reads are served before writes below the watermark: ACT 0 for R, RD
  // 17, ends 38; W then hits the open row: WR at 17 + 17 + 4 + 2 - 12 = 28, ends 44 (its latency;
  // its requester had its answer at 0). The test ends when W is written, at 44.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.posted_writes = true;
  const Outcome outcome = run(spec, kWriteThenRead, 1);
  CHECK(outcome.finish_cycles == 44);
  CHECK(outcome.dram.read_latency.total_cycles() == 38);
  CHECK(outcome.dram.write_latency.total_cycles() == 44);
  CHECK(outcome.dma.failed_requests == 0);
}

TEST_CASE("controller: the front-end latency comes before the first command", "[dram-channel]") {
  // frontend_latency_cycles 5: the idle row miss of 38 clocks starts at 5: ACT 5, RD 22, ends 43.
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.frontend_latency_cycles = 5;
  const Outcome outcome = run(spec, {{0x0, false, 0}}, 1);
  CHECK(outcome.finish_cycles == 43);
  CHECK(outcome.dram.read_latency.total_cycles() == 43);
}

TEST_CASE("controller: with few bursts queued, commands go ahead only to the next answer, so its request finds the bus free",
          "[dram-channel]") {
  // One HBM2 channel (tCK 1 ns; bank group bits 6-7, column 8-12, bank 13-14): tRCD 14, CL 14,
  // BL/2 2, tCCD_L 2, tRP 14. A (bank 0, column 0) at 0: ACT 0, RD 14, answered at 30. B1-B8
  // (bank 0, columns 1-8) arrive at 20. A request A's answer brings would find 8 x BL/2 = 16 clocks
  // of bursts ahead of it, less than a row conflict takes (tRP + tRCD + CL + BL/2 = 44), so the
  // pass at 20 commits B1-B5 (RDs 20-28) and stops at 30. With nine in flight, C (bank 1, closed)
  // goes when A is answered, at 30: RD B6 at 30 (a hit first), C's ACT at 31, B7 32, B8 34 (data
  // ends 50), C's RD at 31 + tRCD = 45, data ends 45 + 16 = 61. Committing to the first data end of
  // the pass (36) would have taken the command bus through B8 (34): C's ACT at 35, done at 65.
  const spec::DramSpec spec = config::load_dram("hbm2", {"channels=1"});
  std::vector<spec::MemoryRequest> requests{{0x0, false, 0}};
  for (std::uint64_t column = 1; column <= 8; ++column) requests.push_back({column * 0x100, false, 20});
  requests.push_back({0x2000, false, 0});
  const Outcome outcome = run(spec, requests, 9);
  CHECK(outcome.finish_cycles == 61);
  CHECK(outcome.dram.activates == 2);
}

TEST_CASE("xor hashing: bank_conflict still finds one bank, one row per request", "[dram-channel]") {
  // The pattern builds row n of bank 0 through the mapper's encode, so hashing moves its addresses
  // but not its banks: as without hashing, one request per tRC, the 80th ending at 79 x 56 + 38.
  const spec::DramSpec spec = config::load_dram("ddr4-2400", {"address_hash=xor"});
  const Outcome outcome = run(spec, pattern(spec, "bank_conflict", 80), 8);
  CHECK(outcome.finish_cycles == 4462);
  CHECK(outcome.dram.activates == 80);
}

TEST_CASE("pseudo-channels: an idle read takes tRCD + CL + BL/2 in its own pseudo-channel", "[dram-channel]") {
  // HBM2 at 1 ns: ACT 0, RD 14, data from 28 for BL/2 = 2 clocks: 30, as in legacy mode. Address
  // 0x20 is pseudo-channel 1 of channel 0 (ro,ra,ba,co,bg,ch,pc): scheduled channel 1 of 16.
  const spec::DramSpec spec = config::load_dram("hbm2", {"pseudo_channels=2", "address_mapping=ro,ra,ba,co,bg,ch,pc"});
  const Outcome outcome = run(spec, {{0x20, false, 0}}, 1, 32);
  CHECK(outcome.finish_cycles == 30);
  REQUIRE(outcome.per_channel.size() == 16);
  CHECK(outcome.per_channel[1].reads == 1);
  CHECK(outcome.per_channel[0].reads == 0);
}

// The newer presets: an idle read to a closed bank takes tRCD + CL + BL/2 of the preset's clocks
// (configs/dram/*.yaml give the derivations), one burst at address 0.
namespace {
std::int64_t idle_read_cycles(const std::string& preset) {
  const spec::DramSpec spec = config::load_dram(preset);
  return run(spec, {{0x0, false, 0}}, 1, static_cast<std::uint64_t>(spec.burst_bytes())).finish_cycles;
}
}  // namespace

TEST_CASE("ddr5-4800: an idle read takes tRCD 39 + CL 40 + BL/2 8 = 87 clocks", "[dram-channel]") {
  CHECK(idle_read_cycles("ddr5-4800") == 87);
}

TEST_CASE("lpddr5-6400: an idle read takes tRCD 60 + CL 80 + BL/2 8 = 148 clocks", "[dram-channel]") {
  CHECK(idle_read_cycles("lpddr5-6400") == 148);
}

TEST_CASE("gddr6: an idle read takes tRCD 119 + CL 110 + BL/2 8 = 237 clocks", "[dram-channel]") {
  CHECK(idle_read_cycles("gddr6") == 237);
}

TEST_CASE("hbm2e: an idle read takes tRCD 23 + CL 23 + BL/2 2 = 48 clocks", "[dram-channel]") {
  CHECK(idle_read_cycles("hbm2e") == 48);
}
