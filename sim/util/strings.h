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

// True for a non-empty string of the digits 0-9 and nothing else.
inline bool all_digits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// `text` split at every `separator`: split("a:b", ':') is {"a", "b"}, split("", ':') is {""}.
inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace reusesim::util
