#include "program/program.h"

#include <algorithm>

namespace reusesim::program {

std::string role_name(TensorRole role) {
  switch (role) {
    case TensorRole::weights: return "weights";
    case TensorRole::inputs: return "inputs";
    case TensorRole::outputs: return "outputs";
    case TensorRole::kv_cache: return "kv_cache";
    default: return "state";
  }
}

std::string step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::load: return "load";
    case StepKind::store: return "store";
    case StepKind::compute: return "compute";
    default: return "vector";
  }
}

LayerProgram chip_totals(const LayerRun& run) {
  LayerProgram chip;
  chip.layer = run.program.layer;
  chip.type = run.program.type;
  chip.mapping = run.program.mapping;
  chip.passes = run.program.passes;
  chip.mac_rate = run.program.mac_rate;
  chip.mac_format = run.program.mac_format;
  const auto add = [&](const LayerProgram& core) {
    chip.macs += core.macs;
    chip.vector_ops += core.vector_ops;
    chip.dequant_vector_ops += core.dequant_vector_ops;
    chip.reduction_vector_ops += core.reduction_vector_ops;
    chip.dequant_cycles = std::max(chip.dequant_cycles, core.dequant_cycles);  // the cores run side by side
    chip.dram_read_bytes += core.dram_read_bytes;
    chip.dram_write_bytes += core.dram_write_bytes;
  };
  add(run.program);
  for (const LayerProgram& core : run.other_cores) add(core);
  return chip;
}

std::size_t run_steps(const LayerRun& run) {
  std::size_t steps = run.program.steps.size();
  for (const LayerProgram& core : run.other_cores) steps += core.steps.size();
  return steps;
}

std::uint64_t burst_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t burst_bytes) {
  if (bytes == 0) return 0;
  const std::uint64_t first = address / burst_bytes * burst_bytes;
  const std::uint64_t end = (address + bytes + burst_bytes - 1) / burst_bytes * burst_bytes;
  return end - first;
}

}  // namespace reusesim::program
