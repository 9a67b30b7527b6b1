#pragma once
// The links between a system's chips (spec::SystemSpec): routes over its topology and the links'
// occupancy, plain C++ so that hw::ChipLinks' timing is tested without SystemC. Times are
// picoseconds.
//
// Each chip spreads its links evenly over its neighbours (docs/systems.md, "Topology"): the links
// to one neighbour are a bundle, a server (timing::LinkServers) of their bandwidths together, each
// direction its own. A transfer holds each bundle of its route for its bytes at the bundle's rate,
// rounded up to a picosecond, cut-through, its head taking the link latency a hop. Routes: a ring
// the shorter way (forward on a tie); a torus dimension by dimension, the first first, each the
// shorter way round; fully connected straight to the chip; a switch up to it and down.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/system_spec.h"
#include "timing/link_servers.h"

namespace reusesim::timing {

class SystemLinks {
 public:
  explicit SystemLinks(const spec::SystemSpec& spec);

  // The links from chip `from` to chip `to`, in order (none when they are one chip).
  const std::vector<std::int32_t>& route(std::int64_t from, std::int64_t to);
  // `bytes` ready to leave at `ready` (ps) along `path`: when the last of them arrives. Holds the links.
  std::uint64_t carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t bytes);
  // After record_entries(): the links the last carry held, each with when the transfer entered it
  // (it held the link hold_ps(bytes) from then). Not kept otherwise: only a timeline needs them.
  void record_entries() {
    servers_.record_entries();
    network_.record_entries();
  }
  const std::vector<LinkServers::Entered>& last_entered() const { return entered_; }
  // Picoseconds `bytes` hold one bundle of the chips' links (of a node's, with nodes).
  std::uint64_t hold_ps(std::uint64_t bytes) const { return hold_at(bytes, bundle_mbps_); }
  // Picoseconds `bytes` hold `link`'s bundle.
  std::uint64_t hold_ps(std::uint64_t bytes, std::size_t link) const {
    return hold_at(bytes, is_network(link) ? network_mbps_ : bundle_mbps_);
  }
  std::uint64_t hop_ps() const { return servers_.hop(); }

  using LinkStats = LinkServers::LinkStats;  // ticks are picoseconds
  std::size_t link_count() const { return servers_.link_count() + network_.link_count(); }
  const LinkStats& stats(std::size_t link) const {
    return is_network(link) ? network_.stats(link - servers_.link_count()) : servers_.stats(link);
  }
  // Whether `link` is one of the system's: links are indexed by bundle slots (bundle_slots), of
  // which some lead nowhere (a ring of two chips' second direction, a fully connected chip's own).
  bool exists(std::size_t link) const;
  // "chip0 -> chip1"; a switch's "chip0 -> switch" and "switch -> chip1" (with nodes "chip8 ->
  // node1 switch"); the nodes' network's "chip8 -> network" and "network -> chip0".
  std::string link_name(std::size_t link) const;

 private:
  static std::uint64_t hold_at(std::uint64_t bytes, std::uint64_t mbps);
  bool is_network(std::size_t link) const { return link >= servers_.link_count(); }
  // The chip a link leads to (-1: the switch), and the bundles each chip's are indexed by (a
  // direction of a ring or a torus dimension, a switch's up and down, a fully connected chip's
  // every chip, its own unused).
  std::int64_t link_target(std::size_t link) const;
  std::int64_t bundle_slots() const;

  spec::SystemSpec spec_;
  std::uint64_t bundle_mbps_;   // 1e6 bytes/s
  std::uint64_t network_mbps_;  // a chip's network links together; 0 without nodes
  LinkServers servers_;
  LinkServers network_;              // chip c's up to the nodes' switch 2c, down from it 2c + 1; none without nodes
  std::vector<std::int32_t> route_;  // the last route asked for
  std::vector<std::int32_t> network_path_;
  std::vector<LinkServers::Entered> entered_;  // the last carry's, after record_entries()
};

}  // namespace reusesim::timing
