#include "hw/link_engine.h"

#include "hw/systemc_compat.h"

namespace reusesim::hw {

LinkEngine::LinkEngine(std::int64_t chip, const spec::AcceleratorSpec& spec, ChipLinks& links)
    : chip_(chip),
      ops_per_cycle_(spec.compute.vector_ops_per_cycle * spec.cores),
      period_(sc_core::sc_time(1e6 / spec.compute.clock_mhz, sc_core::SC_PS)),
      links_(links) {}

std::int64_t LinkEngine::reduce_cycles(std::int64_t elements) const {
  return (elements + ops_per_cycle_ - 1) / ops_per_cycle_;
}

void LinkEngine::run(const std::vector<program::LinkStep>& steps, std::int64_t tag) {
  for (const program::LinkStep& step : steps) {
    switch (step.kind) {
      case program::LinkStepKind::send:
        links_.send(chip_, step.peer, static_cast<std::uint64_t>(step.bytes), tag);
        stats_.sent_bytes += step.bytes;
        break;
      case program::LinkStepKind::receive: {
        const sc_core::sc_time before = sc_core::sc_time_stamp();
        links_.receive(chip_, step.peer, tag);
        stats_.receive_wait_ps += picoseconds(sc_core::sc_time_stamp() - before);
        break;
      }
      case program::LinkStepKind::reduce: {
        const std::int64_t cycles = reduce_cycles(step.elements);
        stats_.reduced_elements += step.elements;
        stats_.reduce_cycles += cycles;
        sc_core::wait(period_ * static_cast<double>(cycles));
        break;
      }
    }
  }
}

}  // namespace reusesim::hw
