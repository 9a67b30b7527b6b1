// System files (config/system_loader.h): what they say, and a clear error for each kind of bad
// input, with its file, line and key path.
#include <catch2/catch.hpp>

#include "config/system_loader.h"
#include "input_error_text.h"

using namespace reusesim;
using Catch::Matchers::Contains;

namespace {

const std::string kOrigin = std::string(REUSESIM_SOURCE_DIR) + "/configs/systems/test.yaml";

std::string system_text(const std::string& topology_lines,
                        const std::string& links = "{per_chip: 2, bandwidth_gbps: 25, latency_ns: 500}") {
  return "name: four\nchip: ../small.yaml\nchips: 4\n" + topology_lines + "links: " + links + "\n";
}

std::string load_error(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return input_error_text([&] { config::load_system_text(text, kOrigin, overrides); });
}

}  // namespace

TEST_CASE("system file: the chip file relative to it, the topology and the links", "[system_config]") {
  const spec::SystemSpec ring = config::load_system_text(system_text("topology: ring\n"), kOrigin);
  CHECK(ring.name == "four");
  CHECK(ring.chip.name == "small");
  CHECK(ring.chips == 4);
  CHECK(ring.topology == spec::ChipTopology::ring);
  CHECK(ring.link.bandwidth_gbps == 25);
  CHECK(ring.link.latency_ns == 500);
  CHECK(ring.links_per_neighbour() == 1);  // 2 links over 2 neighbours
  const spec::SystemSpec a100 =
      config::load_system_file(std::string(REUSESIM_SOURCE_DIR) + "/configs/systems/a100_nvlink8.yaml");
  CHECK(a100.chips == 8);
  CHECK(a100.topology == spec::ChipTopology::switched);
  CHECK(a100.links_per_neighbour() == 12);  // all 12 NVLinks to the switch
  CHECK(a100.chip.name == "a100");
}

TEST_CASE("system file: overrides of the system and, under chip., of its chip", "[system_config]") {
  const spec::SystemSpec torus = config::load_system_text(
      system_text("topology: ring\n"), kOrigin,
      {"chips=8", "topology=torus", "torus_dimensions=[2,2,2]", "links.per_chip=6", "chip.compute.clock_mhz=500"});
  CHECK(torus.chips == 8);
  CHECK(torus.torus_dimensions == std::vector<std::int64_t>{2, 2, 2});
  CHECK(torus.neighbours() == 3);  // one neighbour along each dimension of 2
  CHECK(torus.links_per_neighbour() == 2);
  CHECK(torus.chip.compute.clock_mhz == 500);
}

TEST_CASE("system file: a torus needs dimensions that hold its chips, and only a torus has them", "[system_config]") {
  CHECK_THAT(load_error(system_text("topology: torus\n")),
             Contains("test.yaml:1:1: error: torus_dimensions: a torus needs its dimensions, e.g. torus_dimensions: "
                      "[4, 4, 4]"));
  CHECK_THAT(load_error(system_text("topology: torus\ntorus_dimensions: [2, 3]\n")),
             Contains("test.yaml:5:19: error: torus_dimensions: the dimensions hold 6 chips, but chips is 4"));
  // Six dimensions of 4,096 would overflow a 64-bit product: it stops above the 4,096 chips a system may have.
  CHECK_THAT(load_error(system_text("topology: torus\ntorus_dimensions: [4096, 4096, 4096, 4096, 4096, 4096]\n")),
             Contains("error: torus_dimensions: the dimensions hold more than 4096 chips, but chips is 4"));
  CHECK_THAT(load_error(system_text("topology: ring\ntorus_dimensions: [4]\n")),
             Contains("test.yaml:5:19: error: torus_dimensions: only a torus has dimensions (topology is ring)"));
}

TEST_CASE("system file: links that do not spread evenly, bad numbers and words", "[system_config]") {
  CHECK_THAT(load_error(system_text("topology: ring\n", "{per_chip: 3, bandwidth_gbps: 25, latency_ns: 500}")),
             Contains("error: links.per_chip: 3 links do not spread evenly over a chip's 2 neighbours (ring): give a "
                      "multiple of 2"));
  CHECK_THAT(load_error(system_text("topology: ring\n", "{per_chip: 2, bandwidth_gbps: 0, latency_ns: 500}")),
             Contains("error: links.bandwidth_gbps: expected a number from 0.001 to 1e+06, got 0"));
  CHECK_THAT(load_error(system_text("topology: mesh\n")),
             Contains("error: topology: expected one of ring, torus, fully_connected, switch"));
  CHECK_THAT(load_error(system_text("topology: ring\n"), {"chips=0"}), Contains("error: chips: expected"));
  CHECK_THAT(load_error(system_text("topology: ring\nlink: {}\n")),
             Contains("test.yaml:5:1: error: link: unknown key (did you mean \"links\"?)"));
}

TEST_CASE("system file: its chip's problems keep the chip file's own location", "[system_config]") {
  CHECK_THAT(load_error(system_text("topology: ring\n"), {"chip.compute.clock_mhz=0"}),
             Contains("error: compute.clock_mhz: expected"));
  CHECK_THAT(
      load_error("name: x\nchip: ../none.yaml\nchips: 2\nlinks: {per_chip: 1, bandwidth_gbps: 1, latency_ns: 1}\n"),
      Contains("none.yaml"));
}

TEST_CASE("system file: a plan of tensor and pipeline parallelism over every chip", "[system_config]") {
  const spec::SystemSpec planned =
      config::load_system_text(system_text("topology: ring\nplan: {tensor: 4}\n"), kOrigin);
  REQUIRE(planned.plan);
  CHECK(planned.plan->tensor == 4);
  CHECK(planned.plan->pipeline == 1);
  CHECK(planned.plan->micro_batches == 1);
  CHECK_FALSE(config::load_system_text(system_text("topology: ring\n"), kOrigin).plan);
  const spec::SystemSpec both = config::load_system_text(system_text("topology: ring\n"), kOrigin,
                                                         {"plan.tensor=2", "plan.pipeline=2", "plan.micro_batches=8"});
  CHECK(both.plan->tensor == 2);
  CHECK(both.plan->pipeline == 2);
  CHECK(both.plan->micro_batches == 8);
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {tensor: 2}\n")),
             Contains("test.yaml:5:7: error: plan: tensor x pipeline x data is 2 x 1 x 1 = 2 chips, but the system "
                      "has 4: a plan takes every chip"));
  CHECK(config::load_system_text(system_text("topology: ring\nplan: {tensor: 2, data: 2}\n"), kOrigin).plan->data == 2);
  // Three factors of 4,096 would overflow no product: it stops above the 4,096 chips a system may have.
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {tensor: 4096, pipeline: 4096, data: 4096}\n")),
             Contains("error: plan: tensor x pipeline x data is 4096 x 4096 x 4096 = more than 4096 chips"));
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {tensor: 0}\n")), Contains("error: plan.tensor: expected"));
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {pipeline: 4, micro_batches: 0}\n")),
             Contains("error: plan.micro_batches: expected"));
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {tensor: 4, micro_batches: 2}\n")),
             Contains("test.yaml:5:34: error: plan.micro_batches: micro-batches flow through pipeline stages: with "
                      "more than 1, plan.pipeline must be more than 1 too"));
  // A key that is not valid gets its own error, not a product of the others' too.
  const std::string bad_tensor = load_error(system_text("topology: ring\nplan: {tensor: 0}\n"));
  CHECK_THAT(bad_tensor, !Contains("tensor x pipeline x data"));
  CHECK_THAT(load_error(system_text("topology: ring\nplan: {expert: 4}\n")),
             Contains("error: plan.expert: unknown key"));
}

TEST_CASE("system file: nodes of chips on a second network", "[system_config]") {
  // 4 chips in 2 nodes of 2: a ring of 2 in each (one neighbour, so both links to it), each chip one
  // 25 GB/s NIC to the nodes' switch.
  const std::string nodes =
      "nodes: {chips_per_node: 2, network: {per_chip: 1, bandwidth_gbps: 25, latency_ns: 2000}}\n";
  const spec::SystemSpec system = config::load_system_text(system_text("topology: ring\n" + nodes), kOrigin);
  REQUIRE(system.nodes);
  CHECK(system.node_chips() == 2);
  CHECK(system.nodes->network.latency_ns == 2000);
  CHECK(system.neighbours() == 1);
  CHECK(system.links_per_neighbour() == 2);
  CHECK_THAT(load_error(system_text("topology: ring\nnodes: {chips_per_node: 3, network: {per_chip: 1, "
                                    "bandwidth_gbps: 25, latency_ns: 2000}}\n")),
             Contains("test.yaml:5:25: error: nodes.chips_per_node: nodes of 3 chips do not make the system's 4: give "
                      "a divisor of chips"));
  CHECK_THAT(load_error(system_text("topology: ring\nnodes: {chips_per_node: 2}\n")),
             Contains("error: nodes.network: missing required key"));
  CHECK_THAT(load_error(system_text("topology: ring\nnodes: {chips_per_node: 2, network: {per_chip: 1, "
                                    "bandwidth_gbps: 0, latency_ns: 2000}}\n")),
             Contains("error: nodes.network.bandwidth_gbps: expected a number from 0.001 to 1e+06, got 0"));
  // A torus's dimensions hold a node's chips.
  CHECK_THAT(load_error(system_text("topology: torus\ntorus_dimensions: [2, 2]\n" + nodes)),
             Contains("error: torus_dimensions: the dimensions hold 4 chips, but a node has 2"));
}
