#include "hw/dma_engine.h"

#include <algorithm>
#include <string>

#include "hw/systemc_compat.h"
#include "program/program.h"

namespace reusesim::hw {

namespace {

// Reported, not thrown: the engine's callers run in SC_THREADs (see SramBuffer::reserve).
bool known_tag(int tag) {
  if (tag >= 0 && tag < kDmaTags) return true;
  const std::string message = "DMA tag " + std::to_string(tag) + " is not one of 0 to " + std::to_string(kDmaTags - 1);
  SC_REPORT_ERROR("reusesim/dma", message.c_str());
  return false;
}

}  // namespace

DmaEngine::DmaEngine(sc_core::sc_module_name name, const timing::DramAddressMapper& mapper,
                     std::int64_t max_outstanding, std::uint64_t max_request_bytes)
    : sc_core::sc_module(name),
      socket("socket"),
      mapper_(mapper),
      max_outstanding_(max_outstanding),
      max_request_bytes_(max_request_bytes),
      owners_(static_cast<std::size_t>(max_outstanding), transfers_.end()),
      lane_of_slot_(static_cast<std::size_t>(max_outstanding), 0) {
  REUSESIM_HAS_PROCESS(DmaEngine);
  socket.register_nb_transport_bw(this, &DmaEngine::nb_transport_bw);
  for (std::int64_t i = 0; i < max_outstanding; ++i) {
    payloads_.push_back(std::make_unique<tlm::tlm_generic_payload>());
    auto* route = new DmaRoute;  // the payload owns it
    route->slot = static_cast<std::size_t>(i);
    payloads_.back()->set_extension(route);
  }
  for (std::size_t i = owners_.size(); i-- > 0;) free_slots_.push_back(i);
  wake_events_ |= responses_.get_event();
  wake_events_ |= work_event_;
  SC_THREAD(run);
}

std::int64_t DmaEngine::completed_bytes(int tag) const { return known_tag(tag) ? completed_bytes_[tag] : 0; }

void DmaEngine::submit(const DmaTransfer& transfer, OnDone on_done) {
  if (!known_tag(transfer.tag)) return;
  // DRAM moves whole bursts: widen the transfer to the bursts it touches.
  DmaTransfer widened = transfer;
  widened.address = transfer.address / mapper_.burst_bytes() * mapper_.burst_bytes();
  widened.bytes = program::burst_extent(transfer.address, transfer.bytes, mapper_.burst_bytes());
  transfers_.push_back(Pending{widened, std::move(on_done), 0, 0, {}});
  if (next_to_issue_ == transfers_.end()) next_to_issue_ = std::prev(transfers_.end());
  ++stats_.transfers;
  work_event_.notify();
}

void DmaEngine::run() {
  while (true) {
    while (tlm::tlm_generic_payload* done = responses_.get_next_transaction()) complete(*done);
    resume_lanes();
    if (next_to_issue_ == transfers_.end() || free_slots_.empty()) {
      sc_core::wait(wake_events_);
      continue;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (now < next_to_issue_->transfer.not_before) {
      sc_core::wait(next_to_issue_->transfer.not_before - now, wake_events_);
      continue;
    }
    const std::size_t slot_index = free_slots_.back();
    free_slots_.pop_back();
    split_next(slot_index);
  }
}

void DmaEngine::split_next(std::size_t slot_index) {
  Pending& pending = *next_to_issue_;
  const std::uint64_t address = pending.transfer.address + pending.issued_bytes;
  std::uint64_t bytes = pending.transfer.bytes - pending.issued_bytes;
  std::uint64_t held_bytes = 0;
  if (shared_reads_.lines != nullptr && !pending.transfer.is_write && chunk_bytes_ == 0) {
    held_bytes = shared_reads_.lines->held_bytes(address, std::min(bytes, shared_reads_.request_bytes));
  }
  if (held_bytes > 0) {
    bytes = held_bytes;
  } else if (chunk_bytes_ > 0) {
    bytes = std::min(bytes, chunk_bytes_ - address % chunk_bytes_);
  } else {
    bytes = std::min(bytes, mapper_.bytes_to_run_end(address));
    if (max_request_bytes_ > 0) bytes = std::min(bytes, max_request_bytes_);
  }
  owners_[slot_index] = next_to_issue_;
  tlm::tlm_generic_payload& payload = *payloads_[slot_index];
  payload.set_command(pending.transfer.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  payload.set_address(address);
  payload.set_data_length(static_cast<unsigned int>(bytes));
  payload.set_data_ptr(nullptr);  // timing only: no data is stored
  payload.get_extension<DmaRoute>()->clear_outcome();
  payload.set_streaming_width(static_cast<unsigned int>(bytes));
  payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  pending.issued_bytes += bytes;
  if (pending.issued_bytes == pending.transfer.bytes) ++next_to_issue_;
  ++pending.requests_in_flight;
  ++outstanding_;
  ++stats_.requests;
  if (held_bytes > 0) {
    send(slot_index);  // to the shared memory, which takes every request
    return;
  }
  const auto channel = static_cast<std::size_t>(mapper_.channel_index(address));
  const std::size_t lane = channel * 2 + (pending.transfer.is_write ? 1 : 0);
  if (lane >= lanes_.size()) lanes_.resize(lane + 1);
  lane_of_slot_[slot_index] = lane;
  if (lanes_[lane].refused != nullptr || !lanes_[lane].waiting.empty()) {
    lanes_[lane].waiting.push_back(slot_index);  // behind the request the memory has not taken yet
  } else {
    send(slot_index);
  }
}

void DmaEngine::send(std::size_t slot_index) {
  tlm::tlm_generic_payload& payload = *payloads_[slot_index];
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum status = socket->nb_transport_fw(payload, phase, delay);
  if (status == tlm::TLM_COMPLETED) {
    complete(payload);  // done at once: refused (an error response), or a posted write
  } else if (status == tlm::TLM_ACCEPTED && phase == tlm::BEGIN_REQ) {
    // Its channel's queue is full: the lane waits until the memory takes this one (END_REQ).
    const std::size_t lane = lane_of_slot_[slot_index];
    lanes_[lane].refused = &payload;
    blocked_lanes_.push_back(lane);
  }
}

void DmaEngine::resume_lanes() {
  // Lanes in the order their requests were taken; each sends until it is refused again.
  for (std::size_t next = 0; next < taken_lanes_.size(); ++next) {
    Lane& lane = lanes_[taken_lanes_[next]];
    while (lane.refused == nullptr && !lane.waiting.empty()) {
      const std::size_t slot_index = lane.waiting.front();
      lane.waiting.pop_front();
      send(slot_index);
    }
  }
  taken_lanes_.clear();
}

tlm::tlm_sync_enum DmaEngine::nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                              sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ || phase == tlm::BEGIN_RESP) {
    // END_REQ, or the response, of a refused request: the memory took it, and its lane goes on.
    for (auto lane = blocked_lanes_.begin(); lane != blocked_lanes_.end(); ++lane) {
      if (lanes_[*lane].refused != &payload) continue;
      lanes_[*lane].refused = nullptr;
      taken_lanes_.push_back(*lane);
      blocked_lanes_.erase(lane);
      work_event_.notify();
      break;
    }
  }
  if (phase == tlm::BEGIN_RESP) {
    responses_.notify(payload, delay);
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;
}

void DmaEngine::complete(tlm::tlm_generic_payload& payload) {
  if (payload.get_response_status() != tlm::TLM_OK_RESPONSE) ++stats_.failed_requests;
  const DmaRoute& route = *payload.get_extension<DmaRoute>();
  const std::size_t slot_index = route.slot;
  const auto owner = owners_[slot_index];
  const auto bytes = static_cast<std::int64_t>(payload.get_data_length());
  completed_bytes_[owner->transfer.tag] += bytes;
  if (route.from_shared) owner->done.shared_bytes += bytes;
  if (route.multicast) owner->done.multicast_bytes += bytes;
  owner->done.last_network_time = route.network_time;
  free_slots_.push_back(slot_index);
  --outstanding_;
  if (--owner->requests_in_flight == 0 && owner->issued_bytes == owner->transfer.bytes) {
    OnDone on_done = std::move(owner->on_done);
    const Done done = owner->done;
    transfers_.erase(owner);
    if (on_done) on_done(done);
  }
  if (idle()) idle_event_.notify();
}

}  // namespace reusesim::hw
