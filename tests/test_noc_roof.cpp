// The network-on-chip's read bound, the figure's NoC roof (timing::noc_read_bytes_per_second):
// link by link over the fixed routes, each number counted by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "config/accelerator_loader.h"
#include "fixtures.h"
#include "timing/noc_links.h"

using namespace reusesim;

// The networks are fixtures::noc_spec's: 32-byte links at 1,000 MHz, W = 32e9 bytes/s a link each way.

TEST_CASE("noc roof: a 2 x 2 mesh fed from node 0 is bound by the one east link out of it", "[noc_roof]") {
  // One channel on node 0, a core on each node. X then Y: node 1's bytes go n0 -> n1, node 3's
  // n0 -> n1 -> n3, node 2's n0 -> n2. n0 -> n1 carries 2 of the 4 (channel, core) pairs, so
  // B <= 32e9 x 1 x 4 / 2 = 64e9. The cuts say more: n0's two links out carry the 3/4 of the bytes
  // not for core 0 (2 x 32e9 / 0.75 = 85.3e9); either bisection has 2 links one way for half the
  // bytes (128e9).
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::mesh, 2, 2, {0}), 4, 1) ==
        Approx(64e9));
  // Two cores (nodes 0 and 1): n0 -> n1 carries 1 of 2 pairs, B <= 32e9 x 2 / 1 = 64e9 all the same.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::mesh, 2, 2, {0}), 2, 1) ==
        Approx(64e9));
  // Four channels dealt over nodes 0 and 3, two each: n0 -> n1 carries channels 0 and 2 to cores 1
  // and 3 (4 pairs), n3 -> n2 channels 1 and 3 to cores 2 and 0 (4 pairs); the other links 2 pairs.
  // B <= 32e9 x 4 x 4 / 4 = 128e9.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::mesh, 2, 2, {0, 3}), 4, 4) ==
        Approx(128e9));
}

TEST_CASE("noc roof: a ring goes the shorter way, forward on a tie", "[noc_roof]") {
  // A ring of 4 nodes fed from node 0: core 1 over n0 -> n1, core 2 (a tie) n0 -> n1 -> n2, core 3
  // back over n0 -> n3. n0 -> n1 carries 2 of 4 pairs: B <= 32e9 x 4 / 2 = 64e9.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::ring, 4, 1, {0}), 4, 1) ==
        Approx(64e9));
}

TEST_CASE("noc roof: a crossbar is bound by its memory node's link up or a core's link down", "[noc_roof]") {
  // Two channels on node 0 of 4: the link n0 -> switch carries both channels to cores 1..3, 6 of the
  // 8 pairs: B <= 32e9 x 2 x 4 / 6 = 42.67e9; each link down carries 2.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::crossbar, 4, 1, {0}), 4, 2) ==
        Approx(32e9 * 8 / 6));
  // The memory on a fifth node, no core's: every pair leaves over n4 -> switch, B <= 32e9 x 4 / 4.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::crossbar, 5, 1, {4}), 4, 1) ==
        Approx(32e9));
  // Four channels on four nodes, one each, four cores: each link up carries 3 pairs, each link down
  // 3: B <= 32e9 x 16 / 3.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::crossbar, 4, 1, {0, 1, 2, 3}), 4, 4) ==
        Approx(32e9 * 16 / 3));
}

TEST_CASE("noc roof: nothing crosses a link on a 1 x 1 grid, or with one core on its memory's node", "[noc_roof]") {
  CHECK(std::isinf(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::mesh, 1, 1, {0}), 1, 4)));
  CHECK(std::isinf(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::torus, 2, 2, {0}), 1, 1)));
  // One core whose memory is a hop away: its one link carries every byte, B <= 32e9.
  CHECK(timing::noc_read_bytes_per_second(fixtures::noc_spec(spec::NocTopology::mesh, 2, 2, {1}), 1, 1) ==
        Approx(32e9));
}

TEST_CASE("noc roof: the shipped wormhole_n150 torus does not bind, 1,024 GB/s against its 288", "[noc_roof]") {
  // 64 cores on an 8 x 8 torus, 8 channels, one on each of nodes 0, 12, 16, 28, 32, 44, 48, 60:
  // one a row, in column 0 or 4. X first, each way the shorter way round (forward on a tie):
  // from column c the bytes for columns c+1 .. c+4 (4 columns x 8 rows = 32 cores) leave over
  // its east link, those for c+5 .. c+7 (24) over its west link, and no other memory node sits in
  // that row. Down a column every row's node sends south to the rows 1 .. 4 ahead: a south link
  // carries 4 + 3 + 2 + 1 = 10 pairs, a north link 3 + 2 + 1 = 6. The busiest: 32 pairs, so
  // B <= 64 B x 1e9 x 8 x 64 / 32 = 1,024e9 bytes/s, above the GDDR6's 288e9.
  const spec::AcceleratorSpec wormhole =
      config::load_accelerator_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/wormhole_n150.yaml");
  const double bound =
      timing::noc_read_bytes_per_second(*wormhole.noc, wormhole.cores, wormhole.dram.scheduled_channels());
  CHECK(bound == Approx(1024e9));
  CHECK(wormhole.dram.peak_bytes_per_second() == Approx(288e9).epsilon(1e-4));
  // Links of 4 bytes instead of 64: the same pairs, B <= 4e9 x 8 x 64 / 32 = 64e9, and it binds.
  const spec::AcceleratorSpec narrow = config::load_accelerator_file(
      std::string(REUSESIM_SOURCE_DIR) + "/configs/wormhole_n150.yaml", {"noc.link_bytes=4"});
  CHECK(timing::noc_read_bytes_per_second(*narrow.noc, narrow.cores, narrow.dram.scheduled_channels()) == Approx(64e9));
}
