#pragma once
// SystemC 2.3 needs SC_HAS_PROCESS in constructors that are not SC_CTOR; 3.0 deprecates it.
#include <systemc>

#if SC_VERSION_MAJOR >= 3
#define REUSESIM_HAS_PROCESS(T) static_assert(true, "")
#else
#define REUSESIM_HAS_PROCESS(T) SC_HAS_PROCESS(T)
#endif
