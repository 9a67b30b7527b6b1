#include "hw/memory_tester.h"

#include "hw/systemc_compat.h"

namespace reusesim::hw {

MemoryTester::MemoryTester(sc_core::sc_module_name name, const spec::DramSpec& spec, std::vector<spec::MemoryRequest> requests,
                           std::uint64_t request_bytes, std::int64_t outstanding)
    : sc_core::sc_module(name),
      dram_("dram", spec),
      dma_("dma", dram_.mapper(), outstanding, 0),
      requests_(std::move(requests)),
      request_bytes_(request_bytes),
      window_(4 * outstanding) {
  REUSESIM_HAS_PROCESS(MemoryTester);
  dma_.socket.bind(dram_.socket);
  SC_THREAD(feed);
}

void MemoryTester::feed() {
  const sc_core::sc_time period = dram_.channels()[0].clock_period();
  std::size_t next = 0;
  // Keep the DMA engine's queue between half and a whole window full: one wake-up per half window.
  while (completed_ < static_cast<std::int64_t>(requests_.size())) {
    while (next < requests_.size() && in_dma_ < window_) {
      const spec::MemoryRequest& request = requests_[next++];
      DmaTransfer transfer;
      transfer.address = request.address;
      transfer.bytes = request_bytes_;
      transfer.is_write = request.is_write;
      transfer.not_before = period * static_cast<double>(request.earliest_cycle);
      ++in_dma_;
      dma_.submit(transfer, [this](const DmaEngine::Done&) {
        ++completed_;
        --in_dma_;
        if (in_dma_ <= window_ / 2 || completed_ == static_cast<std::int64_t>(requests_.size())) refill_event_.notify();
      });
    }
    sc_core::wait(refill_event_);
  }
  dram_.wait_until_idle();  // posted writes were answered before they were written
  finish_time_ = sc_core::sc_time_stamp();
  sc_core::sc_stop();
}

}  // namespace reusesim::hw
