#pragma once
// Small string helpers every folder uses.

#include <string>
#include <vector>

namespace reusesim::util {

// `items` with `separator` between each two: join({"a", "b"}, ", ") is "a, b".
inline std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string joined;
  for (std::size_t i = 0; i < items.size(); ++i) joined += (i == 0 ? "" : separator) + items[i];
  return joined;
}

}  // namespace reusesim::util
