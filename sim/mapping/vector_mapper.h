#pragma once
// Layers without MACs (pooling, activations, batch-norm, add, softmax, embedding gathers) on the
// vector unit.

#include <cstdint>
#include <vector>

#include "mapping/program_builder.h"
#include "workload/network.h"

namespace reusesim::mapping {

// A tensor streamed through the vector unit: `bytes` from `address` in DRAM (loaded into the
// buffer of its role, or stored out of the output buffer).
struct Stream {
  program::TensorRole role = program::TensorRole::inputs;
  std::uint64_t address = 0;
  std::int64_t bytes = 0;
};

// The chunks `bytes` of one role go in when each must fit half of its `capacity` (the other half
// holds the chunk before: double-buffered, as stream_chunks does).
std::int64_t double_buffered_chunks(std::int64_t bytes, std::int64_t capacity);

// Streams tensors through the vector unit in `chunks` equal shares: per chunk each of `loads`
// (double-buffered in the input slots), one vector step doing its share of `vector_ops` over its
// share of `sram_read_bytes`, then each of `stores`. Every chunk also waits for step `first` (-1: none).
void stream_chunks(ProgramBuilder& builder, std::int64_t chunks, std::int32_t first, const std::vector<Stream>& loads,
                   const std::vector<Stream>& stores, std::int64_t sram_read_bytes, std::int64_t vector_ops);

// Element-wise and pooling layers, batch-norm and softmax: chunks of the inputs through the vector unit.
void map_vector(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, program::LayerProgram& program);

}  // namespace reusesim::mapping
