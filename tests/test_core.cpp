// hw::Core on its own, driven as a chip drives it (begin_unit, wait while busy, end_unit): a
// hand-made unit's counters, with the arithmetic in comments.
// ctest runs each case in its own process (one SystemC elaboration per process).
#include <catch2/catch.hpp>

#include <systemc>

#include "fixtures.h"
#include "hw/core.h"
#include "hw/dram_system.h"
#include "hw/systemc_compat.h"
#include "timing/dram_address.h"

using namespace reusesim;

namespace {

// Nanoseconds as SystemC keeps time here: picoseconds.
std::uint64_t ns(std::uint64_t value) { return value * 1000; }

// A chip of one core on a DRAM system that runs one unit: `program`'s steps [0, end).
class OneCoreChip : public sc_core::sc_module {
  timing::DramAddressMapper mapper_;  // before the core, which keeps a reference to it
  hw::DramSystem memory_;

 public:
  OneCoreChip(sc_core::sc_module_name name, const spec::AcceleratorSpec& spec, const program::LayerProgram& program)
      : sc_core::sc_module(name),
        mapper_(spec.dram),
        memory_("dram", spec.dram),
        core("core", 0, spec, mapper_, memory_, nullptr, 0),
        program_(program) {
    REUSESIM_HAS_PROCESS(OneCoreChip);
    SC_THREAD(drive);
  }

  hw::Core core;
  bool started = false;
  hw::CoreUnitTotals totals;

 private:
  void drive() {
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    started = core.begin_unit(program_, 0, program_.steps.size(), nullptr);
    while (core.busy()) sc_core::wait(core.unit_done());
    totals = core.end_unit(start);
    sc_core::sc_stop();
  }

  const program::LayerProgram& program_;
};

}  // namespace

TEST_CASE("core: a hand-made load, compute, store unit's counters from begin_unit to end_unit", "[core]") {
  // small (16 x 16 weight-stationary array at 1 GHz) with its DDR4-2400 channel clocked at 1 ns, and
  // the layer the timeline test "a hand-made load, compute, store program ..." replays on the chip.
  const spec::AcceleratorSpec spec = fixtures::shipped_accelerator("small", {"dram.tck_ns=1"});
  const program::LayerProgram program = fixtures::load_compute_store_program();
  OneCoreChip chip("chip", spec, program);
  sc_core::sc_start();
  REQUIRE(chip.started);
  CHECK_FALSE(chip.core.busy());
  const hw::CoreUnitTotals& unit = chip.totals;

  // DDR4-2400 at 1 ns (tRCD 17, CL 17, CWL 12, a 64-byte burst BL/2 = 4 clocks): the load's data
  // arrives 17 + 17 + 4 = 38 ns in, while the array waits (a weights stall); the ws fold takes
  // 2R + C + M - 2 = 32 + 16 + 16 - 2 = 62 ns, [38, 100); the store's data is written from
  // 100 + 17 + 12 = 129 to 133 ns, the array's tail [100, 133) output drain.
  CHECK(unit.elapsed == sc_core::sc_time::from_value(ns(133)));
  CHECK(unit.dram_span == unit.elapsed);  // nothing prefetched
  CHECK(unit.compute == sc_core::sc_time::from_value(ns(62)));
  const auto stall = [&](results::StallCause cause) { return unit.stalls[static_cast<int>(cause)]; };
  CHECK(stall(results::StallCause::weights) == sc_core::sc_time::from_value(ns(38)));
  CHECK(stall(results::StallCause::output_drain) == sc_core::sc_time::from_value(ns(33)));
  CHECK(stall(results::StallCause::inputs) == sc_core::SC_ZERO_TIME);
  CHECK(stall(results::StallCause::sram) == sc_core::SC_ZERO_TIME);
  CHECK(stall(results::StallCause::vector) == sc_core::SC_ZERO_TIME);
  // One burst each way; the array's 16 x 16 x 4 MACs and no output-path work.
  CHECK(unit.read_bytes[static_cast<std::size_t>(program::TensorRole::weights)] == 64);
  CHECK(unit.read_bytes[static_cast<std::size_t>(program::TensorRole::inputs)] == 0);
  CHECK(unit.write_bytes == 64);
  CHECK(unit.prefetched_bytes == 0);
  CHECK(unit.macs == 1024);
  CHECK(unit.vector_ops == 0);
  // SRAM: the load writes 64 B of weights (4-byte words: 16); the compute reads its 4 x 16 weight
  // tile (64 B, 16 words) and the rest of its 128 B from the inputs (64 B, 16 words); the store
  // reads 64 B of outputs (16-byte words: 4).
  REQUIRE(unit.sram.size() == 3);
  const hw::SramStats& weights = unit.sram[spec.sram.buffer_index(spec::TensorKind::weights)];
  const hw::SramStats& inputs = unit.sram[spec.sram.buffer_index(spec::TensorKind::inputs)];
  const hw::SramStats& outputs = unit.sram[spec.sram.buffer_index(spec::TensorKind::outputs)];
  CHECK(weights.write_bytes == 64);
  CHECK(weights.write_words == 16);
  CHECK(weights.read_bytes == 64);
  CHECK(weights.read_words == 16);
  CHECK(inputs.read_bytes == 64);
  CHECK(inputs.read_words == 16);
  CHECK(inputs.write_bytes == 0);
  CHECK(outputs.read_bytes == 64);
  CHECK(outputs.read_words == 4);
  CHECK(outputs.write_bytes == 0);
}
