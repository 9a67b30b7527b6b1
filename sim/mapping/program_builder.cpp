#include "mapping/program_builder.h"

#include <algorithm>

#include "util/checked_math.h"
#include "workload/layer.h"

namespace reusesim::mapping {

namespace {

constexpr std::uint64_t kAlignment = 4096;

// Both factors reach 2^50 (program_text.h): the product needs 128 bits to stay exact.
__extension__ typedef __int128 WideCount;

}  // namespace

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string part_text(const std::string& what, std::int64_t first, std::int64_t count, std::int64_t total) {
  if (count == 0) return "none";
  return what + " " + std::to_string(first) + ".." + std::to_string(first + count - 1) + " of " + std::to_string(total);
}

std::int64_t prorate(std::int64_t total, std::int64_t done, std::int64_t all) {
  return static_cast<std::int64_t>(static_cast<WideCount>(total) * done / all);
}

std::uint64_t align(std::uint64_t address) { return (address + kAlignment - 1) / kAlignment * kAlignment; }

Capacity role_capacity(const spec::SramSpec& sram, std::int64_t resident_bytes) {
  Capacity capacity;
  for (const spec::SramBufferSpec& buffer : sram.buffers) {
    if (buffer.holds.empty()) continue;
    const std::int64_t room = buffer.keeps_activations ? std::max<std::int64_t>(0, buffer.capacity_bytes - resident_bytes)
                                                       : buffer.capacity_bytes;
    const std::int64_t share = room / static_cast<std::int64_t>(buffer.holds.size());
    for (spec::TensorKind kind : buffer.holds) {
      (kind == spec::TensorKind::weights ? capacity.weights : kind == spec::TensorKind::inputs ? capacity.inputs
                                                                                          : capacity.outputs) = share;
    }
  }
  return capacity;
}

void ProgramBuilder::count_dequantization(std::int64_t vector_ops, std::int64_t cycles) {
  program_.dequant_vector_ops = util::checked_add(program_.dequant_vector_ops, vector_ops);
  program_.dequant_cycles = util::checked_add(program_.dequant_cycles, cycles);
}

std::int32_t ProgramBuilder::add(program::Step step) {
  if (program_.steps.size() >= program::kMaxLayerSteps) {
    throw MappingError("layer " + program_.layer + ": its program needs more than " +
                       std::to_string(program::kMaxLayerSteps) +
                       " data-movement steps, the limit of one layer; lower the batch size or sequence length, "
                       "or give the SRAM buffers more capacity");
  }
  const auto extent = static_cast<std::int64_t>(program::burst_extent(step.address, step.bytes, burst_bytes_));
  if (step.kind == program::StepKind::load) program_.dram_read_bytes = util::checked_add(program_.dram_read_bytes, extent);
  if (step.kind == program::StepKind::store) program_.dram_write_bytes = util::checked_add(program_.dram_write_bytes, extent);
  program_.macs = util::checked_add(program_.macs, step.macs);
  program_.vector_ops = util::checked_add(program_.vector_ops, step.vector_ops);
  program_.steps.push_back(std::move(step));
  return static_cast<std::int32_t>(program_.steps.size() - 1);
}

void append_steps(program::LayerProgram& program, program::LayerProgram next, bool chain) {
  const auto offset = static_cast<std::int32_t>(program.steps.size());
  for (program::Step& step : next.steps) {
    for (std::int32_t& earlier : step.after) earlier += offset;
    if (chain && step.after.empty() && offset > 0) step.after.push_back(offset - 1);
    program.steps.push_back(std::move(step));
  }
  program.macs = util::checked_add(program.macs, next.macs);
  program.vector_ops = util::checked_add(program.vector_ops, next.vector_ops);
  // A layer's parts (sub-batches, steps) keep their dequantization's count, MAC rate and format.
  program.dequant_vector_ops = util::checked_add(program.dequant_vector_ops, next.dequant_vector_ops);
  program.dequant_cycles = util::checked_add(program.dequant_cycles, next.dequant_cycles);
  program.reduction_vector_ops = util::checked_add(program.reduction_vector_ops, next.reduction_vector_ops);
  program.mac_rate = std::max(program.mac_rate, next.mac_rate);
  if (program.mac_format.empty()) program.mac_format = next.mac_format;
  program.dram_read_bytes = util::checked_add(program.dram_read_bytes, next.dram_read_bytes);
  program.dram_write_bytes = util::checked_add(program.dram_write_bytes, next.dram_write_bytes);
  program.estimated_cycles = util::checked_add(program.estimated_cycles, next.estimated_cycles);
  program.onchip_input_bytes = util::checked_add(program.onchip_input_bytes, next.onchip_input_bytes);
  program.onchip_output_bytes = util::checked_add(program.onchip_output_bytes, next.onchip_output_bytes);
}

std::vector<std::int32_t> deps(std::initializer_list<std::int32_t> steps) {
  std::vector<std::int32_t> result;
  for (std::int32_t step : steps) {
    if (step >= 0) result.push_back(step);
  }
  return result;
}

}  // namespace reusesim::mapping
