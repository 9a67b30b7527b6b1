#pragma once
// The answering side shared by the memories that time a request on arrival (hw/ideal_memory.h,
// hw/dram_flow_memory.h): each request waits in a PEQ until its answer is due, then goes back as
// BEGIN_RESP to the initiator socket it came from.

#include <tlm_utils/peq_with_get.h>
#include <systemc>
#include <tlm>

#include <unordered_map>

namespace reusesim::hw {

template <typename TargetSocket>
class MemoryResponses {
 public:
  explicit MemoryResponses(TargetSocket& socket) : socket_(socket), due_("responses") {}

  // Answers `payload`, from initiator `initiator`, `delay` from now.
  void answer_in(tlm::tlm_generic_payload& payload, int initiator, const sc_core::sc_time& delay) {
    initiator_of_[&payload] = initiator;
    due_.notify(payload, delay);
  }
  bool idle() const { return initiator_of_.empty(); }
  // A thread's body: forever answers what is due, each OK, after `on_answer(payload)`.
  template <typename OnAnswer>
  void run(OnAnswer on_answer) {
    while (true) {
      sc_core::wait(due_.get_event());
      while (tlm::tlm_generic_payload* payload = due_.get_next_transaction()) {
        on_answer(*payload);
        payload->set_response_status(tlm::TLM_OK_RESPONSE);
        const auto found = initiator_of_.find(payload);
        const int initiator = found->second;
        initiator_of_.erase(found);
        tlm::tlm_phase phase = tlm::BEGIN_RESP;
        sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
        socket_[initiator]->nb_transport_bw(*payload, phase, delay);
      }
    }
  }

 private:
  TargetSocket& socket_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> due_;
  std::unordered_map<const tlm::tlm_generic_payload*, int> initiator_of_;  // requests in flight
};

}  // namespace reusesim::hw
