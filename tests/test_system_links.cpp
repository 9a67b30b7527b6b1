// The links between chips (timing::SystemLinks): routes over each topology, a bundle's rate, and
// the collectives' link programs (parallel/collectives.h), without SystemC.
#include <catch2/catch.hpp>

#include <map>

#include "config/system_loader.h"
#include "fixtures.h"
#include "parallel/collectives.h"
#include "timing/system_links.h"

using namespace reusesim;
using program::LinkStep;
using program::LinkStepKind;

namespace {

spec::SystemSpec shipped_system(const std::string& name) {
  return config::load_system_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/systems/" + name + ".yaml");
}

std::vector<std::string> route_names(timing::SystemLinks& links, std::int64_t from, std::int64_t to) {
  std::vector<std::string> names;
  for (const std::int32_t link : links.route(from, to))
    names.push_back(links.link_name(static_cast<std::size_t>(link)));
  return names;
}

// Bytes each chip sends each other chip in `program`.
std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> sent(const program::LinkProgram& program) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> bytes;
  for (std::size_t chip = 0; chip < program.chips.size(); ++chip) {
    for (const LinkStep& step : program.chips[chip]) {
      if (step.kind == LinkStepKind::send) bytes[{static_cast<std::int64_t>(chip), step.peer}] += step.bytes;
    }
  }
  return bytes;
}

}  // namespace

TEST_CASE("system routes: a ring the shorter way, a torus dimension by dimension, fully connected, a switch",
          "[system]") {
  timing::SystemLinks ring(fixtures::system_spec(spec::ChipTopology::ring, 4, 2));
  // 0 to 3 is one step back; 0 to 2 is two either way: forward on a tie.
  CHECK(route_names(ring, 0, 3) == std::vector<std::string>{"chip0 -> chip3"});
  CHECK(route_names(ring, 0, 2) == std::vector<std::string>{"chip0 -> chip1", "chip1 -> chip2"});
  CHECK(route_names(ring, 1, 1).empty());
  // A 4 x 4 x 4 torus, the first dimension fastest: chip 57 is at (1, 2, 3) (1 + 2 x 4 + 3 x 16).
  // From chip 0: one step forward in x (chip 1), two in y, forward on the tie (5, 9), and one back
  // in z, 3 being one step back from 0 round a ring of 4 (9 + 3 x 16 = 57).
  timing::SystemLinks torus(fixtures::system_spec(spec::ChipTopology::torus, 64, 6, {4, 4, 4}));
  CHECK(route_names(torus, 0, 57) ==
        std::vector<std::string>{"chip0 -> chip1", "chip1 -> chip5", "chip5 -> chip9", "chip9 -> chip57"});
  timing::SystemLinks full(fixtures::system_spec(spec::ChipTopology::fully_connected, 4, 3));
  CHECK(route_names(full, 2, 1) == std::vector<std::string>{"chip2 -> chip1"});
  timing::SystemLinks switched(fixtures::system_spec(spec::ChipTopology::switched, 8, 12));
  CHECK(route_names(switched, 2, 7) == std::vector<std::string>{"chip2 -> switch", "switch -> chip7"});
}

TEST_CASE("system links: the links that exist among the bundle slots", "[system]") {
  const auto existing = [](const spec::SystemSpec& spec) {
    timing::SystemLinks links(spec);
    std::vector<std::string> names;
    for (std::size_t link = 0; link < links.link_count(); ++link) {
      if (links.exists(link)) names.push_back(links.link_name(link));
    }
    return names;
  };
  // Two chips on a ring are one neighbour each way; three fully connected chips have 3 x 2 links; a
  // 2 x 3 torus has one neighbour along x and two along y: 6 x (1 + 2) = 18.
  CHECK(existing(fixtures::system_spec(spec::ChipTopology::ring, 2, 1)) ==
        std::vector<std::string>{"chip0 -> chip1", "chip1 -> chip0"});
  CHECK(existing(fixtures::system_spec(spec::ChipTopology::fully_connected, 3, 2)) ==
        std::vector<std::string>{"chip0 -> chip1", "chip0 -> chip2", "chip1 -> chip0", "chip1 -> chip2",
                                 "chip2 -> chip0", "chip2 -> chip1"});
  CHECK(existing(fixtures::system_spec(spec::ChipTopology::torus, 6, 3, {2, 3})).size() == 18);
  CHECK(existing(fixtures::system_spec(spec::ChipTopology::switched, 2, 1)).size() == 4);
}

TEST_CASE("system links: a bundle moves its links' bandwidths together, rounded up to a picosecond", "[system]") {
  // A switch: all 12 links of 25 GB/s in one bundle, 300 GB/s: 3,000,000 B in 10 us; 1 B in
  // 3.33 ps, rounded up to 4.
  const timing::SystemLinks switched(fixtures::system_spec(spec::ChipTopology::switched, 8, 12));
  CHECK(switched.hold_ps(3'000'000) == 10'000'000);
  CHECK(switched.hold_ps(1) == 4);
  // A ring of 4 with 4 links a chip: 2 to each neighbour, 50 GB/s: 1,000 B in 20 ns.
  CHECK(timing::SystemLinks(fixtures::system_spec(spec::ChipTopology::ring, 4, 4)).hold_ps(1'000) == 20'000);
  // A 4 x 4 x 4 torus with 6 links: one to each of its 6 neighbours, 25 GB/s.
  CHECK(timing::SystemLinks(fixtures::system_spec(spec::ChipTopology::torus, 64, 6, {4, 4, 4})).hold_ps(1'000) ==
        40'000);
}

TEST_CASE("system links: the shipped TPU v4 cube, chip 0 to chip 63 the short way round each ring", "[system]") {
  // configs/systems/tpu_v4_64.yaml: a 4 x 4 x 4 torus, 6 ICI links of 50 GB/s a chip, one to each of
  // its 6 neighbours: a bundle of 1 link, 50,000 MB/s; 500 ns a hop.
  timing::SystemLinks cube(shipped_system("tpu_v4_64"));
  // Chip 63 is at (3, 3, 3) (3 + 3 x 4 + 3 x 16). In each dimension 0 to 3 is one step back round
  // the ring of 4 (three forward): to chip 3, then 3 + 3 x 4 = 15, then 15 + 3 x 16 = 63.
  CHECK(route_names(cube, 0, 63) == std::vector<std::string>{"chip0 -> chip3", "chip3 -> chip15", "chip15 -> chip63"});
  // 1,000,000 B hold a bundle 1e6 x 1e6 / 50,000 = 20,000,000 ps, 20 us.
  CHECK(cube.hold_ps(1'000'000) == 20'000'000);
  // Cut-through: the head enters the second bundle at 0.5 us and the third at 1 us, which holds it
  // until 1 + 20 = 21 us; the last byte arrives a hop's 0.5 us later, at 21.5 us.
  CHECK(cube.carry(cube.route(0, 63), 0, 1'000'000) == 21'500'000);
}

TEST_CASE("system links: the shipped 2 x 2 x 2 TPU v4 slice, one neighbour and one link a dimension", "[system]") {
  // configs/systems/tpu_v4_8.yaml: 3 links of 50 GB/s a chip over its 3 neighbours (one along each
  // dimension of 2): a bundle of 1 link, 50,000 MB/s, as on the cube: 1,000 B in 20 ns.
  timing::SystemLinks slice(shipped_system("tpu_v4_8"));
  CHECK(slice.hold_ps(1'000) == 20'000);
  // Along a dimension of 2 both ways reach the same chip and a route goes forward (the tie):
  // chip 7 at (1, 1, 1) to chip 0 steps to 6, 4 and 0, each forward, wrapping from coordinate 1.
  CHECK(route_names(slice, 7, 0) == std::vector<std::string>{"chip7 -> chip6", "chip6 -> chip4", "chip4 -> chip0"});
  // The way back is the other chips' own bundles: 0 to 1, 1 to 3, 3 to 7.
  CHECK(route_names(slice, 0, 7) == std::vector<std::string>{"chip0 -> chip1", "chip1 -> chip3", "chip3 -> chip7"});
}

TEST_CASE("system links: the shipped Wormhole box, a ring of 8 with 2 Ethernet links a neighbour", "[system]") {
  // configs/systems/wormhole_8.yaml: 4 links of 12.5 GB/s a chip over its 2 ring neighbours: a
  // bundle of 2 links, 25,000 MB/s: 1,000 B in 1,000 x 1e6 / 25,000 = 40,000 ps.
  timing::SystemLinks box(shipped_system("wormhole_8"));
  CHECK(box.hold_ps(1'000) == 40'000);
  // Chip 2 to chip 7 is 5 forward or 3 back: 1, 0, 7. 1,000 B over 3 hops of 650 ns: the head
  // enters the last bundle at 1.3 us, which holds it 40 ns; the last byte arrives at
  // 1.3 + 0.04 + 0.65 = 1.99 us.
  CHECK(route_names(box, 2, 7) == std::vector<std::string>{"chip2 -> chip1", "chip1 -> chip0", "chip0 -> chip7"});
  CHECK(box.carry(box.route(2, 7), 0, 1'000) == 1'990'000);
}

TEST_CASE("system links: two transfers over a shared link, cut-through, the second waits", "[system]") {
  // A ring of 4, one 25 GB/s link each way: 250,000 B hold a link 10 us, and a hop takes 500 ns.
  // 0 -> 2 at 0: 0->1 over [0, 10 us), head into 1->2 at 0.5 us, over [0.5, 10.5 us), the last
  // byte at 10.5 + 0.5 = 11 us. Then 0 -> 1 at 0 finds 0->1 busy until 10 us: arrives at 20.5 us,
  // having waited 10 us.
  timing::SystemLinks links(fixtures::system_spec(spec::ChipTopology::ring, 4, 2));
  CHECK(links.carry(links.route(0, 2), 0, 250'000) == 11'000'000);
  const std::vector<std::int32_t> near = links.route(0, 1);
  CHECK(links.carry(near, 0, 250'000) == 20'500'000);
  const timing::SystemLinks::LinkStats& shared = links.stats(static_cast<std::size_t>(near.front()));
  CHECK(shared.transfers == 2);
  CHECK(shared.bytes == 500'000);
  CHECK(shared.busy_ticks == 20'000'000);
  CHECK(shared.waited_ticks == 10'000'000);
}

TEST_CASE("ring all-reduce: 2 (n - 1) chunks over each link, reduce-scatter then all-gather", "[system]") {
  // 4 chips, 1,024 fp32 elements (4,096 B): chunks of 256 elements (1,024 B). Each chip sends 3
  // chunks in the reduce-scatter and 3 in the all-gather to the next: 6,144 B = 2 (4 - 1) / 4 x 4,096.
  const program::LinkProgram ring = parallel::ring_all_reduce({{0, 1, 2, 3}, 4, 1'024, 4});
  const auto bytes = sent(ring);
  CHECK(bytes.size() == 4);
  for (std::int64_t chip = 0; chip < 4; ++chip) CHECK(bytes.at({chip, (chip + 1) % 4}) == 6'144);
  // Two chips, 4 fp32 elements: chip 0 sends its chunk 0 (2 elements, 8 B), receives chunk 1 and
  // adds its 2 elements, then sends the summed chunk 1 and receives the summed chunk 0.
  const program::LinkProgram pair = parallel::ring_all_reduce({{0, 1}, 2, 4, 4});
  CHECK(pair.chips[0] == std::vector<LinkStep>{{LinkStepKind::send, 1, 8, 0},
                                               {LinkStepKind::receive, 1, 0, 0},
                                               {LinkStepKind::reduce, -1, 0, 2},
                                               {LinkStepKind::send, 1, 8, 0},
                                               {LinkStepKind::receive, 1, 0, 0}});
  // Uneven chunks: 10 elements over 4 chips are 3, 3, 2, 2; a chip that takes no part has no steps.
  const program::LinkProgram uneven = parallel::ring_reduce_scatter({{1, 2, 3, 4}, 6, 10, 2});
  CHECK(uneven.chips[0].empty());
  CHECK(uneven.chips[5].empty());
  // Position 0 (chip 1) sends chunks 0, 3, 2 (3 + 2 + 2 elements, 14 B) to chip 2 and adds chunks
  // 3, 2, 1 (2 + 2 + 3 = 7 elements).
  CHECK(uneven.sent_bytes(1) == 14);
  std::int64_t reduced = 0;
  for (const LinkStep& step : uneven.chips[1]) reduced += step.elements;
  CHECK(reduced == 7);
  CHECK(uneven.name == "ring reduce-scatter of 20 B over chips 1,2,3,4");
}

TEST_CASE("tree all-reduce: children to parent, the sum back down", "[system]") {
  // 4 chips, a binary tree 0 <- {1, 2}, 1 <- {3}; 100 B of 25 fp32 elements.
  const program::LinkProgram tree = parallel::tree_all_reduce({{0, 1, 2, 3}, 4, 25, 4});
  CHECK(tree.chips[0] == std::vector<LinkStep>{{LinkStepKind::receive, 1, 0, 0},
                                               {LinkStepKind::reduce, -1, 0, 25},
                                               {LinkStepKind::receive, 2, 0, 0},
                                               {LinkStepKind::reduce, -1, 0, 25},
                                               {LinkStepKind::send, 1, 100, 0},
                                               {LinkStepKind::send, 2, 100, 0}});
  CHECK(tree.chips[3] == std::vector<LinkStep>{{LinkStepKind::send, 1, 100, 0}, {LinkStepKind::receive, 1, 0, 0}});
  const auto bytes = sent(tree);
  CHECK(bytes.at({1, 0}) == 100);
  CHECK(bytes.at({0, 1}) == 100);
  CHECK(bytes.size() == 6);  // each of the 3 tree edges, both ways
}

TEST_CASE("system links: two levels, a node's switch inside it and the nodes' network between", "[system]") {
  // 8 chips in 2 nodes of 4 on a switch each (12 links of 25 GB/s: a 300 GB/s bundle, 500 ns), and
  // one 25 GB/s NIC a chip to the nodes' switch, 2 us a hop.
  spec::SystemSpec spec = fixtures::system_spec(spec::ChipTopology::switched, 8, 12);
  spec.nodes = spec::NodeSpec{4, {25, 2000, 1}};
  timing::SystemLinks links(spec);
  CHECK(route_names(links, 1, 2) == std::vector<std::string>{"chip1 -> node0 switch", "node0 switch -> chip2"});
  CHECK(route_names(links, 5, 6) == std::vector<std::string>{"chip5 -> node1 switch", "node1 switch -> chip6"});
  CHECK(route_names(links, 1, 5) == std::vector<std::string>{"chip1 -> network", "network -> chip5"});
  // 8 chips x 2 slots of the nodes' switches, then 8 x (up, down) of the network: all used.
  CHECK(links.link_count() == 32);
  for (std::size_t link = 0; link < links.link_count(); ++link) CHECK(links.exists(link));
  // Within a node: 3,000,000 B hold the 300 GB/s bundles 10 us, two hops of 0.5 us: 11 us.
  CHECK(links.carry(links.route(1, 2), 0, 3'000'000) == 11'000'000);
  // Between nodes: 1,000,000 B hold a 25 GB/s NIC 40 us, two hops of 2 us: 44 us.
  const std::vector<std::int32_t> across = links.route(1, 5);
  CHECK(links.carry(across, 0, 1'000'000) == 44'000'000);
  const auto up = static_cast<std::size_t>(across.front());
  CHECK(links.hold_ps(1'000, up) == 40'000);
  CHECK(links.hold_ps(1'000) == 3'334);  // 1,000 B at 300 GB/s: 3.33 ns, rounded up
  CHECK(links.stats(up).bytes == 1'000'000);
  CHECK(links.stats(up).busy_ticks == 40'000'000);
  // A ring in each node: chip 4 to 7 is one step back round node 1's ring of 4; 3 to 4 crosses.
  spec::SystemSpec rings = fixtures::system_spec(spec::ChipTopology::ring, 8, 2);
  rings.nodes = spec::NodeSpec{4, {25, 2000, 1}};
  timing::SystemLinks ring_links(rings);
  CHECK(route_names(ring_links, 4, 7) == std::vector<std::string>{"chip4 -> chip7"});
  CHECK(route_names(ring_links, 7, 4) == std::vector<std::string>{"chip7 -> chip4"});
  CHECK(route_names(ring_links, 3, 4) == std::vector<std::string>{"chip3 -> network", "network -> chip4"});
  // One node: the network's links lead nowhere.
  spec::SystemSpec one = fixtures::system_spec(spec::ChipTopology::switched, 4, 12);
  one.nodes = spec::NodeSpec{4, {25, 2000, 1}};
  const timing::SystemLinks single(one);
  CHECK_FALSE(single.exists(single.link_count() - 1));
}
