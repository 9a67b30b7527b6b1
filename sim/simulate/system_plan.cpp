#include "simulate/system_plan.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include "parallel/collectives.h"

namespace reusesim::simulate {

namespace {

using program::ChipSegment;

program::LinkProgram collective_program(const parallel::TensorCollective& collective,
                                        const parallel::CollectiveShape& shape) {
  return collective.kind == parallel::CollectiveKind::all_reduce ? parallel::ring_all_reduce(shape)
                                                                 : parallel::ring_all_gather(shape);
}

}  // namespace

SystemRunPlan plan_system_inference(const spec::SystemSpec& system, const workload::ModelSpec& model,
                                    const workload::Network& network, std::int64_t decode_context,
                                    const std::vector<std::int64_t>& batches, const std::string& origin,
                                    bool every_chip, const RunLimits& limits) {
  const std::int64_t degree = system.plan ? system.plan->tensor : 1;
  SystemRunPlan plan;
  plan.split = parallel::split_tensor_parallel(model, network, degree, decode_context);
  const workload::Network& chip_network = plan.split.chip_network;
  std::vector<std::size_t> every_layer(chip_network.layers.size());
  std::iota(every_layer.begin(), every_layer.end(), std::size_t{0});
  plan.chip_plan = plan_inference(system.chip, chip_network, batches, every_layer, origin, limits);

  parallel::CollectiveShape shape;
  shape.group.resize(static_cast<std::size_t>(degree));
  std::iota(shape.group.begin(), shape.group.end(), std::int64_t{0});
  shape.system_chips = system.chips;
  shape.element_bytes = chip_network.run_widths(system.chip.element_bytes()).activation_bits / 8;
  bool even_chunks = true;
  program::ChipWork work;
  work.runs = std::move(plan.chip_plan.runs);
  std::size_t batch = 0;
  std::size_t first = 0;
  const auto close_layers = [&](std::size_t end) {
    if (end > first) work.segments.push_back({ChipSegment::Kind::layers, first, end, 0, batch});
    first = end;
  };
  auto next_collective = plan.split.collectives.begin();
  const auto end_batch = [&](std::size_t end) {
    close_layers(end);
    if (next_collective != plan.split.collectives.end())
      throw std::logic_error("a collective after layer " + std::to_string(next_collective->after_layer) + " of " +
                             chip_network.name + " follows no run");
  };
  for (std::size_t r = 0; r < work.runs.size(); ++r) {
    if (work.runs[r].starts_batch && r > 0) {
      end_batch(r);
      ++batch;
      next_collective = plan.split.collectives.begin();
    }
    while (next_collective != plan.split.collectives.end() &&
           next_collective->after_layer == plan.chip_plan.layers[r]) {
      close_layers(r + 1);
      shape.elements = next_collective->elements_per_sample * batches[batch];
      even_chunks = even_chunks && shape.elements % degree == 0;
      work.segments.push_back({ChipSegment::Kind::link, 0, 0, plan.program.link_programs.size(), batch});
      plan.program.link_programs.push_back(collective_program(*next_collective, shape));
      plan.program.link_programs.back().name.insert(0,
                                                    chip_network.layers[next_collective->after_layer].spec.name + ": ");
      ++next_collective;
    }
  }
  end_batch(work.runs.size());

  // A ring, a switch or fully connected chips give every chip's part of a ring collective the same
  // links; a torus may route some of the ring's steps over more hops than others. A chip of several
  // cores is not twinned: its cores' threads that wake at one instant run in an order SystemC takes
  // from its queue of timed events, which the other chips' events change (docs/systems.md, "Twins").
  const bool symmetric_links = system.topology != spec::ChipTopology::torus;
  plan.twins = !every_chip && degree > 1 && symmetric_links && even_chunks && system.chip.cores == 1;
  plan.program.chips.resize(static_cast<std::size_t>(system.chips));
  for (std::size_t c = plan.program.chips.size(); c-- > 0;) {
    program::ChipWork& chip = plan.program.chips[c];
    chip.segments = work.segments;
    if (plan.twins && c > 0) {
      chip.same_layers_as = 0;
    } else {
      chip.runs = c > 0 ? work.runs : std::move(work.runs);
    }
  }
  return plan;
}

}  // namespace reusesim::simulate
