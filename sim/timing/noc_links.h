#pragma once
// A network-on-chip's routes and the occupancy of its links (spec::NocSpec), plain C++ so that
// hw::NetworkOnChip's timing is tested without SystemC.
//
// Every link is a server of link_bytes a clock (timing::LinkServers): a transfer of `bytes` holds
// each link of its route for ceil(bytes / link_bytes) clocks (its flits), cut-through, its head
// taking router_latency_cycles a hop (a link and the router it enters). The statistics count clocks.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/accelerator_spec.h"
#include "timing/link_servers.h"

namespace reusesim::timing {

class NocLinks {
 public:
  // `period` is one NoC clock in the caller's time unit (every time below is in it).
  NocLinks(const spec::NocSpec& spec, std::uint64_t period);

  // The links from node `from` to node `to`, in order (none when they are one node).
  const std::vector<std::int32_t>& route(std::int64_t from, std::int64_t to);
  // `bytes` ready to leave along `path` at `ready`: when the last of them arrives. Holds the links.
  std::uint64_t carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t bytes);
  // `bytes` ready to leave node `from` at `ready` for every node of `to` (a multicast): the routes
  // from one node share only their first links (they are a tree), and a link they share carries
  // the bytes once. When the last of them arrives at each node of `to`, in its order.
  std::vector<std::uint64_t> multicast(std::int64_t from, const std::vector<std::int64_t>& to, std::uint64_t ready,
                                       std::uint64_t bytes);
  // When a request's head, which holds no link, arrives `hops` hops away from `ready`.
  std::uint64_t head_arrival(std::size_t hops, std::uint64_t ready) const { return ready + hops * servers_.hop(); }
  // Every link free from `now` (a batch's start); the counters stay.
  void restart(std::uint64_t now) { servers_.restart(now); }
  // After record_entries(): the links the last carry or multicast held, each with when the
  // transfer entered it (it held the link flits(bytes) clocks from then). Not kept otherwise: only
  // a timeline needs them.
  void record_entries() { servers_.record_entries(); }
  const std::vector<LinkServers::Entered>& last_entered() const { return servers_.entered(); }
  std::uint64_t flits(std::uint64_t bytes) const;

  using LinkStats = LinkServers::LinkStats;  // ticks are NoC clocks
  std::size_t link_count() const { return servers_.link_count(); }
  const LinkStats& stats(std::size_t link) const { return servers_.stats(link); }
  // "n3 -> n4" (a crossbar's switch is "switch").
  std::string link_name(std::size_t link) const;

 private:
  std::int64_t neighbour(std::int64_t node, int direction) const;

  spec::NocSpec spec_;
  std::uint64_t period_;
  LinkServers servers_;
  std::vector<std::int32_t> route_;  // the last route asked for
};

// The network's read bound (the figure's NoC roof): the most bytes per second the memory can send
// the cores through it, in the steady state where every core reads alike and the addresses spread
// evenly over the `channels` scheduled DRAM channels, with `cores` cores on nodes 0 .. cores - 1.
//
// Derivation. At a total rate of B bytes/s each of the channels x cores (channel, core) pairs moves
// B / (channels x cores), all of it along the one fixed route from the channel's node
// (memory_nodes[channel mod size]) to the core's node: the route() above, so X then Y on a grid,
// the shorter way round a torus or a ring, and over the switch on a crossbar. A link on the routes
// of k pairs carries k B / (channels x cores), and can carry at most W = link_bytes x clock bytes/s
// (each direction of a pair of nodes is a link of its own), so
//   B <= W x channels x cores / k_max,
// k_max the most pairs any link carries; and B reaches it: at that rate the busiest link is busy all
// the time and every other is within its W. No cut of the network says less: a cut (the links out of a
// memory node, the links into a core's node, the links across a bisection of a grid or a ring) is
// a set of links crossed by some pairs, and the bound it gives, its links' W over the share of the
// bytes that must cross them, is never below that of its busiest link. Where the routes pile pairs
// onto one link (X first: every byte a memory node sends to the columns east of it leaves over its
// one east link) the bound is that link's, below the bisection's.
//
// Reads shared alike only: stores travel from the cores to the memory over the links of the other
// direction, and cores that read unequal shares (or multicast, one DRAM byte to several cores) load
// other links than these. Infinity when no pair crosses a link (one core on its memory's node, a
// 1 x 1 grid).
double noc_read_bytes_per_second(const spec::NocSpec& noc, std::int64_t cores, std::int64_t channels);

}  // namespace reusesim::timing
