// Collectives replayed over the links between chips (hw::ChipLinks, hw::LinkEngine): exact
// picoseconds from the links' bandwidth and latency and the vector units' reductions.
#include <catch2/catch.hpp>

#include <systemc>

#include <memory>

#include "fixtures.h"
#include "hw/chip_links.h"
#include "hw/link_engine.h"
#include "hw/systemc_compat.h"
#include "parallel/collectives.h"
#include "results/timeline_recorder.h"

using namespace reusesim;

namespace {

// One chip's thread: from `start`, runs its steps of a link program on its engine and notes when
// it is done.
struct ChipThread : sc_core::sc_module {
  ChipThread(sc_core::sc_module_name name, hw::LinkEngine& engine, std::vector<program::LinkStep> steps,
             sc_core::sc_time start, std::int64_t tag)
      : sc_core::sc_module(name), engine(engine), steps(std::move(steps)), start(start), tag(tag) {
    REUSESIM_HAS_PROCESS(ChipThread);
    SC_THREAD(run);
  }
  void run() {
    sc_core::wait(start);
    engine.run(steps, tag);
    done_ps = hw::picoseconds(sc_core::sc_time_stamp());
  }
  hw::LinkEngine& engine;
  std::vector<program::LinkStep> steps;
  sc_core::sc_time start;
  std::int64_t tag;
  std::uint64_t done_ps = 0;
};

// A system running link programs, each from its start time, each chip's part on an engine of its own.
struct Replay {
  explicit Replay(const spec::SystemSpec& spec) : spec(spec), links("links", spec) {}
  void add(const program::LinkProgram& program, sc_core::sc_time start) {
    const auto tag = static_cast<std::int64_t>(programs++);
    for (std::size_t chip = 0; chip < program.chips.size(); ++chip) {
      if (program.chips[chip].empty()) continue;
      engines.push_back(std::make_unique<hw::LinkEngine>(static_cast<std::int64_t>(chip), spec.chip, links));
      const std::string name = "p" + std::to_string(tag) + "_chip" + std::to_string(chip);
      threads.push_back(std::make_unique<ChipThread>(name.c_str(), *engines.back(), program.chips[chip], start, tag));
    }
  }
  // When each chip's thread was done, the programs' in the order added, each by chip.
  std::vector<std::uint64_t> done_ps() const {
    std::vector<std::uint64_t> done;
    for (const auto& thread : threads) done.push_back(thread->done_ps);
    return done;
  }
  spec::SystemSpec spec;
  hw::ChipLinks links;
  std::size_t programs = 0;
  std::vector<std::unique_ptr<hw::LinkEngine>> engines;
  std::vector<std::unique_ptr<ChipThread>> threads;
};

// 4 chips of configs/small.yaml on a ring, one 25 GB/s link to each neighbour each way, 500 ns a
// hop; 1,000,000 B of fp16 (500,000 elements): chunks of 125,000 elements, 250,000 B, 10 us on a link.
spec::SystemSpec four_chip_ring() { return fixtures::system_spec(spec::ChipTopology::ring, 4, 2); }
const parallel::CollectiveShape kFourChipBuffer{{0, 1, 2, 3}, 4, 500'000, 2};

}  // namespace

TEST_CASE("ring all-reduce on 4 chips: 2 (n - 1) steps of a chunk, and n - 1 reductions", "[system]") {
  // Every chip sends at once on its own link: a step of the reduce-scatter is the chunk's 10 us, the
  // hop's 0.5 us and the reduction of 125,000 elements at 16 ops a cycle (7,813 cycles of 1 ns);
  // the all-gather's steps have no reduction:
  //   3 x (10 + 0.5 + 7.813) + 3 x (10 + 0.5) = 54.939 + 31.5 = 86.439 us on every chip.
  // Each link carries 6 chunks: 1,500,000 B = 2 (4 - 1) / 4 x 1,000,000, busy 60 us, never waited for.
  Replay replay(four_chip_ring());
  replay.add(parallel::ring_all_reduce(kFourChipBuffer), sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  CHECK(replay.done_ps() == std::vector<std::uint64_t>(4, 86'439'000));
  const timing::SystemLinks& links = replay.links.links();
  for (std::int64_t chip = 0; chip < 4; ++chip) {
    const timing::SystemLinks::LinkStats& forward = links.stats(static_cast<std::size_t>(2 * chip));
    CHECK(links.link_name(static_cast<std::size_t>(2 * chip)) ==
          "chip" + std::to_string(chip) + " -> chip" + std::to_string((chip + 1) % 4));
    CHECK(forward.bytes == 1'500'000);
    CHECK(forward.transfers == 6);
    CHECK(forward.busy_ticks == 60'000'000);
    CHECK(forward.waited_ticks == 0);
    CHECK(links.stats(static_cast<std::size_t>(2 * chip + 1)).bytes == 0);  // nothing goes back
  }
  CHECK(replay.engines[0]->stats().reduce_cycles == 3 * 7'813);
  CHECK(replay.engines[0]->stats().sent_bytes == 1'500'000);
}

TEST_CASE("ring all-reduce behind a stream on one of its links: the delay travels round the ring", "[system]") {
  // A transfer of 500,000 B from chip 0 to chip 1 at 0 holds link 0->1 over [0, 20 us) (it arrives
  // at 20.5 us). The all-reduce of the test above starts at 1 us: chip 0's first chunk waits until
  // 20 us for that link, 19 us, and arrives at chip 1 at 20 + 10.5 = 30.5 us instead of 11.5. Every
  // later step of chip 1 waits for it, and the chips after it for chip 1: without the stream every
  // chip would finish at 1 + 86.439 = 87.439 us. Step by step (E(p, k): chip p done with step k,
  // chip p's k-th chunk sent at E(p, k - 1) and arriving 10.5 us after it left its link, chip p + 1
  // done at max(E(p + 1, k - 1), that arrival) + 7.813 us in the first three steps):
  //   k=0: 19.313 38.313 19.313 19.313   k=1: 37.626 48.313 56.626 37.626
  //   k=2: 55.939 58.313 66.626 74.939   k=3: 85.439 66.439 68.813 77.126
  //   k=4: 95.439 95.939 78.813 87.126   k=5: 105.439 105.939 106.439 97.126 (us)
  // Chip 2, whose last chunk comes down the chain from the delayed one, is late by the full 19 us.
  // Link 0->1 carries the stream and 6 chunks; chunks wait for it 19 us, then at k=1 from 19.313
  // until 30 (the first chunk's [20, 30)) and at k=2 from 37.626 until 40: 32.061 us in all.
  Replay replay(four_chip_ring());
  replay.add(parallel::point_to_point(0, 1, 4, 500'000), sc_core::SC_ZERO_TIME);
  replay.add(parallel::ring_all_reduce(kFourChipBuffer), sc_core::sc_time(1, sc_core::SC_US));
  sc_core::sc_start();
  CHECK(replay.done_ps() ==
        std::vector<std::uint64_t>{0, 20'500'000, 105'439'000, 105'939'000, 106'439'000, 97'126'000});
  const timing::SystemLinks::LinkStats& shared = replay.links.links().stats(0);
  CHECK(shared.bytes == 2'000'000);
  CHECK(shared.transfers == 7);
  CHECK(shared.waited_ticks == 32'061'000);
}

TEST_CASE("the timeline of a link between chips: each transfer's hold, back-to-back ones of a program joined",
          "[system]") {
  // The test above, recorded. Chip 0 sends its chunk of step k when done with step k - 1 (E(0, k - 1)
  // above) and it holds link 0->1 10 us from when the link is free:
  //   the stream (program 0) [0, 20); k=0 sent at 1, [20, 30); k=1 sent at 19.313, [30, 40);
  //   k=2 sent at 37.626, [40, 50); k=3 at 55.939, [55.939, 65.939); k=4 at 85.439,
  //   [85.439, 95.439); k=5 at 95.439, [95.439, 105.439) (us).
  // The stream and the first chunk touch but are different programs; chunks 0-2 and 4-5 join:
  // 4 spans, 1 + 3 + 1 + 2 = 7 transfers, the link's 7 and 2,000,000 B.
  results::TimelineRecorder timeline;
  Replay replay(four_chip_ring());
  replay.links.record_to(timeline);
  replay.add(parallel::point_to_point(0, 1, 4, 500'000), sc_core::SC_ZERO_TIME);
  replay.add(parallel::ring_all_reduce(kFourChipBuffer), sc_core::sc_time(1, sc_core::SC_US));
  sc_core::sc_start();
  REQUIRE(timeline.chip_links() == 8);  // each chip's two directions round the ring
  CHECK(timeline.chip_link_name(0) == "chip0 -> chip1");
  const std::vector<results::ChipLinkSpan>& spans = timeline.chip_link_spans(0);
  REQUIRE(spans.size() == 4);
  const std::vector<std::vector<std::uint64_t>> expected{{0, 0, 20'000'000, 1, 500'000},
                                                         {1, 20'000'000, 50'000'000, 3, 750'000},
                                                         {1, 55'939'000, 65'939'000, 1, 250'000},
                                                         {1, 85'439'000, 105'439'000, 2, 500'000}};
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const results::ChipLinkSpan& span = spans[i];
    CHECK(std::vector<std::uint64_t>{span.link_program, span.start_ps, span.end_ps,
                                     static_cast<std::uint64_t>(span.transfers),
                                     static_cast<std::uint64_t>(span.bytes)} == expected[i]);
  }
  // Nothing goes back round the ring; the other forward links carry only the all-reduce's 6 chunks.
  CHECK(timeline.chip_link_spans(1).empty());
  std::int64_t transfers = 0;
  for (const results::ChipLinkSpan& span : timeline.chip_link_spans(2)) transfers += span.transfers;
  CHECK(transfers == 6);
}

TEST_CASE("tree all-reduce on 4 fully connected chips: up the tree, the sum back down", "[system]") {
  // Each pair of the 4 chips has a link of its own (3 a chip, 25 GB/s). 1,000,000 B (500,000 fp16
  // elements) hold a link 40 us, a hop takes 0.5 us, a reduction 31,250 cycles (31.25 us). The
  // tree: 0 <- {1, 2}, 1 <- {3}.
  //   chips 3 and 2 send at 0: at chip 1 and chip 0 at 40.5 us;
  //   chip 1 adds chip 3's over [40.5, 71.75) and sends the sum: at chip 0 at 112.25;
  //   chip 0 adds chip 1's over [112.25, 143.5), then chip 2's (there since 40.5) until 174.75, and
  //   sends the total to 1 and to 2 on their own links: done at 174.75, both have it at 215.25;
  //   chip 1 passes it on to 3: at 215.25 + 40.5 = 255.75 us.
  Replay replay(fixtures::system_spec(spec::ChipTopology::fully_connected, 4, 3));
  replay.add(parallel::tree_all_reduce(kFourChipBuffer), sc_core::SC_ZERO_TIME);
  sc_core::sc_start();
  CHECK(replay.done_ps() == std::vector<std::uint64_t>{174'750'000, 215'250'000, 215'250'000, 255'750'000});
  // Each chip's link to its parent and from it carry the buffer once: 1,000,000 B.
  CHECK(replay.links.links().stats(3 * 4 + 1).bytes == 1'000'000);  // chip3 -> chip1
  CHECK(replay.links.links().link_name(3 * 4 + 1) == "chip3 -> chip1");
}
