#include "config/system_loader.h"

#include <algorithm>

#include "config/accelerator_loader.h"
#include "config/config_node.h"
#include "config/node_reader.h"

namespace reusesim::config {

namespace {

// Chips a system may have: a 64-chip TPU v4 slice with room for a few thousand (a full pod).
constexpr std::int64_t kMaxChips = 4096;
constexpr std::int64_t kMaxLinksPerChip = 1024;
constexpr std::int64_t kMaxMicroBatches = 4096;
const std::string kChipPrefix = "chip.";

// What the topology needs of the chips and their links: a torus its dimensions, whose product is
// the chip count; every topology links that spread evenly over a chip's neighbours.
void check_topology(spec::SystemSpec& system, MapReader& reader) {
  util::Diagnostics& diagnostics = reader.diagnostics();
  const ConfigNode* dimensions = reader.optional("torus_dimensions");
  if (system.topology == spec::ChipTopology::torus) {
    if (dimensions == nullptr) {
      diagnostics.error(reader.location(), reader.child_path("torus_dimensions"),
                        "a torus needs its dimensions, e.g. torus_dimensions: [4, 4, 4]");
      return;
    }
    system.torus_dimensions =
        read_integer_list(*dimensions, reader.child_path("torus_dimensions"), {1, kMaxChips}, nullptr, diagnostics);
    std::int64_t product = 1;  // stops above kMaxChips, before it could overflow
    for (const std::int64_t size : system.torus_dimensions) product = std::min(product * size, kMaxChips + 1);
    if (!system.torus_dimensions.empty() && product != system.node_chips()) {
      diagnostics.error(dimensions->location, reader.child_path("torus_dimensions"),
                        "the dimensions hold " +
                            (product > kMaxChips ? "more than " + std::to_string(kMaxChips) : std::to_string(product)) +
                            " chips, but " +
                            (system.nodes ? "a node has " + std::to_string(system.node_chips())
                                          : "chips is " + std::to_string(system.chips)));
      return;
    }
  } else if (dimensions != nullptr) {
    diagnostics.error(dimensions->location, reader.child_path("torus_dimensions"),
                      "only a torus has dimensions (topology is " + util::name(system.topology) + ")");
    return;
  }
  const std::int64_t neighbours = system.neighbours();
  if (system.node_chips() > 1 && system.link.per_chip > 0 && system.link.per_chip % neighbours != 0) {
    diagnostics.error(reader.optional("links")->location, reader.child_path("links.per_chip"),
                      std::to_string(system.link.per_chip) + " links do not spread evenly over a chip's " +
                          std::to_string(neighbours) + " neighbours (" + util::name(system.topology) +
                          "): give a multiple of " + std::to_string(neighbours));
  }
}

// A link's keys (`links`, `nodes.network`).
spec::ChipLinkSpec read_link(MapReader& link) {
  spec::ChipLinkSpec spec;
  spec.per_chip = link.required_integer("per_chip", {1, kMaxLinksPerChip}).value_or(0);
  spec.bandwidth_gbps = link.required_number("bandwidth_gbps", {1e-3, 1e6}).value_or(0);
  spec.latency_ns = link.required_number("latency_ns", {0, 1e9}).value_or(0);
  link.finish();
  return spec;
}

// `nodes`: the chips in nodes of chips_per_node, which divides the chips, and each chip's links to
// the nodes' network. False when the key is there but not valid (the topology is not checked then).
bool read_nodes(spec::SystemSpec& system, MapReader& reader) {
  const ConfigNode* nodes = reader.optional("nodes");
  if (nodes == nullptr) return true;
  MapReader node_reader(*nodes, reader.child_path("nodes"), reader.diagnostics());
  if (!node_reader.valid()) return false;
  spec::NodeSpec spec;
  const std::optional<std::int64_t> chips_per_node = node_reader.required_integer("chips_per_node", {1, kMaxChips});
  spec.chips_per_node = chips_per_node.value_or(1);
  bool valid = chips_per_node.has_value();
  if (const ConfigNode* network = node_reader.required("network")) {
    MapReader link(*network, node_reader.child_path("network"), reader.diagnostics());
    if (link.valid()) spec.network = read_link(link);
    valid = valid && link.valid() && spec.network.per_chip > 0 && spec.network.bandwidth_gbps > 0;
  } else {
    valid = false;
  }
  node_reader.finish();
  if (chips_per_node && system.chips > 0 && system.chips % spec.chips_per_node != 0) {
    reader.diagnostics().error(node_reader.optional("chips_per_node")->location,
                               node_reader.child_path("chips_per_node"),
                               "nodes of " + std::to_string(spec.chips_per_node) + " chips do not make the system's " +
                                   std::to_string(system.chips) + ": give a divisor of chips");
    valid = false;
  }
  system.nodes = spec;
  return valid;
}

spec::SystemSpec read_system(const ConfigNode& root, const std::string& origin,
                             const std::vector<std::string>& chip_overrides, util::Diagnostics& diagnostics) {
  spec::SystemSpec system;
  MapReader reader(root, "", diagnostics);
  if (!reader.valid()) return system;
  system.name = reader.required_name("name").value_or("");
  const std::optional<std::string> chip_file = reader.required_string("chip");
  system.chips = reader.required_integer("chips", {1, kMaxChips}).value_or(0);
  system.topology = reader.enum_or("topology", spec::ChipTopology::ring);
  if (const ConfigNode* links = reader.required("links")) {
    MapReader link(*links, reader.child_path("links"), diagnostics);
    if (link.valid()) system.link = read_link(link);
  }
  const bool nodes_valid = read_nodes(system, reader);
  if (system.chips > 0 && nodes_valid) check_topology(system, reader);
  if (const ConfigNode* plan = reader.optional("plan")) {
    MapReader plan_reader(*plan, reader.child_path("plan"), diagnostics);
    if (plan_reader.valid()) {
      spec::ParallelPlan parallel;
      const std::optional<std::int64_t> tensor = plan_reader.optional_integer("tensor", {1, kMaxChips});
      const std::optional<std::int64_t> pipeline = plan_reader.optional_integer("pipeline", {1, kMaxChips});
      const std::optional<std::int64_t> data = plan_reader.optional_integer("data", {1, kMaxChips});
      const std::optional<std::int64_t> micro_batches =
          plan_reader.optional_integer("micro_batches", {1, kMaxMicroBatches});
      parallel.tensor = tensor.value_or(1);
      parallel.pipeline = pipeline.value_or(1);
      parallel.data = data.value_or(1);
      parallel.micro_batches = micro_batches.value_or(1);
      parallel.all_reduce = plan_reader.enum_or("all_reduce", spec::AllReduceAlgorithm::ring);
      // A key given but not valid has its error already; the product of the others would mislead.
      const bool valid = (tensor || !plan_reader.optional("tensor")) &&
                         (pipeline || !plan_reader.optional("pipeline")) && (data || !plan_reader.optional("data"));
      // Every chip takes part: (replica x pipeline + stage) x tensor + rank is the chips' one layout.
      // The product stops above kMaxChips, before it could overflow.
      const std::int64_t planned =
          std::min(parallel.tensor * parallel.pipeline, kMaxChips + 1) * std::min(parallel.data, kMaxChips + 1);
      if (valid && system.chips > 0 && planned != system.chips) {
        diagnostics.error(
            plan_reader.location(), reader.child_path("plan"),
            "tensor x pipeline x data is " + std::to_string(parallel.tensor) + " x " +
                std::to_string(parallel.pipeline) + " x " + std::to_string(parallel.data) + " = " +
                (planned > kMaxChips ? "more than " + std::to_string(kMaxChips) : std::to_string(planned)) +
                " chips, but the system has " + std::to_string(system.chips) + ": a plan takes every chip");
      }
      // Micro-batches flow through stages: without a pipeline they would only split the batch.
      if (parallel.micro_batches > 1 && parallel.pipeline == 1) {
        diagnostics.error(plan_reader.optional("micro_batches")->location, reader.child_path("plan.micro_batches"),
                          "micro-batches flow through pipeline stages: with more than 1, plan.pipeline must be "
                          "more than 1 too");
      }
      system.plan = parallel;
      plan_reader.finish();
    }
  }
  reader.finish();
  if (chip_file) {
    try {
      system.chip = load_accelerator_file(relative_to(origin, *chip_file), chip_overrides);
    } catch (const util::InputError& error) {
      // The chip file's problems keep its locations; an override's names it as it was given.
      for (const util::Diagnostic& diagnostic : error.diagnostics()) {
        util::SourceLocation location = diagnostic.location;
        for (const std::string& assignment : chip_overrides) {
          if (location.file == override_origin(assignment)) location.file = override_origin(kChipPrefix + assignment);
        }
        diagnostics.error(location, diagnostic.key_path, diagnostic.message);
      }
    }
  }
  return system;
}

spec::SystemSpec load_system(const DocumentSource& source, const std::vector<std::string>& overrides) {
  const SplitOverrides split = split_overrides(overrides, kChipPrefix);
  util::Diagnostics diagnostics;
  const ConfigNode root = load_document(source, FileKind::system, split.rest, diagnostics);
  spec::SystemSpec system = read_system(root, source.origin, split.under_prefix, diagnostics);
  diagnostics.throw_if_any();
  return system;
}

}  // namespace

bool is_system_file(const std::string& file) {
  util::Diagnostics diagnostics;
  const ConfigNode root = load_yaml_file(file, diagnostics);
  return diagnostics.empty() && file_kind_of(root) == FileKind::system;
}

spec::SystemSpec load_system_file(const std::string& path, const std::vector<std::string>& overrides) {
  return load_system({path, std::nullopt}, overrides);
}

spec::SystemSpec load_system_text(const std::string& text, const std::string& origin,
                                  const std::vector<std::string>& overrides) {
  return load_system({origin, text}, overrides);
}

}  // namespace reusesim::config
