#pragma once
// Recurrent layers (rnn, gru, lstm): one GEMM per time step, replayed in order.

#include <cstdint>

#include "mapping/program_builder.h"
#include "workload/network.h"

namespace reusesim::mapping {

// Step t of a recurrent layer needs h(t-1): steps run in order, each one GEMM of M = batch,
// K = in + H, N = gates x H, tiled into column blocks, batch chunks and K tiles by the GEMM
// search (gemm_mapper.h; a layer's `tiling:` pins it). A pass's weights are [n][k + bias] (bias:
// b_ih and b_hh of the column). They load once when they all fit the weight buffer, else their
// tiles stream from DRAM every step. h(t-1) stays in SRAM; x(t) is loaded, h(t) stored, except that with
// return_sequences false only the top layer's last step of each direction leaves for DRAM.
void map_recurrent(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                   const DramLayout& layout, program::LayerProgram& program);

// Stacked recurrent layers pass full sequences between them through DRAM regions after the
// output: the layers below the top alternate between the output and one scratch region when the
// output is a sequence, else between two scratch regions (one suffices for two layers).
std::uint64_t recurrent_scratch_bytes(const workload::NetworkLayer& layer, std::int64_t batch, std::int64_t element_bytes);

}  // namespace reusesim::mapping
