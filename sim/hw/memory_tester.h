#pragma once
// The memtest top: a request stream fed through a DMA engine into a DRAM system. It stops the
// simulation when the last response has arrived and the DRAM has written every posted write.

#include <systemc>

#include <vector>

#include "hw/dma_engine.h"
#include "hw/dram_system.h"
#include "timing/traffic_patterns.h"

namespace reusesim::hw {

class MemoryTester : public sc_core::sc_module {
 public:
  MemoryTester(sc_core::sc_module_name name, const spec::DramSpec& spec, std::vector<spec::MemoryRequest> requests,
               std::uint64_t request_bytes, std::int64_t outstanding);

  // When the last response arrived, or the last posted write was written if later (the simulated
  // time of the test).
  sc_core::sc_time finish_time() const { return finish_time_; }
  std::int64_t completed() const { return completed_; }
  const DramSystem& dram() const { return dram_; }
  const DmaEngine& dma() const { return dma_; }

 private:
  void feed();

  DramSystem dram_;
  DmaEngine dma_;
  std::vector<spec::MemoryRequest> requests_;
  std::uint64_t request_bytes_;
  std::int64_t window_;  // requests handed to the DMA engine ahead of completion
  std::int64_t in_dma_ = 0;
  std::int64_t completed_ = 0;
  sc_core::sc_event refill_event_;
  sc_core::sc_time finish_time_;
};

}  // namespace reusesim::hw
