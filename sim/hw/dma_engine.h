#pragma once
// A DMA engine: takes transfers (address, bytes, direction), splits them into requests at burst
// and row boundaries (so each request stays in one bank and row), and keeps a bounded number of
// requests outstanding on its TLM-2.0 initiator socket. Transfers are split in order; each request
// then goes out in its lane (its channel's reads or writes, as the memory queues them), in order
// within the lane: a request the memory refuses (its queue full) holds back only the requests of
// its own lane, and the others go on (no head-of-line blocking across channels). Requests complete
// in any order; a transfer is done when all of its have. One thread both issues requests and
// retires responses (timing-annotated responses wait in a PEQ).

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <vector>

#include "hw/memory.h"
#include "hw/response_queue.h"
#include "timing/dram_address.h"

namespace reusesim::hw {

struct DmaTransfer {
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  bool is_write = false;
  sc_core::sc_time not_before = sc_core::SC_ZERO_TIME;  // earliest issue time of its first request
  int tag = 0;  // the caller's class of transfer (0 to kDmaTags - 1), for completed_bytes()
};

constexpr int kDmaTags = 2;

// Travels with each request's payload (a TLM extension, one per payload for the engine's life):
// the engine's slot for it, and the target port of the memory it came in by (which the memory sets),
// so that neither side looks its bookkeeping up by payload address. Every payload a memory sees
// has one: only DMA engines issue requests. A shared memory in front of the DRAM (hw/shared_memory.h)
// keeps its own port apart (the DRAM sets memory_port to the shared memory's), and says whether it
// answered the request itself.
struct DmaRoute : tlm::tlm_extension<DmaRoute> {
  std::size_t slot = 0;
  int memory_port = 0;
  int shared_port = 0;
  int noc_port = 0;
  // What became of the request, cleared as it is sent: a read the shared memory served; a read that
  // joined another core's read of the same bytes, its data a copy of that one's (hw::NetworkOnChip,
  // noc.multicast); what a read spent crossing a network-on-chip (its request's hops and its data's
  // trip back: zero without one).
  bool from_shared = false;
  bool multicast = false;
  sc_core::sc_time network_time;
  void clear_outcome() {
    from_shared = false;
    multicast = false;
    network_time = sc_core::SC_ZERO_TIME;
  }

  tlm::tlm_extension_base* clone() const override { return new DmaRoute(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const DmaRoute&>(other); }
};

struct DmaStats {
  std::int64_t transfers = 0;
  std::int64_t requests = 0;
  std::int64_t failed_requests = 0;  // answered with an error status
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  // `max_request_bytes` caps a request (a multiple of the burst); 0 means up to the row run.
  DmaEngine(sc_core::sc_module_name name, const timing::DramAddressMapper& mapper, std::int64_t max_outstanding,
            std::uint64_t max_request_bytes);

  // The fast fidelity's option (hw/dram_flow_memory.h): requests end only at multiples of
  // `chunk_bytes` (a power of two, a multiple of every row run), not at row runs, so that the
  // memory takes large pieces of a transfer whose requests it counts itself. Before any submit().
  void split_at_chunks(std::uint64_t chunk_bytes) { chunk_bytes_ = chunk_bytes; }
  // With a shared memory in front of the DRAM: a read whose next bursts it holds goes to it as one
  // request of up to `reads.request_bytes` (not split at the DRAM's row runs; no lane: it is never
  // refused). Before any submit().
  void read_shared_runs(const SharedReads& reads) { shared_reads_ = reads; }

  // What a transfer's completion tells its owner: the bytes of it a shared memory served (0 without
  // one) and those that came as copies of another core's read (multicast), and the network time of
  // its request that completed last (zero without a network-on-chip).
  struct Done {
    std::int64_t shared_bytes = 0, multicast_bytes = 0;
    sc_core::sc_time last_network_time;
  };
  // Runs (in simulation context) when a transfer's last request completes.
  using OnDone = std::function<void(const Done& done)>;
  // Queues a transfer; `on_done` runs when it is done.
  // A tag outside 0 to kDmaTags - 1 is an SC_ERROR("reusesim/dma"), and nothing is queued.
  void submit(const DmaTransfer& transfer, OnDone on_done = {});
  bool idle() const { return transfers_.empty() && outstanding_ == 0; }
  // Notified whenever the engine becomes idle.
  const sc_core::sc_event& idle_event() const { return idle_event_; }
  const DmaStats& stats() const { return stats_; }
  // Bytes of the responses received so far, of transfers with `tag`: what the memory has delivered.
  // A tag out of range is an SC_ERROR("reusesim/dma"), and 0.
  std::int64_t completed_bytes(int tag) const;

 private:
  struct Pending {
    DmaTransfer transfer;
    OnDone on_done;
    std::uint64_t issued_bytes = 0;
    std::int64_t requests_in_flight = 0;
    Done done;
  };

  // One channel's reads or writes. Invariant: a lane that is not blocked has nothing waiting.
  struct Lane {
    const tlm::tlm_generic_payload* refused = nullptr;  // sent, not yet taken by the memory
    std::deque<std::size_t> waiting;  // slots split behind it, oldest first
  };

  void run();
  // Splits the next request of the oldest transfer with bytes left into slot `slot_index`, and
  // sends it, or queues it behind its lane's refused request.
  void split_next(std::size_t slot_index);
  // Sends the request in `slot_index`; a refusal blocks its lane.
  void send(std::size_t slot_index);
  // Lanes whose refused request the memory has taken send what waits behind it.
  void resume_lanes();
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void complete(tlm::tlm_generic_payload& payload);

  const timing::DramAddressMapper& mapper_;
  std::int64_t max_outstanding_;
  std::uint64_t max_request_bytes_;
  std::uint64_t chunk_bytes_ = 0;  // split_at_chunks(); 0: split at row runs
  SharedReads shared_reads_;       // read_shared_runs()
  std::list<Pending> transfers_;  // a list: in-flight requests point at their transfer
  // The oldest transfer with bytes still to issue (transfers are issued in order).
  std::list<Pending>::iterator next_to_issue_ = transfers_.end();
  // One payload per outstanding request, reused; which transfer each serves.
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> payloads_;
  std::vector<std::list<Pending>::iterator> owners_;
  std::vector<std::size_t> free_slots_;
  std::vector<std::size_t> lane_of_slot_;
  std::int64_t outstanding_ = 0;  // slots in use: requests sent, or split and waiting in a lane
  std::vector<Lane> lanes_;  // by scheduled channel x 2 + (write ? 1 : 0), grown as channels appear
  std::vector<std::size_t> blocked_lanes_;  // lanes with a refused request (few: scanned)
  std::vector<std::size_t> taken_lanes_;  // blocked lanes whose refused request was since taken
  // Responses arrive annotated with the time their data ends; they complete at that time.
  ResponseQueue<tlm::tlm_generic_payload> responses_;
  sc_core::sc_event work_event_;
  sc_core::sc_event_or_list wake_events_;  // a response is due, or new work
  sc_core::sc_event idle_event_;
  DmaStats stats_;
  std::int64_t completed_bytes_[kDmaTags] = {0, 0};
};

}  // namespace reusesim::hw
