#pragma once
// On-chip residency across layers: which tensors stay in the buffer that keeps activations for the
// layers that consume them, and what each layer's program then reads from on-chip data
// (docs/mapping-and-replay.md, "On-chip residency across layers").
//
// A tensor is the output a program writes (a fused chain's last tensor). Walking the programs in
// layer order, a tensor stays on chip from its producer to its last consumer when, at every layer
// in between, it fits beside the tensors already kept; otherwise, and when it is a network output,
// feeds a concat, is written by a recurrent layer or is forced out, it goes to DRAM. Residual
// connections keep the skip tensor until its last consumer (the add, or the program it fused into).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mapping/fusion.h"
#include "mapping/mapper.h"
#include "workload/network.h"

namespace reusesim::mapping {

struct KeptTensor {
  std::size_t producer = 0;  // the layer whose program writes it (a fusion head)
  std::size_t last_use = 0;  // the last layer whose program reads it
  std::int64_t bytes = 0;
};

struct ResidencyPlan {
  std::vector<LayerPlan> layers;  // per layer
  std::vector<KeptTensor> kept;   // in producer order
};

// `keep_capacity_bytes`: the keeping buffer's capacity (0: nothing stays); `to_dram[p]`: the
// output of program p goes to DRAM whatever the room.
ResidencyPlan plan_residency(const workload::Network& network, const FusionPlan& fusion,
                             const std::vector<DramLayout>& layouts, std::int64_t batch, std::int64_t element_bytes,
                             std::int64_t keep_capacity_bytes, const std::vector<bool>& to_dram);

}  // namespace reusesim::mapping
