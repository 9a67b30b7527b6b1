#include "timing/noc_links.h"

#include <algorithm>
#include <limits>
#include <map>

namespace reusesim::timing {

namespace {

// A node's links, by direction: on a mesh and a torus east (x + 1), west, south (y + 1), north; on
// a ring forward (node + 1) and back; on a crossbar up to the switch and down from it.
constexpr int kDirections = 4;
constexpr int kEast = 0, kWest = 1, kSouth = 2, kNorth = 3;
constexpr int kUp = 0, kDown = 1;

}  // namespace

NocLinks::NocLinks(const spec::NocSpec& spec, std::uint64_t period)
    : spec_(spec),
      period_(period),
      servers_(static_cast<std::size_t>(spec.nodes() * kDirections),
               period * static_cast<std::uint64_t>(spec.router_latency_cycles), period) {}

std::int64_t NocLinks::neighbour(std::int64_t node, int direction) const {
  const std::int64_t columns = spec_.columns, rows = spec_.rows;
  const std::int64_t x = node % columns, y = node / columns;
  switch (spec_.topology) {
    case spec::NocTopology::ring:
      return (node + (direction == kEast ? 1 : spec_.nodes() - 1)) % spec_.nodes();
    case spec::NocTopology::crossbar:
      return -1;
    case spec::NocTopology::mesh:
    case spec::NocTopology::torus:
      break;
  }
  switch (direction) {
    case kEast:
      return y * columns + (x + 1) % columns;
    case kWest:
      return y * columns + (x + columns - 1) % columns;
    case kSouth:
      return ((y + 1) % rows) * columns + x;
    default:
      return ((y + rows - 1) % rows) * columns + x;
  }
}

const std::vector<std::int32_t>& NocLinks::route(std::int64_t from, std::int64_t to) {
  route_.clear();
  if (from == to) return route_;
  const auto push = [&](std::int64_t node, int direction) {
    route_.push_back(static_cast<std::int32_t>(node * kDirections + direction));
  };
  if (spec_.topology == spec::NocTopology::crossbar) {
    push(from, kUp);
    push(to, kDown);
    return route_;
  }
  if (spec_.topology == spec::NocTopology::ring) {
    const RingSteps steps = ring_steps(from, to, spec_.nodes(), true);
    for (std::int64_t node = from, i = 0; i < steps.count; ++i) {
      push(node, steps.forward ? kEast : kWest);
      node = neighbour(node, steps.forward ? kEast : kWest);
    }
    return route_;
  }
  // X first, then Y.
  const bool wraps = spec_.topology == spec::NocTopology::torus;
  std::int64_t node = from;
  const RingSteps x = ring_steps(from % spec_.columns, to % spec_.columns, spec_.columns, wraps);
  for (std::int64_t i = 0; i < x.count; ++i) {
    push(node, x.forward ? kEast : kWest);
    node = neighbour(node, x.forward ? kEast : kWest);
  }
  const RingSteps y = ring_steps(from / spec_.columns, to / spec_.columns, spec_.rows, wraps);
  for (std::int64_t i = 0; i < y.count; ++i) {
    push(node, y.forward ? kSouth : kNorth);
    node = neighbour(node, y.forward ? kSouth : kNorth);
  }
  return route_;
}

std::uint64_t NocLinks::flits(std::uint64_t bytes) const {
  const auto link_bytes = static_cast<std::uint64_t>(spec_.link_bytes);
  return (bytes + link_bytes - 1) / link_bytes;
}

std::uint64_t NocLinks::carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t bytes) {
  servers_.forget_entries();
  return servers_.carry(path, ready, flits(bytes) * period_, bytes);
}

std::vector<std::uint64_t> NocLinks::multicast(std::int64_t from, const std::vector<std::int64_t>& to,
                                               std::uint64_t ready, std::uint64_t bytes) {
  servers_.forget_entries();
  const std::uint64_t hold = flits(bytes) * period_;
  std::vector<std::pair<std::int32_t, std::uint64_t>> taken;  // links carrying it, and its head after each
  std::vector<std::uint64_t> arrivals;
  for (const std::int64_t node : to) {
    const std::vector<std::int32_t>& path = route(from, node);
    if (path.empty()) {
      arrivals.push_back(ready);
      continue;
    }
    std::uint64_t head = ready;
    for (const std::int32_t link : path) {
      const auto found = std::find_if(taken.begin(), taken.end(), [&](const auto& t) { return t.first == link; });
      if (found != taken.end()) {
        head = found->second;
      } else {
        head = servers_.enter(link, head, hold, bytes) + servers_.hop();
        taken.emplace_back(link, head);
      }
    }
    arrivals.push_back(head + hold);
  }
  return arrivals;
}

std::string NocLinks::link_name(std::size_t link) const {
  const auto node = static_cast<std::int64_t>(link / kDirections);
  const int direction = static_cast<int>(link % kDirections);
  const std::string here = "n" + std::to_string(node);
  if (spec_.topology == spec::NocTopology::crossbar)
    return direction == kUp ? here + " -> switch" : "switch -> " + here;
  return here + " -> n" + std::to_string(neighbour(node, direction));
}

double noc_read_bytes_per_second(const spec::NocSpec& noc, std::int64_t cores, std::int64_t channels) {
  // Channels that share a node share its routes: count them once per node.
  std::map<std::int64_t, std::int64_t> channels_at;
  for (std::int64_t channel = 0; channel < channels; ++channel)
    ++channels_at[noc.memory_nodes[static_cast<std::size_t>(channel) % noc.memory_nodes.size()]];
  NocLinks links(noc, 1);
  std::vector<std::int64_t> pairs(links.link_count());
  for (const auto& [node, count] : channels_at) {
    for (std::int64_t core = 0; core < cores; ++core) {
      for (const std::int32_t link : links.route(node, core)) pairs[static_cast<std::size_t>(link)] += count;
    }
  }
  const std::int64_t busiest = *std::max_element(pairs.begin(), pairs.end());
  if (busiest == 0) return std::numeric_limits<double>::infinity();
  const double link_bytes_per_second = static_cast<double>(noc.link_bytes) * noc.clock_mhz * 1e6;
  return link_bytes_per_second * static_cast<double>(channels * cores) / static_cast<double>(busiest);
}

}  // namespace reusesim::timing
