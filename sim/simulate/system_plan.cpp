#include "simulate/system_plan.h"

#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "parallel/collectives.h"

namespace reusesim::simulate {

namespace {

using program::ChipSegment;

// The link programs of one replica's stage, by batch and micro-batch.
struct StageTables {
  // By batch, micro-batch: the group's tensor-parallel collectives' program indices, in network
  // order; and by rank the transfer of the stage's output to the next stage (none for the last).
  std::vector<std::vector<std::vector<std::size_t>>> collectives;
  std::vector<std::vector<std::vector<std::size_t>>> sends;
};

struct Planner {
  const spec::SystemSpec& system;
  const spec::ParallelPlan plan;
  const std::vector<std::int64_t>& batches;
  std::int64_t element_bytes = 0;
  SystemRunPlan result;

  std::int64_t replica = 0;  // the data-parallel replica being planned

  std::int64_t chip(std::int64_t stage, std::int64_t rank) const {
    return (replica * plan.pipeline + stage) * plan.tensor + rank;
  }
  std::int64_t micro_batch_size(std::size_t batch) const { return batches[batch] / plan.data / plan.micro_batches; }

  std::size_t add(program::LinkProgram program) {
    result.program.link_programs.push_back(std::move(program));
    return result.program.link_programs.size() - 1;
  }

  // The stage's collectives, as positions in its network, with their kinds and sizes.
  static std::vector<parallel::TensorCollective> stage_collectives(const parallel::TensorParallelSplit& split,
                                                                   const parallel::PipelineStage& stage) {
    std::map<std::string, std::size_t> position;
    for (std::size_t i = 0; i < stage.network.layers.size(); ++i) position[stage.network.layers[i].spec.name] = i;
    std::vector<parallel::TensorCollective> collectives;
    for (parallel::TensorCollective collective : split.collectives) {
      if (collective.after_layer < stage.first_layer || collective.after_layer >= stage.end_layer) continue;
      collective.after_layer = position.at(split.chip_network.layers[collective.after_layer].spec.name);
      collectives.push_back(collective);
    }
    return collectives;
  }

  StageTables tables(std::int64_t s, const std::vector<parallel::TensorCollective>& collectives,
                     const parallel::PipelineStage& stage) {
    StageTables tables;
    parallel::CollectiveShape shape;
    for (std::int64_t r = 0; r < plan.tensor; ++r) shape.group.push_back(chip(s, r));
    shape.system_chips = system.chips;
    shape.element_bytes = element_bytes;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      tables.collectives.emplace_back();
      tables.sends.emplace_back();
      for (std::int64_t m = 0; m < plan.micro_batches; ++m) {
        std::vector<std::size_t>& group = tables.collectives.back().emplace_back();
        for (const parallel::TensorCollective& collective : collectives) {
          shape.elements = collective.elements_per_sample * micro_batch_size(b);
          program::LinkProgram program =
              collective.kind != parallel::CollectiveKind::all_reduce ? parallel::ring_all_gather(shape)
              : plan.all_reduce == spec::AllReduceAlgorithm::tree     ? parallel::tree_all_reduce(shape)
                                                                      : parallel::ring_all_reduce(shape);
          program.name.insert(0, stage.network.layers[collective.after_layer].spec.name + ": ");
          group.push_back(add(std::move(program)));
        }
        std::vector<std::size_t>& sends = tables.sends.back().emplace_back();
        if (s + 1 == plan.pipeline) continue;
        const std::int64_t bytes = result.stages[static_cast<std::size_t>(s + 1)].input_elements_per_sample *
                                   micro_batch_size(b) * element_bytes;
        for (std::int64_t r = 0; r < plan.tensor; ++r) {
          program::LinkProgram transfer = parallel::point_to_point(chip(s, r), chip(s + 1, r), system.chips, bytes);
          transfer.name =
              "micro-batch " + std::to_string(m) + " to stage " + std::to_string(s + 1) + ": " + transfer.name;
          sends.push_back(add(std::move(transfer)));
        }
      }
    }
    return tables;
  }

  // Every collective's chunks of one size: the ring gives each rank the same bytes.
  bool even_chunks(const std::vector<std::vector<parallel::TensorCollective>>& stages) const {
    for (const std::vector<parallel::TensorCollective>& collectives : stages) {
      for (const parallel::TensorCollective& collective : collectives) {
        for (std::size_t b = 0; b < batches.size(); ++b) {
          if (collective.elements_per_sample * micro_batch_size(b) % plan.tensor != 0) return false;
        }
      }
    }
    return true;
  }

  // Rank r of stage s: each batch's micro-batches in turn, each received from the stage before,
  // its layers cut where a collective follows, sent to the stage after. A twin's segments index
  // the runs its twin holds; it holds none itself.
  program::ChipWork work(std::int64_t s, std::int64_t r, const RunPlan& stage_plan,
                         const std::vector<parallel::TensorCollective>& collectives, const StageTables& own,
                         const StageTables* before, std::int64_t twin_of) const {
    program::ChipWork work;
    work.same_layers_as = twin_of;
    std::size_t runs = 0;  // the chip's runs so far
    const auto link = [&](std::size_t program, std::size_t batch) {
      work.segments.push_back({ChipSegment::Kind::link, 0, 0, program, batch});
    };
    std::size_t first_of_batch = 0;
    for (std::size_t b = 0; b < batches.size(); ++b) {
      std::size_t end_of_batch = first_of_batch + 1;
      while (end_of_batch < stage_plan.runs.size() && !stage_plan.runs[end_of_batch].starts_batch) ++end_of_batch;
      for (std::int64_t m = 0; m < plan.micro_batches; ++m) {
        const auto micro = static_cast<std::size_t>(m);
        if (before != nullptr) link(before->sends[b][micro][static_cast<std::size_t>(r)], b);
        std::size_t first = runs;
        std::size_t next_collective = 0;
        for (std::size_t run = first_of_batch; run < end_of_batch; ++run, ++runs) {
          if (twin_of < 0) {
            work.runs.push_back(stage_plan.runs[run]);
            if (m > 0) work.runs.back().starts_batch = false;  // the batch's micro-batches run on
          }
          while (next_collective < collectives.size() &&
                 collectives[next_collective].after_layer == stage_plan.layers[run]) {
            work.segments.push_back({ChipSegment::Kind::layers, first, runs + 1, 0, b});
            first = runs + 1;
            link(own.collectives[b][micro][next_collective++], b);
          }
        }
        if (next_collective != collectives.size())
          throw std::logic_error("a collective of stage " + std::to_string(s) + " follows no run");
        if (runs > first) work.segments.push_back({ChipSegment::Kind::layers, first, runs, 0, b});
        if (s + 1 < plan.pipeline) link(own.sends[b][micro][static_cast<std::size_t>(r)], b);
      }
      first_of_batch = end_of_batch;
    }
    return work;
  }
};

}  // namespace

namespace {

// The model split as the plan says, each stage's share checked against its chips' DRAM.
struct CheckedSplit {
  parallel::TensorParallelSplit split;
  std::vector<parallel::PipelineStage> stages;
};

CheckedSplit split_and_check(const spec::SystemSpec& system, const workload::ModelSpec& model,
                             const workload::Network& network, std::int64_t decode_context,
                             const std::vector<std::int64_t>& batches, const std::string& origin) {
  const spec::ParallelPlan plan = system.plan.value_or(spec::ParallelPlan{});
  if (plan.tensor * plan.pipeline * plan.data != system.chips)
    throw std::logic_error("a plan of " + std::to_string(plan.tensor * plan.pipeline * plan.data) + " chips on " +
                           std::to_string(system.chips));
  std::vector<std::int64_t> replica_batches;
  for (const std::int64_t batch : batches) {
    if (batch % plan.data != 0) {
      throw parallel::PlanError("plan.data: " + std::to_string(plan.data) + " replicas do not share a batch of " +
                                std::to_string(batch) + " evenly");
    }
    if (batch / plan.data % plan.micro_batches != 0) {
      throw parallel::PlanError("plan.micro_batches: " + std::to_string(plan.micro_batches) +
                                " equal micro-batches do not make a replica's batch of " +
                                std::to_string(batch / plan.data));
    }
    replica_batches.push_back(batch / plan.data);
  }
  CheckedSplit checked{parallel::split_tensor_parallel(model, network, plan.tensor, decode_context), {}};
  checked.stages =
      parallel::split_pipeline(checked.split.chip_model, checked.split.chip_network, plan.pipeline, decode_context);
  // The replica's whole batch's KV cache and activations live on the stage's chips at once.
  for (const parallel::PipelineStage& stage : checked.stages)
    check_capacity(system.chip, stage.network, replica_batches, nullptr, origin);
  return checked;
}

}  // namespace

void check_system_plan(const spec::SystemSpec& system, const workload::ModelSpec& model,
                       const workload::Network& network, std::int64_t decode_context,
                       const std::vector<std::int64_t>& batches, const std::string& origin) {
  split_and_check(system, model, network, decode_context, batches, origin);
}

SystemRunPlan plan_system_inference(const spec::SystemSpec& system, const workload::ModelSpec& model,
                                    const workload::Network& network, std::int64_t decode_context,
                                    const std::vector<std::int64_t>& batches, const std::string& origin,
                                    bool every_chip, const RunLimits& limits) {
  CheckedSplit checked = split_and_check(system, model, network, decode_context, batches, origin);
  Planner planner{system, system.plan.value_or(spec::ParallelPlan{}), batches, 0, {}};
  const spec::ParallelPlan& plan = planner.plan;
  const parallel::TensorParallelSplit& split = checked.split;
  SystemRunPlan& result = planner.result;
  result.stages = std::move(checked.stages);
  planner.element_bytes = split.chip_network.run_widths(system.chip.element_bytes()).activation_bits / 8;
  std::vector<std::int64_t> micro_batches;
  for (std::size_t b = 0; b < batches.size(); ++b) micro_batches.push_back(planner.micro_batch_size(b));
  std::vector<std::vector<parallel::TensorCollective>> collectives;
  for (std::int64_t s = 0; s < plan.pipeline; ++s) {
    const parallel::PipelineStage& stage = result.stages[static_cast<std::size_t>(s)];
    std::vector<std::size_t> every_layer(stage.network.layers.size());
    std::iota(every_layer.begin(), every_layer.end(), std::size_t{0});
    result.stage_plans.push_back(
        plan_inference(system.chip, stage.network, micro_batches, every_layer, origin, limits));
    // The stage's runs were planned once; each of its chips replays them for every micro-batch.
    std::size_t steps = 0;
    for (const program::LayerRun& run : result.stage_plans.back().runs) steps += program::run_steps(run);
    if (steps * static_cast<std::size_t>(plan.micro_batches) > limits.max_steps) {
      throw mapping::MappingError("a chip of the system needs more than " + std::to_string(limits.max_steps) +
                                  " data-movement steps (the limit of one run), its stage's runs for each of " +
                                  std::to_string(plan.micro_batches) +
                                  " micro-batches; run fewer batch sizes or micro-batches at once (system " + origin +
                                  ")");
    }
    collectives.push_back(Planner::stage_collectives(split, stage));
  }
  // Every replica's stage s, every rank, runs what replica 0's rank 0 of it runs: those chips are
  // its twins when that gives the same result. A switch or fully connected chips give every rank's
  // collectives and transfers the same links, as does a ring when the collectives go round all of it
  // (or there are none); a torus, or a ring of more chips than a group, routes some of a group's ring
  // steps over more hops than others. A chip of several cores is not twinned: its cores' threads
  // that wake at one instant run in an order SystemC takes from its queue of timed events, which the
  // other chips' events change (docs/systems.md, "Twins").
  // With nodes, the same holds of a node's chips when each tensor-parallel group lies in one node and
  // every replica's stages meet the nodes' boundaries alike (a transfer between stages crosses the
  // nodes' network for every replica or for none).
  const std::int64_t node_chips = system.node_chips(), replica_chips = plan.pipeline * plan.tensor;
  const bool symmetric_nodes =
      !system.nodes || (node_chips % plan.tensor == 0 &&
                        (plan.pipeline == 1 || replica_chips % node_chips == 0 || node_chips % replica_chips == 0));
  const bool symmetric_links =
      symmetric_nodes &&
      (system.topology == spec::ChipTopology::switched || system.topology == spec::ChipTopology::fully_connected ||
       (system.topology == spec::ChipTopology::ring && (plan.tensor == 1 || plan.tensor == node_chips)));
  // A tree's ranks do different steps (leaves send, the root adds): none is another's twin.
  const bool symmetric_collectives = plan.tensor == 1 || plan.all_reduce == spec::AllReduceAlgorithm::ring;
  result.twins = !every_chip && (plan.tensor > 1 || plan.data > 1) && symmetric_links && symmetric_collectives &&
                 planner.even_chunks(collectives) && system.chip.cores == 1;
  result.program.chips.resize(static_cast<std::size_t>(system.chips));
  for (std::int64_t d = 0; d < plan.data; ++d) {
    planner.replica = d;
    std::vector<StageTables> tables;
    for (std::int64_t s = 0; s < plan.pipeline; ++s) {
      tables.push_back(
          planner.tables(s, collectives[static_cast<std::size_t>(s)], result.stages[static_cast<std::size_t>(s)]));
    }
    for (std::int64_t s = 0; s < plan.pipeline; ++s) {
      const auto stage = static_cast<std::size_t>(s);
      for (std::int64_t r = 0; r < plan.tensor; ++r) {
        const bool twin = result.twins && (d > 0 || r > 0);
        result.program.chips[static_cast<std::size_t>(planner.chip(s, r))] =
            planner.work(s, r, result.stage_plans[stage], collectives[stage], tables[stage],
                         s > 0 ? &tables[stage - 1] : nullptr, twin ? s * plan.tensor : -1);
      }
    }
  }
  return result;
}

}  // namespace reusesim::simulate
