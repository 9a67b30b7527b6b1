// The DRAM controller's command stream, whole, on traffic built to stress what its speed-ups skip
// (docs/performance.md, "Exact path"): the scheduler revisits only the banks that changed since its
// last pass and keeps the other banks' candidates and earliest cycles. Each pattern's stream (every
// command with its bank, row and cycle, every completion with its data end) is reduced to a 64-bit
// FNV-1a digest and compared with the digest the controller gave before those speed-ups (main at
// ddd6250, full passes over every queue at every change); a difference in any command or cycle
// changes it. `reusesim_unit_tests "[.dram-stream-dump]"` prints each pattern's digest and its
// first commands, to record new ones deliberately when the model's timing changes on purpose.
//
// The requesters are closed loops, as DMA lanes are: each keeps a number of requests in flight and
// sends the next one when an answer arrives (a posted write is answered when it is queued), so that
// arrivals depend on the controller's own decisions, as they do in a simulation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "config/accelerator_loader.h"
#include "dram/controller.h"
#include "timing/dram_address.h"

using namespace reusesim;

namespace {

constexpr std::int64_t kNever = timing::DramTimingState::kNever;

// What one requester sends: a stream of addresses (in bursts of its own pattern) and writes or reads.
struct Requester {
  enum class Pattern { sequential, random, two_rows, strided };
  Pattern pattern = Pattern::sequential;
  std::uint64_t base = 0;  // first address (sequential, strided) or the rows' bank (two_rows)
  std::uint64_t stride_bytes = 64;
  int write_every = 0;  // every n-th request is a write (0: none; 1: all)
  int in_flight = 1;
  std::int64_t requests = 0;  // to send in all
};

// Drives a controller as hw::DramChannel does (requests arriving at a cycle go in first, then
// advance() if it named that cycle or was woken), with closed-loop requesters, and digests
// everything the front end hears.
class StreamDigest : public dram::FrontEnd {
 public:
  StreamDigest(const spec::DramSpec& spec, std::vector<Requester> requesters)
      : controller_(spec, *this), mapper_(spec), requesters_(std::move(requesters)) {
    state_.resize(requesters_.size());
  }

  void run() {
    for (std::size_t r = 0; r < requesters_.size(); ++r) {
      for (int i = 0; i < requesters_[r].in_flight; ++i) arrivals_.push_back({0, r});
    }
    std::int64_t wake = 0;
    now_ = 0;
    while (true) {
      // Requests due by now, in the order they were scheduled (answers during advance() may add
      // some due now: they go in next, and the controller runs again if they woke it).
      bool sent = false;
      for (std::size_t i = 0; i < arrivals_.size();) {
        if (arrivals_[i].cycle > now_) {
          ++i;
          continue;
        }
        const std::size_t requester = arrivals_[i].requester;
        arrivals_.erase(arrivals_.begin() + static_cast<std::ptrdiff_t>(i));
        send(requester);
        sent = true;
      }
      if (woken_ || now_ >= wake) {
        woken_ = false;
        wake = controller_.advance(now_);
        continue;  // answers may have brought requests due now
      }
      if (sent) continue;
      std::int64_t next = wake;
      for (const Arrival& arrival : arrivals_) next = std::min(next, arrival.cycle);
      if (arrivals_.empty() && controller_.idle() && all_sent()) break;  // refreshes alone go on forever
      REQUIRE(next != kNever);
      REQUIRE(now_ < 100'000'000);  // a bound: the patterns end long before
      now_ = next;
    }
    add(static_cast<std::uint64_t>(controller_.last_data_end()));
    stats_ = controller_.stats(now_);
  }
  const results::DramChannelStats& stats() const { return stats_; }
  std::uint64_t digest() const { return hash_; }
  std::int64_t commands() const { return commands_; }
  std::int64_t completed() const { return completed_; }
  const std::vector<std::string>& first_lines() const { return first_lines_; }

 private:
  struct Arrival {
    std::int64_t cycle = 0;
    std::size_t requester = 0;
  };
  struct RequesterState {
    std::int64_t sent = 0;
    std::uint64_t random = 0x9e3779b97f4a7c15ULL;
  };
  struct Tag {
    std::size_t requester = 0;
    bool is_write = false;
  };

  bool all_sent() const {
    for (std::size_t r = 0; r < requesters_.size(); ++r) {
      if (state_[r].sent < requesters_[r].requests) return false;
    }
    return true;
  }

  std::uint64_t next_address(std::size_t r) {
    const Requester& requester = requesters_[r];
    RequesterState& state = state_[r];
    const auto n = static_cast<std::uint64_t>(state.sent);
    switch (requester.pattern) {
      case Requester::Pattern::sequential:
        return requester.base + n * 64;
      case Requester::Pattern::strided:
        return requester.base + n * requester.stride_bytes;
      case Requester::Pattern::two_rows: {
        // Alternates between two rows of one bank, a few bursts each: row hits, then conflicts.
        timing::DramCoordinates where = mapper_.decode(requester.base);
        where.row += static_cast<std::int64_t>((n / 3) % 2);
        where.column = static_cast<std::int64_t>(n % 8);
        return mapper_.encode(where);
      }
      default: {
        state.random = state.random * 6364136223846793005ULL + 1442695040888963407ULL;
        return (state.random >> 20) % (std::uint64_t{1} << 30) / 64 * 64;
      }
    }
  }

  void send(std::size_t r) {
    const Requester& requester = requesters_[r];
    RequesterState& state = state_[r];
    if (state.sent >= requester.requests) return;
    const bool is_write = requester.write_every > 0 && state.sent % requester.write_every == 0;
    const std::uint64_t address = next_address(r);
    ++state.sent;
    tags_.push_back(std::make_unique<Tag>(Tag{r, is_write}));
    const bool taken = controller_.submit(tags_.back().get(), address, 64, is_write, now_);
    // A posted write is answered on arrival (or when a full queue takes it): its requester goes on.
    if (taken && is_write && controller_.posted_writes()) arrivals_.push_back({now_, r});
  }

  void add(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (value >> (8 * i)) & 0xff;
      hash_ *= 0x100000001b3ULL;
    }
  }

  void request_accepted(dram::RequestTag tag) override {
    const auto& request = *static_cast<const Tag*>(tag);
    add(0xacce97ed);
    add(request.requester);
    if (request.is_write && controller_.posted_writes()) arrivals_.push_back({now_, request.requester});
  }
  void request_completed(const dram::Completion& done) override {
    ++completed_;
    add(static_cast<std::uint64_t>(done.data_end_cycle));
    add(static_cast<std::uint64_t>(done.arrival_cycle));
    if (done.tag != nullptr) arrivals_.push_back({done.data_end_cycle, static_cast<const Tag*>(done.tag)->requester});
  }
  void wake_controller() override { woken_ = true; }
  void controller_idle() override {}
  void controller_stuck(const std::string& message) override { FAIL(message); }
  void command_issued(const dram::IssuedCommand& command) override {
    ++commands_;
    add(static_cast<std::uint64_t>(command.command));
    add(static_cast<std::uint64_t>(command.bank.rank * 64 + command.bank.bank_group * 8 + command.bank.bank));
    add(static_cast<std::uint64_t>(command.row));
    add(static_cast<std::uint64_t>(command.cycle));
    if (first_lines_.size() < 12) {
      first_lines_.push_back(timing::command_name(command.command) + " " + std::to_string(command.bank.rank) + "/" +
                             std::to_string(command.bank.bank_group) + "/" + std::to_string(command.bank.bank) + ":" +
                             std::to_string(command.row) + " @" + std::to_string(command.cycle));
    }
  }

  dram::Controller controller_;
  timing::DramAddressMapper mapper_;
  std::vector<Requester> requesters_;
  std::vector<RequesterState> state_;
  std::vector<Arrival> arrivals_;
  std::vector<std::unique_ptr<Tag>> tags_;
  bool woken_ = false;
  std::int64_t now_ = 0;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::int64_t commands_ = 0;
  std::int64_t completed_ = 0;
  std::vector<std::string> first_lines_;
  results::DramChannelStats stats_;
};

struct Case {
  std::string name;
  spec::DramSpec spec;
  std::vector<Requester> requesters;
  std::uint64_t digest;  // recorded before the speed-ups (see the top of the file)
  std::int64_t commands;
  // What the pattern is there to stress happened: at least this many of each.
  std::int64_t refreshes;
  std::int64_t write_drains;
  std::int64_t row_conflicts;
};

using P = Requester::Pattern;

spec::DramSpec with(spec::DramSpec spec, void (*change)(spec::DramSpec&)) {
  change(spec);
  return spec;
}

std::vector<Case> cases() {
  const spec::DramSpec ddr4 = config::load_dram("ddr4-2400");
  const spec::DramSpec hbm2 = config::load_dram("hbm2");
  const spec::DramSpec lpddr5 = config::load_dram("lpddr5-6400");
  return {
      // Several requesters interleaving: a sequential stream, two rows of one bank taking turns
      // (hits, then a conflict that must wait for the hits), random reads, and strided writes.
      {"interleaved requesters",
       ddr4,
       {{P::sequential, 0, 64, 0, 8, 3000},
        {P::two_rows, 1 << 20, 64, 0, 4, 1500},
        {P::random, 0, 64, 0, 6, 1500},
        {P::strided, 1 << 24, 8192, 1, 4, 800}},
       0xe84d23db78da85ce,
       11636,
       1,
       0,
       1000},
      // A burst train long enough to cross several refreshes of both ranks (tREFI 9,360 clocks,
      // staggered): the refresh closes the train's row, blocks its banks, and the train reopens it.
      {"refresh inside a burst train",
       ddr4,
       {{P::sequential, 0, 64, 0, 16, 40000}},
       0x43e9e827628d70b8,
       40785,
       30,
       0,
       0},
      // Reads with every third request a write, 24 queued writes start a drain down to 8: the kind
      // served flips back and forth, with row hits of the other kind in the way.
      {"write drains",
       ddr4,
       {{P::sequential, 0, 64, 3, 24, 6000}, {P::random, 0, 64, 2, 16, 3000}},
       0x5b573393cc6813f1,
       15193,
       1,
       50,
       1000},
      // The same with posted writes (answered when queued) and the drain to empty when the queue fills.
      {"posted writes drained when full",
       with(ddr4,
            [](spec::DramSpec& s) {
              s.controller.posted_writes = true;
              s.controller.write_drain = spec::WriteDrainPolicy::drain_all;
            }),
       {{P::sequential, 0, 64, 2, 24, 6000}, {P::random, 0, 64, 2, 8, 2000}},
       0xe9abb2272e377ab7,
       12303,
       1,
       50,
       1000},
      // Per-bank command queues of 2 (every pass is a full one there: requests move into them
      // without a change the scheduler hears of), closed page, many requests to one bank.
      {"command queues and closed page",
       with(ddr4,
            [](spec::DramSpec& s) {
              s.controller.command_queue_depth = 2;
              s.controller.page_policy = spec::PagePolicy::closed;
            }),
       {{P::sequential, 0, 64, 4, 16, 3000}, {P::two_rows, 1 << 20, 64, 3, 12, 3000}, {P::random, 0, 64, 0, 8, 1000}},
       0xb7fdde620e18313d,
       13269,
       1,
       0,
       0},
      // Closed page without command queues: the passes stay incremental, and the page policy closes
      // a row only when no queued request kept by the last pass hits it.
      {"closed page",
       with(ddr4, [](spec::DramSpec& s) { s.controller.page_policy = spec::PagePolicy::closed; }),
       {{P::sequential, 0, 64, 5, 8, 3000}, {P::two_rows, 1 << 20, 64, 0, 6, 2000}, {P::random, 0, 64, 3, 6, 1500}},
       0x34aa0e491b0b4b95,
       10800,
       1,
       0,
       0},
      // HBM2 pseudo-channel traffic: short queues, the read queue running dry between answers.
      {"hbm2 streams",
       hbm2,
       {{P::sequential, 0, 64, 0, 4, 20000}, {P::strided, 1 << 26, 4096, 5, 2, 4000}},
       0xb954a67c5e892ed5,
       25017,
       1,
       0,
       100},
      // LPDDR5 with per-bank refresh: a bank at a time is blocked while the others serve.
      {"per-bank refresh",
       with(lpddr5, [](spec::DramSpec& s) { s.controller.refresh = spec::RefreshMode::per_bank; }),
       {{P::sequential, 0, 64, 0, 12, 20000}, {P::random, 0, 64, 4, 8, 4000}},
       0x43f4fa7924b3e9cd,
       57483,
       500,
       0,
       1000},
  };
}

}  // namespace

TEST_CASE("dram controller: every command and answer as before the scheduler kept its candidates", "[dram-exactness]") {
  for (const Case& c : cases()) {
    SECTION(c.name) {
      StreamDigest stream(c.spec, c.requesters);
      stream.run();
      CHECK(stream.commands() == c.commands);
      CHECK(stream.digest() == c.digest);
      CHECK(stream.stats().refreshes >= c.refreshes);
      CHECK(stream.stats().write_drains >= c.write_drains);
      CHECK(stream.stats().row_conflicts >= c.row_conflicts);
    }
  }
}

TEST_CASE("dram controller: print each pattern's digest", "[.dram-stream-dump]") {
  for (const Case& c : cases()) {
    StreamDigest stream(c.spec, c.requesters);
    stream.run();
    std::cout << c.name << ": digest 0x" << std::hex << stream.digest() << std::dec << ", " << stream.commands()
              << " commands, " << stream.completed() << " answers, " << stream.stats().refreshes << " refreshes, "
              << stream.stats().write_drains << " write drains, " << stream.stats().row_conflicts << " row conflicts\n";
    for (const std::string& line : stream.first_lines()) std::cout << "  " << line << "\n";
  }
}
