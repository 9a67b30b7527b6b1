#include "program/program.h"

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

std::uint64_t burst_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t burst_bytes) {
  if (bytes == 0) return 0;
  const std::uint64_t first = address / burst_bytes * burst_bytes;
  const std::uint64_t end = (address + bytes + burst_bytes - 1) / burst_bytes * burst_bytes;
  return end - first;
}

}  // namespace reusesim::program
