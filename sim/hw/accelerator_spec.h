#pragma once
// Typed descriptions of the hardware, filled by sim/config from YAML. Hardware modules take these
// structs and never see YAML. Times are integer cycles of the component's own clock.

#include <cstdint>
#include <string>
#include <vector>

namespace reusesim::hw {

enum class ArrayKind { systolic, vector_mac };
enum class Dataflow { ws, os, is };  // weight-, output-, input-stationary (systolic only)

struct ComputeSpec {
  ArrayKind kind = ArrayKind::systolic;
  std::int64_t rows = 0;   // systolic
  std::int64_t cols = 0;   // systolic
  Dataflow dataflow = Dataflow::ws;
  std::int64_t units = 0;  // vector_mac: units x lanes MACs
  std::int64_t lanes = 0;
  double clock_mhz = 0;
  std::int64_t operand_bits = 0;
  std::int64_t accumulator_bits = 0;
  std::int64_t vector_ops_per_cycle = 0;  // pooling, activations, element-wise, softmax

  std::int64_t macs_per_cycle() const { return kind == ArrayKind::systolic ? rows * cols : units * lanes; }
  // 1 MAC = 2 ops.
  double peak_ops_per_second() const { return 2.0 * static_cast<double>(macs_per_cycle()) * clock_mhz * 1e6; }
};

enum class TensorKind { weights, inputs, outputs };

struct SramBufferSpec {
  std::string name;
  std::int64_t capacity_bytes = 0;
  std::int64_t banks = 0;
  std::int64_t bank_width_bytes = 0;  // bytes per bank per cycle
  std::int64_t read_ports = 0;
  std::int64_t write_ports = 0;
  std::vector<TensorKind> holds;
};

struct SramSpec {
  double clock_mhz = 0;
  std::vector<SramBufferSpec> buffers;
};

enum class PagePolicy { open, closed };
enum class RefreshMode { all_bank, per_bank };
// Address fields, most significant first in DramSpec::address_mapping.
enum class AddressField { channel, rank, bank_group, bank, row, column };

// JEDEC timing parameters, in memory clock cycles (tCK).
struct DramTiming {
  double tck_ns = 0;
  std::int64_t cl = 0, cwl = 0, trcd = 0, trp = 0, tras = 0, trc = 0;
  std::int64_t burst_length = 0;  // beats; a burst holds the bus for burst_length / 2 clocks (DDR)
  std::int64_t tccd_s = 0, tccd_l = 0, trrd_s = 0, trrd_l = 0, tfaw = 0;
  std::int64_t twtr_s = 0, twtr_l = 0, twr = 0, trtp = 0, trfc = 0, trefi = 0;
  std::int64_t trfc_pb = 0;  // per-bank refresh: how long one bank is busy (refresh: per_bank only)
};

struct DramSpec {
  std::string name;      // the preset, or the file it came from
  std::string standard;  // ddr3, ddr4, lpddr4, hbm2, hbm3
  std::int64_t channels = 0;
  std::int64_t ranks = 0;
  std::int64_t bank_groups = 0;
  std::int64_t banks_per_group = 0;
  std::int64_t row_bytes = 0;  // one rank's row (page) across the channel's bus
  std::int64_t bus_bits = 0;   // data bus width of one channel
  DramTiming timing;
  std::vector<AddressField> address_mapping;
  std::int64_t queue_depth = 0;
  PagePolicy page_policy = PagePolicy::open;
  RefreshMode refresh = RefreshMode::all_bank;
  std::int64_t write_drain_high = 0;  // start draining writes at this many queued writes
  std::int64_t write_drain_low = 0;   // stop at this many

  std::int64_t burst_bytes() const { return bus_bits / 8 * timing.burst_length; }
  // Both clock edges carry data: bytes per second over all channels.
  double peak_bytes_per_second() const {
    return static_cast<double>(channels) * static_cast<double>(bus_bits) / 8.0 * 2.0 / (timing.tck_ns * 1e-9);
  }
};

struct AcceleratorSpec {
  std::string name;
  ComputeSpec compute;
  SramSpec sram;
  DramSpec dram;
};

}  // namespace reusesim::hw
