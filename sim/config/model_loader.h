#pragma once
// Model (network) files -> workload::ModelSpec -> validated workload::Network.
// Format: docs/model-format.md.

#include <cstdint>
#include <string>
#include <vector>

#include "config/config_node.h"
#include "workload/network.h"

namespace reusesim::config {

// The largest batch size every command and run file takes (README, "Errors"): far past any served
// batch, and small enough that a replay of it stays bounded.
constexpr std::int64_t kMaxBatch = 1'000'000;

// Which pass of a sequence model to build: a prefill of `sequence` tokens per sample (0: the
// model's own input sequence), or with decode_context > 0 one decode step after that many tokens.
struct Phase {
  std::int64_t sequence = 0;
  std::int64_t decode_context = 0;
};

struct LoadedModel {
  std::string file;
  workload::ModelSpec spec;
  workload::Network network;
};

// Loads, applies `--set` overrides, validates and builds the network for `phase` (build_network).
// Throws InputError with every problem found (file:line:col: error: key.path: message, one per line).
LoadedModel load_model_file(const std::string& path, const std::vector<std::string>& overrides = {},
                            const Phase& phase = {});
// The same from text that stands for the file `origin` (tests, fuzzing).
LoadedModel load_model_text(const std::string& text, const std::string& origin,
                            const std::vector<std::string>& overrides = {}, const Phase& phase = {});

}  // namespace reusesim::config
