#include "simulate/plan.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "mapping/training_mapper.h"
#include "simulate/invariants.h"

namespace reusesim::simulate {

namespace {

std::string where(const std::string& origin, std::int64_t batch) {
  return " (accelerator " + origin + ", batch " + std::to_string(batch) + ")";
}

// Appends a layer's program to the plan, refusing a run past `max_steps`.
class RunBuilder {
 public:
  RunBuilder(RunPlan& plan, std::size_t max_steps) : plan_(plan), max_steps_(max_steps) {}
  void add(std::int64_t batch, program::LayerProgram program, bool starts_batch, const std::string& where) {
    plan_.runs.push_back(program::LayerRun{batch, std::move(program), starts_batch});
    steps_ += plan_.runs.back().program.steps.size();
    if (steps_ > max_steps_) {
      throw mapping::MappingError("the run needs more than " + std::to_string(max_steps_) +
                                  " data-movement steps (the limit of one run; reached at layer " +
                                  plan_.runs.back().program.layer + "); run fewer batch sizes or layers at once "
                                  "(reusesim trace runs each batch size as a job of its own)" + where);
    }
  }

 private:
  RunPlan& plan_;
  std::size_t max_steps_;
  std::size_t steps_ = 0;
};

}  // namespace

RunPlan plan_inference(const spec::AcceleratorSpec& spec, const workload::Network& network,
                       const std::vector<std::int64_t>& batches, const std::vector<std::size_t>& selected,
                       const std::string& origin, std::size_t max_run_steps) {
  RunPlan plan;
  RunBuilder builder(plan, max_run_steps);
  for (std::int64_t batch : batches) {
    mapping::NetworkMapping mapped;
    try {
      mapped = mapping::map_network(network, batch, spec);
    } catch (const mapping::MappingError& error) {
      throw mapping::MappingError(std::string(error.what()) + where(origin, batch));
    }
    if (const std::string problem = mapping::vector_ops_problem(network, batch, mapped); !problem.empty()) {
      throw std::logic_error("model " + network.name + " (batch " + std::to_string(batch) + "): " + problem);
    }
    for (std::size_t i : selected) {
      plan.layers.push_back(i);
      plan.plans.push_back(mapped.plans[i]);
      builder.add(batch, std::move(mapped.programs[i]), i == selected.front(), where(origin, batch));
    }
  }
  for (std::size_t i = 0; i < plan.runs.size(); ++i) {
    const std::string problem = analysis_problem(network.layers[plan.layers[i]], plan.runs[i].program, plan.plans[i],
                                                 plan.runs[i].batch, spec.element_bytes());
    if (!problem.empty()) throw std::logic_error(problem);
  }
  return plan;
}

RunPlan plan_training(const spec::AcceleratorSpec& spec, const workload::Network& network,
                      const std::vector<std::int64_t>& batches, const workload::TrainingOptions& training,
                      const std::string& origin, std::size_t max_run_steps) {
  RunPlan plan;
  RunBuilder builder(plan, max_run_steps);
  for (std::int64_t batch : batches) {
    std::vector<mapping::TrainingProgram> step;
    try {
      step = mapping::map_training_step(network, batch, spec, training);
    } catch (const mapping::MappingError& error) {
      throw mapping::MappingError(std::string(error.what()) + where(origin, batch));
    }
    const std::string problem =
        training_step_problem(network, step, batch, training.checkpoint_segments, spec.element_bytes());
    if (!problem.empty()) throw std::logic_error(problem);
    const std::vector<std::int64_t> live =
        mapping::training_live_bytes(network, batch, spec.element_bytes(), training, step);
    plan.peak_memory_bytes.push_back(*std::max_element(live.begin(), live.end()));
    plan.phases.clear();
    for (mapping::TrainingProgram& program : step) {
      plan.phases.push_back(mapping::phase_name(program.phase));
      builder.add(batch, std::move(program.program), plan.phases.size() == 1, where(origin, batch));
    }
  }
  return plan;
}

}  // namespace reusesim::simulate
