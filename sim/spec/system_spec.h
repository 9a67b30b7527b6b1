#pragma once
// A system of chips (docs/systems.md): identical chips, the links between them and their
// topology. Hardware modules take this struct and never see YAML.

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "spec/accelerator_spec.h"
#include "util/enum_names.h"

namespace reusesim::spec {

// How the chips' links connect them (docs/systems.md, "Topology"): a ring (chip i to i - 1 and
// i + 1), a torus of `torus_dimensions` (a ring along each, chip i at coordinates with the first
// dimension fastest), every pair directly (fully_connected), or each chip to one switch
// (NVSwitch-like: a bundle up to it and one down).
enum class ChipTopology { ring, torus, fully_connected, switched };
constexpr util::EnumNames<ChipTopology, 4> enum_names(ChipTopology) {
  return {{{ChipTopology::ring, "ring"},
           {ChipTopology::torus, "torus"},
           {ChipTopology::fully_connected, "fully_connected"},
           {ChipTopology::switched, "switch"}}};
}

// One of a chip's links: its bandwidth each way and the latency a transfer's head takes over it
// (the link and the chip or switch it enters).
struct ChipLinkSpec {
  double bandwidth_gbps = 0;  // 1e9 bytes/s, each direction
  double latency_ns = 0;
  std::int64_t per_chip = 0;  // links each chip has; the topology spreads them over its neighbours

  auto fields() const { return std::tie(bandwidth_gbps, latency_ns, per_chip); }
};

// How a plan's all-reduces move (parallel/collectives.h): round a ring (reduce-scatter, then
// all-gather: each link 2 (n - 1) / n of the bytes, 2 (n - 1) steps) or up and down a binary tree
// (whole buffers, 2 log2 n steps).
enum class AllReduceAlgorithm { ring, tree };
constexpr util::EnumNames<AllReduceAlgorithm, 2> enum_names(AllReduceAlgorithm) {
  return {{{AllReduceAlgorithm::ring, "ring"}, {AllReduceAlgorithm::tree, "tree"}}};
}

// How a model is split over the chips (docs/systems.md, "Running a model on a system"): `data`
// replicas of the model, each a share of the batch; a replica's layers in `pipeline` stages
// (parallel/pipeline_parallel.h), each stage's layers tensor-parallel over `tensor` chips
// (parallel/tensor_parallel.h): chip (d x pipeline + s) x tensor + r is replica d's stage s's rank
// r. A replica's batch runs through its stages in `micro_batches` equal parts.
struct ParallelPlan {
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::int64_t data = 1;
  std::int64_t micro_batches = 1;
  AllReduceAlgorithm all_reduce = AllReduceAlgorithm::ring;

  auto fields() const { return std::tie(tensor, pipeline, data, micro_batches, all_reduce); }
};

// A system of two levels (docs/systems.md, "Nodes"): the chips in nodes of `chips_per_node`
// (chips i x chips_per_node to (i + 1) x chips_per_node - 1), the system's topology and links
// joining a node's chips; each chip's `network` links (its NICs) form one bundle up to a switch
// that joins every node, and one down from it.
struct NodeSpec {
  std::int64_t chips_per_node = 1;
  ChipLinkSpec network;

  auto fields() const { return std::tie(chips_per_node, network); }
};

struct SystemSpec {
  std::string name;
  AcceleratorSpec chip;
  std::int64_t chips = 1;
  ChipTopology topology = ChipTopology::ring;
  std::vector<std::int64_t> torus_dimensions;  // torus: their product is node_chips()
  ChipLinkSpec link;
  std::optional<NodeSpec> nodes;     // none: one level, the topology joins every chip
  std::optional<ParallelPlan> plan;  // none: the file says how the chips are linked, not what they run

  auto fields() const { return std::tie(name, chip, chips, topology, torus_dimensions, link, nodes, plan); }

  // The chips the topology joins: a node's, or every chip.
  std::int64_t node_chips() const { return nodes ? nodes->chips_per_node : chips; }

  // The neighbours (a switch: the one switch) each chip's links are spread over, evenly: the links
  // between a chip and one neighbour form a bundle that moves their bandwidths together.
  std::int64_t neighbours() const {
    const std::int64_t joined = node_chips();
    switch (topology) {
      case ChipTopology::ring:
        return joined > 2 ? 2 : 1;
      case ChipTopology::torus: {
        std::int64_t count = 0;
        for (const std::int64_t size : torus_dimensions) count += size > 2 ? 2 : (size == 2 ? 1 : 0);
        return count;
      }
      case ChipTopology::fully_connected:
        return joined - 1;
      case ChipTopology::switched:
        return 1;
    }
    return 1;
  }
  std::int64_t links_per_neighbour() const { return link.per_chip / std::max<std::int64_t>(1, neighbours()); }
};

}  // namespace reusesim::spec
