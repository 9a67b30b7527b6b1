// A chip's shared memory (hw/shared_memory.h) in front of an ideal memory: a miss goes to the
// memory and fills the lines, a read of bursts still filling waits for the fill (one memory read
// serves both), and a hit takes its banks' bandwidth and the latency (exact nanoseconds); then two
// cores reading the same weights through one.
#include <catch2/catch.hpp>

#include <systemc>

#include <memory>
#include <vector>

#include "config/model_loader.h"
#include "fixtures.h"
#include "hw/dma_engine.h"
#include "hw/ideal_memory.h"
#include "hw/shared_memory.h"
#include "hw/systemc_compat.h"
#include "simulate/plan.h"
#include "simulate/replay.h"

using namespace reusesim;

namespace {

// 2 banks of 32 bytes a clock at 1,000 MHz (1 ns a cycle), 128-byte lines, 10 cycles of latency.
spec::SharedMemorySpec small_shared_memory() {
  spec::SharedMemorySpec shared;
  shared.name = "l2";
  shared.capacity_bytes = 64 * 1024;
  shared.line_bytes = 128;
  shared.banks = 2;
  shared.bank_width_bytes = 32;
  shared.clock_mhz = 1000;
  shared.latency_cycles = 10;
  return shared;
}

// One DMA engine reading [0, 512) three times through the shared memory: A and B at 0 ns, C at
// 200 ns; when each finished (ns) and how many of its bytes the shared memory served.
struct Reader : sc_core::sc_module {
  explicit Reader(sc_core::sc_module_name name, const spec::DramSpec& dram)
      : sc_core::sc_module(name),
        mapper(dram),
        shared("shared", small_shared_memory(), std::make_unique<hw::IdealMemory>("memory", dram), 64),
        dma("dma", mapper, 4, 0) {
    REUSESIM_HAS_PROCESS(Reader);
    shared.bind(dma.socket, 0);
    SC_THREAD(read_all);
  }
  void read(std::size_t i) {
    dma.submit(hw::DmaTransfer{0, 512, false, sc_core::SC_ZERO_TIME, 0}, [this, i](const hw::DmaEngine::Done& done) {
      done_ns[i] = static_cast<std::int64_t>(sc_core::sc_time_stamp().value() / 1000);  // ps to ns
      served[i] = done.shared_bytes;
    });
  }
  void read_all() {
    read(0);
    read(1);
    sc_core::wait(200, sc_core::SC_NS);
    read(2);
  }
  timing::DramAddressMapper mapper;
  hw::SharedMemory shared;
  hw::DmaEngine dma;
  std::vector<std::int64_t> done_ns = std::vector<std::int64_t>(3, -1);
  std::vector<std::int64_t> served = std::vector<std::int64_t>(3, -1);
};

}  // namespace

TEST_CASE("shared memory: a miss fills its lines, a read of them waits for the fill, a hit takes the banks",
          "[shared]") {
  // The ideal memory: 64 GB/s (64 B a ns), 100 ns latency; its address space has 64-byte bursts.
  // A misses: the memory moves its 512 B in 8 ns and answers at 8 + 100 = 108 ns, when the fill
  // reaches the banks: lines 0-3 alternate over the 2 banks, 128 B / 32 B = 4 cycles each, two
  // lines a bank: held at 108 + 8 = 116 ns. B, sent at 0 ns while A's bursts fill, goes to the
  // shared memory as two requests of one line a bank (2 x 128 B) and waits for the fill: lines 0
  // and 1 from 116 ns, 4 cycles in their banks, lines 2 and 3 after them, answered 10 cycles after
  // the last: 116 + 8 + 10 = 134 ns; the memory read the 512 B once. C at 200 ns finds the banks
  // free: 200 + 8 + 10 = 218 ns, 512 B / (2 banks x 32 B) = 8 cycles of bandwidth.
  const spec::AcceleratorSpec ideal = fixtures::small_with_dram("  ideal: {bandwidth_gbps: 64, latency_ns: 100}\n");
  Reader reader("reader", ideal.dram);
  sc_core::sc_start();
  CHECK(reader.done_ns == std::vector<std::int64_t>{108, 134, 218});
  CHECK(reader.served == std::vector<std::int64_t>{0, 512, 512});
  CHECK(reader.shared.total_stats().read_bytes == 512);
  CHECK(reader.shared.stats().read_misses == 1);
  CHECK(reader.shared.stats().read_hits == 2);
  CHECK(reader.shared.stats().waited_for_fill == 1);
}

TEST_CASE("shared memory: two cores read the one copy of the weights once from the DRAM", "[shared]") {
  // kSmallLinear (64 -> 32, int8, 2,048 weight bytes) at batch 2, data parallel over two cores of
  // small on an ideal memory of 1 GB/s: both cores load all the weights; with a shared memory the
  // DRAM reads them once and the shared memory serves the other core's 2,048 B (the two cores
  // start together: the second core's loads find the first's still filling and wait for them).
  // Each core's sample (64 B of inputs) is its own: read from the DRAM. Loads add up to the
  // program's: 2 x (2,048 + 64) = 4,224 B.
  spec::AcceleratorSpec chip = fixtures::small_with_dram("  ideal: {bandwidth_gbps: 1, latency_ns: 0}\n");
  chip.cores = 2;
  chip.core_partition = spec::CorePartition::samples;
  chip.shared_memory = small_shared_memory();
  const config::LoadedModel model = config::load_model_text(fixtures::kSmallLinear, "model.yaml");
  simulate::RunPlan plan = simulate::plan_inference(chip, model.network, {2}, {0}, "chip");
  const simulate::Replay replay = simulate::replay(chip, std::move(plan.runs));
  INFO(replay.problem);
  REQUIRE(replay.problem.empty());
  const results::LayerResult& fc = replay.results.front();
  CHECK(fc.dram_read_weight_bytes == 2048);
  CHECK(fc.dram_read_input_bytes == 2 * 64);
  CHECK(fc.shared_read_bytes == 2048);
  CHECK(fc.dram_read_bytes + fc.shared_read_bytes == 2 * (2048 + 64));
  REQUIRE(fc.cores.size() == 2);
  CHECK(fc.cores[0].dram_read_bytes + fc.cores[1].dram_read_bytes == 2048 + 2 * 64);
  // Its banks (their energy): read for the 2,048 B of hits; written by the fills of what the DRAM
  // read (2,048 + 2 x 64 B) and by the two cores' written-through outputs (32 B each, a 64-byte
  // burst as the DRAM takes it): 2,304 B.
  CHECK(fc.dram_write_bytes == 2 * 64);
  CHECK(fc.shared_bank_read_bytes == 2048);
  CHECK(fc.shared_bank_write_bytes == 2048 + 2 * 64 + 2 * 64);
}
