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

tlm::tlm_sync_enum NetworkOnChip::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                                  tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    DmaRoute& route = *payload.get_extension<DmaRoute>();
    route.noc_port = initiator;
    route.network_time = sc_core::SC_ZERO_TIME;
    if (payload.is_write()) {
      const std::int64_t core = node_of_port_[static_cast<std::size_t>(initiator)];
      links_.carry(links_.route(core, memory_node(payload.get_address())), sc_core::sc_time_stamp().value(),
                   payload.get_data_length());
    }
  }
  return memory_socket->nb_transport_fw(payload, phase, delay);
}

tlm::tlm_sync_enum NetworkOnChip::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                  sc_core::sc_time& delay) {
  const int port = payload.get_extension<DmaRoute>()->noc_port;
  if (phase != tlm::BEGIN_RESP || payload.is_write()) return socket[port]->nb_transport_bw(payload, phase, delay);
  // A read's data, ready at the memory's node now + delay, crosses to the core's.
  const std::int64_t core = node_of_port_[static_cast<std::size_t>(port)];
  const std::vector<std::int32_t>& path = links_.route(memory_node(payload.get_address()), core);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time answered = now + delay;
  const sc_core::sc_time arrived = sc_core::sc_time::from_value(
      links_.head_arrival(path.size(), links_.carry(path, answered.value(), payload.get_data_length())));
  payload.get_extension<DmaRoute>()->network_time = arrived - answered;
  responses_.answer_in(payload, port, arrived - now);
  return tlm::TLM_COMPLETED;
}

void NetworkOnChip::respond() {
  responses_.run([](const tlm::tlm_generic_payload&) {});
}

bool NetworkOnChip::restart() {
  if (!responses_.idle() || !memory_->restart()) return false;
  links_.restart(sc_core::sc_time_stamp().value());
  return true;
}

}  // namespace reusesim::hw
