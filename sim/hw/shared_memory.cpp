#include "hw/shared_memory.h"

#include <algorithm>

#include "hw/dma_engine.h"
#include "hw/systemc_compat.h"

namespace reusesim::hw {

SharedMemory::SharedMemory(sc_core::sc_module_name name, const spec::SharedMemorySpec& spec,
                           std::unique_ptr<Memory> dram, std::int64_t burst_bytes)
    : sc_core::sc_module(name),
      socket("socket"),
      dram_socket("dram_socket"),
      spec_(spec),
      dram_(std::move(dram)),
      period_(sc_core::sc_time(1e6 / spec.clock_mhz, sc_core::SC_PS)),
      lines_(spec.line_bytes, burst_bytes, spec.lines()),
      bank_free_at_(static_cast<std::size_t>(spec.banks)),
      responses_(socket) {
  REUSESIM_HAS_PROCESS(SharedMemory);
  socket.register_nb_transport_fw(this, &SharedMemory::nb_transport_fw);
  dram_socket.register_nb_transport_bw(this, &SharedMemory::nb_transport_bw);
  dram_->bind(dram_socket, 0);
  SC_THREAD(respond);
}

sc_core::sc_time SharedMemory::take_banks(std::uint64_t address, std::uint64_t bytes,
                                          const sc_core::sc_time& earliest) {
  const auto width = static_cast<std::uint64_t>(spec_.bank_width_bytes);
  sc_core::sc_time done = earliest;
  lines_.for_each_line(address, bytes, [&](std::uint64_t line, std::uint64_t begin, std::uint64_t end) {
    sc_core::sc_time& free_at = bank_free_at_[line % bank_free_at_.size()];
    free_at = std::max(free_at, earliest) + period_ * static_cast<double>((end - begin + width - 1) / width);
    done = std::max(done, free_at);
  });
  return done;
}

void SharedMemory::answer_hit(tlm::tlm_generic_payload& payload, int initiator,
                              const timing::SharedLines::Lookup& lookup) {
  if (lookup.waits_on >= 0) {
    waiting_[lookup.waits_on].push_back(Waiting{&payload, initiator});
    ++waiting_count_;
    return;
  }
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_core::sc_time earliest = std::max(now, sc_core::sc_time::from_value(lookup.ready));
  const sc_core::sc_time done = take_banks(payload.get_address(), payload.get_data_length(), earliest);
  responses_.answer_in(payload, initiator, done + period_ * static_cast<double>(spec_.latency_cycles) - now);
}

void SharedMemory::fill_arrived(std::uint64_t address, std::uint64_t bytes, const sc_core::sc_time& at) {
  // The fill's data reaches the banks as it reaches the core.
  lines_.end_fill(address, bytes, take_banks(address, bytes, at).value());
  lines_.for_each_line(address, bytes, [&](std::uint64_t line, std::uint64_t, std::uint64_t) {
    const auto found = waiting_.find(static_cast<std::int64_t>(line));
    if (found == waiting_.end() || lines_.filling(static_cast<std::int64_t>(line))) return;
    const std::vector<Waiting> woken = std::move(found->second);
    waiting_.erase(found);
    waiting_count_ -= static_cast<std::int64_t>(woken.size());
    for (const Waiting& read : woken) {
      answer_hit(*read.payload, read.initiator,
                 lines_.read(read.payload->get_address(), read.payload->get_data_length()));
    }
  });
}

tlm::tlm_sync_enum SharedMemory::nb_transport_fw(int initiator, tlm::tlm_generic_payload& payload,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;  // END_RESP: nothing to do
  DmaRoute& route = *payload.get_extension<DmaRoute>();
  route.shared_port = initiator;
  const std::uint64_t address = payload.get_address();
  const std::uint64_t bytes = payload.get_data_length();
  const auto request_bytes = static_cast<std::int64_t>(bytes);
  if (payload.is_write()) {
    ++stats_.writes;
    stats_.write_bytes += request_bytes;
    lines_.write(address, bytes, take_banks(address, bytes, sc_core::sc_time_stamp()).value());
    return dram_socket->nb_transport_fw(payload, phase, delay);
  }
  const timing::SharedLines::Lookup lookup = lines_.read(address, bytes);
  if (lookup.hit) {
    ++stats_.read_hits;
    stats_.hit_bytes += request_bytes;
    if (lookup.waits_on >= 0) ++stats_.waited_for_fill;
    route.from_shared = true;
    answer_hit(payload, initiator, lookup);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  ++stats_.read_misses;
  stats_.miss_bytes += request_bytes;
  lines_.begin_fill(address, bytes);
  const tlm::tlm_sync_enum status = dram_socket->nb_transport_fw(payload, phase, delay);
  // Answered at once (an error): no data comes, and no read may wait for it.
  if (status == tlm::TLM_COMPLETED) fill_arrived(address, bytes, sc_core::sc_time_stamp());
  return status;
}

tlm::tlm_sync_enum SharedMemory::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                                 sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_RESP && !payload.is_write()) {
    fill_arrived(payload.get_address(), payload.get_data_length(), sc_core::sc_time_stamp() + delay);
  }
  return socket[payload.get_extension<DmaRoute>()->shared_port]->nb_transport_bw(payload, phase, delay);
}

void SharedMemory::respond() {
  responses_.run([](const tlm::tlm_generic_payload&) {});
}

bool SharedMemory::restart() {
  if (!responses_.idle() || waiting_count_ > 0 || !dram_->restart()) return false;
  lines_.clear();
  std::fill(bank_free_at_.begin(), bank_free_at_.end(), sc_core::sc_time_stamp());
  return true;
}

}  // namespace reusesim::hw
