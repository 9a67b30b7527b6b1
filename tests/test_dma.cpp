// The DMA engine: a tag out of range is reported, not used as an index; requests go out per
// channel and direction, so a full queue in one channel holds back no other (exact DRAM clocks).
#include <catch2/catch.hpp>

#include <systemc>

#include "config/accelerator_loader.h"
#include "hw/dma_engine.h"
#include "hw/dram_system.h"
#include "hw/systemc_compat.h"
#include "spec/memory_request.h"

using namespace reusesim;
using Catch::Matchers::Contains;

TEST_CASE("dma: a tag out of range is an SC_ERROR and queues nothing", "[dma]") {
  const timing::DramAddressMapper mapper(config::load_dram("ddr4-2400"));
  hw::DmaEngine dma("dma_tags", mapper, 4, 0);
  CHECK(dma.completed_bytes(0) == 0);
  CHECK(dma.completed_bytes(hw::kDmaTags - 1) == 0);
  CHECK_THROWS_WITH(dma.completed_bytes(hw::kDmaTags), Contains("DMA tag 2 is not one of 0 to 1"));
  CHECK_THROWS_WITH(dma.completed_bytes(-1), Contains("DMA tag -1"));
  hw::DmaTransfer transfer;
  transfer.bytes = 64;
  transfer.tag = hw::kDmaTags;
  CHECK_THROWS_WITH(dma.submit(transfer), Contains("DMA tag 2"));
  CHECK(dma.idle());
  CHECK(dma.stats().transfers == 0);
}

namespace {

// One 64-byte transfer per request, submitted in order at time 0 to a DMA engine in front of a
// DRAM system; `done` gets the DRAM clock at which each transfer completed.
struct Requester : sc_core::sc_module {
  Requester(sc_core::sc_module_name name, const spec::DramSpec& spec, std::vector<spec::MemoryRequest> to_submit,
            std::int64_t outstanding)
      : sc_core::sc_module(name),
        dram("dram", spec),
        dma("dma", dram.mapper(), outstanding, 0),
        requests(std::move(to_submit)),
        done(requests.size(), -1) {
    REUSESIM_HAS_PROCESS(Requester);
    dma.socket.bind(dram.socket);
    SC_THREAD(submit_all);
  }
  void submit_all() {
    const sc_core::sc_time period = dram.channels()[0].clock_period();
    for (std::size_t i = 0; i < requests.size(); ++i) {
      dma.submit(hw::DmaTransfer{requests[i].address, 64, requests[i].is_write, sc_core::SC_ZERO_TIME, 0},
                 [this, period, i](const hw::DmaEngine::Done&) {
                   done[i] = static_cast<std::int64_t>(sc_core::sc_time_stamp() / period + 0.5);
                 });
    }
  }
  hw::DramSystem dram;
  hw::DmaEngine dma;
  std::vector<spec::MemoryRequest> requests;
  std::vector<std::int64_t> done;
};

std::vector<std::int64_t> completion_cycles(const spec::DramSpec& spec, std::vector<spec::MemoryRequest> requests,
                                            std::int64_t outstanding) {
  Requester requester("requester", spec, std::move(requests), outstanding);
  // Channels wake for their refreshes forever: run for 1 us, long after these requests are done.
  sc_core::sc_start(1, sc_core::SC_US);
  return requester.done;
}

// hbm2 (tCK 1 ns; ro,ra,ba,co,bg,ch: burst 64 B, channel bits 6-8, bank group 9-10, column
// 11-15, bank 16-17, row from 18): tRCD 14, CL 14, CWL 4, BL/2 2, tRAS 34, tRP 14, tRC 48, tRTP 5,
// tCCD_L 2; the first refresh falls due at 3,900, after everything here.
constexpr std::uint64_t kRow1 = std::uint64_t{1} << 18, kRow2 = std::uint64_t{2} << 18;
constexpr std::uint64_t kChannel1 = 0x40, kBankGroup1 = 0x200, kColumn1 = 0x800;

}  // namespace

TEST_CASE("dma: a request its channel refuses holds back only that channel's requests", "[dma]") {
  // A read queue of one. In order: A (channel 0, bank 0, row 0), B (row 1: a conflict), D (row 2),
  // C (channel 1). Channel 0: A ACT 0, RD 14, done 14 + CL 14 + BL/2 2 = 30; B, refused at 0, is
  // taken when A's RD is scheduled (at 0): PRE at max(tRAS 34, 14 + tRTP) = 34, ACT max(34 + tRP,
  // tRC 48) = 48, RD 62, done 78; D, refused until B's RD is scheduled (at 34): PRE max(48 + tRAS,
  // 62 + tRTP) = 82, ACT max(82 + tRP, 48 + tRC) = 96, RD 110, done 126. C goes to the idle
  // channel 1 at 0: ACT 0, RD 14, done 30. Issued in order, C would wait behind D until 34 and
  // finish at 34 + 30 = 64.
  spec::DramSpec spec = config::load_dram("hbm2");
  spec.controller.read_queue_depth = 1;
  const std::vector<std::int64_t> done =
      completion_cycles(spec, {{0, false, 0}, {kRow1, false, 0}, {kRow2, false, 0}, {kChannel1, false, 0}}, 4);
  CHECK(done == std::vector<std::int64_t>{30, 78, 126, 30});
}

TEST_CASE("dma: a write its channel refuses holds back no read to the same channel", "[dma]") {
  // A write queue of one, channel 0. In order: W1 (bank group 0, row 0), W2 (the same row, next
  // column), R (bank group 1). W2 is refused (W1 queued); R goes at 0. Reads go first (no drain):
  // R ACT 0, RD 14, done 30 (an idle miss: tRCD + CL + BL/2). Then W1 (the command bus free from
  // 15): ACT 15, WR at max(15 + tRCD, read-to-write 14 + CL 14 + BL/2 2 + 2 - CWL 4 = 28) = 29,
  // done 29 + CWL 4 + BL/2 2 = 35; W2, taken when W1's WR is scheduled, WR at 29 + tCCD_L 2 = 31,
  // done 37. Issued in order, R would wait until W2 is taken; both writes (the only requests
  // queued) would go first, W1 done at 14 + 4 + 2 = 20 and W2 at 22, and R at 47.
  spec::DramSpec spec = config::load_dram("hbm2");
  spec.controller.write_queue_depth = 1;
  const std::vector<std::int64_t> done =
      completion_cycles(spec, {{0, true, 0}, {kColumn1, true, 0}, {kBankGroup1, false, 0}}, 3);
  CHECK(done == std::vector<std::int64_t>{35, 37, 30});
}
