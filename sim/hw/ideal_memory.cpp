#include "hw/ideal_memory.h"

#include <algorithm>

#include "hw/dma_engine.h"
#include "hw/systemc_compat.h"

namespace reusesim::hw {

IdealMemory::IdealMemory(sc_core::sc_module_name name, const spec::DramSpec& spec)
    : sc_core::sc_module(name), socket("socket"), spec_(*spec.ideal), responses_(socket) {
  REUSESIM_HAS_PROCESS(IdealMemory);
  socket.register_nb_transport_fw(this, &IdealMemory::nb_transport_fw);
  SC_THREAD(respond);
}

void IdealMemory::bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t) { initiator.bind(socket); }

tlm::tlm_sync_enum IdealMemory::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                                tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;  // END_RESP: nothing to do
  const sc_core::sc_time now = sc_core::sc_time_stamp() + delay;
  sc_core::sc_time answer = now;
  if (!spec_.unlimited) {
    // GB/s are bytes per ns: in order, the data path moves this request after the ones before it.
    free_at_ = std::max(free_at_, now) +
               sc_core::sc_time(static_cast<double>(payload.get_data_length()) / spec_.bandwidth_gbps, sc_core::SC_NS);
    answer = free_at_ + sc_core::sc_time(spec_.latency_ns, sc_core::SC_NS);
  }
  responses_.answer_in(payload, initiator, answer - sc_core::sc_time_stamp());
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void IdealMemory::respond() {
  responses_.run([this](const tlm::tlm_generic_payload& payload) {
    const auto bytes = static_cast<std::int64_t>(payload.get_data_length());
    if (payload.is_write()) {
      ++stats_.writes;
      stats_.write_bytes += bytes;
    } else {
      ++stats_.reads;
      stats_.read_bytes += bytes;
    }
  });
}

bool IdealMemory::restart() {
  if (!responses_.idle()) return false;
  free_at_ = sc_core::sc_time_stamp();
  return true;
}

}  // namespace reusesim::hw
