// The DRAM controller core (sim/dram) without SystemC: one test per part, each with the exact
// commands and cycles derived by hand in its comments, and one driving several parts at once.
//
// DDR4-2400 (configs/dram/ddr4-2400.yaml), in clocks: tRCD 17, CL 17, CWL 12, BL/2 4, tCCD_S 4,
// tCCD_L 6, tRRD_S 4, tRRD_L 6, tFAW 26, tRAS 39, tRP 17, tRC 56, tWTR_S 3, tWTR_L 9, tWR 18,
// tRTP 9, tRFC 420, tREFI 9,360. Two ranks, staggered: rank 0's first refresh falls due at
// tREFI / 2 = 4,680, rank 1's at 9,360. Read queue and write queue of 32, drain 24 -> 8.
// A read's data ends CL + BL/2 = 21 after its RD, a write's CWL + BL/2 = 16 after its WR.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "dram/controller.h"
#include "timing/dram_address.h"

using namespace reusesim;

namespace {

constexpr std::int64_t kNever = timing::DramTimingState::kNever;

struct Arrival {
  std::int64_t cycle = 0;
  std::uint64_t address = 0;
  bool is_write = false;
};

// Calls the controller as hw::DramChannel does, without SystemC: the requests arriving at a cycle
// go in first, then advance() runs if that cycle is the one it last named or a request woke it
// (a wake-up asked for during advance() itself is moot: it is running). Records what it hears.
class Driver : public dram::FrontEnd {
 public:
  explicit Driver(const spec::DramSpec& spec) : controller(spec, *this), mapper_(spec) {}

  // `arrivals` in cycle order; stops at `end_cycle` or when nothing is left to happen.
  void run(std::vector<Arrival> arrivals, std::int64_t end_cycle) {
    arrivals_ = std::move(arrivals);
    std::size_t next = 0;
    std::int64_t wake = 0;
    for (std::int64_t now = 0; now <= end_cycle;) {
      for (; next < arrivals_.size() && arrivals_[next].cycle == now; ++next) {
        const Arrival& arrival = arrivals_[next];
        controller.submit(&arrivals_[next], arrival.address, 64, arrival.is_write, now);
      }
      if (woken_ || now >= wake) {
        wake = controller.advance(now);
        woken_ = false;
      }
      now = std::min(next < arrivals_.size() ? arrivals_[next].cycle : kNever, wake);
    }
  }
  // The data end of arrival `index`, or -1 while it has not completed.
  std::int64_t data_end(std::size_t index) const {
    for (const dram::Completion& done : completions) {
      if (done.tag == &arrivals_[index]) return done.data_end_cycle;
    }
    return -1;
  }
  std::size_t index_of(dram::RequestTag tag) const {
    return static_cast<std::size_t>(static_cast<const Arrival*>(tag) - arrivals_.data());
  }
  // The commands as "ACT rank/group/bank:row @cycle" (the row for ACT only), "RD 0/1/0 @17".
  std::vector<std::string> trace(bool columns = true) const {
    std::vector<std::string> lines;
    for (const dram::IssuedCommand& command : commands) {
      const bool column = command.command == timing::DramCommand::read || command.command == timing::DramCommand::write;
      if (column && !columns) continue;
      std::string line = timing::command_name(command.command) + " " + std::to_string(command.bank.rank) + "/" +
                         std::to_string(command.bank.bank_group) + "/" + std::to_string(command.bank.bank);
      if (command.command == timing::DramCommand::activate) line += ":" + std::to_string(command.row);
      lines.push_back(line + " @" + std::to_string(command.cycle));
    }
    return lines;
  }
  std::uint64_t address(std::int64_t rank, std::int64_t bank_group, std::int64_t bank, std::int64_t row,
                        std::int64_t column) const {
    timing::DramCoordinates where;
    where.rank = rank;
    where.bank_group = bank_group;
    where.bank = bank;
    where.row = row;
    where.column = column;
    return mapper_.encode(where);
  }

  dram::Controller controller;
  std::vector<dram::IssuedCommand> commands;
  std::vector<dram::Completion> completions;
  std::vector<dram::RequestTag> accepted;
  std::string stuck_message;

 private:
  void request_accepted(dram::RequestTag tag) override { accepted.push_back(tag); }
  void request_completed(const dram::Completion& done) override { completions.push_back(done); }
  void wake_controller() override { woken_ = true; }
  void controller_idle() override {}
  void controller_stuck(const std::string& message) override { stuck_message = message; }
  void command_issued(const dram::IssuedCommand& command) override { commands.push_back(command); }

  timing::DramAddressMapper mapper_;
  std::vector<Arrival> arrivals_;
  bool woken_ = false;
};

using Trace = std::vector<std::string>;

}  // namespace

TEST_CASE("dram controller: FR-FCFS takes a younger row hit before an older request to another row", "[dram-controller]") {
  const spec::DramSpec spec = config::load_dram("ddr4-2400");
  Driver driver(spec);
  // A opens row 0 of bank 0/0/0: ACT 0, RD 17 (tRCD), data ends 38. At 100 come B (row 1 of the
  // same bank: a conflict) and then C (row 0: a hit). The hit goes first although B is older: RD C
  // at 100 (tCCD_L from 17 and the bus allow it), ends 121. B then closes row 0: PRE at
  // max(tRAS 0 + 39, tRTP 100 + 9) = 109, ACT at max(109 + tRP, tRC 0 + 56) = 126, RD at
  // 126 + tRCD = 143, ends 164.
  driver.run({{0, driver.address(0, 0, 0, 0, 0), false},
              {100, driver.address(0, 0, 0, 1, 0), false},
              {100, driver.address(0, 0, 0, 0, 1), false}},
             1000);
  CHECK(driver.trace() == Trace{"ACT 0/0/0:0 @0", "RD 0/0/0 @17", "RD 0/0/0 @100", "PRE 0/0/0 @109",
                                "ACT 0/0/0:1 @126", "RD 0/0/0 @143"});
  CHECK(driver.data_end(0) == 38);
  CHECK(driver.data_end(2) == 121);
  CHECK(driver.data_end(1) == 164);
  const results::DramChannelStats stats = driver.controller.stats(1000);
  CHECK(stats.row_misses == 1);     // A
  CHECK(stats.row_hits == 1);       // C
  CHECK(stats.row_conflicts == 1);  // B
  CHECK(stats.read_latency.total_cycles() == 38 + (121 - 100) + (164 - 100));
}

namespace {

// Writes W1..W4 to row 0 of bank 0/0/1 (columns 0 to 3), then read R to bank 0/1/0, all at cycle
// 0, with write_drain {high: `high`, low: 2}.
std::unique_ptr<Driver> run_drain_case(std::int64_t high) {
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.write_drain_high = high;
  spec.controller.write_drain_low = 2;
  auto driver = std::make_unique<Driver>(spec);
  std::vector<Arrival> arrivals;
  for (std::int64_t column = 0; column < 4; ++column) arrivals.push_back({0, driver->address(0, 0, 1, 0, column), true});
  arrivals.push_back({0, driver->address(0, 1, 0, 0, 0), false});
  driver->run(arrivals, 1000);
  return driver;
}

}  // namespace

TEST_CASE("dram controller: a write drain starts at the high watermark and stops at the low one", "[dram-controller]") {
  // High 4: four queued writes start a drain at once. W1: ACT 0, WR 17 (data ends 33); W2: WR 23
  // (tCCD_L), ends 39. Two writes are left: the drain stops and R goes: ACT 24 (the next clock),
  // RD at max(24 + tRCD, W2's data end 39 + tWTR_S 3) = 42, ends 63. Then no read waits, so W3 and
  // W4 go (not a drain): WR at 42 + CL 17 + 4 + 2 - CWL 12 = 53 (read to write), ends 69; W4 at
  // max(53 + 6, 69 - CWL) = 59, ends 75.
  const std::unique_ptr<Driver> drained = run_drain_case(4);
  CHECK(drained->trace() == Trace{"ACT 0/0/1:0 @0", "WR 0/0/1 @17", "WR 0/0/1 @23", "ACT 0/1/0:0 @24",
                                  "RD 0/1/0 @42", "WR 0/0/1 @53", "WR 0/0/1 @59"});
  CHECK(drained->data_end(4) == 63);
  CHECK(drained->data_end(3) == 75);
  CHECK(drained->controller.stats(1000).write_drains == 1);
  CHECK(drained->controller.stats(1000).turnarounds == 2);  // WR -> RD -> WR

  // High 5 is never reached: R goes first, ACT 0, RD 17, ends 38; then the writes, as no read
  // waits: ACT 18 (the clock after the RD; tRRD_S allows 4), WR at 18 + tRCD = 35 (read to write
  // allows 28), then tCCD_L apart: 41, 47, 53, the last ending 53 + 16 = 69.
  const std::unique_ptr<Driver> undrained = run_drain_case(5);
  CHECK(undrained->trace() == Trace{"ACT 0/1/0:0 @0", "RD 0/1/0 @17", "ACT 0/0/1:0 @18", "WR 0/0/1 @35",
                                    "WR 0/0/1 @41", "WR 0/0/1 @47", "WR 0/0/1 @53"});
  CHECK(undrained->data_end(4) == 38);
  CHECK(undrained->data_end(3) == 69);
  CHECK(undrained->controller.stats(1000).write_drains == 0);
}

namespace {

// Reads A and B of row 0 of bank 0/0/0 (columns 0 and 1) at 0, C (column 2) at 100.
std::vector<Arrival> page_policy_requests(const Driver& driver) {
  return {{0, driver.address(0, 0, 0, 0, 0), false},
          {0, driver.address(0, 0, 0, 0, 1), false},
          {100, driver.address(0, 0, 0, 0, 2), false}};
}

}  // namespace

TEST_CASE("dram controller: the closed-page policy precharges after the last queued hit", "[dram-controller]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400", {"controller.page_policy=closed"});
  Driver driver(spec);
  // ACT 0, RD A 17, RD B 23 (tCCD_L). After A the bank stays open: B, queued, hits it. After B
  // nothing does: PRE at max(tRAS 0 + 39, tRTP 23 + 9) = 39. C finds the bank closed (a miss, not
  // a conflict: the policy closed it): ACT 100, RD 117, ends 138, PRE at max(100 + 39, 117 + 9) = 139.
  driver.run(page_policy_requests(driver), 1000);
  CHECK(driver.trace() == Trace{"ACT 0/0/0:0 @0", "RD 0/0/0 @17", "RD 0/0/0 @23", "PRE 0/0/0 @39",
                                "ACT 0/0/0:0 @100", "RD 0/0/0 @117", "PRE 0/0/0 @139"});
  const results::DramChannelStats stats = driver.controller.stats(200);
  CHECK(stats.row_misses == 2);
  CHECK(stats.row_hits == 1);
  CHECK(stats.row_conflicts == 0);
  // Active standby: rank 0 had a row open over [0, 39) and [100, 139).
  CHECK(stats.active_rank_cycles == 39 + 39);
}

TEST_CASE("dram controller: the open-page policy keeps the row for a later hit", "[dram-controller]") {
  Driver driver(config::load_dram("ddr4-2400"));
  // As above, but the row stays open: C hits it, RD at 100, and nothing is precharged. Active
  // standby up to cycle 200: rank 0 since 0.
  driver.run(page_policy_requests(driver), 1000);
  CHECK(driver.trace() == Trace{"ACT 0/0/0:0 @0", "RD 0/0/0 @17", "RD 0/0/0 @23", "RD 0/0/0 @100"});
  CHECK(driver.controller.stats(200).active_rank_cycles == 200);
}

TEST_CASE("dram controller: all-bank refresh on schedule, late only until its rank's banks close", "[dram-controller]") {
  Driver driver(config::load_dram("ddr4-2400"));
  // A (rank 0) arrives at 4,670: ACT 4,670; its RD would go at 4,687, but rank 0's refresh falls
  // due at 4,680 and the rank then takes no request command: A's open row must close first, at
  // tRAS 4,670 + 39 = 4,709. B (rank 1, not due) arrives at 4,700: ACT 4,700, RD 4,717, ends
  // 4,738. The refresh goes tRP after the PRE, at 4,726 (46 late: refreshes are never postponed
  // further, nor pulled in), and holds rank 0 for tRFC, to 5,146: A activates again then (a miss:
  // the refresh closed its row), RD 5,163, ends 5,184. Rank 1 falls due at 9,360 with B's row
  // open: PRE 9,360, REF 9,377. Rank 0's next refresh is due tREFI after the last fell due, not
  // after it ran: 4,680 + 9,360 = 14,040: PRE (A's row) 14,040, REF 14,057.
  driver.run({{4670, driver.address(0, 0, 0, 0, 0), false}, {4700, driver.address(1, 0, 0, 0, 0), false}}, 15000);
  CHECK(driver.trace() == Trace{"ACT 0/0/0:0 @4670", "ACT 1/0/0:0 @4700", "PRE 0/0/0 @4709", "RD 1/0/0 @4717",
                                "REF 0/0/0 @4726", "ACT 0/0/0:0 @5146", "RD 0/0/0 @5163", "PRE 1/0/0 @9360",
                                "REF 1/0/0 @9377", "PRE 0/0/0 @14040", "REF 0/0/0 @14057"});
  CHECK(driver.data_end(0) == 5184);
  CHECK(driver.data_end(1) == 4738);
  const results::DramChannelStats stats = driver.controller.stats(15000);
  CHECK(stats.refreshes == 3);
  CHECK(stats.row_misses == 2);
  CHECK(stats.row_conflicts == 0);
}

TEST_CASE("dram controller: a per-bank refresh holds only its own bank", "[dram-controller]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.refresh = spec::RefreshMode::per_bank;
  spec.timing.trfc_pb = 100;
  Driver driver(spec);
  // 32 banks, staggered: bank n falls due at 9,360 (n + 1) / 32: bank 0/0/0 at 292, 0/0/1 at 585,
  // 0/0/2 at 877. X (bank 0/0/1) and then Y (bank 0/0/0) arrive at 585. Bank 0/0/1's refresh is
  // due: it goes at 585, before Y's ACT (a tie: the refresh was weighed first) and X waits for it.
  // Y: ACT at 585 + tRRD_L 6 = 591 (a per-bank refresh is spaced like an ACT), RD 608, ends 629.
  // X: ACT when its bank's refresh ends, 585 + tRFC_pb 100 = 685, RD 702, ends 723.
  driver.run({{585, driver.address(0, 0, 1, 0, 0), false}, {585, driver.address(0, 0, 0, 0, 0), false}}, 1000);
  CHECK(driver.trace() == Trace{"REF 0/0/0 @292", "REF 0/0/1 @585", "ACT 0/0/0:0 @591", "RD 0/0/0 @608",
                                "ACT 0/0/1:0 @685", "RD 0/0/1 @702", "REF 0/0/2 @877"});
  CHECK(driver.data_end(1) == 629);
  CHECK(driver.data_end(0) == 723);
}

TEST_CASE("dram controller: refresh off issues none and leaves an idle controller asleep", "[dram-controller]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.controller.refresh = spec::RefreshMode::off;
  Driver driver(spec);
  driver.run({{0, driver.address(0, 0, 0, 0, 0), false}}, 20000);
  CHECK(driver.trace() == Trace{"ACT 0/0/0:0 @0", "RD 0/0/0 @17"});
  CHECK(driver.controller.advance(20000) == kNever);
}

TEST_CASE("dram controller: the watchdog fires on a request starved by refreshes past its bound", "[dram-controller]") {
  spec::DramSpec spec = config::load_dram("ddr4-2400");
  spec.timing.trefi = 100;
  spec.timing.trfc = 100;
  Driver driver(spec);
  // tRFC = tREFI: a refresh holds its rank until the next falls due. Rank 0 is due at 50, 150, ...
  // and refreshes then; rank 1 at 100, 200, ...: a refresh every 50 clocks. X (rank 0) arrives at
  // 60 and never gets an ACT in. The bound: 2 ranks x (tREFI / max(1, tREFI - tRFC) + 4) = 208
  // refreshes with a request queued and no column command. The one at 50 saw an empty queue; the
  // n-th, at 50 n, is the (n - 1)-th to count, so the 210th, rank 1's at 10,500, passes the bound.
  driver.run({{60, driver.address(0, 0, 0, 0, 0), false}}, 20000);
  REQUIRE(driver.controller.stuck());
  CHECK(driver.stuck_message ==
        "208 refreshes went by without a read or write while requests waited: tREFI 100 leaves too little time between "
        "refreshes (docs/dram-model.md)");
  CHECK(driver.commands.size() == 210);
  CHECK(driver.trace().back() == "REF 1/0/0 @10500");
  CHECK(driver.controller.stats(20000).activates == 0);
  // Stuck: it never issues another command.
  CHECK(driver.controller.advance(20000) == kNever);
  CHECK(driver.commands.size() == 210);
}

TEST_CASE("dram controller: two requesters, a refresh inside a burst train and a write drain", "[dram-controller]") {
  Driver driver(config::load_dram("ddr4-2400"));
  // Requester 1: 64 reads R0..R63 at 4,600, sequential from address 0 (rank 0, row 0 of bank 0 in
  // each of the 4 bank groups, Rk in group k mod 4, column k / 4). The read queue takes 32; the rest
  // wait and come in one per completion, in order. Requester 2: 24 writes W0..W23 at 4,700, the same
  // in rank 1 (address bit 17).
  std::vector<Arrival> arrivals;
  for (std::uint64_t k = 0; k < 64; ++k) arrivals.push_back({4600, 64 * k, false});
  for (std::uint64_t k = 0; k < 24; ++k) arrivals.push_back({4700, (std::uint64_t{1} << 17) + 64 * k, true});
  driver.run(arrivals, 6000);
  // The train: ACT per group tRRD_S apart (4,600 .. 4,612), Rk's RD at 4,617 + 4k (tCCD_S across
  // groups, the bus busy BL/2 = 4 per burst). Rank 0's refresh falls due at 4,680 after R15's RD
  // at 4,677: the 4 banks close one PRE per clock, each tRTP after its last RD: 4,680 (R12 at
  // 4,665), 4,681, 4,682 (R14 at 4,673), 4,686 (R15 at 4,677); REF tRP after the last, 4,703,
  // busy to 4,703 + tRFC 420 = 5,123.
  // At 4,700 the 24 writes reach the high watermark: a drain. Rank 1 is free: ACT 4,700 (the REF
  // goes between, at 4,703), 4,704, 4,708, 4,712; Wk's WR at 4,700 + tRCD + 4k = 4,717 + 4k
  // (rank switch and read-to-write from R15 allow 4,688). After W15, 8 writes are left: the drain
  // ends and the reads have priority again, though rank 0 is busy refreshing until 5,123: ACT
  // 5,123 .. 5,135, Rk's RD at 5,140 + 4 (k - 16), R63 at 5,328. No read is left: the last 8 writes
  // go (not a drain), W16 read-to-write after R63: 5,328 + 17 + 4 + 2 - 12 = 5,339, then 4 apart.
  CHECK(driver.trace(false) == Trace{"ACT 0/0/0:0 @4600", "ACT 0/1/0:0 @4604", "ACT 0/2/0:0 @4608",
                                     "ACT 0/3/0:0 @4612", "PRE 0/0/0 @4680", "PRE 0/1/0 @4681", "PRE 0/2/0 @4682",
                                     "PRE 0/3/0 @4686", "ACT 1/0/0:0 @4700", "REF 0/0/0 @4703", "ACT 1/1/0:0 @4704",
                                     "ACT 1/2/0:0 @4708", "ACT 1/3/0:0 @4712", "ACT 0/0/0:0 @5123",
                                     "ACT 0/1/0:0 @5127", "ACT 0/2/0:0 @5131", "ACT 0/3/0:0 @5135"});
  for (std::int64_t k = 0; k < 64; ++k) {
    const std::int64_t rd = k < 16 ? 4617 + 4 * k : 5140 + 4 * (k - 16);
    INFO("R" << k);
    CHECK(driver.data_end(static_cast<std::size_t>(k)) == rd + 21);
  }
  for (std::int64_t k = 0; k < 24; ++k) {
    const std::int64_t wr = k < 16 ? 4717 + 4 * k : 5339 + 4 * (k - 16);
    INFO("W" << k);
    CHECK(driver.data_end(static_cast<std::size_t>(64 + k)) == wr + 16);
  }
  // The waiting reads came in oldest first, R32..R63.
  REQUIRE(driver.accepted.size() == 32);
  for (std::size_t i = 0; i < driver.accepted.size(); ++i) CHECK(driver.index_of(driver.accepted[i]) == 32 + i);
  const results::DramChannelStats stats = driver.controller.stats(6000);
  CHECK(stats.activates == 12);
  CHECK(stats.precharges == 4);
  CHECK(stats.refreshes == 1);
  CHECK(stats.row_misses == 12);  // the first column after each ACT: R0..R3, W0..W3, R16..R19
  CHECK(stats.row_hits == 64 + 24 - 12);
  CHECK(stats.row_conflicts == 0);
  CHECK(stats.turnarounds == 3);  // R15 -> W0, W15 -> R16, R63 -> W16
  CHECK(stats.write_drains == 1);
  CHECK(driver.controller.last_data_end() == 5367 + 16);
  CHECK(driver.controller.idle());
}
