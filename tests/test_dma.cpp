// The DMA engine's tags: a tag out of range is reported, not used as an index.
#include <catch2/catch.hpp>

#include <systemc>

#include "config/accelerator_loader.h"
#include "hw/dma_engine.h"

using namespace reusesim;
using Catch::Matchers::Contains;

TEST_CASE("dma: a tag out of range is an SC_ERROR and queues nothing", "[dma]") {
  const timing::DramAddressMapper mapper(config::load_dram("ddr4-2400"));
  hw::DmaEngine dma("dma_tags", mapper, 4, 0);
  CHECK(dma.completed_bytes(0) == 0);
  CHECK(dma.completed_bytes(hw::kDmaTags - 1) == 0);
  CHECK_THROWS_WITH(dma.completed_bytes(hw::kDmaTags), Contains("DMA tag 2 is not one of 0 to 1"));
  CHECK_THROWS_WITH(dma.completed_bytes(-1), Contains("DMA tag -1"));
  hw::DmaTransfer transfer;
  transfer.bytes = 64;
  transfer.tag = hw::kDmaTags;
  CHECK_THROWS_WITH(dma.submit(transfer), Contains("DMA tag 2"));
  CHECK(dma.idle());
  CHECK(dma.stats().transfers == 0);
}
