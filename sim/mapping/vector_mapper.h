#pragma once
// Layers without MACs (pooling, activations, batch-norm, add, softmax, embedding gathers) on the
// vector unit.

#include <cstdint>

#include "mapping/program_builder.h"
#include "workload/network.h"

namespace reusesim::mapping {

// Element-wise and pooling layers, batch-norm and softmax: chunks of the inputs through the vector unit.
void map_vector(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, LayerProgram& program);

}  // namespace reusesim::mapping
