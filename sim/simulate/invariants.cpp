#include "simulate/invariants.h"

#include <algorithm>

#include "util/checked_math.h"
#include "workload/training.h"

namespace reusesim::simulate {

std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, std::int64_t element_bytes) {
  const std::string where = "layer " + program.layer + " (batch " + std::to_string(batch) + "): ";
  const std::int64_t analytic_macs = layer.counts.macs * batch;
  if (program.macs != analytic_macs) {
    return where + "the program has " + std::to_string(program.macs) + " MACs, the analysis " +
           std::to_string(analytic_macs);
  }
  const std::string traffic = mapping::compulsory_traffic_problem(layer, batch, element_bytes, program, plan);
  return traffic.empty() ? "" : where + traffic;
}

std::string training_step_problem(const workload::Network& network,
                                  const std::vector<mapping::TrainingProgram>& step, std::int64_t batch,
                                  std::int64_t checkpoint_segments, std::int64_t element_bytes) {
  std::int64_t macs = 0;
  for (const mapping::TrainingProgram& program : step) {
    if (program.phase == mapping::TrainingPhase::forward || program.phase == mapping::TrainingPhase::recompute) {
      const std::string problem =
          analysis_problem(network.layers[program.layer], program.program, {}, batch, element_bytes);
      if (!problem.empty()) return problem;
    }
    macs = util::checked_add(macs, program.program.macs);
  }
  const std::int64_t analytic = workload::training_step_macs(network, batch, checkpoint_segments);
  if (macs != analytic) {
    return "model " + network.name + " (batch " + std::to_string(batch) + "): the training step's programs have " +
           std::to_string(macs) + " MACs, the analysis " + std::to_string(analytic);
  }
  return "";
}

std::string replay_problem(const results::LayerResult& result, const program::LayerProgram& program,
                           const spec::AcceleratorSpec& spec) {
  const std::string where = "layer " + result.layer + " (batch " + std::to_string(result.batch) + "): ";
  if (result.macs != program.macs) {
    return where + "replayed " + std::to_string(result.macs) + " MACs, the program has " + std::to_string(program.macs);
  }
  if (result.dram_read_bytes != program.dram_read_bytes || result.dram_write_bytes != program.dram_write_bytes) {
    return where + "its steps read " + std::to_string(result.dram_read_bytes) + " B and wrote " +
           std::to_string(result.dram_write_bytes) + " B of DRAM, the program moves " +
           std::to_string(program.dram_read_bytes) + " and " + std::to_string(program.dram_write_bytes);
  }
  const double compute_bound = 2.0 * static_cast<double>(result.macs) / spec.compute.peak_ops_per_second();
  // An unlimited ideal memory has infinite bandwidth: only the compute bound is left.
  const std::int64_t inside_bytes = result.dram_read_bytes + result.dram_write_bytes - result.prefetched_weight_bytes;
  const double memory_bound = static_cast<double>(inside_bytes) / spec.dram.peak_bytes_per_second();
  const double bound = std::max(compute_bound, memory_bound);
  if (result.seconds < bound * (1 - 1e-9)) {
    return where + "simulated " + std::to_string(result.seconds) + " s beats the roofline bound " +
           std::to_string(bound) + " s";
  }
  return "";
}

std::string memory_total_problem(const std::vector<results::LayerResult>& layers,
                                 const results::DramChannelStats& memory) {
  std::int64_t read_bytes = 0, write_bytes = 0;
  for (const results::LayerResult& result : layers) {
    read_bytes += result.dram_read_bytes;
    write_bytes += result.dram_write_bytes;
  }
  if (memory.read_bytes == read_bytes && memory.write_bytes == write_bytes) return "";
  return "the memory read " + std::to_string(memory.read_bytes) + " B and wrote " + std::to_string(memory.write_bytes) +
         " B over the run, the layers' steps " + std::to_string(read_bytes) + " and " + std::to_string(write_bytes);
}

}  // namespace reusesim::simulate
