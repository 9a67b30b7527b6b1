#include "workload/block_reuse.h"

#include <map>

namespace reusesim::workload {

namespace {

// The copy of `block` whose layer `name` is, or 0 when it is none of the block's.
std::int64_t copy_of(const RepeatedBlock& block, const std::string& name) {
  const std::string stem = block.name + "_";
  if (name.compare(0, stem.size(), stem) != 0) return 0;
  const std::size_t slash = name.find('/', stem.size());
  if (slash == std::string::npos || slash == stem.size()) return 0;
  std::int64_t copy = 0;
  for (std::size_t i = stem.size(); i < slash; ++i) {
    if (name[i] < '0' || name[i] > '9' || copy > block.copies) return 0;
    copy = copy * 10 + (name[i] - '0');
  }
  return copy <= block.copies ? copy : 0;
}

// Whether every layer after `block` reads its copies only in the last one.
bool read_only_in_last_copy(const ModelSpec& model, const RepeatedBlock& block) {
  const std::size_t end = block.first_layer + block.layers_per_copy * static_cast<std::size_t>(block.copies);
  for (std::size_t i = end; i < model.layers.size(); ++i) {
    for (const std::string& input : model.layers[i].inputs) {
      const std::int64_t copy = copy_of(block, input);
      if (copy != 0 && copy != block.copies) return false;
    }
  }
  return true;
}

}  // namespace

std::string ReusedBlock::description() const {
  const auto copy = [&](std::int64_t number) { return name + "_" + std::to_string(number); };
  return copy(kSimulatedCopies + 1) + (copies > kSimulatedCopies + 1 ? " to " + copy(copies) : "") + " repeat" +
         (copies > kSimulatedCopies + 1 ? " " : "s ") + copy(kSimulatedCopies);
}

ReducedModel reduce_repeated_blocks(const ModelSpec& model) {
  ReducedModel reduced{model, {}};
  reduced.model.layers.clear();
  reduced.model.repeated_blocks.clear();
  std::size_t next = 0;                        // the first layer of `model` not yet copied
  std::map<std::string, std::string> renamed;  // a left-out copy's layer -> the second copy's
  for (const RepeatedBlock& block : model.repeated_blocks) {
    reduced.model.layers.insert(reduced.model.layers.end(), model.layers.begin() + static_cast<std::ptrdiff_t>(next),
                                model.layers.begin() + static_cast<std::ptrdiff_t>(block.first_layer));
    const std::int64_t kept =
        block.copies > kSimulatedCopies && read_only_in_last_copy(model, block) ? kSimulatedCopies : block.copies;
    RepeatedBlock kept_block = block;
    kept_block.first_layer = reduced.model.layers.size();
    kept_block.copies = kept;
    reduced.model.repeated_blocks.push_back(kept_block);
    const std::size_t kept_end = block.first_layer + block.layers_per_copy * static_cast<std::size_t>(kept);
    reduced.model.layers.insert(reduced.model.layers.end(),
                                model.layers.begin() + static_cast<std::ptrdiff_t>(block.first_layer),
                                model.layers.begin() + static_cast<std::ptrdiff_t>(kept_end));
    next = block.first_layer + block.layers_per_copy * static_cast<std::size_t>(block.copies);
    if (kept == block.copies) continue;
    const ReusedBlock reused{block.name, block.copies};
    reduced.reused.push_back(reused);
    const std::string last = reused.copy_prefix(block.copies), second = reused.copy_prefix(kSimulatedCopies);
    for (std::size_t i = next - block.layers_per_copy; i < next; ++i) {
      renamed[model.layers[i].name] = second + model.layers[i].name.substr(last.size());
    }
  }
  reduced.model.layers.insert(reduced.model.layers.end(), model.layers.begin() + static_cast<std::ptrdiff_t>(next),
                              model.layers.end());
  for (LayerSpec& layer : reduced.model.layers) {
    for (std::string& input : layer.inputs) {
      const auto found = renamed.find(input);
      if (found != renamed.end()) input = found->second;
    }
  }
  return reduced;
}

}  // namespace reusesim::workload
