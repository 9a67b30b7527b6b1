#pragma once
// Timing-annotated responses waiting for their time: tlm_utils::peq_with_get's behaviour (the same
// event notifications, transactions of one time in arrival order) on a binary heap in one vector,
// where the peq allocates a map node per transaction. Requesters take one response per DRAM
// request, so this sits on the hot path.

#include <systemc>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace reusesim::hw {

template <typename Transaction>
class ResponseQueue {
 public:
  // Due `delay` from now; the event fires then (or sooner, for an earlier one).
  void notify(Transaction& transaction, const sc_core::sc_time& delay) {
    waiting_.push_back(Entry{(sc_core::sc_time_stamp() + delay).value(), next_sequence_++, &transaction});
    std::push_heap(waiting_.begin(), waiting_.end(), Later{});
    event_.notify(delay);
  }
  // The next transaction due by now, or nullptr (and the event set for the next one): call until
  // it returns nullptr.
  Transaction* get_next_transaction() {
    if (waiting_.empty()) return nullptr;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (waiting_.front().due <= now.value()) {
      Transaction* transaction = waiting_.front().transaction;
      std::pop_heap(waiting_.begin(), waiting_.end(), Later{});
      waiting_.pop_back();
      return transaction;
    }
    event_.notify(sc_core::sc_time::from_value(waiting_.front().due) - now);
    return nullptr;
  }
  const sc_core::sc_event& get_event() const { return event_; }

 private:
  struct Entry {
    std::uint64_t due;       // in SystemC's time resolution (sc_time::value())
    std::uint64_t sequence;  // arrival order among responses due at one time
    Transaction* transaction;
  };
  // The heap's order: the earliest due, then the first to arrive, on top.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due != b.due ? a.due > b.due : a.sequence > b.sequence;
    }
  };

  std::vector<Entry> waiting_;
  std::uint64_t next_sequence_ = 0;
  sc_core::sc_event event_;
};

}  // namespace reusesim::hw
