#pragma once
// The mapper: for one layer at one batch size, choose tile sizes and a loop order that fit the
// SRAM buffers with double buffering, and emit the data-movement program. Plain C++.
//
// MAC layers are GEMMs (per group): conv M = batch x Ho x Wo, K = kh kw Cin/g, N = Cout/g;
// linear M = batch x steps, K = in, N = out; recurrent layers are one GEMM per time step
// (M = batch, K = in + H, N = gates x H), replayed in order because step t needs h(t-1).
// Loops run with K innermost, so each output tile is written once. Candidates: tile sizes
// halving from each full dimension, powers of two from 8 and multiples of the array edge a
// dimension lies along, and two orders: n-m (a weight tile with all of K stays for every M tile)
// and m-n (an input tile with all of K stays for every N tile). The estimate per candidate is
// max(compute cycles, ragged last tiles at their own size, DRAM bytes / DRAM bytes per cycle);
// candidates within 1 % of the lowest count as equally fast, and among them the least traffic
// wins, then the fewest tiles (docs/mapping-and-replay.md).
//
// DRAM layout: tensors are contiguous (activations NHWC, weights [group][n][k]); a tile's
// range is taken as contiguous from its first element, an approximation for tiles that cut K
// or N. flatten, to_sequence and concat are views (no data moves).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/accelerator_spec.h"
#include "mapping/program.h"
#include "workload/network.h"

namespace reusesim::mapping {

// No tiling fits the buffers (the message names the layer and the smallest tile's needs).
class MappingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a layer's tensors live in DRAM.
struct DramLayout {
  std::uint64_t weights = 0;
  std::vector<std::uint64_t> inputs;  // one per input
  std::uint64_t output = 0;
};

// Lays out the model input and every layer's weights and output (views share their input's).
std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes);

// Bytes per element on the accelerator: its operand width.
std::int64_t element_bytes(const hw::AcceleratorSpec& accelerator);

// The conservation check against the analysis: a program may not move fewer bytes than the
// hardware must (analyze's compulsory traffic): its weight loads at least the layer's parameters
// (bias included; an embedding's gathered rows), its stores at least the layer's output (before
// burst widening). What falls short, or "" when nothing does; views move nothing and pass.
std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const LayerProgram& program);

LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch, const hw::AcceleratorSpec& accelerator,
                       const DramLayout& layout);

}  // namespace reusesim::mapping
