#include "mapping/core_split.h"

#include <algorithm>

namespace reusesim::mapping {

std::vector<std::int64_t> core_batches(std::int64_t batch, std::int64_t cores) {
  std::vector<std::int64_t> batches(static_cast<std::size_t>(cores), batch / cores);
  for (std::int64_t c = 0; c < batch % cores; ++c) ++batches[static_cast<std::size_t>(c)];
  return batches;
}

std::uint64_t core_region_bytes(const std::vector<const NetworkMapping*>& mappings) {
  constexpr std::uint64_t kMiB = 1 << 20;
  std::uint64_t end = 0;
  for (const NetworkMapping* mapping : mappings) {
    for (const program::LayerProgram& program : mapping->programs) {
      for (const program::Step& step : program.steps) {
        if (step.kind == program::StepKind::load || step.kind == program::StepKind::store) {
          end = std::max(end, step.address + step.bytes);
        }
      }
    }
  }
  return (end / kMiB + 1) * kMiB;
}

void place_on_core(program::LayerProgram& program, const DramLayout& own, const DramLayout& shared,
                   std::uint64_t offset_bytes) {
  for (program::Step& step : program.steps) {
    if (step.kind != program::StepKind::load && step.kind != program::StepKind::store) continue;
    if (step.tensor == program::TensorRole::weights) {
      step.address = step.address - own.weights + shared.weights;
    } else {
      step.address += offset_bytes;
    }
  }
}

}  // namespace reusesim::mapping
