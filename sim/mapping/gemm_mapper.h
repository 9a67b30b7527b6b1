#pragma once
// Convolutions and linear layers as tiled GEMMs: the tiling search and the program it emits.

#include <cstdint>

#include "mapping/program_builder.h"
#include "workload/network.h"

namespace reusesim::mapping {

// Maps a conv2d or linear layer (see mapper.h for the GEMM view and the tiling search).
void map_conv_or_linear(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout, LayerProgram& program);

}  // namespace reusesim::mapping
