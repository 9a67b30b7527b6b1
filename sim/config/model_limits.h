#pragma once
// What a model file may hold (docs/model-format.md); importers write within the same limits.

#include <cstddef>
#include <cstdint>

namespace reusesim::config {

// Block instances with `repeat` multiply layers: an 800-byte file made 400,000 of them, and
// gigabytes of network. The largest real networks have thousands of layers.
constexpr std::size_t kMaxModelLayers = 100'000;
// Any size, stride, dilation or padding.
constexpr std::int64_t kMaxModelDimension = std::int64_t{1} << 40;

}  // namespace reusesim::config
