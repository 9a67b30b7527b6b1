#pragma once
// What the modules need around SystemC: SC_HAS_PROCESS (2.3 needs it in constructors that are not
// SC_CTOR; 3.0 deprecates it) and simulated time as picoseconds for plain-C++ records.
#include <systemc>

#include <cstdint>

#if SC_VERSION_MAJOR >= 3
#define REUSESIM_HAS_PROCESS(T) static_assert(true, "")
#else
#define REUSESIM_HAS_PROCESS(T) SC_HAS_PROCESS(T)
#endif

namespace reusesim::hw {

// Simulated time in picoseconds, as plain C++ code (results, reports) keeps it. Picoseconds are
// SystemC's default time resolution, which ReuseSim never changes, so value() counts them.
inline std::uint64_t picoseconds(const sc_core::sc_time& time) { return time.value(); }

}  // namespace reusesim::hw
