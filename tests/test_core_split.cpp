// A batch split over a chip's cores (mapping/core_split.h): the shares, the regions, and a core's
// program moved into the chip's DRAM.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "mapping/core_split.h"

namespace mapping = reusesim::mapping;
namespace program = reusesim::program;

TEST_CASE("core split: batch / cores samples each, the first batch % cores one more", "[core-split]") {
  CHECK(mapping::core_batches(4, 2) == std::vector<std::int64_t>{2, 2});
  CHECK(mapping::core_batches(3, 2) == std::vector<std::int64_t>{2, 1});
  CHECK(mapping::core_batches(7, 3) == std::vector<std::int64_t>{3, 2, 2});
  CHECK(mapping::core_batches(1, 3) == std::vector<std::int64_t>{1, 0, 0});
}

TEST_CASE("core split: a core's weights move to the chip's copy, everything else to its region", "[core-split]") {
  // Core 2 of a chip whose regions are 1 MiB: its weights, laid out at 0x3000 for its samples, go
  // to core 0's 0x5000 (+0x2000); its inputs and outputs 2 MiB up. Computes have no address.
  program::LayerProgram core;
  core.steps.resize(4);
  core.steps[0] = {program::StepKind::load, program::TensorRole::weights, 0x3100, 256};
  core.steps[1] = {program::StepKind::load, program::TensorRole::inputs, 0x8000, 64};
  core.steps[2].kind = program::StepKind::compute;
  core.steps[3] = {program::StepKind::store, program::TensorRole::outputs, 0x9000, 64};
  mapping::DramLayout own, shared;
  own.weights = 0x3000;
  shared.weights = 0x5000;
  mapping::place_on_core(core, own, shared, 2 << 20);
  CHECK(core.steps[0].address == 0x5100);
  CHECK(core.steps[1].address == 0x8000 + (2 << 20));
  CHECK(core.steps[2].address == 0);
  CHECK(core.steps[3].address == 0x9000 + (2 << 20));
}

TEST_CASE("core split: a region spans every load and store, rounded up to a MiB", "[core-split]") {
  // The highest end is 0x180000 + 0x100 = 1.5 MiB + 256 B: two MiB.
  mapping::NetworkMapping one, two;
  one.programs.resize(1);
  one.programs[0].steps = {{program::StepKind::load, program::TensorRole::weights, 0x1000, 4096}};
  two.programs.resize(1);
  two.programs[0].steps = {{program::StepKind::store, program::TensorRole::outputs, 0x180000, 0x100}};
  CHECK(mapping::core_region_bytes({&one, &two}) == (2u << 20));
  CHECK(mapping::core_region_bytes({&one}) == (1u << 20));
}
