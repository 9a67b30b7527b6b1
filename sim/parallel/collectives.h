#pragma once
// Collectives as link programs (program::LinkProgram): which bytes each chip sends to which, and
// which it adds on its vector unit, step by step (docs/systems.md, "Collectives"). Plain C++: the
// programs are checked without SystemC; hw::LinkEngine runs them.
//
// `group` lists the chips taking part, in ring order (a tree's root first); `system_chips` is the
// system's size (the program has a step list for each chip). Each chip holds `elements` elements of
// `element_bytes` (an all-reduce's and a reduce-scatter's input, an all-gather's output). The ring
// algorithms cut them into group-size chunks as even as whole elements allow, the first ones an
// element longer.

#include <cstdint>
#include <vector>

#include "program/link_program.h"

namespace reusesim::parallel {

struct CollectiveShape {
  std::vector<std::int64_t> group;
  std::int64_t system_chips = 0;
  std::int64_t elements = 0;
  std::int64_t element_bytes = 0;
};

// n - 1 steps: position p sends chunk p - s to p + 1, receives chunk p - s - 1 from p - 1 and adds
// it to its own; after them, position p holds chunk p + 1 summed over the group.
program::LinkProgram ring_reduce_scatter(const CollectiveShape& shape);
// n - 1 steps: position p starts with chunk p; sends chunk p - s on, receives chunk p - s - 1.
program::LinkProgram ring_all_gather(const CollectiveShape& shape);
// The reduce-scatter, then the all-gather of the summed chunks (position p starts with chunk p + 1):
// every link of the ring carries 2 (n - 1) chunks, 2 (n - 1) / n of the bytes.
program::LinkProgram ring_all_reduce(const CollectiveShape& shape);
// A binary tree over the group's positions (p's children 2p + 1 and 2p + 2): each chip receives
// and adds its children's whole buffers, sends the sum to its parent, receives the total back and
// sends it to its children.
program::LinkProgram tree_all_reduce(const CollectiveShape& shape);
// `bytes` from chip `from` to chip `to`.
program::LinkProgram point_to_point(std::int64_t from, std::int64_t to, std::int64_t system_chips, std::int64_t bytes);

}  // namespace reusesim::parallel
