// The fast memory's timing core (docs/performance.md, "Fast mode") without SystemC: the closed-form
// split of a transfer over the channels, the channel servers with hand-set rates, and the
// calibration on the exact controller.
//
// HBM2 (configs/dram/hbm2.yaml): 8 channels of 128 bits, BL 4, so 64-byte bursts (2 clocks of data
// bus each); mapping ro,ra,ba,co,bg,ch: the channel is the lowest field (address bits 6-8), so a
// row run is one burst and consecutive bursts go round the 8 channels. tRCD 14, CL 14.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "config/accelerator_loader.h"
#include "dram/flow_model.h"
#include "timing/dram_address.h"
#include "timing/dram_interleave.h"

using namespace reusesim;

namespace {

// The split as an exact DMA engine makes it: request by request (row runs), burst by burst.
std::vector<timing::ChannelShare> split_by_runs(const spec::DramSpec& spec, std::uint64_t address,
                                                std::uint64_t bytes) {
  const timing::DramAddressMapper mapper(spec);
  std::vector<timing::ChannelShare> shares(static_cast<std::size_t>(spec.scheduled_channels()));
  const std::uint64_t burst = mapper.burst_bytes();
  const std::uint64_t end = (address + bytes + burst - 1) / burst * burst;
  for (std::uint64_t at = address / burst * burst; at < end;) {
    const std::uint64_t piece = std::min(end - at, mapper.bytes_to_run_end(at));
    timing::ChannelShare& share = shares[static_cast<std::size_t>(mapper.channel_index(mapper.decode(at)))];
    ++share.requests;
    share.bursts += static_cast<std::int64_t>(piece / burst);
    at += piece;
  }
  return shares;
}

void check_same(const std::vector<timing::ChannelShare>& a, const std::vector<timing::ChannelShare>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t c = 0; c < a.size(); ++c) {
    CHECK(a[c].bursts == b[c].bursts);
    CHECK(a[c].requests == b[c].requests);
  }
}

dram::FlowCalibration hand_calibration() {
  dram::FlowCalibration calibration;
  calibration.cycles_per_burst[dram::kFlowRead] = 2.0;
  calibration.cycles_per_burst[dram::kFlowWrite] = 3.0;
  calibration.cycles_per_burst[dram::kFlowMixed] = 4.0;
  calibration.latency_cycles[0] = 20.0;
  calibration.latency_cycles[1] = 10.0;
  return calibration;
}

}  // namespace

TEST_CASE("fast memory interleave: bursts over the channels by hand", "[flow]") {
  const timing::ChannelInterleave interleave(config::load_dram("hbm2"));
  std::vector<timing::ChannelShare> shares;
  // [0, 1024): 16 bursts, round the 8 channels twice: 2 each, each burst its own row run.
  interleave.split(0, 1024, shares);
  REQUIRE(shares.size() == 8);
  for (const timing::ChannelShare& share : shares) {
    CHECK(share.bursts == 2);
    CHECK(share.requests == 2);
  }
  // [64, 704): bursts 1 to 10: channels 1-7 take bursts 1-7, then 8, 9, 10 go to channels 0, 1, 2.
  interleave.split(64, 640, shares);
  const std::vector<std::int64_t> expected{1, 2, 2, 1, 1, 1, 1, 1};
  for (std::size_t c = 0; c < 8; ++c) CHECK(shares[c].bursts == expected[c]);
  // A partial burst at each end is widened to whole bursts, as the DMA engine widens: [100, 130)
  // touches bursts 1 and 2 (bytes 64-191).
  interleave.split(100, 30, shares);
  CHECK(shares[1].bursts == 1);
  CHECK(shares[2].bursts == 1);
  CHECK(shares[0].bursts == 0);
}

TEST_CASE("fast memory interleave: the closed form equals a request-by-request split", "[flow]") {
  // Channels lowest (every shipped map), pseudo-channels, columns lowest (row runs of many
  // bursts), a channel mapped above the row (beyond bit 63: every address on channel 0, as the
  // mapper decodes it), the row lowest (runs of one burst) and a 256-byte interleave.
  const std::vector<spec::DramSpec> specs{config::load_dram("hbm2"),
                                          config::load_dram("hbm3"),
                                          config::load_dram("ddr4-2400"),
                                          config::load_dram("hbm2", {"address_mapping=ro,ra,ba,bg,ch,co"}),
                                          config::load_dram("hbm3", {"address_mapping=ro,ch,ra,ba,bg,co,pc"}),
                                          config::load_dram("hbm2", {"address_mapping=ch,ro,ra,ba,co,bg"}),
                                          config::load_dram("hbm3", {"address_mapping=pc,ra,ba,co,bg,ch,ro"}),
                                          config::load_dram("hbm2e", {"interleave_bytes=256"})};
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges{{0, 1},
                                                                    {0, 64 * 1024},
                                                                    {4096 + 17, 200000},
                                                                    {(std::uint64_t{1} << 30) - 100, 3 * 65536 + 5},
                                                                    {123456789, 777777}};
  for (const spec::DramSpec& spec : specs) {
    const timing::ChannelInterleave interleave(spec);
    std::vector<timing::ChannelShare> shares;
    for (const auto& [address, bytes] : ranges) {
      INFO(spec.name << " [" << address << ", +" << bytes << ")");
      interleave.split(address, bytes, shares);
      check_same(shares, split_by_runs(spec, address, bytes));
    }
  }
}

TEST_CASE("fast memory interleave: count_below counts a bit pattern below a limit", "[flow]") {
  // x < 16 with bit 1 set: 2, 3, 6, 7, 10, 11, 14, 15.
  CHECK(timing::ChannelInterleave::count_below(16, 0b10, 0b10) == 8);
  // x < 11 with bits 0 and 2 clear: 0, 2, 8, 10.
  CHECK(timing::ChannelInterleave::count_below(11, 0b101, 0) == 4);
  // Limit 10 leaves out 10 itself: 0, 2, 8.
  CHECK(timing::ChannelInterleave::count_below(10, 0b101, 0) == 3);
}

TEST_CASE("fast memory servers: a stream of N bursts on one idle channel", "[flow]") {
  dram::FlowChannels channels(2, hand_calibration(), 24);
  // 100 bursts at 2 clocks apiece from cycle 10: data ends at 10 + 200 = 210, answered 20 later.
  const dram::FlowChannels::Served served = channels.serve(10, {{100, 100}, {0, 0}}, false);
  CHECK(served.data_end == Approx(210));
  CHECK(served.answer == Approx(230));
  CHECK_FALSE(served.queued);
  CHECK(channels.bursts(0, dram::kFlowRead) == 100);
  CHECK(channels.busy_until() == Approx(210));
}

TEST_CASE("fast memory servers: two transfers contend on the channel they share", "[flow]") {
  dram::FlowChannels channels(2, hand_calibration(), 24);
  // A: 100 bursts on channel 0 from 0, ends at 200. B arrives at 50 with 50 bursts on channel 0
  // and 10 on channel 1: channel 0 takes them after A, 200 + 100 = 300; channel 1 at once, 50 + 20.
  channels.serve(0, {{100, 100}, {0, 0}}, false);
  const dram::FlowChannels::Served b = channels.serve(50, {{50, 50}, {10, 10}}, false);
  CHECK(b.queued);
  CHECK(b.data_end == Approx(300));
  CHECK(channels.busy_until() == Approx(300));
}

TEST_CASE("fast memory servers: a transfer interleaved over channels ends with its slowest", "[flow]") {
  dram::FlowChannels channels(4, hand_calibration(), 24);
  // 10, 30, 0 and 20 bursts at 2 clocks: the channels end at 20, 60, -, 40; the transfer at 60.
  const dram::FlowChannels::Served served = channels.serve(0, {{10, 10}, {30, 30}, {0, 0}, {20, 20}}, false);
  CHECK(served.data_end == Approx(60));
  CHECK(served.answer == Approx(80));
}

TEST_CASE("fast memory servers: writes wait for the reads, reads among writes take the mixed rate", "[flow]") {
  dram::FlowChannels channels(1, hand_calibration(), 24);
  // Writes to an idle channel go at once: 100 bursts at 3 from 0, to 300, answered 10 later.
  channels.submit_write(0, {{100, 100}});
  const std::vector<dram::FlowChannels::FinishedWrite> first = channels.finished_writes();
  REQUIRE(first.size() == 1);
  CHECK(first[0].served.data_end == Approx(300));
  CHECK(first[0].served.answer == Approx(310));
  // A read of 10 bursts at 100 finds the channel writing: after the writes, at the mixed 4 apiece:
  // 300 + 40 = 340, answered 20 later.
  const dram::FlowChannels::Served read = channels.serve(100, {{10, 10}}, false);
  CHECK(read.data_end == Approx(340));
  CHECK(read.answer == Approx(360));
  CHECK(channels.bursts(0, dram::kFlowMixed) == 10);
  // A write arriving at 350, the channel idle since 340, reads done: at once, 350 + 3 x 2 = 356.
  channels.submit_write(350, {{2, 2}});
  CHECK(channels.finished_writes().at(0).served.data_end == Approx(356));
  channels.restart();
  CHECK(channels.busy_until() == Approx(0));
}

TEST_CASE("fast memory servers: a write waits until the channel's reads run out", "[flow]") {
  dram::FlowChannels channels(1, hand_calibration(), 24);
  // Reads of 100 bursts from 0 keep the channel to 200. A write of 5 bursts at 50 waits; a read of
  // 10 bursts at 60 passes it (reads first): the reads end at 200 + 10 x 2 = 220.
  channels.serve(0, {{100, 100}}, false);
  const std::uint64_t write = channels.submit_write(50, {{5, 5}});
  CHECK(channels.finished_writes().empty());
  CHECK(channels.next_drain() == Approx(200));
  CHECK(channels.serve(60, {{10, 10}}, false).data_end == Approx(220));
  CHECK(channels.next_drain() == Approx(220));
  // At 220 the reads have run out: the write goes, 220 + 5 x 3 = 235 (the reads it waited behind
  // are over: the write rate), answered at 245.
  channels.drain(219);
  CHECK(channels.finished_writes().empty());
  channels.drain(220);
  const std::vector<dram::FlowChannels::FinishedWrite> finished = channels.finished_writes();
  REQUIRE(finished.size() == 1);
  CHECK(finished[0].id == write);
  CHECK(finished[0].served.data_end == Approx(235));
  CHECK(finished[0].served.answer == Approx(245));
  CHECK(channels.next_drain() == dram::FlowChannels::kNoDrain);
}

TEST_CASE("fast memory servers: at the drain watermark writes go after what is being served", "[flow]") {
  // Watermark 3 requests: two writes of one request wait behind the reads (to 200); a third brings
  // 3 waiting: all three go after what is being served, interleaved with the reads as a drain is,
  // at the mixed 4 apiece: 200 + 3 x 4 = 212 for the last.
  dram::FlowChannels channels(1, hand_calibration(), 3);
  channels.serve(0, {{100, 100}}, false);
  channels.submit_write(10, {{1, 1}});
  channels.submit_write(20, {{1, 1}});
  CHECK(channels.finished_writes().empty());
  channels.submit_write(30, {{1, 1}});
  const std::vector<dram::FlowChannels::FinishedWrite> finished = channels.finished_writes();
  REQUIRE(finished.size() == 3);
  CHECK(finished[2].served.data_end == Approx(212));
  // A transfer of no bursts (none on any channel) is done on arrival.
  channels.submit_write(40, {{0, 0}});
  CHECK(channels.finished_writes().at(0).served.answer == Approx(50));
}

TEST_CASE("fast memory calibration: measured on the exact controller", "[flow]") {
  const spec::DramSpec spec = config::load_dram("hbm2");
  const dram::FlowCalibration& calibration = dram::calibrate(spec, 16);
  // A lone read to a closed bank at cycle 0: ACT at 0, RD at tRCD 14, data from 14 + CL 14 for
  // BL/2 = 2 clocks: 30; less its one burst's 2 clocks: 28.
  CHECK(calibration.latency_cycles[0] == Approx(28));
  // Streaming reads cannot beat the data bus (2 clocks a burst); refresh takes tRFC 260 of every
  // tREFI 3,900 (6.7 %), and row switches (one activate per bank every 2 KiB row of 32 bursts,
  // overlapped by the other bank groups' bursts) little more: under 2 x 1.25.
  CHECK(calibration.cycles_per_burst[dram::kFlowRead] >= 2.0);
  CHECK(calibration.cycles_per_burst[dram::kFlowRead] < 2.5);
  CHECK(calibration.cycles_per_burst[dram::kFlowMixed] >= calibration.cycles_per_burst[dram::kFlowRead]);
  // Kept per (spec, window): the same object again.
  CHECK(&dram::calibrate(spec, 16) == &calibration);
  CHECK(&dram::calibrate(spec, 8) != &calibration);
}
