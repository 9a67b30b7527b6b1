// A network-on-chip: routes on each topology (timing/noc_links.h), a transfer's exact time over
// free links and over a link another transfer holds, then hw::NetworkOnChip between two cores'
// DMA engines and an ideal memory (exact nanoseconds).
#include <catch2/catch.hpp>

#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "hw/dma_engine.h"
#include "hw/ideal_memory.h"
#include "hw/network_on_chip.h"
#include "hw/systemc_compat.h"
#include "simulate/plan.h"
#include "simulate/replay.h"
#include "timing/noc_links.h"

using namespace reusesim;

namespace {

// fixtures::noc_spec (32-byte links at 1,000 MHz: 1 ns = 1,000 ps a clock, 2 cycles a hop), the
// memory at the last node.
spec::NocSpec noc(spec::NocTopology topology, std::int64_t columns, std::int64_t rows) {
  return fixtures::noc_spec(topology, columns, rows, {columns * rows - 1});
}

std::vector<std::string> route_names(timing::NocLinks& links, std::int64_t from, std::int64_t to) {
  std::vector<std::string> names;
  for (const std::int32_t link : links.route(from, to))
    names.push_back(links.link_name(static_cast<std::size_t>(link)));
  return names;
}

}  // namespace

TEST_CASE("noc routes: X then Y on a mesh, the shorter way round a torus and a ring, a crossbar's switch", "[noc]") {
  timing::NocLinks mesh(noc(spec::NocTopology::mesh, 3, 3), 1000);
  // Node 0 is (0, 0), node 8 is (2, 2): east twice along row 0, then south twice along column 2.
  CHECK(route_names(mesh, 0, 8) == std::vector<std::string>{"n0 -> n1", "n1 -> n2", "n2 -> n5", "n5 -> n8"});
  CHECK(route_names(mesh, 8, 0) == std::vector<std::string>{"n8 -> n7", "n7 -> n6", "n6 -> n3", "n3 -> n0"});
  CHECK(mesh.route(4, 4).empty());
  // A 4 x 1 torus: 0 to 3 is one step west round the ring, not three east; 0 to 2 is a tie: east.
  timing::NocLinks torus(noc(spec::NocTopology::torus, 4, 1), 1000);
  CHECK(route_names(torus, 0, 3) == std::vector<std::string>{"n0 -> n3"});
  CHECK(route_names(torus, 0, 2) == std::vector<std::string>{"n0 -> n1", "n1 -> n2"});
  // A ring of 3 x 2 = 6 nodes: 1 to 5 is two steps back (1, 0, 5), not four forward.
  timing::NocLinks ring(noc(spec::NocTopology::ring, 3, 2), 1000);
  CHECK(route_names(ring, 1, 5) == std::vector<std::string>{"n1 -> n0", "n0 -> n5"});
  timing::NocLinks crossbar(noc(spec::NocTopology::crossbar, 4, 1), 1000);
  CHECK(route_names(crossbar, 2, 1) == std::vector<std::string>{"n2 -> switch", "switch -> n1"});
}

TEST_CASE("noc links: one transfer's time over free links", "[noc]") {
  // 256 B on 32-byte links are 8 flits. Over 3 hops from 0 ps: the head enters each link 2 cycles
  // after the last (0, 2, 4 ns) and reaches the end 2 cycles later (6 ns); the tail 8 cycles after
  // it: 3 x 2 + 8 = 14 ns. Each link is busy 8 cycles.
  timing::NocLinks links(noc(spec::NocTopology::mesh, 4, 1), 1000);
  const std::vector<std::int32_t> path = links.route(0, 3);
  REQUIRE(path.size() == 3);
  CHECK(links.carry(path, 0, 256) == 14'000);
  CHECK(links.stats(static_cast<std::size_t>(path[1])).busy_ticks == 8);
  CHECK(links.stats(static_cast<std::size_t>(path[1])).waited_ticks == 0);
  // A request's head holds no link: 3 hops are 6 ns.
  CHECK(links.head_arrival(3, 0) == 6'000);
}

TEST_CASE("noc links: a link two transfers share serves them in turn", "[noc]") {
  // On a 3 x 1 mesh, 256 B (8 flits) from node 2 to node 0 (links 2->1, 1->0) and then 256 B from
  // node 2 to node 1 (link 2->1), both ready at 0. The first: 2->1 over [0, 8), 1->0 over [2, 10),
  // arriving 4 + 8 = 12 ns. The second finds 2->1 busy until 8 ns: it waits 8 cycles, holds the
  // link over [8, 16) and arrives 8 + 2 + 8 = 18 ns (10 ns on free links).
  timing::NocLinks links(noc(spec::NocTopology::mesh, 3, 1), 1000);
  const std::vector<std::int32_t> far = links.route(2, 0);
  CHECK(links.carry(far, 0, 256) == 12'000);
  const std::vector<std::int32_t> near = links.route(2, 1);
  CHECK(links.carry(near, 0, 256) == 18'000);
  const timing::NocLinks::LinkStats& shared = links.stats(static_cast<std::size_t>(near.front()));
  CHECK(shared.transfers == 2);
  CHECK(shared.bytes == 512);
  CHECK(shared.busy_ticks == 16);
  CHECK(shared.waited_ticks == 8);
}

TEST_CASE("noc links: a multicast carries its bytes once over the links its routes share", "[noc]") {
  // On a 3 x 3 mesh, 256 B (8 flits) from node 0 to nodes 2, 5 and 1, ready at 0. X then Y: to 2 over
  // 0->1, 1->2; to 5 over 0->1, 1->2, 2->5; to 1 over 0->1: one tree of three links. The head enters
  // 0->1 at 0, 1->2 at 2, 2->5 at 4 ns; node 1 has the tail at 2 + 8 = 10 ns, node 2 at 4 + 8 = 12,
  // node 5 at 6 + 8 = 14 (what a transfer of its own would take on free links). Each link carries
  // the 256 B once.
  timing::NocLinks links(noc(spec::NocTopology::mesh, 3, 3), 1000);
  CHECK(links.multicast(0, {2, 5, 1}, 0, 256) == std::vector<std::uint64_t>{12'000, 14'000, 10'000});
  for (const std::int32_t link : links.route(0, 5)) {
    CHECK(links.stats(static_cast<std::size_t>(link)).transfers == 1);
    CHECK(links.stats(static_cast<std::size_t>(link)).bytes == 256);
  }
  // The source's own node has the bytes when they are ready.
  CHECK(links.multicast(4, {4}, 3'000, 256) == std::vector<std::uint64_t>{3'000});
}

namespace {

// Two cores' DMA engines on a 3 x 1 mesh (cores on nodes 0 and 1), the memory on node 2: each reads
// 512 B at 0 ns, the core on node 1 at `near_address`; when each finished (ns).
struct TwoCores : sc_core::sc_module {
  TwoCores(sc_core::sc_module_name name, const spec::DramSpec& dram, std::uint64_t near_address = 4096,
           bool multicast = false)
      : sc_core::sc_module(name),
        near_address(near_address),
        mapper(dram),
        network("noc", with_multicast(noc(spec::NocTopology::mesh, 3, 1), multicast), mapper,
                std::make_unique<hw::IdealMemory>("memory", dram)),
        far("far", mapper, 4, 0),
        near("near", mapper, 4, 0) {
    REUSESIM_HAS_PROCESS(TwoCores);
    network.bind(far.socket, 0);
    network.bind(near.socket, 1);
    SC_THREAD(read_both);
  }
  void read(hw::DmaEngine& dma, std::uint64_t address, std::size_t i) {
    dma.submit(hw::DmaTransfer{address, 512, false, sc_core::SC_ZERO_TIME, 0}, [this, i](const hw::DmaEngine::Done&) {
      done_ns[i] = static_cast<std::int64_t>(sc_core::sc_time_stamp().value() / 1000);  // ps to ns
    });
  }
  void read_both() {
    read(far, 0, 0);
    read(near, near_address, 1);
  }
  static spec::NocSpec with_multicast(spec::NocSpec spec, bool multicast) {
    spec.multicast = multicast;
    return spec;
  }
  std::uint64_t near_address;
  timing::DramAddressMapper mapper;
  hw::NetworkOnChip network;
  hw::DmaEngine far, near;
  std::vector<std::int64_t> done_ns = std::vector<std::int64_t>(2, -1);
};

}  // namespace

TEST_CASE("network-on-chip: two cores' reads share the link out of the memory's node", "[noc]") {
  // The ideal memory: 64 B a ns after 100 ns; it answers the core on node 0 at 512 / 64 + 100 =
  // 108 ns and the one on node 1 after it, at 116 ns. Node 0's data (16 flits of 32 B) takes links
  // 2->1 over [108, 124) and 1->0 from 110: its tail arrives 108 + 2 x 2 + 16 = 128 ns, and its
  // request's head had 2 hops to the memory: 132 ns. Node 1's data waits for link 2->1 until 124:
  // 124 + 2 + 16 = 142, and its request's 1 hop: 144 ns (136 on a free link).
  const spec::AcceleratorSpec ideal = fixtures::small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 100}\n");
  TwoCores chip("chip", ideal.dram);
  sc_core::sc_start();
  CHECK(chip.done_ns == std::vector<std::int64_t>{132, 144});
  CHECK(chip.network.total_stats().read_bytes == 1024);
}

TEST_CASE("network-on-chip: a read of the bytes another core's read waits for joins it (multicast)", "[noc]") {
  // Both cores read the same 512 B. The far core's read (node 0) reaches the memory first; the near
  // core's (node 1) joins it and the ideal memory answers once, at 512 / 64 + 100 = 108 ns. The data
  // (16 flits) goes down the tree 2->1, 1->0: the head enters 2->1 at 108 and 1->0 at 110 ns. Node
  // 1 has the tail at 110 + 16 = 126 ns, and its request's 1 hop: 128 ns (144 without multicast);
  // node 0 at 112 + 16 = 128, and its request's 2 hops: 132 ns. The memory read 512 B, not 1,024,
  // and link 2->1 carried them once.
  const spec::AcceleratorSpec ideal = fixtures::small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 100}\n");
  TwoCores chip("chip", ideal.dram, 0, true);
  sc_core::sc_start();
  CHECK(chip.done_ns == std::vector<std::int64_t>{132, 128});
  CHECK(chip.network.total_stats().read_bytes == 512);
  const timing::NocLinks& links = chip.network.links();
  std::int64_t carried = 0;
  for (std::size_t link = 0; link < links.link_count(); ++link) carried += links.stats(link).bytes;
  CHECK(carried == 1024);  // 512 B over each of the tree's two links
}

TEST_CASE("network-on-chip: the end of a wait on a load that its data spent in the network is a NoC stall", "[noc]") {
  // kSmallLinear (64 -> 32, int8) at batch 1 on one core of small, on an ideal memory of 64 B a ns
  // after 100 ns, the core on node 0 of a 2 x 1 mesh, the memory on node 1 (one hop: 32-byte links at
  // 1,000 MHz, 2 cycles a hop). The program loads the 2,048 weight bytes, then the 64 input bytes;
  // the memory moves them over [0, 32) and [32, 33) ns and answers at 132 and 133 ns. The weights
  // (64 flits) hold the link over [132, 196) and reach the core at 132 + 2 + 64 + 2 (their request's
  // hop) = 200 ns; the inputs (2 flits) wait for the link until 196 and arrive 196 + 2 + 2 + 2 = 202
  // ns: their data spent 202 - 133 = 69 ns in the network. The array waits for both from 0 to 202 ns
  // (1 ns a cycle): the last 69 cycles are the network's, the 133 before them the memory's.
  spec::AcceleratorSpec chip = fixtures::small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 100}\n");
  chip.noc = noc(spec::NocTopology::mesh, 2, 1);
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "model.yaml");
  simulate::RunPlan plan = simulate::plan_inference(chip, model.network, {1}, {0}, "chip");
  const simulate::Replay replay = simulate::replay(chip, std::move(plan.runs));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const results::LayerResult& fc = replay.results.front();
  CHECK(fc.stall_noc == 69);
  CHECK(fc.stall_weights + fc.stall_inputs == 133);
}
