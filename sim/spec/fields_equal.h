#pragma once
// Member-wise equality of the spec structs (C++17 has no defaulted operator==): each struct lists
// its members once, in `auto fields() const { return std::tie(...); }`, and two specs are equal
// when every member is. config.json's round trip (load(write(spec)) == spec) is checked with it.

#include <tuple>
#include <type_traits>
#include <utility>

namespace reusesim::spec {

template <typename Spec, typename = decltype(std::declval<const Spec&>().fields())>
bool operator==(const Spec& a, const Spec& b) {
  return a.fields() == b.fields();
}

}  // namespace reusesim::spec
