#include "config/accelerator_writer.h"

#include <nlohmann/json.hpp>

namespace reusesim::config {

namespace {

using Json = nlohmann::ordered_json;

template <typename Enum>
Json name_list(const std::vector<Enum>& values) {
  Json list = Json::array();
  for (Enum value : values) list.push_back(util::name(value));
  return list;
}

Json compute_json(const spec::ComputeSpec& compute) {
  Json document{{"type", util::name(compute.kind)}};
  if (compute.kind == spec::ArrayKind::systolic) {
    document["rows"] = compute.rows;
    document["cols"] = compute.cols;
    document["dataflow"] = util::name(compute.dataflow);
    document["double_buffered_stationary"] = compute.double_buffered_stationary;
    document["swap_operands"] = compute.swap_operands;
    // One array, as every file written before `arrays` existed: written only when there are more.
    if (compute.arrays != 1) document["arrays"] = compute.arrays;
  } else {
    document["units"] = compute.units;
    document["lanes"] = compute.lanes;
    document["lane_dimension"] = util::name(compute.lane_dimension);
  }
  document["clock_mhz"] = compute.clock_mhz;
  document["operand_bits"] = compute.operand_bits;
  // operand_type is the number format's family followed by operand_bits ("int8"): the file names the family.
  if (!compute.operand_type.empty()) {
    document["number_format"] = compute.operand_type.substr(0, compute.operand_type.find_first_of("0123456789"));
  }
  document["vector_ops_per_cycle"] = compute.vector_ops_per_cycle;
  document["vector_unit_gemm"] = compute.vector_unit_gemm;
  document["output_path"] = name_list(compute.output_path);
  // Written only when given, as every file written before native formats existed.
  if (!compute.native_formats.empty()) {
    Json formats = Json::object();
    for (const auto& [format, rate] : compute.native_formats) formats[format] = rate;
    document["native_formats"] = formats;
  }
  if (compute.sparsity.sparse()) document["sparsity"] = {{"n", compute.sparsity.n}, {"m", compute.sparsity.m}};
  return document;
}

Json sram_json(const spec::SramSpec& sram) {
  Json buffers = Json::array();
  for (const spec::SramBufferSpec& buffer : sram.buffers) {
    buffers.push_back({{"name", buffer.name},
                       {"capacity_kib", buffer.capacity_bytes / 1024},
                       {"banks", buffer.banks},
                       {"bank_width_bytes", buffer.bank_width_bytes},
                       {"read_ports", buffer.read_ports},
                       {"write_ports", buffer.write_ports},
                       {"holds", name_list(buffer.holds)},
                       {"keeps", buffer.keeps_activations ? Json::array({"activations"}) : Json::array()}});
  }
  return {{"clock_mhz", sram.clock_mhz}, {"buffers", buffers}};
}

Json controller_json(const spec::DramControllerSpec& controller) {
  Json document{{"read_queue_depth", controller.read_queue_depth},
                {"write_queue_depth", controller.write_queue_depth},
                {"command_queue_depth", controller.command_queue_depth}};
  if (controller.write_drain == spec::WriteDrainPolicy::watermarks) {
    document["write_drain"] = {{"high", controller.write_drain_high}, {"low", controller.write_drain_low}};
  } else {
    document["write_drain"] = util::name(controller.write_drain);
  }
  document["posted_writes"] = controller.posted_writes;
  document["frontend_latency_cycles"] = controller.frontend_latency_cycles;
  document["page_policy"] = util::name(controller.page_policy);
  document["refresh"] = util::name(controller.refresh);
  return document;
}

Json power_json(const spec::DramPowerSpec& power) {
  if (power.form == spec::DramPowerForm::per_access) {
    const spec::DramAccessEnergy& access = power.access;
    return {{"form", util::name(power.form)},
            {"activate_pj", access.activate_pj},
            {"precharge_pj", access.precharge_pj},
            {"read_pj_per_bit", access.read_pj_per_bit},
            {"write_pj_per_bit", access.write_pj_per_bit},
            {"io_read_pj_per_bit", power.io_read_pj_per_bit},
            {"io_write_pj_per_bit", power.io_write_pj_per_bit},
            {"refresh_pj", access.refresh_pj},
            {"active_standby_mw", access.active_standby_mw},
            {"precharged_standby_mw", access.precharged_standby_mw}};
  }
  // The IDD form writes no `form`: it is the default, so files written before there were two forms
  // read the same.
  Json rails = Json::object();
  for (const spec::DramPowerRail& rail : power.rails) {
    rails[rail.name] = {{"volts", rail.volts}, {"idd0", rail.idd0},   {"idd2n", rail.idd2n}, {"idd3n", rail.idd3n},
                        {"idd4r", rail.idd4r}, {"idd4w", rail.idd4w}, {"idd5b", rail.idd5b}};
  }
  return {{"device_width_bits", power.device_width_bits},
          {"io_read_pj_per_bit", power.io_read_pj_per_bit},
          {"io_write_pj_per_bit", power.io_write_pj_per_bit},
          {"rails", rails}};
}

// A DRAM file's fields without a preset; an ideal memory as its `ideal` entry alone.
Json dram_json(const spec::DramSpec& dram) {
  // Bytes over 2^30 are exact in a double (they are below 2^53), so the file loads as the same bytes.
  const auto with_capacity = [&dram](Json document) {
    if (dram.given_capacity_bytes)
      document["capacity_gib"] = static_cast<double>(*dram.given_capacity_bytes) / spec::kBytesPerGib;
    return document;
  };
  if (dram.ideal) {
    if (dram.ideal->unlimited) return with_capacity({{"ideal", "unlimited"}});
    return with_capacity(
        {{"ideal", {{"bandwidth_gbps", dram.ideal->bandwidth_gbps}, {"latency_ns", dram.ideal->latency_ns}}}});
  }
  const spec::DramTiming& t = dram.timing;
  // name is optional: a DRAM written inline may have none.
  Json document = dram.name.empty() ? Json::object() : Json{{"name", dram.name}};
  document.update(Json{{"standard", dram.standard},
                       {"channels", dram.channels},
                       {"ranks", dram.ranks},
                       {"bank_groups", dram.bank_groups},
                       {"banks_per_group", dram.banks_per_group},
                       {"row_bytes", dram.row_bytes},
                       {"rows", dram.rows},
                       {"bus_bits", dram.bus_bits},
                       {"pseudo_channels", dram.pseudo_channels},
                       {"tck_ns", t.tck_ns},
                       {"cl", t.cl},
                       {"cwl", t.cwl},
                       {"trcd", t.trcd},
                       {"trp", t.trp},
                       {"tras", t.tras},
                       {"trc", t.trc},
                       {"burst_length", t.burst_length},
                       {"tccd_s", t.tccd_s},
                       {"tccd_l", t.tccd_l},
                       {"trrd_s", t.trrd_s},
                       {"trrd_l", t.trrd_l},
                       {"tfaw", t.tfaw},
                       {"twtr_s", t.twtr_s},
                       {"twtr_l", t.twtr_l},
                       {"twr", t.twr},
                       {"trtp", t.trtp},
                       {"trfc", t.trfc},
                       {"trefi", t.trefi}});
  // trfc_pb belongs to per-bank refresh only (the loader refuses it otherwise).
  if (dram.controller.refresh == spec::RefreshMode::per_bank) document["trfc_pb"] = t.trfc_pb;
  std::string mapping;
  for (spec::AddressField field : dram.address_mapping) mapping += (mapping.empty() ? "" : ",") + util::name(field);
  document["address_mapping"] = mapping;
  // Written only when set, as every file written before the key existed.
  if (dram.interleave_bytes > 0) document["interleave_bytes"] = dram.interleave_bytes;
  document["address_hash"] = util::name(dram.address_hash);
  document["controller"] = controller_json(dram.controller);
  if (dram.power) document["power"] = power_json(*dram.power);
  return with_capacity(document);
}

// {type: value} in spec::operand_types()'s order, as the shipped tables list them.
Json type_table_json(const std::map<std::string, double>& table) {
  Json document = Json::object();
  for (const std::string& type : spec::operand_types()) {
    if (const auto found = table.find(type); found != table.end()) document[type] = found->second;
  }
  return document;
}

Json sram_curve_json(const std::vector<spec::SramEnergyPoint>& curve) {
  Json points = Json::array();
  for (const spec::SramEnergyPoint& point : curve) points.push_back({{"kib", point.kib}, {"pj", point.pj_per_64_bits}});
  return points;
}

// The whole table, without its preset: the run's energy does not depend on configs/energy then.
// The NoC's entry is kept only by a chip with a network (the loader drops it from the others).
Json technology_json(const spec::TechnologySpec& technology) {
  Json table{{"name", technology.name},
             {"node_nm", technology.node_nm},
             {"multiply_pj", type_table_json(technology.multiply_pj)},
             {"add_pj", type_table_json(technology.add_pj)},
             {"multiply_area_um2", type_table_json(technology.multiply_area_um2)},
             {"add_area_um2", type_table_json(technology.add_area_um2)},
             {"sram_read_pj_per_64_bits", sram_curve_json(technology.sram_read)},
             {"sram_write_pj_per_64_bits", sram_curve_json(technology.sram_write)},
             {"sram_area_um2_per_kib", technology.sram_area_um2_per_kib},
             {"dma_pj_per_byte", technology.dma_pj_per_byte},
             {"sram_leakage_uw_per_kib", technology.sram_leakage_uw_per_kib},
             {"logic_leakage_uw_per_um2", technology.logic_leakage_uw_per_um2}};
  if (technology.noc_pj_per_bit_per_hop) table["noc_pj_per_bit_per_hop"] = *technology.noc_pj_per_bit_per_hop;
  return table;
}

}  // namespace

std::string accelerator_json(const spec::AcceleratorSpec& accelerator) {
  Json document{{"name", accelerator.name},
                {"compute", compute_json(accelerator.compute)},
                {"accumulators",
                 {{"capacity_kib", accelerator.accumulators.capacity_bytes / 1024}, {"bits", accelerator.accumulators.bits}}},
                {"sram", sram_json(accelerator.sram)},
                {"dram", dram_json(accelerator.dram)},
                {"dma", {{"outstanding_requests", accelerator.dma.outstanding_requests}}}};
  if (accelerator.technology) document["technology"] = technology_json(*accelerator.technology);
  // One core, as every file written before `cores` existed: written only when there are more.
  if (accelerator.cores != 1) {
    document["cores"] = {{"count", accelerator.cores}};
    // Written only when pinned, as every file written before the partition existed.
    if (accelerator.core_partition != spec::CorePartition::automatic) {
      document["cores"]["partition"] = util::name(accelerator.core_partition);
    }
  }
  if (const std::optional<spec::SharedMemorySpec>& shared = accelerator.shared_memory) {
    document["shared_memory"] = {{"name", shared->name},
                                 {"capacity_kib", shared->capacity_bytes / 1024},
                                 {"line_bytes", shared->line_bytes},
                                 {"banks", shared->banks},
                                 {"bank_width_bytes", shared->bank_width_bytes},
                                 {"clock_mhz", shared->clock_mhz},
                                 {"latency_cycles", shared->latency_cycles}};
  }
  if (const std::optional<spec::NocSpec>& noc = accelerator.noc) {
    document["noc"] = {{"topology", util::name(noc->topology)},
                       {"columns", noc->columns},
                       {"rows", noc->rows},
                       {"link_bytes", noc->link_bytes},
                       {"clock_mhz", noc->clock_mhz},
                       {"router_latency_cycles", noc->router_latency_cycles},
                       {"memory_nodes", noc->memory_nodes}};
    if (noc->multicast) document["noc"]["multicast"] = true;
  }
  // Names are checked UTF-8 on the way in; replace stands guard for anything that slipped past.
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace reusesim::config
