#pragma once
// The answering side shared by the memories that time a request on arrival (hw/ideal_memory.h,
// hw/dram_flow_memory.h, and the network in front of them, hw/network_on_chip.h): each request waits until its answer
// is due, then goes back as BEGIN_RESP to the target port it came in by (which its DmaRoute keeps).

#include <systemc>
#include <tlm>

#include <cstdint>

#include "hw/dma_engine.h"
#include "hw/response_queue.h"

namespace reusesim::hw {

template <typename TargetSocket>
class MemoryResponses {
 public:
  // A request's port is kept in its DmaRoute's `port` (a network in front of a memory keeps its own).
  explicit MemoryResponses(TargetSocket& socket, int DmaRoute::*port = &DmaRoute::memory_port)
      : socket_(socket), port_(port) {}

  // Answers `payload`, from initiator `initiator`, `delay` from now.
  void answer_in(tlm::tlm_generic_payload& payload, int initiator, const sc_core::sc_time& delay) {
    payload.get_extension<DmaRoute>()->*port_ = initiator;
    ++in_flight_;
    due_.notify(payload, delay);
  }
  bool idle() const { return in_flight_ == 0; }
  // A thread's body: forever answers what is due, each OK, after `on_answer(payload)`.
  template <typename OnAnswer>
  void run(OnAnswer on_answer) {
    while (true) {
      sc_core::wait(due_.get_event());
      while (tlm::tlm_generic_payload* payload = due_.get_next_transaction()) {
        on_answer(*payload);
        payload->set_response_status(tlm::TLM_OK_RESPONSE);
        --in_flight_;
        tlm::tlm_phase phase = tlm::BEGIN_RESP;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket_[payload->get_extension<DmaRoute>()->*port_]->nb_transport_bw(*payload, phase, delay);
      }
    }
  }

 private:
  TargetSocket& socket_;
  int DmaRoute::*port_;
  ResponseQueue<tlm::tlm_generic_payload> due_;
  std::int64_t in_flight_ = 0;  // taken and not yet answered
};

}  // namespace reusesim::hw
