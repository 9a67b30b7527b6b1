#include "dram/request_queue.h"

namespace reusesim::dram {

RequestQueues::RequestQueues(const spec::DramControllerSpec& controller, std::size_t banks)
    : read_depth_(controller.read_queue_depth),
      write_depth_(controller.write_queue_depth),
      command_queue_depth_(controller.command_queue_depth),
      command_queue_sizes_(banks, 0) {}

void RequestQueues::clear() {
  reads_.clear();
  writes_.clear();
  waiting_.clear();
  command_queue_sizes_.assign(command_queue_sizes_.size(), 0);
  commanded_reads_ = 0;
  commanded_writes_ = 0;
  next_sequence_ = 0;
}

RequestRef RequestQueues::push(Request request) {
  request.sequence = next_sequence_++;
  std::vector<Request>& queue = request.is_write ? writes_ : reads_;
  queue.push_back(request);
  return static_cast<RequestRef>(queue.size() - 1) | (request.is_write ? kWriteRef : 0);
}

void RequestQueues::erase(RequestRef ref) {
  const Request& request = at(ref);
  if (request.in_command_queue) {
    --command_queue_sizes_[request.flat_bank];
    --(request.is_write ? commanded_writes_ : commanded_reads_);
  }
  std::vector<Request>& queue = ref & kWriteRef ? writes_ : reads_;
  queue.erase(queue.begin() + static_cast<std::ptrdiff_t>(ref & ~kWriteRef));
}

bool RequestQueues::fill_command_queues(bool is_write) {
  bool moved = false;
  for (Request& request : is_write ? writes_ : reads_) {
    std::int64_t& bank_size = command_queue_sizes_[request.flat_bank];
    if (request.in_command_queue || bank_size >= command_queue_depth_) continue;
    request.in_command_queue = true;
    ++bank_size;
    ++(is_write ? commanded_writes_ : commanded_reads_);
    moved = true;
  }
  return moved;
}

}  // namespace reusesim::dram
