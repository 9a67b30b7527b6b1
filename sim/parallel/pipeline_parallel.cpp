#include "parallel/pipeline_parallel.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace reusesim::parallel {

namespace {

// The positions k (0 < k < layers) where exactly one tensor produced before k is read at or after k:
// cut -> that tensor's producer (-1: the model's input).
std::map<std::size_t, int> cut_points(const workload::Network& network) {
  const std::size_t count = network.layers.size();
  // The last reader of each producer (-1 the model input, at index count).
  std::vector<std::size_t> last_reader(count + 1, 0);
  const auto slot = [count](int producer) { return producer < 0 ? count : static_cast<std::size_t>(producer); };
  for (std::size_t i = 0; i < count; ++i) {
    for (const int input : network.layers[i].input_ids) last_reader[slot(input)] = i;
  }
  std::map<std::size_t, int> cuts;
  for (std::size_t k = 1; k < count; ++k) {
    int crossing = 0, producer = -1;
    if (last_reader[count] >= k) ++crossing;
    for (std::size_t p = 0; p < k; ++p) {
      if (last_reader[p] >= k) {
        ++crossing;
        producer = static_cast<int>(p);
      }
    }
    if (crossing == 1 && producer >= 0) cuts[k] = producer;
  }
  return cuts;
}

PipelineStage stage_of(const workload::ModelSpec& model, const workload::Network& network, std::size_t first,
                       std::size_t end, int producer, std::int64_t decode_context) {
  PipelineStage stage;
  stage.first_layer = first;
  stage.end_layer = end;
  stage.model = model;
  stage.model.layers.clear();
  std::map<std::string, bool> inside;
  for (std::size_t i = first; i < end; ++i) inside[network.layers[i].spec.name] = true;
  for (std::size_t i = first; i < end; ++i) {
    workload::LayerSpec spec = network.layers[i].spec;
    // Every input named, as the network resolved it: the crossing tensor is the stage's input.
    if (!spec.own_input) {
      spec.inputs.clear();
      for (const int input : network.layers[i].input_ids) {
        const std::string& name =
            input < 0 ? workload::kModelInput : network.layers[static_cast<std::size_t>(input)].spec.name;
        spec.inputs.push_back(inside.count(name) > 0 ? name : workload::kModelInput);
      }
    }
    stage.model.layers.push_back(std::move(spec));
  }
  if (producer >= 0) {
    const workload::Shape& shape = network.layers[static_cast<std::size_t>(producer)].output_shape;
    stage.model.input = shape;
    stage.input_elements_per_sample = shape.elements();
  } else {
    stage.input_elements_per_sample = model.input ? model.input->elements() : 0;
  }
  workload::NetworkBuild build = workload::build_network(stage.model, decode_context);
  if (!build.network) {
    throw std::logic_error("pipeline stage of " + network.name + " from layer " + network.layers[first].spec.name +
                           " does not build: " + build.errors.front().message);
  }
  stage.network = std::move(*build.network);
  return stage;
}

}  // namespace

std::vector<PipelineStage> split_pipeline(const workload::ModelSpec& model, const workload::Network& network,
                                          std::int64_t stages, std::int64_t decode_context) {
  const std::map<std::size_t, int> cuts = cut_points(network);
  if (static_cast<std::int64_t>(cuts.size()) < stages - 1) {
    throw PlanError("plan.pipeline: " + std::to_string(stages) + " stages need " + std::to_string(stages - 1) +
                    " places to cut model " + network.name + ", which has " + std::to_string(cuts.size()) +
                    " (between layers where one tensor alone crosses)");
  }
  // MACs a sample before each layer position.
  std::vector<std::int64_t> macs_before(network.layers.size() + 1, 0);
  for (std::size_t i = 0; i < network.layers.size(); ++i)
    macs_before[i + 1] = macs_before[i] + network.layers[i].counts.macs;
  std::vector<std::pair<std::size_t, int>> chosen;  // cut position, crossing producer
  auto next = cuts.begin();
  for (std::int64_t s = 0; s + 1 < stages; ++s) {
    const double target =
        static_cast<double>(macs_before.back()) * static_cast<double>(s + 1) / static_cast<double>(stages);
    // The nearest cut to the target that leaves a cut for each stage after this one.
    const auto remaining_after = [&](std::map<std::size_t, int>::const_iterator it) {
      return static_cast<std::int64_t>(std::distance(it, cuts.end())) - 1;
    };
    auto best = next;
    for (auto it = next; it != cuts.end() && remaining_after(it) >= stages - 2 - s; ++it) {
      if (std::abs(static_cast<double>(macs_before[it->first]) - target) <
          std::abs(static_cast<double>(macs_before[best->first]) - target))
        best = it;
    }
    chosen.push_back(*best);
    next = std::next(best);
  }
  std::vector<PipelineStage> result;
  std::size_t first = 0;
  int producer = -1;
  for (const auto& [cut, crossing] : chosen) {
    result.push_back(stage_of(model, network, first, cut, producer, decode_context));
    first = cut;
    producer = crossing;
  }
  result.push_back(stage_of(model, network, first, network.layers.size(), producer, decode_context));
  return result;
}

}  // namespace reusesim::parallel
