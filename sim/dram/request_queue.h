#pragma once
// The controller's request queues (docs/dram-model.md, "Controller"): a bounded read queue and
// write queue, the requests refused while theirs was full (in arrival order), and the optional
// per-bank command queues behind them. A request in a command queue stays in its read or write
// queue's vector, marked, so the scheduler scans one place; only the queues' room counts it apart.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "spec/accelerator_spec.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

// The front end's handle of a request (hw::DramChannel: its TLM payload), handed back when the
// request leaves the waiting list or completes. nullptr: nobody to answer (a posted write).
using RequestTag = void*;

struct Request {
  RequestTag tag = nullptr;
  std::int64_t bytes = 0;
  std::int64_t row = 0;
  timing::BankTarget bank;
  std::size_t flat_bank = 0;  // BankNumbering::index(bank), kept for the scheduler's scans
  bool is_write = false;
  std::int64_t arrival_cycle = 0;
  std::int64_t ready_cycle = 0;  // arrival plus the front-end latency: the scheduler may pick it
  std::int64_t bursts_left = 0;
  std::uint64_t sequence = 0;  // arrival order across both queues
  bool in_command_queue = false;
  // An activate was issued for it: its next column command is a miss, or a conflict when the
  // bank's other row was closed for it.
  bool column_after_activate = false;
  bool activated_after_conflict = false;
};

// A queued request as the scheduler sees it: its index in the read queue, or in the write queue
// with kWriteRef set; kNoRef for none. Small, so that per-bank picks are cheap to reset.
using RequestRef = std::uint32_t;
constexpr RequestRef kWriteRef = 1U << 31;
constexpr RequestRef kNoRef = ~RequestRef{0};

// A request refused while its queue was full, as it arrived.
struct WaitingRequest {
  RequestTag tag = nullptr;
  std::uint64_t address = 0;
  std::int64_t bytes = 0;
  bool is_write = false;
  std::int64_t arrival_cycle = 0;
};

class RequestQueues {
 public:
  RequestQueues(const spec::DramControllerSpec& controller, std::size_t banks);

  // Empty, as at construction.
  void clear();
  const std::vector<Request>& reads() const { return reads_; }
  const std::vector<Request>& writes() const { return writes_; }
  Request& at(RequestRef ref) { return ref & kWriteRef ? writes_[ref & ~kWriteRef] : reads_[ref]; }
  const Request& at(RequestRef ref) const { return ref & kWriteRef ? writes_[ref & ~kWriteRef] : reads_[ref]; }
  // No request queued (waiting ones aside).
  bool empty() const { return reads_.empty() && writes_.empty(); }
  // Requests in the read (or write) queue proper: not yet moved into a command queue.
  std::int64_t transaction_queue_size(bool is_write) const {
    const auto queued = static_cast<std::int64_t>((is_write ? writes_ : reads_).size());
    return queued - (is_write ? commanded_writes_ : commanded_reads_);
  }
  bool has_room(bool is_write) const {
    return transaction_queue_size(is_write) < (is_write ? write_depth_ : read_depth_);
  }
  // Appends `request` to its queue, numbered after every request so far; returns where it is.
  RequestRef push(Request request);
  // Removes a finished request; the refs after it in its queue move down by one.
  void erase(RequestRef ref);
  // Command queues: moves requests of one kind into their banks' queues, oldest first, while they
  // have room. True if any moved.
  bool fill_command_queues(bool is_write);
  // Refused requests, oldest first.
  std::deque<WaitingRequest>& waiting() { return waiting_; }
  const std::deque<WaitingRequest>& waiting() const { return waiting_; }

 private:
  std::int64_t read_depth_;
  std::int64_t write_depth_;
  std::int64_t command_queue_depth_;
  std::vector<Request> reads_;
  std::vector<Request> writes_;
  std::deque<WaitingRequest> waiting_;
  std::vector<std::int64_t> command_queue_sizes_;  // per bank (command queues only)
  std::int64_t commanded_reads_ = 0;  // requests in command queues, by kind
  std::int64_t commanded_writes_ = 0;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace reusesim::dram
