#pragma once
// What a run holds in DRAM at once, against the memory's capacity (docs/conventions.md, "DRAM
// capacity"): a run that does not fit is refused before anything is mapped.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/accelerator_spec.h"
#include "workload/network.h"
#include "workload/training.h"

namespace reusesim::simulate {

// One kind of bytes a run holds: "weights", "KV cache", "activations", ...
struct DramPart {
  std::string name;
  std::int64_t bytes = 0;
};

struct DramNeed {
  std::vector<DramPart> parts;
  std::int64_t total_bytes() const;
};

// What `network` holds in DRAM at `batch`, every tensor at the width run moves it
// (Network::run_widths of `element_bytes`), by workload::compute_footprint: the weights, a decode
// step's KV cache and the most activations live at once; a training step (`training` set) also
// the gradients and optimizer state, its activations counting their gradients.
DramNeed dram_need(const workload::Network& network, std::int64_t batch, std::int64_t element_bytes,
                   const workload::TrainingOptions* training);

// Empty when `need` fits `dram` (an ideal memory without a capacity always does); otherwise what
// `network` needs at `batch` part by part, the capacity and the shortfall, and what to change.
std::string capacity_problem(const workload::Network& network, std::int64_t batch, const DramNeed& need,
                             const spec::DramSpec& dram);

// `bytes` in the unit that keeps them short: "512 B", "2.5 KiB", "0.13 MiB" (from a tenth of a
// MiB), "13.56 GiB".
std::string short_bytes(std::int64_t bytes);

}  // namespace reusesim::simulate
