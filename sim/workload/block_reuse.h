#pragma once
// Block reuse (run --reuse-blocks, docs/performance.md "Block reuse"): a model whose blocks repeat
// (Llama-2-70B's 80 decoder layers) is simulated with the first two copies of each repeated block,
// and the copies after them take the second's figures. The first copy follows what comes before
// the block (an embedding); the second follows a copy like itself, as every later one does.

#include <cstdint>
#include <string>
#include <vector>

#include "workload/network.h"

namespace reusesim::workload {

// The copies of a repeated block that are simulated: the first, and the one every later copy repeats.
constexpr std::int64_t kSimulatedCopies = 2;

// A repeated block whose copies after the second were left out of the simulation.
struct ReusedBlock {
  std::string name;         // the block instance's ("layers")
  std::int64_t copies = 0;  // in the model
  // A copy's layer name prefix ("layers_2/"): copy `copy`'s layers are this with copy's number.
  std::string copy_prefix(std::int64_t copy) const { return name + "_" + std::to_string(copy) + "/"; }
  // "layers_3 to layers_80 repeat layers_2", as outputs say it.
  std::string description() const;
};

struct ReducedModel {
  ModelSpec model;  // `reused` blocks with their first kSimulatedCopies copies
  std::vector<ReusedBlock> reused;
};

// `model` with every repeated block of more than kSimulatedCopies copies cut to its first two; the
// layers after the block read the second copy where they read the last. A block some later layer
// reads inside a copy other than the last keeps all its copies (nothing stands in for that copy).
ReducedModel reduce_repeated_blocks(const ModelSpec& model);

}  // namespace reusesim::workload
