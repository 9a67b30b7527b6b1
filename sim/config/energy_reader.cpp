#include "config/energy_reader.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "util/strings.h"

namespace reusesim::config {

namespace {

const NumberRange kEnergyPj{1e-9, 1e9};
const NumberRange kAreaUm2{1e-6, 1e12};
const NumberRange kLeakage{0, 1e9};
const NumberRange kCurrentMa{0, 1e6};
const NumberRange kVolts{0.1, 10};

// 20 -> "20", 45.6 -> "45.6".
std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// {type: value, ...} over the operand types; an unknown type is an error naming the known ones.
std::map<std::string, double> read_type_table(MapReader& reader, const std::string& key, NumberRange range) {
  std::map<std::string, double> table;
  const ConfigNode* node = reader.required(key);
  if (node == nullptr) return table;
  MapReader entries(*node, reader.child_path(key), reader.diagnostics());
  if (!entries.valid()) return table;
  for (const std::string& type : spec::operand_types()) {
    if (!entries.has(type)) continue;
    if (const std::optional<double> value = entries.required_number(type, range)) table[type] = *value;
  }
  entries.finish();
  return table;
}

// [{kib: K, pj: E}, ...], capacities strictly increasing.
std::vector<spec::SramEnergyPoint> read_sram_curve(MapReader& reader, const std::string& key) {
  std::vector<spec::SramEnergyPoint> curve;
  const ConfigNode* node = reader.required(key);
  if (node == nullptr) return curve;
  const std::string path = reader.child_path(key);
  if (!node->is_sequence() || node->items.empty()) {
    reader.diagnostics().error(node->location, path,
                               "expected a list of {kib: <KiB>, pj: <pJ per 64-bit access>}, got " + node->describe());
    return curve;
  }
  for (std::size_t i = 0; i < node->items.size(); ++i) {
    MapReader point(node->items[i], join_key_path(path, std::to_string(i)), reader.diagnostics());
    if (!point.valid()) continue;
    const std::optional<double> kib = point.required_number("kib", NumberRange{1e-6, 1e12});
    const std::optional<double> pj = point.required_number("pj", kEnergyPj);
    point.finish();
    if (!kib || !pj) continue;
    if (!curve.empty() && *kib <= curve.back().kib) {
      reader.diagnostics().error(node->items[i].location, join_key_path(path, std::to_string(i)),
                                 "capacities must increase from point to point (this one is not above the one "
                                 "before)");
      continue;
    }
    curve.push_back({*kib, *pj});
  }
  return curve;
}

}  // namespace

spec::TechnologySpec read_technology(MapReader& reader) {
  spec::TechnologySpec technology;
  technology.name = reader.required_name("name").value_or("");
  reader.string_or("source", "");
  technology.node_nm = reader.required_number("node_nm", NumberRange{0.1, 10'000}).value_or(0);
  technology.multiply_pj = read_type_table(reader, "multiply_pj", kEnergyPj);
  technology.add_pj = read_type_table(reader, "add_pj", kEnergyPj);
  technology.multiply_area_um2 = read_type_table(reader, "multiply_area_um2", kAreaUm2);
  technology.add_area_um2 = read_type_table(reader, "add_area_um2", kAreaUm2);
  technology.sram_read = read_sram_curve(reader, "sram_read_pj_per_64_bits");
  technology.sram_write = read_sram_curve(reader, "sram_write_pj_per_64_bits");
  technology.sram_area_um2_per_kib = reader.required_number("sram_area_um2_per_kib", kAreaUm2).value_or(0);
  technology.dma_pj_per_byte = reader.required_number("dma_pj_per_byte", NumberRange{0, 1e9}).value_or(0);
  technology.sram_leakage_uw_per_kib = reader.required_number("sram_leakage_uw_per_kib", kLeakage).value_or(0);
  technology.logic_leakage_uw_per_um2 = reader.required_number("logic_leakage_uw_per_um2", kLeakage).value_or(0);
  if (reader.has("noc_pj_per_bit_per_hop")) {
    technology.noc_pj_per_bit_per_hop = reader.required_number("noc_pj_per_bit_per_hop", kEnergyPj);
  }
  reader.finish();
  return technology;
}

namespace {

// The IDD form's keys: a device's width and its rails' currents.
void read_idd_power(MapReader& reader, const spec::DramSpec& dram, spec::DramPowerSpec& power) {
  const ConfigNode* width = reader.optional("device_width_bits");
  power.device_width_bits = reader.required_integer("device_width_bits", IntegerRange{1, 1024}).value_or(0);
  if (power.device_width_bits > 0 && dram.bus_bits > 0 && dram.bus_bits % power.device_width_bits != 0 &&
      power.device_width_bits % dram.bus_bits != 0) {
    reader.diagnostics().error(width->location, reader.child_path("device_width_bits"),
                               std::to_string(power.device_width_bits) + "-bit devices do not fill a " +
                                   std::to_string(dram.bus_bits) + "-bit channel bus (bus_bits) a whole number of times");
  }
  const ConfigNode* rails = reader.required("rails");
  if (rails != nullptr) {
    MapReader rail_reader(*rails, reader.child_path("rails"), reader.diagnostics());
    if (rail_reader.valid() && rails->entries.empty()) {
      reader.diagnostics().error(rails->location, reader.child_path("rails"), "expected at least one supply rail");
    }
    for (const ConfigEntry& entry : rails->is_map() ? rails->entries : std::vector<ConfigEntry>{}) {
      rail_reader.optional(entry.key);
      MapReader currents(entry.value, rail_reader.child_path(entry.key), reader.diagnostics());
      if (!currents.valid()) continue;
      spec::DramPowerRail rail;
      rail.name = entry.key;
      rail.volts = currents.required_number("volts", kVolts).value_or(0);
      // Each current with where it was written (a preset's line, or the --set that changed it).
      std::map<std::string, std::pair<double, util::SourceLocation>> read;
      std::set<std::string> unread;  // missing or invalid, already reported: no relation is judged on them
      for (const char* key : {"idd0", "idd2n", "idd3n", "idd4r", "idd4w", "idd5b"}) {
        const ConfigNode* node = currents.optional(key);
        const std::optional<double> value = currents.required_number(key, kCurrentMa);
        if (!value) unread.insert(key);
        read[key] = {value.value_or(0), node != nullptr ? node->location : entry.value.location};
      }
      rail.idd0 = read["idd0"].first;
      rail.idd2n = read["idd2n"].first;
      rail.idd3n = read["idd3n"].first;
      rail.idd4r = read["idd4r"].first;
      rail.idd4w = read["idd4w"].first;
      rail.idd5b = read["idd5b"].first;
      // An open row keeps more circuits biased than none (IDD3N >= IDD2N); activating, bursting
      // and refreshing draw more than standing by with a row open.
      const auto at_least = [&](const std::string& key, const std::string& floor_key) {
        const auto& [value, location] = read[key];
        const double floor = read[floor_key].first;
        if (value < floor && unread.count(key) == 0 && unread.count(floor_key) == 0) {
          reader.diagnostics().error(location, currents.child_path(key),
                                     key + " " + number_text(value) + " mA is below " + floor_key + " " +
                                         number_text(floor) + " mA, which is physically impossible (" + key +
                                         " draws what " + floor_key + " does and more)");
        }
      };
      at_least("idd3n", "idd2n");
      for (const char* key : {"idd0", "idd4r", "idd4w", "idd5b"}) at_least(key, "idd3n");
      currents.finish();
      power.rails.push_back(rail);
    }
  }
}

// The per-access form's keys: energies per command and per bit of one scheduled channel, and its
// standby power per rank. A row's energy may sit wholly in activate_pj (precharge_pj 0): sources
// that measure an activation give the row cycle, activate and precharge together.
void read_per_access_power(MapReader& reader, spec::DramPowerSpec& power) {
  spec::DramAccessEnergy& access = power.access;
  access.activate_pj = reader.required_number("activate_pj", kEnergyPj).value_or(0);
  access.precharge_pj = reader.required_number("precharge_pj", NumberRange{0, 1e9}).value_or(0);
  access.read_pj_per_bit = reader.required_number("read_pj_per_bit", NumberRange{0, 1e6}).value_or(0);
  access.write_pj_per_bit = reader.required_number("write_pj_per_bit", NumberRange{0, 1e6}).value_or(0);
  access.refresh_pj = reader.required_number("refresh_pj", NumberRange{0, 1e12}).value_or(0);
  // An open row keeps more circuits biased than none, as IDD3N >= IDD2N.
  const ConfigNode* active = reader.optional("active_standby_mw");
  const std::optional<double> active_mw = reader.required_number("active_standby_mw", NumberRange{0, 1e6});
  const std::optional<double> precharged_mw = reader.required_number("precharged_standby_mw", NumberRange{0, 1e6});
  access.active_standby_mw = active_mw.value_or(0);
  access.precharged_standby_mw = precharged_mw.value_or(0);
  if (active_mw && precharged_mw && *active_mw < *precharged_mw) {
    reader.diagnostics().error(active->location, reader.child_path("active_standby_mw"),
                               "active_standby_mw " + number_text(*active_mw) + " mW is below precharged_standby_mw " +
                                   number_text(*precharged_mw) +
                                   " mW, which is physically impossible (a rank with a row open draws what a "
                                   "precharged one does and more)");
  }
}

// A key of the other form is named as such, not as an unknown key.
void refuse_keys_of(MapReader& reader, spec::DramPowerForm form, const std::vector<const char*>& keys) {
  for (const char* key : keys) {
    if (const ConfigNode* node = reader.optional(key)) {
      reader.diagnostics().error(node->location, reader.child_path(key),
                                 std::string(key) + " belongs to the " +
                                     util::name(form == spec::DramPowerForm::idd ? spec::DramPowerForm::per_access
                                                                                 : spec::DramPowerForm::idd) +
                                     " form, and this block's form is " + util::name(form) +
                                     " (docs/energy-model.md, \"DRAM energy\")");
    }
  }
}

const std::vector<const char*> kIddKeys{"device_width_bits", "rails"};
const std::vector<const char*> kPerAccessKeys{"activate_pj",          "precharge_pj", "read_pj_per_bit",
                                              "write_pj_per_bit",     "refresh_pj",   "active_standby_mw",
                                              "precharged_standby_mw"};

}  // namespace

spec::DramPowerSpec read_dram_power(MapReader& reader, const spec::DramSpec& dram) {
  spec::DramPowerSpec power;
  reader.string_or("source", "");
  // Without `form`, the IDD form (files written before there were two). An unknown form says
  // nothing of which keys belong: they are passed over, not reported one by one.
  const std::optional<spec::DramPowerForm> form =
      reader.has("form") ? reader.required_enum<spec::DramPowerForm>("form") : spec::DramPowerForm::idd;
  if (!form) {
    for (const std::vector<const char*>* keys : {&kIddKeys, &kPerAccessKeys}) {
      for (const char* key : *keys) reader.optional(key);
    }
    reader.optional("io_read_pj_per_bit");
    reader.optional("io_write_pj_per_bit");
    reader.finish();
    return power;
  }
  power.form = *form;
  power.io_read_pj_per_bit = reader.required_number("io_read_pj_per_bit", NumberRange{0, 1e6}).value_or(0);
  power.io_write_pj_per_bit = reader.required_number("io_write_pj_per_bit", NumberRange{0, 1e6}).value_or(0);
  if (power.form == spec::DramPowerForm::idd) {
    read_idd_power(reader, dram, power);
    refuse_keys_of(reader, power.form, kPerAccessKeys);
  } else {
    read_per_access_power(reader, power);
    refuse_keys_of(reader, power.form, kIddKeys);
  }
  reader.finish();
  return power;
}

void check_energy_inputs(const spec::AcceleratorSpec& accelerator, const util::SourceLocation& technology,
                         util::Diagnostics& diagnostics) {
  if (!accelerator.technology) return;
  const spec::TechnologySpec& table = *accelerator.technology;
  const std::string& operand = accelerator.compute.operand_type;
  if (operand.empty()) {
    diagnostics.error(technology, "compute.number_format",
                      "energy needs the operands' number format: add compute.number_format, one of " +
                          util::join(spec::number_formats(), ", ") + " (with operand_bits it names the operand type, e.g. int8)");
    return;
  }
  const std::string accumulator = spec::accumulator_type(operand, accelerator.accumulators.bits);
  const auto need = [&](const std::map<std::string, double>& entries, const std::string& key, const std::string& type,
                        const std::string& what) {
    if (entries.count(type) == 0) {
      diagnostics.error(technology, "technology." + key + "." + type,
                        "missing: technology " + table.name + " has no " + key + " entry for " + type + ", the " +
                            what + " in use");
    }
  };
  need(table.multiply_pj, "multiply_pj", operand, "operand type");
  need(table.add_pj, "add_pj", operand, "operand type (vector operations)");
  need(table.add_pj, "add_pj", accumulator, "accumulator type");
  need(table.multiply_area_um2, "multiply_area_um2", operand, "operand type");
  need(table.add_area_um2, "add_area_um2", accumulator, "accumulator type");
  // A layer's MACs in a native format cost that format's multiply and its accumulation's add.
  for (const auto& [format, rate] : accelerator.compute.native_formats) {
    const std::string what = "native format (compute.native_formats." + format + ")";
    need(table.multiply_pj, "multiply_pj", format, what);
    need(table.add_pj, "add_pj", spec::accumulator_type(format, accelerator.accumulators.bits),
         "accumulator type of the " + what);
  }
  if (accelerator.noc && !table.noc_pj_per_bit_per_hop) {
    diagnostics.error(technology, "technology.noc_pj_per_bit_per_hop",
                      "missing: technology " + table.name +
                          " has no noc_pj_per_bit_per_hop, the energy of a bit over one hop (a link's wires and the "
                          "router it enters) that the chip's network-on-chip (noc) needs");
  }
  if (!accelerator.dram.ideal && !accelerator.dram.power) {
    diagnostics.error(technology, "dram.power",
                      "energy needs the DRAM's power: DRAM " + accelerator.dram.name +
                          " has no power block (docs/energy-model.md says what it holds: IDD currents from your "
                          "device's datasheet, or energies per access)");
  }
}

}  // namespace reusesim::config
