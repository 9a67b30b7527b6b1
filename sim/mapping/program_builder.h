#pragma once
// What the layer mappers (gemm_mapper, recurrent_mapper, vector_mapper) share: the machine as the
// mapper sees it (Context), SRAM capacity per tensor role, double-buffer slots, and the builder
// that appends steps to a program while keeping the totals the replay is checked against.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "mapping/mapper.h"
#include "program/program.h"
#include "spec/accelerator_spec.h"

namespace reusesim::mapping {

std::int64_t ceil_div(std::int64_t a, std::int64_t b);

// `total` x done / all in exact integers: a tile's (or a core's) share of a whole is the difference of two.
std::int64_t prorate(std::int64_t total, std::int64_t done, std::int64_t all);

// A core's part of a layer split over cores (program::LayerProgram::part): "columns 64..127 of
// 256", or "none" when `count` is 0.
std::string part_text(const std::string& what, std::int64_t first, std::int64_t count, std::int64_t total);

// Tensors start on 4 KiB boundaries in DRAM.
std::uint64_t align(std::uint64_t address);

// SRAM bytes available to each tensor role: a buffer is shared evenly by the roles it holds, after
// the tensors resident in the keeping buffer (`resident_bytes`) have taken their room there.
struct Capacity {
  std::int64_t weights = 0, inputs = 0, outputs = 0;
};

Capacity role_capacity(const spec::SramSpec& sram, std::int64_t resident_bytes = 0);

// The machine as a layer mapper sees it, and how the layer runs in the network.
struct Context {
  const spec::AcceleratorSpec& accelerator;
  const LayerPlan& plan;
  Capacity capacity;
  std::int64_t e;  // bytes per element
  double dram_bytes_per_cycle;  // peak, per compute cycle
  std::uint64_t burst_bytes;
  LayerSplit split;  // this core's part of the layer (whole on one core)
};

// Builds a program step by step, keeping the totals the replay is checked against.
class ProgramBuilder {
 public:
  ProgramBuilder(program::LayerProgram& program, std::uint64_t burst_bytes) : program_(program), burst_bytes_(burst_bytes) {}

  // Appends `step`; MappingError when the layer would exceed kMaxLayerSteps.
  std::int32_t add(program::Step step);
  // A dequantization's vector ops (already in a step add()ed) and their cycles, for the report.
  void count_dequantization(std::int64_t vector_ops, std::int64_t cycles);
  std::int32_t load(program::TensorRole role, std::uint64_t address, std::int64_t bytes, std::vector<std::int32_t> after) {
    program::Step step;
    step.kind = program::StepKind::load;
    step.tensor = role;
    step.address = address;
    step.bytes = static_cast<std::uint64_t>(bytes);
    step.after = std::move(after);
    return add(std::move(step));
  }
  std::int32_t store(std::uint64_t address, std::int64_t bytes, std::vector<std::int32_t> after) {
    program::Step step;
    step.kind = program::StepKind::store;
    step.tensor = program::TensorRole::outputs;
    step.address = address;
    step.bytes = static_cast<std::uint64_t>(bytes);
    step.after = std::move(after);
    return add(std::move(step));
  }

 private:
  program::LayerProgram& program_;
  std::uint64_t burst_bytes_;
};

// Double buffering: a tensor role has two SRAM slots; a load into a slot waits until the last
// step using the slot's previous contents has finished.
class Slots {
 public:
  // The step a load into the next slot must wait for (-1: none), and makes that slot current.
  std::int32_t claim() {
    current_ = 1 - current_;
    return last_user_[current_];
  }
  void used_by(std::int32_t step) { last_user_[current_] = step; }

 private:
  std::array<std::int32_t, 2> last_user_{-1, -1};
  int current_ = 1;
};

// Runs `next` after `program`'s steps as one program: its steps follow (their waits shifted with
// them; with `chain`, a step of `next` that waits for nothing waits for `program`'s last step) and
// its totals are added to `program`'s.
void append_steps(program::LayerProgram& program, program::LayerProgram next, bool chain);

// The steps of `steps` that exist (>= 0): a dependency list.
std::vector<std::int32_t> deps(std::initializer_list<std::int32_t> steps);

}  // namespace reusesim::mapping
