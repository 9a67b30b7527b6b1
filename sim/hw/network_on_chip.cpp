#include "hw/network_on_chip.h"

#include "hw/dma_engine.h"
#include "hw/systemc_compat.h"

namespace reusesim::hw {

NetworkOnChip::NetworkOnChip(sc_core::sc_module_name name, const spec::NocSpec& spec,
                             const timing::DramAddressMapper& mapper, std::unique_ptr<Memory> memory)
    : sc_core::sc_module(name),
      socket("socket"),
      memory_socket("memory_socket"),
      spec_(spec),
      mapper_(mapper),
      memory_(std::move(memory)),
      period_(sc_core::sc_time(1e6 / spec.clock_mhz, sc_core::SC_PS)),
      links_(spec, period_.value()),
      responses_(socket, &DmaRoute::noc_port) {
  REUSESIM_HAS_PROCESS(NetworkOnChip);
  socket.register_nb_transport_fw(this, &NetworkOnChip::nb_transport_fw);
  memory_socket.register_nb_transport_bw(this, &NetworkOnChip::nb_transport_bw);
  memory_->bind(memory_socket, 0);
  SC_THREAD(respond);
}

void NetworkOnChip::bind(tlm::tlm_initiator_socket<>& initiator, std::int64_t core) {
  initiator.bind(socket);
  node_of_port_.push_back(core);
}

std::int64_t NetworkOnChip::memory_node(std::uint64_t address) const {
  const auto channel = static_cast<std::size_t>(mapper_.channel_index(address));
  return spec_.memory_nodes[channel % spec_.memory_nodes.size()];
}

void NetworkOnChip::record_to(results::TimelineRecorder& timeline) {
  memory_->record_to(timeline);
  timeline_ = &timeline;
  links_.record_entries();
  first_link_track_ = timeline.noc_links();
  for (std::size_t link = 0; link < links_.link_count(); ++link) {
    timeline.add_noc_link(links_.link_name(link), picoseconds(period_));
  }
}

void NetworkOnChip::record_links(std::uint64_t bytes, bool is_store) {
  if (timeline_ == nullptr) return;
  const std::uint64_t period = picoseconds(period_);
  const auto flits = static_cast<std::int64_t>(links_.flits(bytes));
  for (const timing::LinkServers::Entered& entered : links_.last_entered()) {
    const auto start = static_cast<std::int64_t>(entered.at / period);
    timeline_->noc_transfer(first_link_track_ + static_cast<std::size_t>(entered.link), start, start + flits,
                            static_cast<std::int64_t>(bytes), is_store);
  }
}

std::int64_t NetworkOnChip::node_of(const tlm::tlm_generic_payload& payload) const {
  return node_of_port_[static_cast<std::size_t>(payload.get_extension<DmaRoute>()->noc_port)];
}

tlm::tlm_sync_enum NetworkOnChip::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                                  tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return memory_socket->nb_transport_fw(payload, phase, delay);
  payload.get_extension<DmaRoute>()->noc_port = initiator;
  const std::uint64_t address = payload.get_address();
  if (payload.is_write()) {
    links_.carry(links_.route(node_of(payload), memory_node(address)), sc_core::sc_time_stamp().value(),
                 payload.get_data_length());
    record_links(payload.get_data_length(), true);
    return memory_socket->nb_transport_fw(payload, phase, delay);
  }
  const auto unanswered = spec_.multicast ? unanswered_.find(address) : unanswered_.end();
  if (unanswered != unanswered_.end() && unanswered->second.first->get_data_length() == payload.get_data_length()) {
    unanswered->second.joined.push_back(&payload);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  const tlm::tlm_sync_enum status = memory_socket->nb_transport_fw(payload, phase, delay);
  // A read answered at once (an error) brings no data another could share.
  if (spec_.multicast && unanswered == unanswered_.end() && status != tlm::TLM_COMPLETED) {
    unanswered_.emplace(address, Multicast{&payload, {}});
  }
  return status;
}

tlm::tlm_sync_enum NetworkOnChip::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  const int port = payload.get_extension<DmaRoute>()->noc_port;
  if (phase != tlm::BEGIN_RESP || payload.is_write()) return socket[port]->nb_transport_bw(payload, phase, delay);
  // A read's data, ready at the memory's node now + delay, crosses to the core's (and to those of
  // the reads that joined it).
  std::vector<tlm::tlm_generic_payload*> readers{&payload};
  const auto unanswered = unanswered_.find(payload.get_address());
  if (unanswered != unanswered_.end() && unanswered->second.first == &payload) {
    readers.insert(readers.end(), unanswered->second.joined.begin(), unanswered->second.joined.end());
    unanswered_.erase(unanswered);
  }
  std::vector<std::int64_t> nodes;
  for (const tlm::tlm_generic_payload* reader : readers) nodes.push_back(node_of(*reader));
  const std::int64_t from = memory_node(payload.get_address());
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time answered = now + delay;
  const std::vector<std::uint64_t> tails = links_.multicast(from, nodes, answered.value(), payload.get_data_length());
  record_links(payload.get_data_length(), false);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    tlm::tlm_generic_payload& reader = *readers[i];
    DmaRoute& route = *reader.get_extension<DmaRoute>();
    const sc_core::sc_time arrived =
        sc_core::sc_time::from_value(links_.head_arrival(links_.route(from, nodes[i]).size(), tails[i]));
    route.network_time = arrived - answered;
    if (i > 0) {
      route.multicast = true;
      reader.set_response_status(payload.get_response_status());
    }
    responses_.answer_in(reader, route.noc_port, arrived - now);
  }
  return tlm::TLM_COMPLETED;
}

void NetworkOnChip::respond() {
  responses_.run([](const tlm::tlm_generic_payload&) {});
}

bool NetworkOnChip::restart() {
  if (!responses_.idle() || !unanswered_.empty() || !memory_->restart()) return false;
  links_.restart(sc_core::sc_time_stamp().value());
  return true;
}

}  // namespace reusesim::hw
