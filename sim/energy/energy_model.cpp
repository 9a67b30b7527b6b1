#include "energy/energy_model.h"

#include <cmath>
#include <sstream>
#include <utility>

namespace reusesim::energy {

double DramEnergy::total_pj() const {
  return activate_pj + precharge_pj + read_pj + write_pj + refresh_pj + active_standby_pj + precharged_standby_pj +
         io_pj;
}

namespace {

// The IDD form (DRAMPower's decomposition), summed over the rails of the channel's devices.
DramCommandEnergy idd_command_energy(const spec::DramSpec& dram, double refreshed_fraction) {
  const spec::DramPowerSpec& power = *dram.power;
  const spec::DramTiming& t = dram.timing;
  // A scheduled channel's bus is carried by this many devices (half of one for an HBM pseudo-channel).
  const double devices = static_cast<double>(dram.channel_bus_bits()) / static_cast<double>(power.device_width_bits);
  const double burst_cycles = static_cast<double>(t.burst_length) / 2.0;
  DramCommandEnergy e;
  for (const spec::DramPowerRail& rail : power.rails) {
    const double scale = rail.volts * t.tck_ns * devices;  // pJ per mA-clock: mA x V x ns = pJ
    e.activate_pj += (rail.idd0 - rail.idd3n) * static_cast<double>(t.tras) * scale;
    e.precharge_pj += (rail.idd0 - rail.idd2n) * static_cast<double>(t.trc - t.tras) * scale;
    e.read_burst_pj += (rail.idd4r - rail.idd3n) * burst_cycles * scale;
    e.write_burst_pj += (rail.idd4w - rail.idd3n) * burst_cycles * scale;
    e.refresh_pj += (rail.idd5b - rail.idd3n) * static_cast<double>(t.trfc) * scale * refreshed_fraction;
    e.active_standby_pj_per_cycle += rail.idd3n * scale;
    e.precharged_standby_pj_per_cycle += rail.idd2n * scale;
  }
  return e;
}

// The per-access form: the block's energies as given, bursts by their bits, standby by the clock.
DramCommandEnergy per_access_command_energy(const spec::DramSpec& dram, double refreshed_fraction) {
  const spec::DramAccessEnergy& access = dram.power->access;
  const double burst_bits = static_cast<double>(dram.burst_bytes()) * 8.0;
  DramCommandEnergy e;
  e.activate_pj = access.activate_pj;
  e.precharge_pj = access.precharge_pj;
  e.read_burst_pj = access.read_pj_per_bit * burst_bits;
  e.write_burst_pj = access.write_pj_per_bit * burst_bits;
  e.refresh_pj = access.refresh_pj * refreshed_fraction;
  e.active_standby_pj_per_cycle = access.active_standby_mw * dram.timing.tck_ns;  // mW x ns = pJ
  e.precharged_standby_pj_per_cycle = access.precharged_standby_mw * dram.timing.tck_ns;
  return e;
}

}  // namespace

DramCommandEnergy dram_command_energy(const spec::DramSpec& dram) {
  const spec::DramPowerSpec& power = *dram.power;
  // Per-bank refresh refreshes one bank of the rank's: its share of an all-bank one.
  const double refreshed_fraction = dram.controller.refresh == spec::RefreshMode::per_bank
                                        ? 1.0 / static_cast<double>(dram.bank_groups * dram.banks_per_group)
                                        : 1.0;
  DramCommandEnergy e = power.form == spec::DramPowerForm::idd ? idd_command_energy(dram, refreshed_fraction)
                                                               : per_access_command_energy(dram, refreshed_fraction);
  const double burst_bits = static_cast<double>(dram.burst_bytes()) * 8.0;
  e.io_read_pj_per_burst = power.io_read_pj_per_bit * burst_bits;
  e.io_write_pj_per_burst = power.io_write_pj_per_bit * burst_bits;
  return e;
}

DramEnergy dram_energy(const spec::DramSpec& dram, const results::DramChannelStats& counters, double memory_cycles,
                       std::int64_t channels) {
  const DramCommandEnergy e = dram_command_energy(dram);
  const auto count = [](std::int64_t n) { return static_cast<double>(n); };
  DramEnergy energy;
  energy.activate_pj = count(counters.activates) * e.activate_pj;
  energy.precharge_pj = count(counters.precharges) * e.precharge_pj;
  energy.read_pj = count(counters.read_commands) * e.read_burst_pj;
  energy.write_pj = count(counters.write_commands) * e.write_burst_pj;
  energy.refresh_pj = count(counters.refreshes) * e.refresh_pj;
  const double rank_cycles = memory_cycles * count(channels) * count(dram.ranks);
  const double active = std::min(count(counters.active_rank_cycles), rank_cycles);
  energy.active_standby_pj = active * e.active_standby_pj_per_cycle;
  energy.precharged_standby_pj = (rank_cycles - active) * e.precharged_standby_pj_per_cycle;
  energy.io_pj = count(counters.read_commands) * e.io_read_pj_per_burst +
                 count(counters.write_commands) * e.io_write_pj_per_burst;
  return energy;
}

namespace {

// log-log interpolation through the curve's points; outside them, the nearest end's energy: a table
// says nothing of arrays smaller or larger than those it measured, and extending an end segment's
// slope runs off without bound (a steep one to 1e96 uJ, a falling one to nothing).
double curve_pj(const std::vector<spec::SramEnergyPoint>& curve, double kib) {
  if (kib <= curve.front().kib) return curve.front().pj_per_64_bits;
  if (kib >= curve.back().kib) return curve.back().pj_per_64_bits;
  std::size_t upper = 1;
  while (upper + 1 < curve.size() && kib > curve[upper].kib) ++upper;
  const spec::SramEnergyPoint& a = curve[upper - 1];
  const spec::SramEnergyPoint& b = curve[upper];
  const double slope = std::log(b.pj_per_64_bits / a.pj_per_64_bits) / std::log(b.kib / a.kib);
  return a.pj_per_64_bits * std::exp(slope * std::log(kib / a.kib));
}

double kib_of(std::int64_t bytes) { return static_cast<double>(bytes) / 1024.0; }

std::string kib_text(double kib) {
  std::ostringstream text;
  text << kib << " KiB";
  return text.str();
}

}  // namespace

std::vector<std::string> curve_range_warnings(const spec::AcceleratorSpec& accelerator) {
  if (!accelerator.technology) return {};
  const spec::TechnologySpec& technology = *accelerator.technology;
  // Each SRAM array the energy reads a curve at: every buffer's bank, and the accumulators.
  std::vector<std::pair<std::string, double>> arrays;
  for (const spec::SramBufferSpec& buffer : accelerator.sram.buffers) {
    arrays.emplace_back("the banks of buffer " + buffer.name,
                        kib_of(buffer.capacity_bytes) / static_cast<double>(buffer.banks));
  }
  arrays.emplace_back("the accumulators", kib_of(accelerator.accumulators.capacity_bytes));
  if (const std::optional<spec::SharedMemorySpec>& shared = accelerator.shared_memory) {
    arrays.emplace_back("the banks of shared memory " + shared->name,
                        kib_of(shared->capacity_bytes) / static_cast<double>(shared->banks));
  }
  const std::pair<const char*, const std::vector<spec::SramEnergyPoint>*> curves[] = {
      {"sram_read_pj_per_64_bits", &technology.sram_read}, {"sram_write_pj_per_64_bits", &technology.sram_write}};
  std::vector<std::string> warnings;
  for (const auto& [array, kib] : arrays) {
    // The curves this array lies outside of; two with the same range and end value share a line.
    const auto end_of = [kib = kib](const std::vector<spec::SramEnergyPoint>& curve) {
      return kib < curve.front().kib ? curve.front() : curve.back();
    };
    std::vector<std::pair<std::string, const std::vector<spec::SramEnergyPoint>*>> outside;
    for (const auto& [key, curve] : curves) {
      if (kib >= curve->front().kib && kib <= curve->back().kib) continue;
      const auto* previous = outside.empty() ? nullptr : outside.back().second;
      if (previous != nullptr && curve->front().kib == previous->front().kib &&
          curve->back().kib == previous->back().kib && end_of(*curve) == end_of(*previous)) {
        outside.back().first += std::string(" and ") + key;
        continue;
      }
      outside.emplace_back(key, curve);
    }
    for (const auto& [keys, curve] : outside) {
      const spec::SramEnergyPoint end = end_of(*curve);
      const bool both = keys.find(" and ") != std::string::npos;
      std::ostringstream warning;
      warning << "technology " << technology.name << ": " << keys << (both ? " cover " : " covers ")
              << kib_text(curve->front().kib) << " to " << kib_text(curve->back().kib) << "; " << array << " ("
              << kib_text(kib) << ") take the energy at " << kib_text(end.kib) << " (" << end.pj_per_64_bits
              << " pJ per 64 bits): a curve is not extrapolated beyond its points";
      warnings.push_back(warning.str());
    }
  }
  return warnings;
}

double sram_access_pj(const spec::TechnologySpec& technology, double kib, std::int64_t bits, bool is_write) {
  return curve_pj(is_write ? technology.sram_write : technology.sram_read, kib) * static_cast<double>(bits) / 64.0;
}

double mac_pj(const spec::AcceleratorSpec& accelerator) {
  return mac_pj(accelerator, accelerator.compute.operand_type);
}

double mac_pj(const spec::AcceleratorSpec& accelerator, const std::string& format) {
  const spec::TechnologySpec& technology = *accelerator.technology;
  return technology.multiply_pj.at(format) +
         technology.add_pj.at(spec::accumulator_type(format, accelerator.accumulators.bits));
}

EnergyBreakdown layer_energy(const spec::AcceleratorSpec& accelerator, const results::LayerResult& layer) {
  const spec::TechnologySpec& technology = *accelerator.technology;
  EnergyBreakdown energy;
  const auto count = [](std::int64_t n) { return static_cast<double>(n); };
  for (std::size_t i = 0; i < layer.sram_words.size() && i < accelerator.sram.buffers.size(); ++i) {
    const spec::SramBufferSpec& buffer = accelerator.sram.buffers[i];
    const double bank_kib = kib_of(buffer.capacity_bytes) / count(buffer.banks);
    const std::int64_t word_bits = buffer.bank_width_bytes * 8;
    energy.sram_pj += count(layer.sram_words[i].read_words) * sram_access_pj(technology, bank_kib, word_bits, false) +
                      count(layer.sram_words[i].write_words) * sram_access_pj(technology, bank_kib, word_bits, true);
  }
  const double accumulator_kib = kib_of(accelerator.accumulators.capacity_bytes);
  const std::int64_t accumulator_bits = accelerator.accumulators.bits;
  // MACs in a native format cost that format's MAC; the others the operand type's.
  std::int64_t operand_macs = layer.macs;
  for (const auto& [format, macs] : layer.native_macs) {
    energy.array_pj += count(macs) * mac_pj(accelerator, format);
    operand_macs -= macs;
  }
  energy.array_pj +=
      count(operand_macs) * mac_pj(accelerator) +
      count(layer.accumulator_updates) * (sram_access_pj(technology, accumulator_kib, accumulator_bits, false) +
                                          sram_access_pj(technology, accumulator_kib, accumulator_bits, true));
  // An element operation (add, max, compare, scale) costs an add of the operand type.
  energy.vector_pj = count(layer.vector_ops) * technology.add_pj.at(accelerator.compute.operand_type);
  energy.dma_pj = count(layer.dram_read_bytes + layer.dram_write_bytes) * technology.dma_pj_per_byte;
  if (const std::optional<spec::SharedMemorySpec>& shared = accelerator.shared_memory) {
    // A bank word's energy at the bank's capacity and width, as a buffer's, shared by its bytes.
    const double bank_kib = kib_of(shared->capacity_bytes) / count(shared->banks);
    const std::int64_t word_bits = shared->bank_width_bytes * 8;
    const double width = count(shared->bank_width_bytes);
    energy.shared_pj =
        count(layer.shared_bank_read_bytes) * sram_access_pj(technology, bank_kib, word_bits, false) / width +
        count(layer.shared_bank_write_bytes) * sram_access_pj(technology, bank_kib, word_bits, true) / width;
  }
  if (accelerator.noc) {
    // Every byte a link carried crossed one hop: that link's wires and the router it enters.
    std::int64_t link_bytes = 0;
    for (const results::NocLinkFigures& link : layer.noc_links) link_bytes += link.bytes;
    // The loader requires the entry of a chip with a network (config::check_energy_inputs).
    energy.noc_pj = count(link_bytes) * 8.0 * technology.noc_pj_per_bit_per_hop.value_or(0);
  }
  const AreaBreakdown chip = area(accelerator);
  const double leakage_uw = (chip.sram_um2 + chip.accumulator_um2 + chip.shared_um2) /
                                technology.sram_area_um2_per_kib * technology.sram_leakage_uw_per_kib +
                            chip.array_um2 * technology.logic_leakage_uw_per_um2;
  energy.static_pj = leakage_uw * layer.seconds * 1e6;  // µW x s = µJ = 1e6 pJ
  if (!accelerator.dram.ideal) {
    const spec::DramSpec& dram = accelerator.dram;
    energy.dram = dram_energy(dram, layer.dram.counters, layer.seconds / (dram.timing.tck_ns * 1e-9),
                              dram.scheduled_channels());
  }
  return energy;
}

AreaBreakdown area(const spec::AcceleratorSpec& accelerator) {
  const spec::TechnologySpec& technology = *accelerator.technology;
  const std::string& operand = accelerator.compute.operand_type;
  AreaBreakdown result;
  result.array_um2 = static_cast<double>(accelerator.compute.macs_per_cycle()) *
                     (technology.multiply_area_um2.at(operand) +
                      technology.add_area_um2.at(spec::accumulator_type(operand, accelerator.accumulators.bits)));
  for (const spec::SramBufferSpec& buffer : accelerator.sram.buffers) {
    result.sram_um2 += kib_of(buffer.capacity_bytes) * technology.sram_area_um2_per_kib;
  }
  result.accumulator_um2 = kib_of(accelerator.accumulators.capacity_bytes) * technology.sram_area_um2_per_kib;
  // The chip's: every core has all of the above.
  const auto cores = static_cast<double>(accelerator.cores);
  result.array_um2 *= cores;
  result.sram_um2 *= cores;
  result.accumulator_um2 *= cores;
  if (accelerator.shared_memory) {
    result.shared_um2 = kib_of(accelerator.shared_memory->capacity_bytes) * technology.sram_area_um2_per_kib;
  }
  return result;
}

}  // namespace reusesim::energy
