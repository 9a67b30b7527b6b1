#pragma once
// How a batch runs on a chip of several cores (spec::AcceleratorSpec::cores): data parallel, each
// core mapping the network at its share of the samples (docs/mapping-and-replay.md, "Cores").
// The cores read the one copy of the weights in DRAM; each keeps its activations, KV cache and
// partial sums in a DRAM region of its own.

#include <cstdint>
#include <vector>

#include "mapping/mapper.h"
#include "program/program.h"

namespace reusesim::mapping {

// Each core's samples of `batch`: batch / cores, the first batch % cores one more (with fewer
// samples than cores the last cores get none).
std::vector<std::int64_t> core_batches(std::int64_t batch, std::int64_t cores);

// The bytes that hold every step of `mappings`' programs from address 0: the next whole MiB above
// the highest end. Core c's region starts c times that far up.
std::uint64_t core_region_bytes(const std::vector<const NetworkMapping*>& mappings);

// Moves a core's program of a layer, mapped as laid out in `own` (its samples' layout), into the
// chip's DRAM: its weight loads to the chip's copy (`shared`: the layout core 0 mapped with), every
// other step `offset_bytes` up.
void place_on_core(program::LayerProgram& program, const DramLayout& own, const DramLayout& shared,
                   std::uint64_t offset_bytes);

}  // namespace reusesim::mapping
