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

}  // namespace

SystemLinks::SystemLinks(const spec::SystemSpec& spec)
    : spec_(spec),
      bundle_mbps_(
          static_cast<std::uint64_t>(std::llround(spec.link.bandwidth_gbps * 1000.0) * spec.links_per_neighbour())),
      servers_(static_cast<std::size_t>(spec.chips * bundle_slots()),
               static_cast<std::uint64_t>(std::llround(spec.link.latency_ns * 1000.0)), 1) {}

std::int64_t SystemLinks::bundle_slots() const {
  switch (spec_.topology) {
    case spec::ChipTopology::torus:
      return 2 * static_cast<std::int64_t>(spec_.torus_dimensions.size());
    case spec::ChipTopology::fully_connected:
      return spec_.chips;
    case spec::ChipTopology::ring:
    case spec::ChipTopology::switched:
      break;
  }
  return 2;
}

std::uint64_t SystemLinks::hold_ps(std::uint64_t bytes) const {
  // bytes / (mbps x 1e6 bytes/s) in ps = bytes x 1e6 / mbps, rounded up; whole mbps first, so
  // that no product overflows.
  constexpr std::uint64_t kPsPerMicrosecond = 1'000'000;
  const std::uint64_t whole = bytes / bundle_mbps_, rest = bytes % bundle_mbps_;
  return whole * kPsPerMicrosecond + (rest * kPsPerMicrosecond + bundle_mbps_ - 1) / bundle_mbps_;
}

const std::vector<std::int32_t>& SystemLinks::route(std::int64_t from, std::int64_t to) {
  route_.clear();
  if (from == to) return route_;
  const std::int64_t per_chip = bundle_slots();
  const auto push = [&](std::int64_t chip, std::int64_t link) {
    route_.push_back(static_cast<std::int32_t>(chip * per_chip + link));
  };
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      push(from, kUp);
      push(to, kDown);
      return route_;
    case spec::ChipTopology::fully_connected:
      push(from, to);
      return route_;
    case spec::ChipTopology::ring: {
      const RingSteps steps = ring_steps(from, to, spec_.chips, true);
      for (std::int64_t chip = from, i = 0; i < steps.count; ++i) {
        push(chip, steps.forward ? kForward : kBack);
        chip = (chip + (steps.forward ? 1 : spec_.chips - 1)) % spec_.chips;
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
  servers_.forget_entries();
  return servers_.carry(path, ready, hold_ps(bytes), bytes);
}

std::int64_t SystemLinks::link_target(std::size_t link) const {
  const std::int64_t per_chip = bundle_slots();
  const std::int64_t chip = static_cast<std::int64_t>(link) / per_chip;
  const std::int64_t which = static_cast<std::int64_t>(link) % per_chip;
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      return which == kUp ? -1 : chip;
    case spec::ChipTopology::fully_connected:
      return which;
    case spec::ChipTopology::ring:
      return (chip + (which == kForward ? 1 : spec_.chips - 1)) % spec_.chips;
    case spec::ChipTopology::torus:
      break;
  }
  std::int64_t stride = 1;
  for (std::int64_t d = 0; d < which / 2; ++d) stride *= spec_.torus_dimensions[static_cast<std::size_t>(d)];
  return torus_step(chip, stride, spec_.torus_dimensions[static_cast<std::size_t>(which / 2)],
                    which % 2 == kForward ? 1 : -1);
}

bool SystemLinks::exists(std::size_t link) const {
  const std::int64_t chip = static_cast<std::int64_t>(link) / bundle_slots();
  const std::int64_t which = static_cast<std::int64_t>(link) % bundle_slots();
  // A ring (or torus dimension) of two chips has one neighbour, reached forward; of one, none.
  const auto ring_link = [&](std::int64_t size) { return size > 2 || (size == 2 && which % 2 == kForward); };
  switch (spec_.topology) {
    case spec::ChipTopology::switched:
      return spec_.chips > 1;
    case spec::ChipTopology::fully_connected:
      return which != chip;
    case spec::ChipTopology::ring:
      return ring_link(spec_.chips);
    case spec::ChipTopology::torus:
      break;
  }
  return ring_link(spec_.torus_dimensions[static_cast<std::size_t>(which / 2)]);
}

std::string SystemLinks::link_name(std::size_t link) const {
  const std::int64_t chip = static_cast<std::int64_t>(link) / bundle_slots();
  const std::int64_t target = link_target(link);
  if (spec_.topology == spec::ChipTopology::switched) {
    return target < 0 ? "chip" + std::to_string(chip) + " -> switch" : "switch -> chip" + std::to_string(chip);
  }
  return "chip" + std::to_string(chip) + " -> chip" + std::to_string(target);
}

}  // namespace reusesim::timing
