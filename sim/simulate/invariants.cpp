#include "simulate/invariants.h"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <sstream>
#include <tuple>

#include "util/checked_math.h"
#include "workload/training.h"

namespace reusesim::simulate {

namespace {

std::string where_of(const std::string& row, std::int64_t batch) {
  return row + " (batch " + std::to_string(batch) + "): ";
}

}  // namespace

std::string significant_digits(double value) {
  std::ostringstream stream;
  stream << std::setprecision(6) << value;
  return stream.str();
}

std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, std::int64_t element_bytes) {
  return analysis_problem(layer, program, plan, batch, workload::TensorWidths::uniform(element_bytes));
}

std::string analysis_problem(const workload::NetworkLayer& layer, const program::LayerProgram& program,
                             const mapping::LayerPlan& plan, std::int64_t batch, const workload::TensorWidths& widths) {
  const std::string where = where_of("layer " + program.layer, batch);
  const std::int64_t analytic_macs = layer.counts.macs * batch;
  if (program.macs != analytic_macs) {
    return where + "the program has " + std::to_string(program.macs) + " MACs, the analysis " +
           std::to_string(analytic_macs);
  }
  const std::string traffic = mapping::compulsory_traffic_problem(layer, batch, widths, program, plan);
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
  const std::string where = where_of("layer " + result.layer, result.batch);
  if (result.macs != program.macs) {
    return where + "replayed " + std::to_string(result.macs) + " MACs, the program has " + std::to_string(program.macs);
  }
  // A shared memory serves some loads, and a multicast's copies others: they and the DRAM's reads
  // are the program's.
  const std::int64_t loaded = result.dram_read_bytes + result.shared_read_bytes + result.multicast_read_bytes;
  if (loaded != program.dram_read_bytes || result.dram_write_bytes != program.dram_write_bytes) {
    return where + "its steps read " + std::to_string(loaded) + " B (" + std::to_string(result.shared_read_bytes) +
           " from the shared memory, " + std::to_string(result.multicast_read_bytes) +
           " as copies of other cores' reads) and wrote " + std::to_string(result.dram_write_bytes) +
           " B of DRAM, the program moves " + std::to_string(program.dram_read_bytes) + " and " +
           std::to_string(program.dram_write_bytes);
  }
  return row_problem(result, false, spec);
}

std::string row_problem(const results::LayerResult& row, bool batch_total, const spec::AcceleratorSpec& spec) {
  const std::string where = where_of(batch_total ? "TOTAL" : "layer " + row.layer, row.batch);
  const std::int64_t counts[] = {row.cycles,     row.compute_cycles,     row.stall_weights, row.stall_inputs,
                                 row.stall_sram, row.stall_output_drain, row.stall_vector, row.stall_noc};
  if (std::any_of(std::begin(counts), std::end(counts), [](std::int64_t n) { return n < 0; })) {
    return where + "a negative cycle count";
  }
  if (row.cycles != row.compute_cycles + row.stall_cycles()) {
    return where + std::to_string(row.cycles) + " cycles, but compute_cycles " + std::to_string(row.compute_cycles) +
           " + stall_cycles " + std::to_string(row.stall_cycles()) + " = " +
           std::to_string(row.compute_cycles + row.stall_cycles());
  }
  // Roofs as time bounds (an unlimited ideal memory's bandwidth is infinite: no bound), with room
  // for the rounding of picoseconds to seconds.
  // The array's work: a sparse layer's skipped MACs take no time.
  const double ops = 2.0 * static_cast<double>(row.effective_macs());
  const double peak_ops = spec.peak_ops_per_second() * static_cast<double>(row.mac_rate);
  if (row.seconds < ops / peak_ops * (1 - 1e-9)) {
    return where + significant_digits(ops) + " ops in " + significant_digits(row.seconds) + " s is " +
           significant_digits(ops / row.seconds / 1e9) + " Gops/s, above the compute peak of " +
           significant_digits(peak_ops / 1e9);
  }
  // The layer's own bytes moved within its DRAM span; all but the prefetched within its time.
  const double span = results::dram_span_seconds(row, batch_total);
  if (span < row.seconds * (1 - 1e-9)) {
    return where + "its DRAM span of " + significant_digits(span) + " s is shorter than its time, " +
           significant_digits(row.seconds) + " s";
  }
  const double peak_bytes = spec.dram.peak_bytes_per_second();
  const std::int64_t own = row.dram_read_bytes + row.dram_write_bytes;
  const std::int64_t inside = batch_total ? own : own - row.prefetched_weight_bytes;
  for (const auto& [bytes, seconds, window] :
       {std::tuple(own, span, "its DRAM span"), std::tuple(inside, row.seconds, "its time")}) {
    if (seconds < static_cast<double>(bytes) / peak_bytes * (1 - 1e-9)) {
      return where + std::to_string(bytes) + " DRAM bytes within " + window + " of " + significant_digits(seconds) +
             " s is " + significant_digits(static_cast<double>(bytes) / seconds / 1e9) +
             " GB/s, above the memory's peak of " + significant_digits(peak_bytes / 1e9);
    }
  }
  return "";
}

std::string batch_total_problem(const std::vector<results::LayerResult>& layers, const spec::AcceleratorSpec& spec) {
  results::LayerResult total;
  for (const results::LayerResult& layer : layers) {
    total.batch = layer.batch;
    for (std::int64_t results::LayerResult::*count :
         {&results::LayerResult::cycles, &results::LayerResult::compute_cycles, &results::LayerResult::stall_weights,
          &results::LayerResult::stall_inputs, &results::LayerResult::stall_output_drain,
          &results::LayerResult::stall_sram, &results::LayerResult::stall_vector, &results::LayerResult::stall_noc,
          &results::LayerResult::macs, &results::LayerResult::skipped_macs, &results::LayerResult::dram_read_bytes,
          &results::LayerResult::dram_write_bytes, &results::LayerResult::prefetched_weight_bytes}) {
      total.*count += layer.*count;
    }
    total.seconds += layer.seconds;
    total.mac_rate = std::max(total.mac_rate, layer.mac_rate);
  }
  return row_problem(total, true, spec);
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
