#pragma once
// One name per value of an enum, written once in a table beside the enum and read by the loaders
// that parse the word and the writers that print it, so the two can never disagree:
//
//   enum class PagePolicy { open, closed };
//   constexpr util::EnumNames<PagePolicy, 2> enum_names(PagePolicy) {
//     return {{{PagePolicy::open, "open"}, {PagePolicy::closed, "closed"}}};
//   }
//
// util::name(value), util::from_name<Enum>(word) and util::names<Enum>() find the table by
// argument-dependent lookup in the enum's namespace.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reusesim::util {

template <typename Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, const char*>, N>;

// A table lists every value of its enum (the enums' tests check each round trip), so the empty
// name is never returned for a value of the enum.
template <typename Enum>
std::string name(Enum value) {
  for (const auto& [entry, text] : enum_names(value)) {
    if (entry == value) return text;
  }
  return "";
}

template <typename Enum>
std::optional<Enum> from_name(const std::string& word) {
  for (const auto& [entry, text] : enum_names(Enum{})) {
    if (word == text) return entry;
  }
  return std::nullopt;
}

// The names in the table's order: the choices a loader offers and lists in its messages.
template <typename Enum>
std::vector<std::string> names() {
  std::vector<std::string> all;
  for (const auto& entry : enum_names(Enum{})) all.emplace_back(entry.second);
  return all;
}

}  // namespace reusesim::util
