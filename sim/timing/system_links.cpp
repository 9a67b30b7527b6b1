#include "timing/system_links.h"

#include <cmath>

namespace reusesim::timing {

namespace {

constexpr std::int64_t kForward = 0, kBack = 1;  // a ring's or a torus dimension's two directions
constexpr std::int64_t kUp = 0, kDown = 1;       // a switch's

// The chip `steps` away from `chip` along torus dimension `d` (whose chips are `stride` apart).
std::int64_t torus_step(std::int64_t chip, std::int64_t stride, std::int64_t size, std::int64_t steps) {
  const std::int64_t coordinate = chip / stride % size;
  return chip + (((coordinate + steps) % size + size) % size - coordinate) * stride;
}

std::uint64_t mbps(const spec::ChipLinkSpec& link, std::int64_t links) {
  return static_cast<std::uint64_t>(std::llround(link.bandwidth_gbps * 1000.0) * links);
}

std::uint64_t latency_ps(const spec::ChipLinkSpec& link) {
  return static_cast<std::uint64_t>(std::llround(link.latency_ns * 1000.0));
}

}  // namespace

SystemLinks::SystemLinks(const spec::SystemSpec& spec)
    : spec_(spec),
      bundle_mbps_(mbps(spec.link, spec.links_per_neighbour())),
      network_mbps_(spec.nodes ? mbps(spec.nodes->network, spec.nodes->network.per_chip) : 0),
      servers_(static_cast<std::size_t>(spec.chips * bundle_slots()), latency_ps(spec.link), 1),
      network_(spec.nodes ? static_cast<std::size_t>(2 * spec.chips) : 0,
               spec.nodes ? latency_ps(spec.nodes->network) : 0, 1) {}

std::int64_t SystemLinks::bundle_slots() const {
  switch (spec_.topology) {
    case spec::ChipTopology::torus:
      return 2 * static_cast<std::int64_t>(spec_.torus_dimensions.size());
    case spec::ChipTopology::fully_connected:
      return spec_.node_chips();
    case spec::ChipTopology::ring:
    case spec::ChipTopology::switched:
      break;
  }
  return 2;
}

std::uint64_t SystemLinks::hold_at(std::uint64_t bytes, std::uint64_t mbps) {
  // bytes / (mbps x 1e6 bytes/s) in ps = bytes x 1e6 / mbps, rounded up; whole mbps first, so
  // that no product overflows.
  constexpr std::uint64_t kPsPerMicrosecond = 1'000'000;
  const std::uint64_t whole = bytes / mbps, rest = bytes % mbps;
  return whole * kPsPerMicrosecond + (rest * kPsPerMicrosecond + mbps - 1) / mbps;
}

const std::vector<std::int32_t>& SystemLinks::route(std::int64_t from, std::int64_t to) {
  route_.clear();
  if (from == to) return route_;
  const std::int64_t node_chips = spec_.node_chips();
  if (from / node_chips != to / node_chips) {
    const auto base = static_cast<std::int32_t>(servers_.link_count());
    route_.push_back(base + static_cast<std::int32_t>(2 * from));
    route_.push_back(base + static_cast<std::int32_t>(2 * to + 1));
    return route_;
  }
  const std::int64_t per_chip = bundle_slots();
  const std::int64_t first = from - from % node_chips;  // the node's first chip
  const auto push = [&](std::int64_t chip, std::int64_t link) {
    route_.push_back(static_cast<std::int32_t>(chip * per_chip + link));
  };
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      push(from, kUp);
      push(to, kDown);
      return route_;
    case spec::ChipTopology::fully_connected:
      push(from, to - first);
      return route_;
    case spec::ChipTopology::ring: {
      const RingSteps steps = ring_steps(from - first, to - first, node_chips, true);
      for (std::int64_t local = from - first, i = 0; i < steps.count; ++i) {
        push(first + local, steps.forward ? kForward : kBack);
        local = (local + (steps.forward ? 1 : node_chips - 1)) % node_chips;
      }
      return route_;
    }
    case spec::ChipTopology::torus:
      break;
  }
  std::int64_t chip = from, stride = 1;
  for (std::size_t d = 0; d < spec_.torus_dimensions.size(); ++d) {
    const std::int64_t size = spec_.torus_dimensions[d];
    const RingSteps steps = ring_steps(chip / stride % size, to / stride % size, size, true);
    for (std::int64_t i = 0; i < steps.count; ++i) {
      push(chip, 2 * static_cast<std::int64_t>(d) + (steps.forward ? kForward : kBack));
      chip = torus_step(chip, stride, size, steps.forward ? 1 : -1);
    }
    stride *= size;
  }
  return route_;
}

std::uint64_t SystemLinks::carry(const std::vector<std::int32_t>& path, std::uint64_t ready, std::uint64_t bytes) {
  const auto base = static_cast<std::int32_t>(servers_.link_count());
  if (path.empty() || !is_network(static_cast<std::size_t>(path.front()))) {
    servers_.forget_entries();
    const std::uint64_t arrival = servers_.carry(path, ready, hold_ps(bytes), bytes);
    entered_ = servers_.entered();
    return arrival;
  }
  // A route to another node is the two network links alone (route()).
  network_path_.clear();
  for (const std::int32_t link : path) network_path_.push_back(link - base);
  network_.forget_entries();
  const std::uint64_t arrival = network_.carry(network_path_, ready, hold_at(bytes, network_mbps_), bytes);
  entered_ = network_.entered();
  for (LinkServers::Entered& entered : entered_) entered.link += base;
  return arrival;
}

std::int64_t SystemLinks::link_target(std::size_t link) const {
  const std::int64_t per_chip = bundle_slots(), node_chips = spec_.node_chips();
  const std::int64_t chip = static_cast<std::int64_t>(link) / per_chip;
  const std::int64_t which = static_cast<std::int64_t>(link) % per_chip;
  const std::int64_t first = chip - chip % node_chips;
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      return which == kUp ? -1 : chip;
    case spec::ChipTopology::fully_connected:
      return first + which;
    case spec::ChipTopology::ring:
      return first + (chip - first + (which == kForward ? 1 : node_chips - 1)) % node_chips;
    case spec::ChipTopology::torus:
      break;
  }
  std::int64_t stride = 1;
  for (std::int64_t d = 0; d < which / 2; ++d) stride *= spec_.torus_dimensions[static_cast<std::size_t>(d)];
  return torus_step(chip, stride, spec_.torus_dimensions[static_cast<std::size_t>(which / 2)],
                    which % 2 == kForward ? 1 : -1);
}

bool SystemLinks::exists(std::size_t link) const {
  if (is_network(link)) return spec_.chips > spec_.node_chips();
  const std::int64_t chip = static_cast<std::int64_t>(link) / bundle_slots();
  const std::int64_t which = static_cast<std::int64_t>(link) % bundle_slots();
  // A ring (or torus dimension) of two chips has one neighbour, reached forward; of one, none.
  const auto ring_link = [&](std::int64_t size) { return size > 2 || (size == 2 && which % 2 == kForward); };
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      return spec_.node_chips() > 1;
    case spec::ChipTopology::fully_connected:
      return which != chip % spec_.node_chips();
    case spec::ChipTopology::ring:
      return ring_link(spec_.node_chips());
    case spec::ChipTopology::torus:
      break;
  }
  return ring_link(spec_.torus_dimensions[static_cast<std::size_t>(which / 2)]);
}

std::string SystemLinks::link_name(std::size_t link) const {
  if (is_network(link)) {
    const std::size_t index = link - servers_.link_count();
    const std::string chip = "chip" + std::to_string(index / 2);
    return index % 2 == 0 ? chip + " -> network" : "network -> " + chip;
  }
  const std::int64_t chip = static_cast<std::int64_t>(link) / bundle_slots();
  const std::int64_t target = link_target(link);
  if (spec_.topology == spec::ChipTopology::switched) {
    const std::string hub = spec_.nodes ? "node" + std::to_string(chip / spec_.node_chips()) + " switch" : "switch";
    return target < 0 ? "chip" + std::to_string(chip) + " -> " + hub : hub + " -> chip" + std::to_string(chip);
  }
  return "chip" + std::to_string(chip) + " -> chip" + std::to_string(target);
}

}  // namespace reusesim::timing
