#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "input_error_text.h"
#include "spec/accelerator_spec.h"
#include "timing/dram_address.h"
#include "timing/dram_timing.h"

// The JEDEC timing state (timing::DramTimingState) and the address mapper (timing::DramAddressMapper),
// checked against the real ddr4-2400 preset (configs/dram/ddr4-2400.yaml) and, where a second
// standard shows something ddr4 cannot, hbm2. Every expected cycle is derived in a comment.
//
// ddr4-2400: CL 17, CWL 12, tRCD 17, tRP 17, tRAS 39, tRC 56, BL 8 (a burst holds the bus
// BL/2 = 4 clocks), tCCD_S 4, tCCD_L 6, tRRD_S 4, tRRD_L 6, tFAW 26, tWTR_S 3, tWTR_L 9, tWR 18,
// tRTP 9, tRFC 420; 2 ranks, 4 bank groups x 4 banks, 8 KiB rows, 64-bit bus (64 B bursts),
// mapping ro,ra,ba,co,bg,ch.
//
// "Exact" means: asked from `now`, earliest() returns the expected cycle, and asked from one cycle
// before the expected cycle it still returns the expected cycle, so that cycle minus one is not legal.

namespace {

// Row 1 of channel 0, rank 0, bank group 0, bank 0, column 0: its address is the row stride.
reusesim::timing::DramCoordinates row_one() {
  reusesim::timing::DramCoordinates where;
  where.row = 1;
  return where;
}

namespace spec = reusesim::spec;
namespace timing = reusesim::timing;
using timing::BankTarget;
using timing::DramAddressMapper;
using timing::DramCommand;
using timing::DramTimingState;
using reusesim::config::load_dram;

constexpr DramCommand kAct = DramCommand::activate;
constexpr DramCommand kPre = DramCommand::precharge;
constexpr DramCommand kRd = DramCommand::read;
constexpr DramCommand kWr = DramCommand::write;
constexpr DramCommand kRef = DramCommand::refresh;
constexpr std::int64_t kNever = DramTimingState::kNever;

DramTimingState ddr4(const std::vector<std::string>& overrides = {}) {
  return DramTimingState(load_dram("ddr4-2400", overrides));
}

BankTarget bank(std::int64_t rank, std::int64_t bank_group, std::int64_t index) {
  BankTarget target;
  target.rank = rank;
  target.bank_group = bank_group;
  target.bank = index;
  return target;
}

// Issues `command` at `cycle` after checking that the cycle is legal; returns issue()'s value
// (the data-burst end for RD and WR).
std::int64_t issue_at(DramTimingState& state, DramCommand command, const BankTarget& target, std::int64_t row,
                      std::int64_t cycle) {
  INFO("setup: " << timing::command_name(command) << " to rank " << target.rank << " bg " << target.bank_group
                 << " bank " << target.bank << " at " << cycle);
  REQUIRE(state.earliest(command, target, cycle) == cycle);
  return state.issue(command, target, row, cycle);
}

}  // namespace

// The earliest legal cycle for `command` is exactly `expected`: from `now`, and from expected - 1.
#define DT_REQUIRE_EARLIEST(state, command, target, now, expected)                 \
  do {                                                                             \
    INFO("earliest(" << timing::command_name(command) << ") from now = " << (now));    \
    REQUIRE((state).earliest((command), (target), (now)) == (expected));           \
    INFO("one cycle before: now = " << (expected) - 1);                            \
    REQUIRE((state).earliest((command), (target), (expected) - 1) == (expected));  \
  } while (false)

// --- bank state rules -------------------------------------------------------------------------

// A closed bank takes no RD, WR or PRE; an open bank takes no ACT; PRE closes it again.
TEST_CASE("DRAM timing: commands the bank state forbids are kNever", "[dram-timing]") {
  DramTimingState s = ddr4();
  const BankTarget b = bank(0, 0, 0);
  CHECK(s.open_row(b) == DramTimingState::kClosed);
  CHECK(s.earliest(kRd, b, 0) == kNever);
  CHECK(s.earliest(kWr, b, 0) == kNever);
  CHECK(s.earliest(kPre, b, 0) == kNever);
  CHECK(s.earliest(kAct, b, 0) == 0);

  issue_at(s, kAct, b, 5, 0);
  CHECK(s.open_row(b) == 5);
  CHECK(s.earliest(kAct, b, 0) == kNever);     // open: ACT forbidden however long we wait
  CHECK(s.earliest(kAct, b, 1000) == kNever);
  CHECK(s.earliest(kRd, b, 0) != kNever);
  CHECK(s.earliest(kPre, b, 0) != kNever);

  issue_at(s, kPre, b, 0, 39);
  CHECK(s.open_row(b) == DramTimingState::kClosed);
  CHECK(s.earliest(kRd, b, 1000) == kNever);
  CHECK(s.earliest(kWr, b, 1000) == kNever);
  CHECK(s.earliest(kPre, b, 1000) == kNever);
}

// --- row commands -------------------------------------------------------------------------------

// ACT at 0 -> RD no earlier than tRCD = 17.
TEST_CASE("DRAM timing: tRCD, ACT to RD", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 0, 0), 0, 17);
}

// ACT at 0 -> WR no earlier than tRCD = 17.
TEST_CASE("DRAM timing: tRCD, ACT to WR", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kWr, bank(0, 0, 0), 0, 17);
}

// ACT at 0 -> PRE no earlier than tRAS = 39.
TEST_CASE("DRAM timing: tRAS, ACT to PRE", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kPre, bank(0, 0, 0), 0, 39);
}

// ACT at 0, PRE late at 60 -> ACT no earlier than 60 + tRP = 77 (tRC alone would allow 56).
TEST_CASE("DRAM timing: tRP, PRE to ACT", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kPre, bank(0, 0, 0), 0, 60);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 60, 77);
}

TEST_CASE("DRAM timing: tRC, ACT to ACT in the same bank", "[dram-timing]") {
  SECTION("preset: tRC 56 = tRAS 39 + tRP 17") {
    // ACT at 0, PRE at tRAS = 39 -> ACT no earlier than max(tRC = 56, 39 + tRP = 56) = 56.
    DramTimingState s = ddr4();
    issue_at(s, kAct, bank(0, 0, 0), 1, 0);
    issue_at(s, kPre, bank(0, 0, 0), 0, 39);
    DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 39, 56);
  }
  SECTION("trc=70 binds over tRAS + tRP") {
    // ACT at 0, PRE at tRAS = 39 -> tRP alone allows 39 + 17 = 56, but tRC = 70 -> ACT at 70.
    DramTimingState s = ddr4({"trc=70"});
    issue_at(s, kAct, bank(0, 0, 0), 1, 0);
    issue_at(s, kPre, bank(0, 0, 0), 0, 39);
    DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 39, 70);
  }
}

// ACT bank group 0 at 0 -> ACT to bank group 1 (same rank) no earlier than tRRD_S = 4.
TEST_CASE("DRAM timing: tRRD_S, ACT to ACT in another bank group", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 1, 0), 0, 4);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 3, 2), 0, 4);
}

// ACT bank group 0 bank 0 at 0 -> ACT to bank group 0 bank 1 no earlier than tRRD_L = 6
// (another group would be allowed at tRRD_S = 4).
TEST_CASE("DRAM timing: tRRD_L, ACT to ACT in the same bank group", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 1), 0, 6);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 3), 0, 6);
}

// ACTs to bank groups 0, 1, 2, 3 at 0, 4, 8, 12 (tRRD_S apart). A fifth ACT (group 0, bank 1):
// tRRD_S from 12 -> 16, tRRD_L from 0 -> 6, tFAW from the first ACT: 0 + 26 = 26 -> 26.
// The other rank has its own four-activate window: its ACT is legal at once (13).
TEST_CASE("DRAM timing: tFAW, the fifth ACT in a rank", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 1, 0), 1, 4);
  issue_at(s, kAct, bank(0, 2, 0), 1, 8);
  issue_at(s, kAct, bank(0, 3, 0), 1, 12);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 1), 12, 26);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 1, 1), 12, 26);
  CHECK(s.earliest(kAct, bank(1, 0, 0), 13) == 13);
}

// --- column commands ----------------------------------------------------------------------------

TEST_CASE("DRAM timing: tCCD_S, RD to RD in another bank group", "[dram-timing]") {
  SECTION("preset: tCCD_S 4") {
    // ACT (bg 0) at 0, ACT (bg 1) at 4; RD bg 0 at 30 (past tRCD) -> RD bg 1 no earlier than
    // 30 + tCCD_S = 34 (also the end of the first burst on the bus: 30 + 17 + 4 - 17 = 34).
    DramTimingState s = ddr4();
    issue_at(s, kAct, bank(0, 0, 0), 1, 0);
    issue_at(s, kAct, bank(0, 1, 0), 1, 4);
    issue_at(s, kRd, bank(0, 0, 0), 1, 30);
    DT_REQUIRE_EARLIEST(s, kRd, bank(0, 1, 0), 30, 34);
  }
  SECTION("tccd_s=5 binds over the data bus") {
    // Same sequence: the bus frees at 34 + 17 - 17 = 34, tCCD_S gives 30 + 5 = 35 -> 35.
    DramTimingState s = ddr4({"tccd_s=5"});
    issue_at(s, kAct, bank(0, 0, 0), 1, 0);
    issue_at(s, kAct, bank(0, 1, 0), 1, 4);
    issue_at(s, kRd, bank(0, 0, 0), 1, 30);
    DT_REQUIRE_EARLIEST(s, kRd, bank(0, 1, 0), 30, 35);
  }
}

// ACT (bg 0 bank 0) at 0, ACT (bg 0 bank 1) at 6; RD bank 0 at 30 -> RD bank 1 (same group) no
// earlier than 30 + tCCD_L = 36 (the bus alone would allow 34); a second RD to bank 0 also 36.
TEST_CASE("DRAM timing: tCCD_L, RD to RD in the same bank group", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 0, 1), 1, 6);
  issue_at(s, kRd, bank(0, 0, 0), 1, 30);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 0, 1), 30, 36);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 0, 0), 30, 36);
}

// ACT at 0, RD at tRCD = 17 -> data burst ends at 17 + CL 17 + BL/2 4 = 38.
TEST_CASE("DRAM timing: CL, the read burst ends at RD + CL + BL/2", "[dram-timing]") {
  DramTimingState s = ddr4();
  CHECK(s.burst_cycles() == 4);  // BL 8 on a DDR bus
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  const std::int64_t rd_end = issue_at(s, kRd, bank(0, 0, 0), 1, 17);
  CHECK(rd_end == 38);
}

// ACT at 0, WR at tRCD = 17 -> data burst ends at 17 + CWL 12 + BL/2 4 = 33.
TEST_CASE("DRAM timing: CWL, the write burst ends at WR + CWL + BL/2", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  const std::int64_t wr_end = issue_at(s, kWr, bank(0, 0, 0), 1, 17);
  CHECK(wr_end == 33);
}

TEST_CASE("DRAM timing: data bus occupancy with a rank switch", "[dram-timing]") {
  DramTimingState s = ddr4();
  // Different ranks have no tRRD between them: ACT rank 0 and rank 1 both at 0.
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(1, 0, 0), 1, 0);
  SECTION("RD to RD") {
    // RD rank 0 at 17 -> data [34, 38). RD rank 1: tCCD_S gives 21, tRCD 17, but its burst must
    // start at 38 + 1 (rank switch) = 39, so the command goes at 39 - CL 17 = 22; data ends 43.
    const std::int64_t rd_end = issue_at(s, kRd, bank(0, 0, 0), 1, 17);
    CHECK(rd_end == 38);
    DT_REQUIRE_EARLIEST(s, kRd, bank(1, 0, 0), 17, 22);
    const std::int64_t rd_end_rank1 = issue_at(s, kRd, bank(1, 0, 0), 1, 22);
    CHECK(rd_end_rank1 == 43);
  }
  SECTION("WR to WR") {
    // WR rank 0 at 17 -> data [29, 33). WR rank 1: burst from 33 + 1 = 34, command at
    // 34 - CWL 12 = 22 (tCCD_S alone gives 21).
    const std::int64_t wr_end = issue_at(s, kWr, bank(0, 0, 0), 1, 17);
    CHECK(wr_end == 33);
    DT_REQUIRE_EARLIEST(s, kWr, bank(1, 0, 0), 17, 22);
  }
}

// hbm2 (CL 14, BL 4 -> 2 clocks per burst, tCCD_S 1): back-to-back reads to different bank groups
// are spaced by the data bus, not by tCCD_S. ACT bg 0 at 0, ACT bg 1 at tRRD_S = 4; RD bg 0 at 20
// -> data ends 20 + 14 + 2 = 36; RD bg 1: tCCD_S gives 21, the bus 36 - 14 = 22 -> 22.
TEST_CASE("DRAM timing: hbm2 reads are spaced by the 2-clock burst, not tCCD_S 1", "[dram-timing]") {
  DramTimingState s(load_dram("hbm2"));
  CHECK(s.burst_cycles() == 2);
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 1, 0), 0, 4);
  issue_at(s, kAct, bank(0, 1, 0), 1, 4);
  const std::int64_t rd_end = issue_at(s, kRd, bank(0, 0, 0), 1, 20);
  CHECK(rd_end == 36);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 1, 0), 20, 22);
}

// ACT bg 0 bank 0 at 0, bg 1 at 4, bg 0 bank 1 at 10; WR bg 0 bank 0 at 23 -> write data ends
// 23 + 12 + 4 = 39. RD to bg 1 (another group) no earlier than 39 + tWTR_S 3 = 42.
TEST_CASE("DRAM timing: tWTR_S, WR to RD in another bank group", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 1, 0), 1, 4);
  const std::int64_t wr_end = issue_at(s, kWr, bank(0, 0, 0), 1, 23);
  CHECK(wr_end == 39);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 1, 0), 23, 42);
}

// Same setup; RD to bg 0 (same group: the written bank, or another bank of the group) no earlier
// than write data end 39 + tWTR_L 9 = 48.
TEST_CASE("DRAM timing: tWTR_L, WR to RD in the same bank group", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 0, 1), 1, 6);
  const std::int64_t wr_end = issue_at(s, kWr, bank(0, 0, 0), 1, 23);
  CHECK(wr_end == 39);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 0, 1), 23, 48);
  DT_REQUIRE_EARLIEST(s, kRd, bank(0, 0, 0), 23, 48);
}

// ACT at 0, RD at 17 (read data [34, 38)) -> WR no earlier than
// RD + CL + BL/2 + 2 - CWL = 17 + 17 + 4 + 2 - 12 = 28 (write data then starts 28 + 12 = 40 = 38 + 2).
// tCCD_L alone gives 23, the bus 38 - 12 = 26.
TEST_CASE("DRAM timing: RD to WR turnaround", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 1, 0), 1, 4);
  issue_at(s, kRd, bank(0, 0, 0), 1, 17);
  DT_REQUIRE_EARLIEST(s, kWr, bank(0, 0, 0), 17, 28);
  DT_REQUIRE_EARLIEST(s, kWr, bank(0, 1, 0), 17, 28);
}

// ACT at 0, WR at 17 -> write data ends 17 + 12 + 4 = 33 -> PRE no earlier than 33 + tWR 18 = 51
// (tRAS alone gives 39).
TEST_CASE("DRAM timing: tWR, WR to PRE from the end of write data", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kWr, bank(0, 0, 0), 1, 17);
  DT_REQUIRE_EARLIEST(s, kPre, bank(0, 0, 0), 17, 51);
}

TEST_CASE("DRAM timing: tRTP, RD to PRE", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  SECTION("tRTP binds") {
    // RD at 35 -> PRE no earlier than 35 + tRTP 9 = 44 (tRAS gives 39).
    issue_at(s, kRd, bank(0, 0, 0), 1, 35);
    DT_REQUIRE_EARLIEST(s, kPre, bank(0, 0, 0), 35, 44);
  }
  SECTION("tRAS binds") {
    // RD at 17 -> 17 + 9 = 26, but tRAS from the ACT at 0 -> 39.
    issue_at(s, kRd, bank(0, 0, 0), 1, 17);
    DT_REQUIRE_EARLIEST(s, kPre, bank(0, 0, 0), 17, 39);
  }
}

// --- refresh ------------------------------------------------------------------------------------

// All banks idle: REF rank 0 at 0 -> ACT (any bank of rank 0) and the next REF no earlier than
// tRFC = 420.
TEST_CASE("DRAM timing: tRFC, REF to ACT", "[dram-timing]") {
  DramTimingState s = ddr4();
  CHECK(s.rank_precharged(0));
  issue_at(s, kRef, bank(0, 0, 0), 0, 0);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 0, 420);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 3, 3), 0, 420);
  DT_REQUIRE_EARLIEST(s, kRef, bank(0, 0, 0), 0, 420);
}

// ACT bg 0 at 0 and bg 1 at 4: REF is kNever while either bank is open. PRE bg 0 at 39: still
// kNever (bg 1 open). PRE bg 1 at 50 -> REF no earlier than 50 + tRP 17 = 67
// (tRC from the ACT at 4 gives only 60).
TEST_CASE("DRAM timing: all-bank refresh needs the rank precharged, tRP after the last PRE", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(0, 0, 0), 1, 0);
  issue_at(s, kAct, bank(0, 1, 0), 2, 4);
  CHECK_FALSE(s.rank_precharged(0));
  CHECK(s.earliest(kRef, bank(0, 0, 0), 4) == kNever);
  CHECK(s.earliest(kRef, bank(0, 0, 0), 1000) == kNever);
  issue_at(s, kPre, bank(0, 0, 0), 0, 39);
  CHECK_FALSE(s.rank_precharged(0));
  CHECK(s.earliest(kRef, bank(0, 0, 0), 39) == kNever);
  issue_at(s, kPre, bank(0, 1, 0), 0, 50);
  CHECK(s.rank_precharged(0));
  DT_REQUIRE_EARLIEST(s, kRef, bank(0, 0, 0), 50, 67);
}

// refresh=per_bank, trfc_pb=100: REFpb to (rank 0, bg 0, bank 0) at 0 -> that bank's ACT no
// earlier than 0 + 100 = 100; another bank of the same group, another group, and the other rank
// are not held by tRFCpb (asked at 10, past any activate-to-activate spacing: tRRD_L = 6).
// REFpb needs its own bank closed, not the whole rank.
TEST_CASE("DRAM timing: per-bank refresh blocks only its bank", "[dram-timing]") {
  DramTimingState s = ddr4({"controller.refresh=per_bank", "trfc_pb=100"});
  issue_at(s, kRef, bank(0, 0, 0), 0, 0);
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 0, 100);
  DT_REQUIRE_EARLIEST(s, kRef, bank(0, 0, 0), 0, 100);  // REFpb to REFpb, same bank: tRFCpb
  CHECK(s.earliest(kAct, bank(0, 0, 1), 10) == 10);
  CHECK(s.earliest(kAct, bank(0, 2, 3), 10) == 10);
  CHECK(s.earliest(kAct, bank(1, 0, 0), 10) == 10);

  // An open bank takes no REFpb; once closed it waits tRP: ACT bg 1 at 10, PRE at 10 + tRAS = 49
  // -> REFpb to it no earlier than max(49 + tRP 17, 10 + tRC 56) = 66.
  issue_at(s, kAct, bank(0, 1, 0), 1, 10);
  CHECK(s.earliest(kRef, bank(0, 1, 0), 10) == kNever);
  issue_at(s, kPre, bank(0, 1, 0), 0, 49);
  DT_REQUIRE_EARLIEST(s, kRef, bank(0, 1, 0), 49, 66);
}

// All-bank REF of rank 0 at 0: rank 1 is not blocked. Its ACT is legal at once and its own REF
// too; rank 0's ACT waits tRFC = 420. A bank open in rank 1 does not forbid rank 0's REF.
TEST_CASE("DRAM timing: a refresh does not block the other rank", "[dram-timing]") {
  DramTimingState s = ddr4();
  issue_at(s, kAct, bank(1, 2, 1), 1, 0);
  CHECK(s.rank_precharged(0));
  CHECK_FALSE(s.rank_precharged(1));
  issue_at(s, kRef, bank(0, 0, 0), 0, 1);
  CHECK(s.earliest(kAct, bank(1, 0, 0), 5) == 5);  // tRRD_S after the rank-1 ACT at 0: 4 <= 5
  CHECK(s.earliest(kRd, bank(1, 2, 1), 17) == 17);  // tRCD from 0
  DT_REQUIRE_EARLIEST(s, kAct, bank(0, 0, 0), 1, 421);  // 1 + tRFC 420
  issue_at(s, kPre, bank(1, 2, 1), 0, 39);
  CHECK(s.earliest(kRef, bank(1, 0, 0), 56) == 56);  // rank 1: tRP after its PRE at 39 -> 56
}

// --- address mapping ----------------------------------------------------------------------------

// ddr4-2400, ro,ra,ba,co,bg,ch, least significant first: burst offset 6 bits (64 B) [5:0],
// channel 0 bits, bank group 2 bits [7:6], column 7 bits [14:8] (8192 / 64 = 128 bursts per row),
// bank 2 bits [16:15], rank 1 bit [17], row [63:18].
TEST_CASE("DRAM timing: ddr4-2400 address decode", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("ddr4-2400"));
  CHECK(mapper.burst_bytes() == 64);

  // 0x40 = 1 << 6: bank group 1.
  auto c = mapper.decode(0x40);
  CHECK(c.channel == 0);
  CHECK(c.rank == 0);
  CHECK(c.bank_group == 1);
  CHECK(c.bank == 0);
  CHECK(c.column == 0);
  CHECK(c.row == 0);

  // 0x100 = 1 << 8: column 1, bank group 0.
  c = mapper.decode(0x100);
  CHECK(c.bank_group == 0);
  CHECK(c.column == 1);
  CHECK(c.bank == 0);

  // row 3, rank 1, bank 2, column 5, bank group 3, byte 17:
  // (3 << 18) + (1 << 17) + (2 << 15) + (5 << 8) + (3 << 6) + 17
  // = 0xC0000 + 0x20000 + 0x10000 + 0x500 + 0xC0 + 0x11 = 0xF05D1.
  c = mapper.decode(0xF05D1);
  CHECK(c.channel == 0);
  CHECK(c.rank == 1);
  CHECK(c.bank_group == 3);
  CHECK(c.bank == 2);
  CHECK(c.column == 5);
  CHECK(c.row == 3);

  // The last byte before row 1: every lower field at its maximum.
  c = mapper.decode((std::uint64_t{1} << 18) - 1);
  CHECK(c.rank == 1);
  CHECK(c.bank == 3);
  CHECK(c.column == 127);
  CHECK(c.bank_group == 3);
  CHECK(c.row == 0);
}

// address_hash xor on ddr4-2400 (4 bank groups, 4 banks per group): bank group ^= row & 3, bank ^=
// (row / 4) & 3; the fields as above.
TEST_CASE("DRAM timing: xor hashing spreads a bank's rows over the banks", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("ddr4-2400", {"address_hash=xor"}));
  // Row 5 (5 << 18 = 0x140000) with bank-group and bank bits 0: bank group 5 & 3 = 1, bank
  // (5 / 4) & 3 = 1.
  auto c = mapper.decode(0x140000);
  CHECK(c.row == 5);
  CHECK(c.bank_group == 1);
  CHECK(c.bank == 1);
  // The same row with bank-group bits 3 (3 << 6 = 0xC0): bank group 3 ^ 1 = 2.
  c = mapper.decode(0x1400C0);
  CHECK(c.bank_group == 2);
  CHECK(c.bank == 1);
  // Row 0 is not moved: 0xF05D1 less its row bits (0x30000 + 0x500 + 0xC0 + 0x11) decodes as
  // without hashing: rank 1, bank 2, bank group 3.
  c = mapper.decode(0x305D1);
  CHECK(c.bank_group == 3);
  CHECK(c.bank == 2);
  // encode undoes decode, for bursts across rows, banks and columns.
  for (std::uint64_t address : {0x0ULL, 0x1400C0ULL, 0xF05C0ULL, 0x123456740ULL, 0xFFFFFFC0ULL}) {
    INFO(address);
    CHECK(mapper.encode(mapper.decode(address)) == address);
  }
  // Row 1 of bank group 0, bank 0 is stored under bank-group bits 1: 0x40000 + 0x40.
  CHECK(mapper.encode(row_one()) == 0x40040);
  // A run still ends where the bank-group bits change: 64 B.
  CHECK(mapper.bytes_to_run_end(0x1400C0) == 64);
}

// HBM2 in pseudo-channel mode with ro,ra,ba,co,bg,ch,pc: 64-bit pseudo-channels of BL 4 = 32-byte
// bursts, offset [4:0], pc [5], ch 3 bits [8:6]; scheduled channel = channel x 2 + pc.
TEST_CASE("DRAM timing: hbm2 pseudo-channel decode", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("hbm2", {"pseudo_channels=2", "address_mapping=ro,ra,ba,co,bg,ch,pc"}));
  CHECK(mapper.burst_bytes() == 32);
  auto c = mapper.decode(0x20);  // 1 << 5: pseudo-channel 1 of channel 0
  CHECK(c.pseudo_channel == 1);
  CHECK(mapper.channel_index(c) == 1);
  c = mapper.decode(0x1E0);  // (7 << 6) + (1 << 5): channel 7, pseudo-channel 1: the 16th, index 15
  CHECK(c.channel == 7);
  CHECK(mapper.channel_index(c) == 15);
  CHECK(mapper.encode(c) == 0x1E0);
}

// Rows start above rank: 6 + 0 + 2 + 7 + 2 + 1 = 18 bits -> 256 KiB to the next row of a bank.
// The bank group is the lowest field with bits, so a run in one bank and row is one burst: 64 B.
TEST_CASE("DRAM timing: ddr4-2400 row stride and run length", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("ddr4-2400"));
  CHECK(mapper.encode(row_one()) == 262144);
  const auto next_row = mapper.decode(262144);
  CHECK(next_row.row == 1);
  CHECK(next_row.rank == 0);
  CHECK(next_row.bank == 0);
  CHECK(next_row.bank_group == 0);
  CHECK(next_row.column == 0);
  CHECK(mapper.bytes_to_run_end(0) == 64);
  CHECK(mapper.bytes_to_run_end(10) == 54);
  CHECK(mapper.bytes_to_run_end(63) == 1);
  CHECK(mapper.bytes_to_run_end(64) == 64);
}

// Consecutive 64-byte bursts rotate over the four bank groups, then move to the next column.
TEST_CASE("DRAM timing: consecutive bursts rotate over bank groups", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("ddr4-2400"));
  for (std::uint64_t i = 0; i < 12; ++i) {
    INFO("burst " << i << " at address " << i * 64);
    const auto c = mapper.decode(i * 64);
    CHECK(c.bank_group == static_cast<std::int64_t>(i % 4));
    CHECK(c.column == static_cast<std::int64_t>(i / 4));
    CHECK(c.bank == 0);
    CHECK(c.rank == 0);
    CHECK(c.row == 0);
  }
}

// address_mapping=ro,ra,bg,ba,ch,co, least significant first: offset [5:0], column [12:6],
// channel 0 bits, bank [14:13], bank group [16:15], rank [17], row [63:18]. The column is the
// lowest field, so a run covers a whole 8 KiB row.
TEST_CASE("DRAM timing: column-lowest mapping keeps a row together", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("ddr4-2400", {"address_mapping=ro,ra,bg,ba,ch,co"}));
  CHECK(mapper.bytes_to_run_end(0) == 8192);
  CHECK(mapper.bytes_to_run_end(100) == 8092);
  CHECK(mapper.bytes_to_run_end(8191) == 1);
  CHECK(mapper.bytes_to_run_end(8192) == 8192);
  CHECK(mapper.encode(row_one()) == 262144);  // 6 + 7 + 0 + 2 + 2 + 1 = 18 bits

  auto c = mapper.decode(64);  // next burst: column 1, same bank
  CHECK(c.column == 1);
  CHECK(c.bank_group == 0);
  CHECK(c.bank == 0);
  c = mapper.decode(8191);  // last burst of the row: column 127
  CHECK(c.column == 127);
  CHECK(c.bank == 0);
  c = mapper.decode(8192);  // 1 << 13: bank 1
  CHECK(c.column == 0);
  CHECK(c.bank == 1);
  CHECK(c.bank_group == 0);
  c = mapper.decode(1 << 15);  // bank group 1
  CHECK(c.bank_group == 1);
  CHECK(c.bank == 0);
  c = mapper.decode(1 << 17);  // rank 1
  CHECK(c.rank == 1);
  CHECK(c.row == 0);
}

// hbm2, ro,ra,ba,co,bg,ch with 8 channels: offset [5:0] (128 bits x BL 4 = 64 B), channel [8:6],
// bank group [10:9], column [15:11] (2048 / 64 = 32), bank [17:16], rank 0 bits, row [63:18].
TEST_CASE("DRAM timing: hbm2 address decode spreads bursts over channels", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("hbm2"));
  CHECK(mapper.burst_bytes() == 64);
  for (std::uint64_t i = 0; i < 8; ++i) CHECK(mapper.decode(i * 64).channel == static_cast<std::int64_t>(i));
  auto c = mapper.decode(512);  // 1 << 9
  CHECK(c.channel == 0);
  CHECK(c.bank_group == 1);
  c = mapper.decode(2048);  // 1 << 11
  CHECK(c.bank_group == 0);
  CHECK(c.column == 1);
  c = mapper.decode(1 << 16);
  CHECK(c.bank == 1);
  CHECK(c.column == 0);
  CHECK(mapper.encode(row_one()) == 262144);  // 6 + 3 + 2 + 5 + 2 + 0 = 18 bits
  CHECK(mapper.decode(262144).row == 1);
  CHECK(mapper.bytes_to_run_end(0) == 64);  // channel is lowest: one burst per run
}

// hbm2 with interleave_bytes 256: the column's low 2 bits (4 bursts of 64 B) at [7:6] under every
// field, then channel [10:8], bank group [12:11], the column's other 3 bits [15:13], bank [17:16],
// row from 18: 256 consecutive bytes stay in one channel, bank and row, then the next channel.
TEST_CASE("DRAM timing: interleave_bytes keeps that many bytes of a row in one channel", "[dram-timing]") {
  const DramAddressMapper mapper(load_dram("hbm2", {"interleave_bytes=256"}));
  for (std::uint64_t i = 0; i < 4; ++i) {
    const auto c = mapper.decode(i * 64);
    CHECK(c.channel == 0);
    CHECK(c.column == static_cast<std::int64_t>(i));
  }
  CHECK(mapper.decode(256).channel == 1);
  CHECK(mapper.decode(256).column == 0);
  CHECK(mapper.decode(2048).bank_group == 1);  // 1 << 11
  auto c = mapper.decode((1 << 13) + 64);      // the column's high bits, and its low
  CHECK(c.column == 5);                        // 1 << 2 | 1
  CHECK(c.channel == 0);
  CHECK(mapper.encode(c) == (1 << 13) + 64);
  CHECK(mapper.encode(row_one()) == 262144);  // still 18 bits below the row
  CHECK(mapper.bytes_to_run_end(0) == 256);
  CHECK(mapper.bytes_to_run_end(200) == 56);
}

// --- The refresh interval must leave a request room (docs/dram-model.md, "Refresh and progress"). ---

TEST_CASE("refresh bound: ddr4-2400 accepts tREFI 508 and refuses 507 and the issue's 421, 441, 481",
          "[dram-timing]") {
  // tREFI >= tRFC + max(tRC, max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP + banks per rank - 1) + tRCD
  //   = 420 + max(56, max(39, 9, 12 + 4 + 18) + 17 + 16 - 1) + 17 = 420 + 71 + 17 = 508.
  const spec::DramSpec accepted = reusesim::config::load_dram("ddr4-2400", {"trefi=508"});
  CHECK(accepted.refresh_bound().busy == 420);
  CHECK(accepted.refresh_bound().slip == 71);
  CHECK(accepted.refresh_bound().min_trefi == 508);
  for (const std::string trefi : {"507", "481", "441", "421"}) {
    const std::string text =
        input_error_text([&] { reusesim::config::load_dram("ddr4-2400", {"trefi=" + trefi}); });
    CHECK_THAT(text, Catch::Contains("trefi: " + trefi + " clocks leaves " + std::to_string(std::stoi(trefi) - 420) +
                                     " after tRFC (420)"));
    CHECK_THAT(text, Catch::Contains("tRFC + 71 + tRCD = 508"));
  }
}

TEST_CASE("refresh bound: hbm2 refuses the issue's tREFI 262 and accepts 337", "[dram-timing]") {
  // 260 + max(48, max(34, 5, 4 + 2 + 16) + 14 + 16 - 1) + 14 = 260 + 63 + 14 = 337.
  CHECK(reusesim::config::load_dram("hbm2", {"trefi=337"}).refresh_bound().min_trefi == 337);
  for (const std::string trefi : {"336", "262"}) {
    CHECK_THAT(input_error_text([&] { reusesim::config::load_dram("hbm2", {"trefi=" + trefi}); }),
               Catch::Contains("needs at least tRFC + 63 + tRCD = 337"));
  }
}

// With per-bank refresh a bank is busy tRFC_pb once per tREFI: tRFC_pb 10,000 > tREFI 9,360 kept
// every bank refreshing, the loader let it through (it compared tREFI with tRFC only) and the run
// ended as an internal error. ddr4-2400's trefi is at line 49, column 8 of its preset.
TEST_CASE("refresh bound: per-bank refresh longer than the refresh interval is refused", "[dram-timing]") {
  CHECK(input_error_text([] {
          reusesim::config::load_dram("ddr4-2400", {"controller.refresh=per_bank", "trfc_pb=10000"});
        }) == "--set trfc_pb=10000: error: trfc_pb: 10000 breaks tREFI > tRFC_pb with trefi 9360 (" +
                  reusesim::config::dram_preset_directory() + "/ddr4-2400.yaml:52:8; needs trefi at least 10001)\n");
}

TEST_CASE("refresh bound: per-bank refresh counts trfc_pb and the other banks' refreshes", "[dram-timing]") {
  // ddr4-2400 with per-bank refresh, trfc_pb 100; the 15 other banks of the rank may each refresh
  // first, max(tRRD_L 6, tFAW 26) = 26 apiece: 390. busy = max(100, 6, 26) + 390 = 490; slip =
  // max(tRC 56, max(39, 9, 34) + 17, 6, 26) + 390 = 446; tREFI >= 490 + 446 + 17 = 953.
  const std::vector<std::string> per_bank{"controller.refresh=per_bank", "trfc_pb=100"};
  std::vector<std::string> at_bound = per_bank;
  at_bound.push_back("trefi=953");
  CHECK(reusesim::config::load_dram("ddr4-2400", at_bound).refresh_bound().min_trefi == 953);
  std::vector<std::string> below = per_bank;
  below.push_back("trefi=952");
  CHECK_THAT(input_error_text([&] { reusesim::config::load_dram("ddr4-2400", below); }),
             Catch::Contains("tFAW) + 446 + tRCD = 953"));
}
