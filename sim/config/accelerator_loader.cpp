#include "config/accelerator_loader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "config/energy_reader.h"
#include "config/node_reader.h"
#include "config/shipped_files.h"
#include "util/strings.h"
#include "workload/precision.h"

namespace reusesim::config {

namespace {

namespace fs = std::filesystem;

constexpr int kMaxPresetDepth = 8;
const IntegerRange kCount{1, 1 << 20};
const IntegerRange kCycles{1, 1 << 30};
const IntegerRange kQueueDepth{1, 4096};  // the scheduler scans its queues
const IntegerRange kArrays{1, 1024};      // a core's arrays (TPU's MXUs; an SM's tensor cores)
const IntegerRange kCores{1, 1024};       // a chip's cores (an A100's 108 SMs), each a SystemC module
// Clocks from 1 MHz to 100 GHz. SystemC keeps time in picoseconds: a faster clock has hardly any
// period left (at 1e300 MHz none, and the simulation hangs), and a slower one runs out of the 2^64
// ps time range in few cycles (at 1 MHz it still holds 1.8e13).
const NumberRange kClockMhz{1, 100'000};
const NumberRange kTckNs{0.01, 1000};
// DRAM organisation, well beyond today's parts (HBM3: 32 pseudo-channels a stack, DDR5: 8 bank
// groups of 4 banks, up to 8 ranks, BL16). Each channel is a SystemC module with state for every
// bank, and every address field fits in 64 bits below the row; a DDR burst holds the bus for
// burst_length / 2 clocks, so it needs at least 2 beats, and a beat at least one byte.
const IntegerRange kChannels{1, 1024};
const IntegerRange kRanks{1, 16};
const IntegerRange kBankGroups{1, 16};
const IntegerRange kBanksPerGroup{1, 64};
const IntegerRange kRowBytes{1, 1 << 20};
const IntegerRange kBusBits{8, 1024};
const IntegerRange kBurstLength{2, 64};
// Rows per bank: a 32 Gb DDR5 die's banks have 2^17. With the ranges above the capacity stays below 2^62 bytes.
const IntegerRange kRows{1, 1 << 18};
// dram.capacity_gib: about 1 MiB to 1 PiB.
const NumberRange kCapacityGib{0.001, 1e6};

bool is_power_of_two(std::int64_t value) { return value > 0 && (value & (value - 1)) == 0; }

// `capacity_gib` (optional) in whole bytes, rounded down: the memory's capacity where the
// organisation does not give it (spec::DramSpec::given_capacity_bytes).
std::optional<std::int64_t> read_capacity(MapReader& reader) {
  if (reader.optional("capacity_gib") == nullptr) return std::nullopt;
  const std::optional<double> gib = reader.required_number("capacity_gib", kCapacityGib);
  if (!gib) return std::nullopt;
  return static_cast<std::int64_t>(*gib * static_cast<double>(spec::kBytesPerGib));
}

std::string directory_of(const std::string& file) {
  const fs::path parent = fs::path(file).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Where a kind of preset lives and what its files are: DRAMs (configs/dram) or technologies
// (configs/energy).
struct PresetFamily {
  std::string label;  // "DRAM", "technology"
  std::string directory;
  FileKind kind;
};

PresetFamily dram_family() { return {"DRAM", dram_preset_directory(), FileKind::dram}; }
PresetFamily technology_family() { return {"technology", technology_preset_directory(), FileKind::technology}; }

std::vector<std::string> yaml_stems(const std::string& directory) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "ddr4-2400" -> <family dir>/ddr4-2400.yaml; anything with a slash or .yaml is a path from `base_dir`.
std::string preset_path(const std::string& preset, const std::string& base_dir, const PresetFamily& family) {
  const bool is_path = preset.find('/') != std::string::npos || fs::path(preset).extension() == ".yaml";
  if (is_path) return fs::path(preset).is_absolute() ? preset : (fs::path(base_dir) / preset).string();
  return (fs::path(family.directory) / (preset + ".yaml")).string();
}

// `entry` on top of `base`'s entries: a map merges key by key (a preset's controller block keeps the
// keys an override leaves out), anything else replaces.
void overlay(ConfigNode& base, const ConfigEntry& entry) {
  ConfigNode* existing = base.find(entry.key);
  if (existing == nullptr) {
    base.entries.push_back(entry);
  } else if (existing->is_map() && entry.value.is_map()) {
    for (const ConfigEntry& inner : entry.value.entries) overlay(*existing, inner);
  } else {
    *existing = entry.value;
  }
}

// The preset's fields with this node's fields on top (recursively: a preset may name another).
ConfigNode resolve_preset(const ConfigNode& node, const std::string& path, const std::string& base_dir,
                          const PresetFamily& family, util::Diagnostics& diagnostics, int depth) {
  const ConfigNode* preset = node.is_map() ? node.find("preset") : nullptr;
  if (preset == nullptr) return node;
  const std::string preset_key = join_key_path(path, "preset");
  const std::optional<std::string> name = read_string(*preset, preset_key, diagnostics);
  if (!name) return ConfigNode{};
  if (depth >= kMaxPresetDepth) {
    diagnostics.error(preset->location, preset_key, "presets nest more than " + std::to_string(kMaxPresetDepth) +
                                                        " deep (does a preset name itself?)");
    return ConfigNode{};
  }
  const std::string file = preset_path(*name, base_dir, family);
  std::error_code unusable;  // e.g. a name too long for a file: no such preset either
  if (!fs::exists(file, unusable)) {
    diagnostics.error(preset->location, preset_key,
                      "unknown " + family.label + " preset \"" + *name + "\" (no file " + file + ")" +
                          util::did_you_mean(*name, yaml_stems(family.directory)));
    return ConfigNode{};
  }
  util::Diagnostics preset_diagnostics;
  const ConfigNode loaded = load_yaml_file(file, preset_diagnostics);
  expect_file_kind(loaded, family.kind, preset_diagnostics);
  for (const util::Diagnostic& problem : preset_diagnostics.errors()) {
    diagnostics.error(problem.location, problem.key_path, problem.message);
  }
  if (!preset_diagnostics.empty()) return ConfigNode{};
  ConfigNode merged = resolve_preset(loaded, path, directory_of(file), family, diagnostics, depth + 1);
  if (!merged.is_map()) {
    diagnostics.error(loaded.location, path, "preset file " + file + " must be a mapping of " + family.label + " fields");
    return ConfigNode{};
  }
  for (const ConfigEntry& entry : node.entries) {
    if (entry.key != "preset") overlay(merged, entry);
  }
  return merged;
}

// The fields, each once: ch, ra, bg, ba, ro, co, and pc exactly when pseudo-channels are on.
std::vector<spec::AddressField> read_address_mapping(MapReader& reader, bool pseudo_channels) {
  std::vector<spec::AddressField> mapping;
  const ConfigNode* node = reader.required("address_mapping");
  if (node == nullptr) return mapping;
  const std::string path = reader.child_path("address_mapping");
  const std::size_t field_count = pseudo_channels ? 7 : 6;
  const std::string expected =
      pseudo_channels ? "expected the seven fields ch, pc, ra, bg, ba, ro, co (pseudo_channels: 2), each once, most "
                        "significant first"
                      : "expected the six fields ch, ra, bg, ba, ro, co, each once, most significant first (pc only "
                        "with pseudo_channels: 2)";
  if (!node->is_scalar()) {
    reader.diagnostics().error(node->location, path, expected + ", got " + node->describe());
    return mapping;
  }
  std::string word;
  std::vector<std::string> words;
  for (char c : node->scalar + ",") {
    if (c == ',') {
      words.push_back(word);
      word.clear();
    } else if (c != ' ') {
      word += c;
    }
  }
  for (const std::string& w : words) {
    const auto field = util::from_name<spec::AddressField>(w);
    if (!field) {
      reader.diagnostics().error(node->location, path, "unknown field \"" + w + "\"; " + expected);
      return {};
    }
    if (std::find(mapping.begin(), mapping.end(), *field) != mapping.end()) {
      reader.diagnostics().error(node->location, path, "field \"" + w + "\" appears twice; " + expected);
      return {};
    }
    mapping.push_back(*field);
  }
  const bool has_pc =
      std::find(mapping.begin(), mapping.end(), spec::AddressField::pseudo_channel) != mapping.end();
  if (mapping.size() != field_count || has_pc != pseudo_channels) {
    reader.diagnostics().error(node->location, path, expected + ", got " + node->describe());
    return {};
  }
  return mapping;
}

class DramReader {
 public:
  DramReader(MapReader& reader) : reader_(reader) {}

  spec::DramSpec read() {
    spec::DramSpec dram;
    if (const ConfigNode* ideal = reader_.optional("ideal")) {
      reader_.diagnostics().error(ideal->location, reader_.child_path("ideal"),
                                  "an ideal memory goes in an accelerator file, as dram: {ideal: ...} alone; a DRAM "
                                  "preset or file (and so memtest) takes real DRAM timings");
      return dram;  // not a DRAM to check key by key
    }
    dram.name = reader_.name_or("name", "");
    reader_.string_or("source", "");
    reader_.optional("preset");  // consumed by preset resolution; named so a typo of it gets a hint
    dram.standard = reader_
                        .required_choice("standard", {"ddr3", "ddr4", "ddr5", "lpddr4", "lpddr5", "gddr6", "hbm2",
                                                      "hbm2e", "hbm3"})
                        .value_or("");
    dram.channels = power_of_two("channels", kChannels);
    dram.ranks = power_of_two("ranks", kRanks);
    dram.bank_groups = power_of_two("bank_groups", kBankGroups);
    dram.banks_per_group = power_of_two("banks_per_group", kBanksPerGroup);
    dram.row_bytes = power_of_two("row_bytes", kRowBytes);
    dram.rows = reader_.required_integer("rows", kRows).value_or(0);
    dram.given_capacity_bytes = read_capacity(reader_);
    dram.bus_bits = power_of_two("bus_bits", kBusBits);
    dram.timing.tck_ns = reader_.required_number("tck_ns", kTckNs).value_or(0);
    spec::DramTiming& t = dram.timing;
    for (auto [key, field] : std::initializer_list<std::pair<const char*, std::int64_t*>>{
             {"cl", &t.cl},         {"cwl", &t.cwl},       {"trcd", &t.trcd},     {"trp", &t.trp},
             {"tras", &t.tras},     {"trc", &t.trc},       {"tccd_s", &t.tccd_s}, {"tccd_l", &t.tccd_l},
             {"trrd_s", &t.trrd_s}, {"trrd_l", &t.trrd_l}, {"tfaw", &t.tfaw},     {"twtr_s", &t.twtr_s},
             {"twtr_l", &t.twtr_l}, {"twr", &t.twr},       {"trtp", &t.trtp},     {"trfc", &t.trfc},
             {"trefi", &t.trefi}}) {
      *field = reader_.required_integer(key, kCycles).value_or(0);
    }
    t.burst_length = power_of_two("burst_length", kBurstLength);
    read_pseudo_channels(dram);
    dram.address_mapping = read_address_mapping(reader_, dram.pseudo_channels > 1);
    dram.interleave_bytes = reader_.integer_or("interleave_bytes", 0, kRowBytes);
    dram.address_hash = reader_.enum_or("address_hash", spec::AddressHash::none);
    refuse_moved_keys();
    if (const ConfigNode* controller = reader_.required("controller")) {
      MapReader controller_reader(*controller, reader_.child_path("controller"), reader_.diagnostics());
      if (controller_reader.valid()) dram.controller = read_controller(controller_reader);
    }
    if (dram.controller.refresh == spec::RefreshMode::per_bank) {
      t.trfc_pb = reader_.required_integer("trfc_pb", kCycles).value_or(0);
    } else if (const ConfigNode* per_bank = reader_.optional("trfc_pb")) {
      reader_.diagnostics().error(per_bank->location, reader_.child_path("trfc_pb"),
                                  "used only with controller.refresh: per_bank");
    }
    if (const ConfigNode* power = reader_.optional("power")) {
      MapReader power_reader(*power, reader_.child_path("power"), reader_.diagnostics());
      if (power_reader.valid()) dram.power = read_dram_power(power_reader, dram);
    }
    reader_.finish();
    check_relations(dram);
    return dram;
  }

 private:
  // pseudo_channels: 1 (default) or 2, the latter only for HBM, whose channels have that mode.
  void read_pseudo_channels(spec::DramSpec& dram) {
    const ConfigNode* node = reader_.optional("pseudo_channels");
    if (node == nullptr) return;
    dram.pseudo_channels = reader_.integer_or("pseudo_channels", 1, IntegerRange{1, 2});
    const bool hbm = dram.standard == "hbm2" || dram.standard == "hbm2e" || dram.standard == "hbm3";
    if (dram.pseudo_channels == 2 && !hbm && !dram.standard.empty()) {
      reader_.diagnostics().error(node->location, reader_.child_path("pseudo_channels"),
                                  "2 is HBM's pseudo-channel mode (standard hbm2, hbm2e or hbm3), not " + dram.standard);
      dram.pseudo_channels = 1;
    }
  }

  // The controller's keys sat at the top level of a DRAM file before they had a block of their own.
  void refuse_moved_keys() {
    const std::map<std::string, std::string> moved{
        {"queue_depth", "controller.read_queue_depth and controller.write_queue_depth"},
        {"page_policy", "controller.page_policy"},
        {"refresh", "controller.refresh"},
        {"write_drain_high", "controller.write_drain.high"},
        {"write_drain_low", "controller.write_drain.low"}};
    for (const auto& [key, now] : moved) {
      if (const ConfigNode* node = reader_.optional(key)) {
        reader_.diagnostics().error(node->location, reader_.child_path(key),
                                    "is now " + now + " (docs/dram-model.md, \"Controller\")");
      }
    }
  }

  // write_drain: {high: H, low: L} (watermarks) or drain_all. One key, so that an override of the
  // policy replaces the preset's watermarks instead of leaving them behind.
  static void read_write_drain(MapReader& reader, spec::DramControllerSpec& controller) {
    const ConfigNode* node = reader.required("write_drain");
    if (node == nullptr) return;
    const std::string path = reader.child_path("write_drain");
    const spec::WriteDrainPolicy drain_all = spec::WriteDrainPolicy::drain_all;
    if (node->is_scalar() && util::from_name<spec::WriteDrainPolicy>(node->scalar) == drain_all) {
      controller.write_drain = drain_all;
      return;
    }
    if (!node->is_map()) {
      reader.diagnostics().error(node->location, path,
                                 "expected drain_all or watermarks {high: H, low: L}, got " + node->describe());
      return;
    }
    MapReader marks(*node, path, reader.diagnostics());
    controller.write_drain = spec::WriteDrainPolicy::watermarks;
    controller.write_drain_high = marks.required_integer("high", kQueueDepth).value_or(0);
    controller.write_drain_low = marks.required_integer("low", IntegerRange{0, kQueueDepth.max}).value_or(0);
    marks.finish();
    const ConfigNode* high = marks.optional("high");
    if (high == nullptr || controller.write_drain_high <= 0) return;
    if (controller.write_drain_high <= controller.write_drain_low) {
      marks.diagnostics().error(high->location, marks.child_path("high"),
                                std::to_string(controller.write_drain_high) + " breaks high > low (needs at least " +
                                    std::to_string(controller.write_drain_low + 1) + ")");
    } else if (controller.write_queue_depth > 0 && controller.write_drain_high > controller.write_queue_depth) {
      marks.diagnostics().error(high->location, marks.child_path("high"),
                                std::to_string(controller.write_drain_high) + " exceeds write_queue_depth " +
                                    std::to_string(controller.write_queue_depth));
    }
  }

  static spec::DramControllerSpec read_controller(MapReader& reader) {
    spec::DramControllerSpec controller;
    controller.read_queue_depth = reader.required_integer("read_queue_depth", kQueueDepth).value_or(0);
    controller.write_queue_depth = reader.required_integer("write_queue_depth", kQueueDepth).value_or(0);
    controller.command_queue_depth = reader.integer_or("command_queue_depth", 0, IntegerRange{0, kQueueDepth.max});
    read_write_drain(reader, controller);
    controller.posted_writes = reader.boolean_or("posted_writes", false);
    controller.frontend_latency_cycles = reader.integer_or("frontend_latency_cycles", 0, IntegerRange{0, 1 << 20});
    controller.page_policy = reader.required_enum<spec::PagePolicy>("page_policy").value_or(spec::PagePolicy::open);
    controller.refresh = reader.required_enum<spec::RefreshMode>("refresh").value_or(spec::RefreshMode::all_bank);
    reader.finish();
    return controller;
  }

  std::int64_t power_of_two(const char* key, IntegerRange range) {
    const auto value = reader_.required_integer(key, range);
    if (value && !is_power_of_two(*value)) {
      reader_.diagnostics().error(reader_.optional(key)->location, reader_.child_path(key),
                                  "expected a power of two, got " + std::to_string(*value));
    }
    return value.value_or(0);
  }

  // The first of `others` given by a --set when `node` was not: a relation that such a --set broke
  // is reported there, not at a file's line the user did not touch. nullptr otherwise.
  const char* set_instead(const ConfigNode& node, std::initializer_list<const char*> others) {
    if (node.location.line == 0) return nullptr;
    for (const char* other : others) {
      const ConfigNode* value = reader_.optional(other);
      if (value != nullptr && value->location.line == 0) return other;
    }
    return nullptr;
  }

  // `key` must be at least `bound`, which the `bound_keys` make up; `why` says which JEDEC relation
  // that is. A relation broken by a --set is reported at that --set, not at the preset's line.
  void at_least(const char* key, std::int64_t value, std::int64_t bound, const std::string& why,
                std::initializer_list<const char*> bound_keys) {
    const ConfigNode* node = reader_.optional(key);
    if (node == nullptr || value <= 0 || value >= bound) return;
    if (const char* bound_key = set_instead(*node, bound_keys)) {
      const ConfigNode* set = reader_.optional(bound_key);
      reader_.diagnostics().error(set->location, reader_.child_path(bound_key),
                                  set->scalar + " breaks " + why + " with " + key + " " + std::to_string(value) +
                                      " (" + util::format_location(node->location) + "; needs " + key + " at least " +
                                      std::to_string(bound) + ")");
      return;
    }
    reader_.diagnostics().error(node->location, reader_.child_path(key),
                                std::to_string(value) + " breaks " + why + " (needs at least " +
                                    std::to_string(bound) + ")");
  }

  void check_relations(const spec::DramSpec& dram) {
    const spec::DramTiming& t = dram.timing;
    at_least("trc", t.trc, t.tras + t.trp, "tRC >= tRAS + tRP", {"tras", "trp"});
    at_least("tras", t.tras, t.trcd, "tRAS >= tRCD", {"trcd"});
    at_least("tccd_l", t.tccd_l, t.tccd_s, "tCCD_L >= tCCD_S", {"tccd_s"});
    at_least("trrd_l", t.trrd_l, t.trrd_s, "tRRD_L >= tRRD_S", {"trrd_s"});
    at_least("twtr_l", t.twtr_l, t.twtr_s, "tWTR_L >= tWTR_S", {"twtr_s"});
    at_least("tfaw", t.tfaw, t.trrd_s, "tFAW >= tRRD_S", {"trrd_s"});
    at_least("trefi", t.trefi, t.trfc + 1, "tREFI > tRFC", {"trfc"});
    // A bank is refreshed once per tREFI for tRFC_pb: it must be free some of the time.
    if (dram.controller.refresh == spec::RefreshMode::per_bank) {
      at_least("trefi", t.trefi, t.trfc_pb + 1, "tREFI > tRFC_pb", {"trfc_pb"});
    }
    check_refresh_room(dram);
    // The column field counts bursts within a row.
    const ConfigNode* row = reader_.optional("row_bytes");
    if (row != nullptr && dram.row_bytes > 0 && dram.bus_bits > 0 && t.burst_length > 0 &&
        dram.channel_row_bytes() < dram.burst_bytes()) {
      const bool split = dram.pseudo_channels > 1;
      reader_.diagnostics().error(row->location, reader_.child_path("row_bytes"),
                                  std::to_string(dram.row_bytes) + (split ? " (halved per pseudo-channel)" : "") +
                                      " is less than one burst (bus_bits / 8 x burst_length" +
                                      (split ? " per pseudo-channel" : "") + " = " +
                                      std::to_string(dram.burst_bytes()) + " bytes)");
    }
    // The interleave keeps whole bursts of one row together.
    const ConfigNode* interleave = reader_.optional("interleave_bytes");
    if (interleave != nullptr && dram.interleave_bytes > 0 && dram.burst_bytes() > 0 &&
        (!is_power_of_two(dram.interleave_bytes) || dram.interleave_bytes < dram.burst_bytes() ||
         dram.interleave_bytes > dram.channel_row_bytes())) {
      reader_.diagnostics().error(interleave->location, reader_.child_path("interleave_bytes"),
                                  "expected a power of two from one burst (" + std::to_string(dram.burst_bytes()) +
                                      " bytes) to one row (" + std::to_string(dram.channel_row_bytes()) +
                                      " bytes), got " + std::to_string(dram.interleave_bytes));
    }
    const ConfigNode* bus = reader_.optional("bus_bits");
    if (bus != nullptr && dram.pseudo_channels > 1 && dram.bus_bits > 0 && dram.channel_bus_bits() < 8) {
      reader_.diagnostics().error(bus->location, reader_.child_path("bus_bits"),
                                  std::to_string(dram.bus_bits) + " cannot be split into two pseudo-channels of at least 8 bits");
    }
  }

  // Refreshes must leave a request room to be served, or the channel could never finish it.
  void check_refresh_room(const spec::DramSpec& dram) {
    const spec::DramTiming& t = dram.timing;
    const ConfigNode* node = reader_.optional("trefi");
    const bool per_bank = dram.controller.refresh == spec::RefreshMode::per_bank;
    const std::int64_t busy = dram.refresh_cycles();
    if (node == nullptr || dram.controller.refresh == spec::RefreshMode::off || t.trefi <= busy || busy <= 0 || t.trcd <= 0 || t.tras <= 0 || t.trp <= 0 ||
        t.trc <= 0 || dram.bank_groups <= 0 || dram.banks_per_group <= 0 || t.burst_length <= 0) {
      return;
    }
    const spec::DramSpec::RefreshBound bound = dram.refresh_bound();
    if (t.trefi >= bound.min_trefi) return;
    const std::string others = " + (banks per rank - 1) x max(tRRD_L, tFAW)";
    const std::string busy_name = per_bank ? "max(tRFC_pb, tRRD_L, tFAW)" + others : "tRFC";
    const std::string slip_formula =
        per_bank ? "max(tRC, max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP, tRRD_L, tFAW)" + others
                 : "max(tRC, max(tRAS, tRTP, CWL + BL/2 + tWR) + tRP + banks per rank - 1)";
    // The bound's terms: a --set of any of them is where the relation broke.
    const char* set = set_instead(*node, {"trfc", "trfc_pb", "trcd", "tras", "trp", "trc", "trtp", "cwl", "twr",
                                          "burst_length", "trrd_l", "tfaw", "bank_groups", "banks_per_group"});
    reader_.diagnostics().error(
        set != nullptr ? reader_.optional(set)->location : node->location, reader_.child_path("trefi"),
        std::to_string(t.trefi) + " clocks leaves " + std::to_string(t.trefi - bound.busy) + " after " + busy_name +
            " (" + std::to_string(bound.busy) + "), too few to serve a request between refreshes: a refresh may " +
            "issue up to " + std::to_string(bound.slip) + " clocks after it falls due (" + slip_formula +
            "), then an activate needs tRCD (" + std::to_string(t.trcd) + ") before its read or write: needs at least " +
            busy_name + " + " + std::to_string(bound.slip) + " + tRCD = " + std::to_string(bound.min_trefi) +
            " (docs/dram-model.md)");
  }

  MapReader& reader_;
};

// A list of words where `[]` is a choice of its own (keep nothing, fuse nothing), unlike the
// non-empty lists read_string_list reads.
std::vector<std::string> read_word_list_or_empty(const ConfigNode& node, const std::string& path,
                                                 util::Diagnostics& diagnostics) {
  if (node.is_sequence() && node.items.empty()) return {};
  return read_string_list(node, path, diagnostics);
}

spec::ComputeSpec read_compute(MapReader& reader) {
  spec::ComputeSpec compute;
  const std::optional<spec::ArrayKind> kind = reader.required_enum<spec::ArrayKind>("type");
  compute.kind = kind.value_or(spec::ArrayKind::systolic);
  if (kind == spec::ArrayKind::systolic) {
    compute.rows = reader.required_integer("rows", kCount).value_or(0);
    compute.cols = reader.required_integer("cols", kCount).value_or(0);
    compute.dataflow = reader.required_enum<spec::Dataflow>("dataflow").value_or(spec::Dataflow::ws);
    compute.double_buffered_stationary = reader.boolean_or("double_buffered_stationary", false);
    if (compute.double_buffered_stationary && compute.dataflow == spec::Dataflow::os) {
      reader.diagnostics().error(reader.optional("double_buffered_stationary")->location,
                                 reader.child_path("double_buffered_stationary"),
                                 "an output-stationary array keeps partial sums, not operands, in place: "
                                 "double_buffered_stationary applies to ws and is");
    }
    compute.swap_operands = reader.boolean_or("swap_operands", false);
    compute.arrays = reader.integer_or("arrays", 1, kArrays);
  } else if (kind == spec::ArrayKind::vector_mac) {
    compute.units = reader.required_integer("units", kCount).value_or(0);
    compute.lanes = reader.required_integer("lanes", kCount).value_or(0);
    compute.lane_dimension =
        reader.required_enum<spec::LaneDimension>("lane_dimension").value_or(spec::LaneDimension::k);
  }
  if (kind == spec::ArrayKind::vector_mac) {
    if (const ConfigNode* swap = reader.optional("swap_operands")) {
      reader.diagnostics().error(swap->location, reader.child_path("swap_operands"),
                                 "swap_operands applies to systolic arrays only (a vector-MAC cluster broadcasts its "
                                 "inputs to units that hold the weights)");
    }
    if (const ConfigNode* arrays = reader.optional("arrays")) {
      reader.diagnostics().error(arrays->location, reader.child_path("arrays"),
                                 "arrays applies to systolic arrays only (a vector-MAC cluster's units are its "
                                 "arrays: write units: <count>)");
    }
  }
  if (kind == spec::ArrayKind::systolic) {
    if (const ConfigNode* lanes = reader.optional("lane_dimension")) {
      reader.diagnostics().error(lanes->location, reader.child_path("lane_dimension"),
                                 "lane_dimension applies to vector_mac arrays only (a systolic array maps the GEMM "
                                 "by its dataflow)");
    }
  }
  compute.clock_mhz = reader.required_number("clock_mhz", kClockMhz).value_or(0);
  compute.operand_bits = reader.required_integer("operand_bits", IntegerRange{1, 64}).value_or(0);
  // The format's family only, so that a sweep of operand_bits keeps it: int with 8 bits is int8.
  if (const ConfigNode* format = reader.optional("number_format")) {
    const std::optional<std::string> family =
        read_choice(*format, reader.child_path("number_format"), spec::number_formats(), reader.diagnostics());
    if (family && compute.operand_bits > 0) compute.operand_type = *family + std::to_string(compute.operand_bits);
  }
  if (const ConfigNode* moved = reader.optional("accumulator_bits")) {
    reader.diagnostics().error(moved->location, reader.child_path("accumulator_bits"),
                               "accumulator_bits moved to the accumulators section: write "
                               "accumulators: {capacity_kib: <KiB>, bits: <bits>} beside compute");
  }
  compute.vector_ops_per_cycle = reader.required_integer("vector_ops_per_cycle", kCount).value_or(0);
  compute.vector_unit_gemm = reader.boolean_or("vector_unit_gemm", false);
  // native_formats: {format: MAC-rate multiplier}, weight formats the array multiplies as they are.
  if (const ConfigNode* formats = reader.optional("native_formats")) {
    const std::string formats_key = reader.child_path("native_formats");
    if (!formats->is_map()) {
      reader.diagnostics().error(formats->location, formats_key,
                                 "expected a mapping of weight formats to MAC-rate multipliers over operand_bits' "
                                 "rate ({int8: 2, fp8_e4m3: 2}), got " +
                                     formats->describe());
    }
    for (const ConfigEntry& entry : formats->entries) {
      const std::string key = join_key_path(formats_key, entry.key);
      if (!util::from_name<workload::NumberFormat>(entry.key)) {
        reader.diagnostics().error(entry.key_location, key,
                                   "unknown number format \"" + entry.key + "\"; expected one of " +
                                       util::join(util::names<workload::NumberFormat>(), ", ") +
                                       util::did_you_mean(entry.key, util::names<workload::NumberFormat>()));
        continue;
      }
      if (const std::optional<std::int64_t> rate =
              read_integer(entry.value, key, IntegerRange{1, 16}, nullptr, reader.diagnostics())) {
        compute.native_formats[entry.key] = *rate;
      }
    }
  }
  // sparsity: {n, m}: the array skips the zero weights of N:M sparse layers (docs/accelerator-format.md).
  if (const ConfigNode* sparsity = reader.optional("sparsity")) {
    MapReader pattern(*sparsity, reader.child_path("sparsity"), reader.diagnostics());
    if (pattern.valid()) {
      const std::int64_t m = pattern.required_integer("m", IntegerRange{2, spec::kMaxSparsityBlock}).value_or(0);
      const std::int64_t n = pattern.required_integer("n", IntegerRange{1, spec::kMaxSparsityBlock - 1}).value_or(0);
      pattern.finish();
      if (m > 0 && n >= m) {
        reader.diagnostics().error(
            sparsity->location, pattern.child_path("n"),
            "expected fewer nonzeros than the block: n " + std::to_string(n) + " >= m " + std::to_string(m));
      } else if (m > 0 && n > 0) {
        compute.sparsity = spec::Sparsity{n, m};
      }
    }
  }
  // output_path: the stages after the array, each at most once (docs/mapping-and-replay.md, "Fusion
  // into the output path").
  if (const ConfigNode* path = reader.optional("output_path")) {
    const std::string path_key = reader.child_path("output_path");
    const std::vector<std::string> words = read_word_list_or_empty(*path, path_key, reader.diagnostics());
    for (const std::string& word : words) {
      const std::optional<spec::OutputStage> stage = util::from_name<spec::OutputStage>(word);
      if (!stage) {
        reader.diagnostics().error(path->location, path_key,
                                   "expected activation, batchnorm, add or pooling, got \"" + word + "\"" +
                                       util::did_you_mean(word, util::names<spec::OutputStage>()));
      } else if (compute.output_path_has(*stage)) {
        reader.diagnostics().error(path->location, path_key, "\"" + word + "\" is listed twice");
      } else {
        compute.output_path.push_back(*stage);
      }
    }
  }
  reader.finish();
  return compute;
}

// The accumulators: capacity and width of the partial sums. They must hold at least one array row
// of partial sums (systolic: cols, vector_mac: units) and be no narrower than the operands.
spec::AccumulatorSpec read_accumulators(MapReader& reader, const spec::ComputeSpec& compute) {
  spec::AccumulatorSpec accumulators;
  accumulators.capacity_bytes = reader.required_integer("capacity_kib", kCount).value_or(0) * 1024;
  accumulators.bits = reader.required_integer("bits", IntegerRange{1, 128}).value_or(0);
  reader.finish();
  if (accumulators.bits > 0 && compute.operand_bits > 0 && accumulators.bits < compute.operand_bits) {
    reader.diagnostics().error(reader.optional("bits")->location, reader.child_path("bits"),
                               "accumulators (" + std::to_string(accumulators.bits) +
                                   " bits) narrower than the operands (" + std::to_string(compute.operand_bits) +
                                   " bits)");
  }
  const std::int64_t row = compute.accumulator_row();
  const std::int64_t row_bytes = row * accumulators.element_bytes();
  if (accumulators.capacity_bytes > 0 && row > 0 && accumulators.capacity_bytes < row_bytes) {
    reader.diagnostics().error(reader.optional("capacity_kib")->location, reader.child_path("capacity_kib"),
                               std::to_string(accumulators.capacity_bytes) +
                                   " bytes hold less than one array row of partial sums: " + std::to_string(row) + " x " +
                                   std::to_string(accumulators.bits) + " bits = " + std::to_string(row_bytes) + " bytes");
  }
  return accumulators;
}

spec::SramSpec read_sram(MapReader& reader) {
  spec::SramSpec sram;
  util::Diagnostics& diagnostics = reader.diagnostics();
  sram.clock_mhz = reader.required_number("clock_mhz", kClockMhz).value_or(0);
  const ConfigNode* buffers = reader.required("buffers");
  reader.finish();
  if (buffers == nullptr) return sram;
  if (!buffers->is_sequence() || buffers->items.empty()) {
    diagnostics.error(buffers->location, reader.child_path("buffers"),
                      "expected a non-empty list of buffers, got " + buffers->describe());
    return sram;
  }
  std::map<spec::TensorKind, std::string> holder;
  const std::vector<std::string> kinds = util::names<spec::TensorKind>();
  for (std::size_t i = 0; i < buffers->items.size(); ++i) {
    const ConfigNode& item = buffers->items[i];
    const ConfigNode* name_node = item.is_map() ? item.find("name") : nullptr;
    const std::string segment = name_node != nullptr && name_node->is_scalar() ? name_node->scalar : std::to_string(i);
    MapReader buffer(item, join_key_path(reader.child_path("buffers"), segment), diagnostics);
    if (!buffer.valid()) continue;
    spec::SramBufferSpec spec;
    spec.name = buffer.required_name("name").value_or("");
    for (const spec::SramBufferSpec& earlier : sram.buffers) {
      if (!spec.name.empty() && earlier.name == spec.name) {
        diagnostics.error(buffer.optional("name")->location, buffer.child_path("name"),
                          "duplicate buffer name \"" + spec.name + "\"");
      }
    }
    const std::int64_t kib = buffer.required_integer("capacity_kib", IntegerRange{1, std::int64_t{1} << 30}).value_or(0);
    spec.capacity_bytes = kib * 1024;
    spec.banks = buffer.required_integer("banks", kCount).value_or(0);
    spec.bank_width_bytes = buffer.required_integer("bank_width_bytes", kCount).value_or(0);
    spec.read_ports = buffer.required_integer("read_ports", IntegerRange{1, 64}).value_or(0);
    spec.write_ports = buffer.required_integer("write_ports", IntegerRange{1, 64}).value_or(0);
    if (const ConfigNode* holds = buffer.required("holds")) {
      const std::string holds_path = buffer.child_path("holds");
      const std::vector<std::string> words = read_string_list(*holds, holds_path, diagnostics);
      for (const std::string& word : words) {
        const std::optional<spec::TensorKind> kind = util::from_name<spec::TensorKind>(word);
        if (!kind) {
          diagnostics.error(holds->location, holds_path,
                            "expected weights, inputs or outputs, got \"" + word + "\"" + util::did_you_mean(word, kinds));
          continue;
        }
        if (!holder.emplace(*kind, spec.name).second) {
          diagnostics.error(holds->location, holds_path,
                            word + " are already held by buffer \"" + holder[*kind] + "\"");
          continue;
        }
        spec.holds.push_back(*kind);
      }
    }
    // keeps (docs/mapping-and-replay.md, "On-chip residency across layers"): absent, a buffer that
    // holds inputs and outputs keeps activations, as a compiler would; the consumer reads them in
    // place, so only such a buffer may.
    const auto holds_kind = [&](spec::TensorKind kind) {
      return std::find(spec.holds.begin(), spec.holds.end(), kind) != spec.holds.end();
    };
    const bool holds_activations = holds_kind(spec::TensorKind::inputs) && holds_kind(spec::TensorKind::outputs);
    spec.keeps_activations = holds_activations;
    if (const ConfigNode* keeps = buffer.optional("keeps")) {
      const std::string keeps_path = buffer.child_path("keeps");
      const std::vector<std::string> words = read_word_list_or_empty(*keeps, keeps_path, diagnostics);
      spec.keeps_activations = false;
      for (const std::string& word : words) {
        if (word != "activations") {
          diagnostics.error(keeps->location, keeps_path, "expected activations, got \"" + word + "\"");
        } else if (!holds_activations) {
          diagnostics.error(keeps->location, keeps_path,
                            "buffer \"" + spec.name + "\" cannot keep activations: it must hold both inputs and "
                            "outputs, so that the layer that consumes a tensor reads it where its producer wrote it");
        } else {
          spec.keeps_activations = true;
        }
      }
    }
    buffer.finish();
    sram.buffers.push_back(spec);
  }
  for (const std::string& kind : kinds) {
    if (holder.count(*util::from_name<spec::TensorKind>(kind)) == 0) {
      diagnostics.error(buffers->location, reader.child_path("buffers"), "no buffer holds " + kind);
    }
  }
  return sram;
}

// `dram: {ideal: unlimited}` or `dram: {ideal: {bandwidth_gbps, latency_ns}}`, alone: an ideal
// memory has no timings, so any other key beside it is an error. Its address space is one channel
// of 64-byte bursts (8 x 64 bits) and 4 KiB runs, which only sets how the DMA engines split requests.
spec::DramSpec read_ideal_dram(const ConfigNode& dram, const ConfigNode& ideal, util::Diagnostics& diagnostics) {
  const NumberRange bandwidth_gbps{0.001, 1e6};
  const NumberRange latency_ns{0, 1e6};
  for (const ConfigEntry& entry : dram.entries) {
    if (entry.key == "ideal" || entry.key == "capacity_gib") continue;
    diagnostics.error(entry.key_location, join_key_path("dram", entry.key),
                      "an ideal memory takes no DRAM timings, preset or organisation beside it (only capacity_gib); "
                      "remove this key or dram.ideal");
  }
  MapReader capacity(dram, "dram", diagnostics);  // its other keys are judged above
  spec::IdealMemorySpec spec;
  if (ideal.is_scalar() && ideal.scalar == "unlimited") {
    spec.unlimited = true;
  } else if (ideal.is_map()) {
    MapReader reader(ideal, "dram.ideal", diagnostics);
    spec.bandwidth_gbps = reader.required_number("bandwidth_gbps", bandwidth_gbps).value_or(0);
    spec.latency_ns = reader.required_number("latency_ns", latency_ns).value_or(0);
    reader.finish();
  } else {
    diagnostics.error(ideal.location, "dram.ideal",
                      "expected unlimited or {bandwidth_gbps: <GB/s>, latency_ns: <ns>}, got " + ideal.describe());
  }
  spec::DramSpec address_space;
  address_space.ideal = spec;
  address_space.given_capacity_bytes = read_capacity(capacity);
  address_space.name = spec.unlimited ? "ideal (unlimited)" : "ideal";
  address_space.standard = "ideal";
  address_space.channels = address_space.ranks = address_space.bank_groups = address_space.banks_per_group = 1;
  address_space.row_bytes = 4096;
  address_space.bus_bits = 64;
  address_space.timing.burst_length = 8;
  address_space.timing.tck_ns = 1;
  address_space.address_mapping = {spec::AddressField::row,  spec::AddressField::rank,   spec::AddressField::bank_group,
                                   spec::AddressField::bank, spec::AddressField::column, spec::AddressField::channel};
  return address_space;
}

// `shared_memory: {name, capacity_kib, line_bytes, banks, bank_width_bytes, clock_mhz, latency_cycles}`:
// lines are whole DRAM bursts (what a request moves), at most 64 of them (a line tracks its bursts
// one bit each), and the capacity whole lines.
spec::SharedMemorySpec read_shared_memory(MapReader& reader, const spec::DramSpec& dram) {
  util::Diagnostics& diagnostics = reader.diagnostics();
  spec::SharedMemorySpec shared;
  shared.name = reader.required_name("name").value_or("");
  const std::int64_t kib = reader.required_integer("capacity_kib", IntegerRange{1, std::int64_t{1} << 30}).value_or(0);
  shared.capacity_bytes = kib * 1024;
  shared.line_bytes = reader.required_integer("line_bytes", IntegerRange{1, 1 << 20}).value_or(0);
  shared.banks = reader.required_integer("banks", kCount).value_or(0);
  shared.bank_width_bytes = reader.required_integer("bank_width_bytes", kCount).value_or(0);
  shared.clock_mhz = reader.required_number("clock_mhz", kClockMhz).value_or(0);
  shared.latency_cycles = reader.integer_or("latency_cycles", 0, IntegerRange{0, 1 << 20});
  const std::int64_t burst = dram.burst_bytes();
  const ConfigNode* line = reader.optional("line_bytes");
  if (line != nullptr && shared.line_bytes > 0 && burst > 0) {
    const bool power_of_two = (shared.line_bytes & (shared.line_bytes - 1)) == 0;
    if (!power_of_two || shared.line_bytes % burst != 0 || shared.line_bytes / burst > 64) {
      diagnostics.error(line->location, reader.child_path("line_bytes"),
                        "expected a power of two of 1 to 64 DRAM bursts of " + std::to_string(burst) + " bytes, got " +
                            std::to_string(shared.line_bytes));
    } else if (shared.capacity_bytes % shared.line_bytes != 0) {
      diagnostics.error(
          reader.optional("capacity_kib")->location, reader.child_path("capacity_kib"),
          std::to_string(shared.capacity_bytes) + " bytes are not whole lines of " + std::to_string(shared.line_bytes));
    }
  }
  reader.finish();
  return shared;
}

// `noc: {topology, columns, rows, link_bytes, clock_mhz, router_latency_cycles, memory_nodes,
// multicast}`: a grid that holds every core (core c on node c), and the nodes the DRAM channels
// attach at.
spec::NocSpec read_noc(MapReader& reader, std::int64_t cores) {
  util::Diagnostics& diagnostics = reader.diagnostics();
  spec::NocSpec noc;
  noc.topology = reader.required_enum<spec::NocTopology>("topology").value_or(spec::NocTopology::mesh);
  noc.columns = reader.required_integer("columns", kCores).value_or(0);
  noc.rows = reader.required_integer("rows", kCores).value_or(0);
  noc.link_bytes = reader.required_integer("link_bytes", kCount).value_or(0);
  noc.clock_mhz = reader.required_number("clock_mhz", kClockMhz).value_or(0);
  noc.router_latency_cycles = reader.required_integer("router_latency_cycles", IntegerRange{0, 1 << 20}).value_or(0);
  const std::int64_t nodes = noc.nodes();
  if (noc.columns > 0 && noc.rows > 0 && nodes < cores) {
    diagnostics.error(reader.optional("columns")->location, reader.child_path("columns"),
                      "a grid of " + std::to_string(noc.columns) + " x " + std::to_string(noc.rows) + " nodes for " +
                          std::to_string(cores) + " cores (core c sits on node c): expected at least one node a core");
  }
  if (const ConfigNode* memory_nodes = reader.required("memory_nodes")) {
    noc.memory_nodes = read_integer_list(*memory_nodes, reader.child_path("memory_nodes"),
                                         IntegerRange{0, std::max<std::int64_t>(0, nodes - 1)}, nullptr, diagnostics);
  }
  noc.multicast = reader.boolean_or("multicast", false);
  reader.finish();
  return noc;
}

// `technology: 45nm` (a preset), or a table: {preset: 45nm, add_pj: {int8: 0.05}} overrides entries
// of a preset, and a table without `preset` gives every entry itself.
std::optional<spec::TechnologySpec> read_accelerator_technology(const ConfigNode& node, const std::string& base_dir,
                                                             util::Diagnostics& diagnostics) {
  ConfigNode named;
  const ConfigNode* table = &node;
  if (node.is_scalar()) {
    named.kind = ConfigNode::Kind::map;
    named.location = node.location;
    named.entries.push_back(ConfigEntry{"preset", node.location, node});
    table = &named;
  }
  const ConfigNode merged = resolve_preset(*table, "technology", base_dir, technology_family(), diagnostics, 0);
  if (merged.kind == ConfigNode::Kind::null) return std::nullopt;
  MapReader reader(merged, "technology", diagnostics);
  if (!reader.valid()) return std::nullopt;
  return read_technology(reader);
}

spec::AcceleratorSpec read_accelerator(const ConfigNode& root, const std::string& file, util::Diagnostics& diagnostics,
                                       const std::vector<std::string>& other_roots) {
  spec::AcceleratorSpec accelerator;
  MapReader reader(root, "", diagnostics);
  if (!reader.valid()) return accelerator;
  reader.hint_also(other_roots);
  accelerator.name = reader.required_name("name").value_or("");
  reader.string_or("source", "");
  if (const ConfigNode* compute = reader.required("compute")) {
    MapReader compute_reader(*compute, "compute", diagnostics);
    if (compute_reader.valid()) accelerator.compute = read_compute(compute_reader);
  }
  if (const ConfigNode* accumulators = reader.required("accumulators")) {
    MapReader accumulator_reader(*accumulators, "accumulators", diagnostics);
    if (accumulator_reader.valid()) accelerator.accumulators = read_accumulators(accumulator_reader, accelerator.compute);
  }
  if (const ConfigNode* sram = reader.required("sram")) {
    MapReader sram_reader(*sram, "sram", diagnostics);
    if (sram_reader.valid()) accelerator.sram = read_sram(sram_reader);
  }
  const ConfigNode* dram = reader.required("dram");
  if (const ConfigNode* ideal = dram != nullptr && dram->is_map() ? dram->find("ideal") : nullptr) {
    accelerator.dram = read_ideal_dram(*dram, *ideal, diagnostics);
  } else if (dram != nullptr) {
    // A failed preset comes back null with its errors recorded; anything else is judged here.
    const ConfigNode merged = resolve_preset(*dram, "dram", directory_of(file), dram_family(), diagnostics, 0);
    if (merged.kind != ConfigNode::Kind::null || dram->kind == ConfigNode::Kind::null) {
      MapReader dram_reader(merged, "dram", diagnostics);
      if (dram_reader.valid()) accelerator.dram = DramReader(dram_reader).read();
    }
  }
  if (const ConfigNode* dma = reader.optional("dma")) {
    MapReader dma_reader(*dma, "dma", diagnostics);
    if (dma_reader.valid()) {
      accelerator.dma.outstanding_requests =
          dma_reader.integer_or("outstanding_requests", accelerator.dma.outstanding_requests, IntegerRange{1, 4096});
      dma_reader.finish();
    }
  }
  if (const ConfigNode* cores = reader.optional("cores")) {
    MapReader cores_reader(*cores, "cores", diagnostics);
    if (cores_reader.valid()) {
      accelerator.cores = cores_reader.required_integer("count", kCores).value_or(1);
      accelerator.core_partition = cores_reader.enum_or("partition", accelerator.core_partition);
      cores_reader.finish();
    }
  }
  if (const ConfigNode* shared = reader.optional("shared_memory")) {
    MapReader shared_reader(*shared, "shared_memory", diagnostics);
    if (shared_reader.valid()) accelerator.shared_memory = read_shared_memory(shared_reader, accelerator.dram);
  }
  if (const ConfigNode* noc = reader.optional("noc")) {
    MapReader noc_reader(*noc, "noc", diagnostics);
    if (noc_reader.valid()) accelerator.noc = read_noc(noc_reader, accelerator.cores);
  }
  if (const ConfigNode* technology = reader.optional("technology")) {
    // What the table lacks is judged only on a table that read cleanly: an entry refused for its
    // value is not also "missing".
    const std::size_t errors_before = diagnostics.size();
    accelerator.technology = read_accelerator_technology(*technology, directory_of(file), diagnostics);
    // Only a chip with a network reads the NoC's entry: without one the spec holds none (config.json
    // writes the entries the chip uses, and loads back as the same spec).
    if (accelerator.technology && !accelerator.noc) accelerator.technology->noc_pj_per_bit_per_hop.reset();
    if (diagnostics.size() == errors_before) check_energy_inputs(accelerator, technology->location, diagnostics);
  }
  reader.finish();
  return accelerator;
}

// DRAM fields, perhaps on top of a preset, -> DramSpec; throws InputError.
spec::DramSpec read_dram(const ConfigNode& root, const std::string& base_dir, util::Diagnostics& diagnostics) {
  const ConfigNode merged = resolve_preset(root, "", base_dir, dram_family(), diagnostics, 0);
  diagnostics.throw_if_any();
  MapReader reader(merged, "", diagnostics);
  spec::DramSpec dram;
  if (reader.valid()) dram = DramReader(reader).read();
  diagnostics.throw_if_any();
  return dram;
}

spec::AcceleratorSpec load_accelerator(const DocumentSource& source, const std::vector<std::string>& overrides,
                                       const std::vector<std::string>& other_roots) {
  util::Diagnostics diagnostics;
  const ConfigNode root = load_document(source, FileKind::accelerator, overrides, diagnostics);
  spec::AcceleratorSpec accelerator = read_accelerator(root, source.origin, diagnostics, other_roots);
  diagnostics.throw_if_any();
  return accelerator;
}

}  // namespace

std::string dram_preset_directory() { return shipped_directory(kPresetDirVariable, "configs/dram"); }

std::vector<std::string> dram_preset_names() { return yaml_stems(dram_preset_directory()); }

std::string technology_preset_directory() { return shipped_directory(kTechnologyDirVariable, "configs/energy"); }

spec::AcceleratorSpec load_accelerator_file(const std::string& path, const std::vector<std::string>& overrides,
                                            const std::vector<std::string>& other_roots) {
  return load_accelerator({path, std::nullopt}, overrides, other_roots);
}

spec::AcceleratorSpec load_accelerator_text(const std::string& text, const std::string& origin,
                                          const std::vector<std::string>& overrides) {
  return load_accelerator({origin, text}, overrides, {});
}

spec::TechnologySpec load_technology_file(const std::string& path, const std::vector<std::string>& overrides) {
  util::Diagnostics diagnostics;
  const ConfigNode root = load_document({path, std::nullopt}, FileKind::technology, overrides, diagnostics);
  const ConfigNode merged = resolve_preset(root, "", directory_of(path), technology_family(), diagnostics, 0);
  diagnostics.throw_if_any();
  MapReader reader(merged, "", diagnostics);
  const spec::TechnologySpec technology = read_technology(reader);
  diagnostics.throw_if_any();
  return technology;
}

spec::DramSpec load_dram(const std::string& preset_or_file, const std::vector<std::string>& overrides) {
  util::Diagnostics diagnostics;
  // A bare preset name behaves like a file that says `preset: <name>`.
  ConfigNode root;
  root.kind = ConfigNode::Kind::map;
  root.location = util::SourceLocation{"--dram " + preset_or_file, 0, 0};
  ConfigNode preset;
  preset.kind = ConfigNode::Kind::scalar;
  preset.scalar = preset_or_file;
  preset.location = root.location;
  root.entries.push_back(ConfigEntry{"preset", root.location, preset});
  for (const std::string& assignment : overrides) apply_override(root, assignment, diagnostics);
  diagnostics.throw_if_any();
  return read_dram(root, ".", diagnostics);
}

spec::DramSpec load_dram_text(const std::string& text, const std::string& origin,
                            const std::vector<std::string>& overrides) {
  util::Diagnostics diagnostics;
  const ConfigNode root = load_document({origin, text}, FileKind::dram, overrides, diagnostics);
  return read_dram(root, directory_of(origin), diagnostics);
}

}  // namespace reusesim::config
