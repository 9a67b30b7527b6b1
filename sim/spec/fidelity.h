#pragma once
// How closely a replay times the memory (docs/performance.md, "Fast mode"): `exact` simulates
// every burst through the DRAM controller; `fast` serves whole transfers (in large chunks) with
// channel servers calibrated on that controller. Bytes, requests, bursts and MACs are the same in
// both; time and the DRAM's command counters are estimates in `fast`.

#include "util/enum_names.h"

namespace reusesim::spec {

enum class Fidelity { exact, fast };
constexpr util::EnumNames<Fidelity, 2> enum_names(Fidelity) {
  return {{{Fidelity::exact, "exact"}, {Fidelity::fast, "fast"}}};
}

}  // namespace reusesim::spec
