#include "hw/dram_channel.h"

#include <cmath>

#include "hw/systemc_compat.h"

namespace reusesim::hw {

DramChannel::DramChannel(sc_core::sc_module_name name, const spec::DramSpec& spec)
    : sc_core::sc_module(name),
      socket("socket"),
      period_(spec.timing.tck_ns, sc_core::SC_NS),
      controller_(spec, *this),
      epoch_(sc_core::sc_time_stamp()),
      epoch_cycle_(static_cast<std::int64_t>(std::llround(epoch_ / period_))) {
  REUSESIM_HAS_PROCESS(DramChannel);
  socket.register_nb_transport_fw(this, &DramChannel::nb_transport_fw);
  SC_THREAD(run);
}

void DramChannel::restart() {
  controller_.restart(now_cycle());  // rows open until now close with the old epoch
  epoch_ = sc_core::sc_time_stamp();
  epoch_cycle_ = static_cast<std::int64_t>(std::llround(epoch_ / period_));
  // The scheduler may be asleep on a plan made for the old epoch: it replans now.
  if (sc_core::sc_is_running()) wake_.notify(sc_core::SC_ZERO_TIME);
}

void DramChannel::record_to(results::TimelineRecorder& timeline) {
  timeline_ = &timeline;
  timeline_track_ = timeline.add_dram_channel(picoseconds(period_));
}

std::int64_t DramChannel::now_cycle() const {
  // Requests may arrive between clock edges: they are seen at the next edge.
  // In whole time units (sc_time::value()), as the sc_time arithmetic it replaces computed exactly.
  const std::uint64_t now = (sc_core::sc_time_stamp() - epoch_).value();
  const std::uint64_t period = period_.value();
  return static_cast<std::int64_t>(now / period + (now % period != 0 ? 1 : 0));
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                sc_core::sc_time&) {
  if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
  if (!controller_.well_formed(payload.get_address(), payload.get_data_length())) {
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (!controller_.submit(&payload, payload.get_address(), static_cast<std::int64_t>(payload.get_data_length()),
                          payload.is_write(), now_cycle())) {
    return tlm::TLM_ACCEPTED;  // END_REQ follows when the queue has room
  }
  if (payload.is_write() && controller_.posted_writes()) {
    payload.set_response_status(tlm::TLM_OK_RESPONSE);  // posted: done as far as the requester goes
    return tlm::TLM_COMPLETED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramChannel::request_accepted(dram::RequestTag tag) {
  // END_REQ; a posted write gets its response instead, which also ends the request phase.
  auto& payload = *static_cast<tlm::tlm_generic_payload*>(tag);
  const bool posted = payload.is_write() && controller_.posted_writes();
  if (posted) payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = posted ? tlm::BEGIN_RESP : tlm::END_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->nb_transport_bw(payload, phase, delay);
}

void DramChannel::request_completed(const dram::Completion& done) {
  if (timeline_ != nullptr) {
    timeline_->dram_request(timeline_track_, epoch_cycle_ + done.arrival_cycle, epoch_cycle_ + done.data_end_cycle,
                            done.bytes, done.is_write);
  }
  if (done.tag == nullptr) return;  // a posted write: answered on arrival
  // The response, annotated with the time until the data burst ends.
  auto& payload = *static_cast<tlm::tlm_generic_payload*>(done.tag);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = cycles_time(done.data_end_cycle - now_cycle());
  socket->nb_transport_bw(payload, phase, delay);
}

void DramChannel::controller_stuck(const std::string& message) {
  SC_REPORT_ERROR("reusesim/dram", (std::string(name()) + ": " + message).c_str());
}

void DramChannel::run() {
  while (true) {
    const std::int64_t now = now_cycle();
    const std::int64_t wake_at = controller_.advance(now);
    if (wake_at == timing::DramTimingState::kNever) {
      sc_core::wait(wake_);
    } else {
      sc_core::wait(cycles_time(wake_at - now), wake_);
    }
  }
}

}  // namespace reusesim::hw
