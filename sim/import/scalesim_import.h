#pragma once
// SCALE-Sim v2 topology (.csv) and configuration (.cfg) files as ReuseSim model and accelerator
// files: docs/import.md.

#include <cstdint>
#include <string>

#include "import/model_writer.h"

namespace reusesim::import {

// A topology of convolution rows (Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter
// Width, Channels, Num Filter, Strides[, Stride width]) or GEMM rows (Layer Name, M, N, K) as a
// model of independent layers, each with its own input, in SCALE-Sim's conventions: no padding,
// ceil((H - F + S) / S) outputs, 1-byte words. Throws ImportError naming the file, line and column.
ImportedModel import_scalesim_topology(const std::string& text, const std::string& origin);

// What ReuseSim takes from a SCALE-Sim configuration.
struct ScaleSimConfig {
  std::string run_name;
  std::int64_t array_rows = 0;  // ArrayHeight
  std::int64_t array_cols = 0;  // ArrayWidth
  std::string dataflow;         // os, ws, is
  std::int64_t ifmap_sram_kib = 0, filter_sram_kib = 0, ofmap_sram_kib = 0;
  bool user_bandwidth = false;               // InterfaceBandwidth: USER (else CALC)
  std::int64_t bandwidth_words_per_cycle = 0;  // Bandwidth, in USER mode
};

// Throws ImportError naming the file, line and key.
ScaleSimConfig read_scalesim_config(const std::string& text, const std::string& origin);

// The accelerator file: the array, one SRAM buffer per SCALE-Sim SRAM, and an ideal memory of the
// configured bandwidth (USER) or an unlimited one (CALC); 1 GHz, so cycles read as nanoseconds.
std::string accelerator_yaml(const ScaleSimConfig& config, const std::string& origin);

}  // namespace reusesim::import
