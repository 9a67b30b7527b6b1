#include "parallel/collectives.h"

#include <string>

namespace reusesim::parallel {

namespace {

using program::LinkStep;
using program::LinkStepKind;

std::int64_t wrap(std::int64_t position, std::int64_t size) { return ((position % size) + size) % size; }

struct Ring {
  const CollectiveShape& shape;
  std::int64_t size() const { return static_cast<std::int64_t>(shape.group.size()); }
  std::int64_t chip(std::int64_t position) const {
    return shape.group[static_cast<std::size_t>(wrap(position, size()))];
  }
  std::int64_t chunk_elements(std::int64_t chunk) const {
    const std::int64_t c = wrap(chunk, size());
    return shape.elements / size() + (c < shape.elements % size() ? 1 : 0);
  }
  // Position p's n - 1 steps: send chunk p - s + first to p + 1, receive chunk p - s - 1 + first from
  // p - 1, and add it when reducing.
  void steps(program::LinkProgram& program, std::int64_t first, bool reduce) const {
    for (std::int64_t p = 0; p < size(); ++p) {
      std::vector<LinkStep>& own = program.chips[static_cast<std::size_t>(chip(p))];
      for (std::int64_t s = 0; s + 1 < size(); ++s) {
        own.push_back({LinkStepKind::send, chip(p + 1), chunk_elements(p - s + first) * shape.element_bytes, 0});
        own.push_back({LinkStepKind::receive, chip(p - 1), 0, 0});
        if (reduce) own.push_back({LinkStepKind::reduce, -1, 0, chunk_elements(p - s - 1 + first)});
      }
    }
  }
};

program::LinkProgram empty_program(const std::string& what, const CollectiveShape& shape) {
  program::LinkProgram program;
  std::string chips;
  for (const std::int64_t chip : shape.group) chips += (chips.empty() ? "" : ",") + std::to_string(chip);
  program.name = what + " of " + std::to_string(shape.elements * shape.element_bytes) + " B over chips " + chips;
  program.chips.resize(static_cast<std::size_t>(shape.system_chips));
  return program;
}

}  // namespace

program::LinkProgram ring_reduce_scatter(const CollectiveShape& shape) {
  program::LinkProgram program = empty_program("ring reduce-scatter", shape);
  Ring{shape}.steps(program, 0, true);
  return program;
}

program::LinkProgram ring_all_gather(const CollectiveShape& shape) {
  program::LinkProgram program = empty_program("ring all-gather", shape);
  Ring{shape}.steps(program, 0, false);
  return program;
}

program::LinkProgram ring_all_reduce(const CollectiveShape& shape) {
  program::LinkProgram program = empty_program("ring all-reduce", shape);
  const Ring ring{shape};
  ring.steps(program, 0, true);
  ring.steps(program, 1, false);
  return program;
}

program::LinkProgram tree_all_reduce(const CollectiveShape& shape) {
  program::LinkProgram program = empty_program("tree all-reduce", shape);
  const auto size = static_cast<std::int64_t>(shape.group.size());
  const std::int64_t bytes = shape.elements * shape.element_bytes;
  const auto chip = [&](std::int64_t position) { return shape.group[static_cast<std::size_t>(position)]; };
  for (std::int64_t p = 0; p < size; ++p) {
    std::vector<LinkStep>& own = program.chips[static_cast<std::size_t>(chip(p))];
    std::vector<std::int64_t> children;
    for (const std::int64_t child : {2 * p + 1, 2 * p + 2}) {
      if (child < size) children.push_back(chip(child));
    }
    for (const std::int64_t child : children) {
      own.push_back({LinkStepKind::receive, child, 0, 0});
      own.push_back({LinkStepKind::reduce, -1, 0, shape.elements});
    }
    if (p > 0) {
      own.push_back({LinkStepKind::send, chip((p - 1) / 2), bytes, 0});
      own.push_back({LinkStepKind::receive, chip((p - 1) / 2), 0, 0});
    }
    for (const std::int64_t child : children) own.push_back({LinkStepKind::send, child, bytes, 0});
  }
  return program;
}

program::LinkProgram point_to_point(std::int64_t from, std::int64_t to, std::int64_t system_chips, std::int64_t bytes) {
  program::LinkProgram program;
  program.name = "transfer of " + std::to_string(bytes) + " B from chip " + std::to_string(from) + " to chip " +
                 std::to_string(to);
  program.chips.resize(static_cast<std::size_t>(system_chips));
  program.chips[static_cast<std::size_t>(from)].push_back({LinkStepKind::send, to, bytes, 0});
  program.chips[static_cast<std::size_t>(to)].push_back({LinkStepKind::receive, from, 0, 0});
  return program;
}

}  // namespace reusesim::parallel
