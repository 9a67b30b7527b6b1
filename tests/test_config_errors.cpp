#include <catch2/catch.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "config/model_loader.h"

using reusesim::config::InputError;
using reusesim::config::load_model_text;

namespace {
struct Probe { const char* label; std::string text; std::vector<std::string> overrides; };

const std::string kHead = "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\n";

void run(const Probe& p) {
  std::cout << "=== " << p.label << "\n";
  try {
    auto m = load_model_text(p.text, "model.yaml", p.overrides);
    std::cout << "OK";
    for (auto& l : m.network.layers) std::cout << " | " << l.spec.name << " " << l.output_shape.describe() << " macs=" << l.counts.macs;
    std::cout << "\n";
  } catch (const InputError& e) {
    std::cout << e.what();
  } catch (const std::exception& e) {
    std::cout << "OTHER EXCEPTION: " << e.what() << "\n";
  }
}
}  // namespace

TEST_CASE("probe", "[probe]") {
  const std::string B = kHead + "blocks:\n  bott:\n    parameters: [mid, out]\n    layers:\n      - {name: a, type: conv2d, out_channels: $mid, kernel: 1}\n      - {name: b, type: conv2d, out_channels: $out, kernel: 3, padding: 1}\n";
  std::vector<Probe> probes = {
    {"dup-in-block", kHead + "blocks:\n  b:\n    layers:\n      - {name: a, type: relu}\n      - {name: a, type: relu}\nlayers:\n  - {name: r, block: b}\n", {}},
    {"self-hint", kHead + "layers:\n  - {name: a, type: relu}\n  - {name: y2, type: relu, inputs: [y3]}\n", {}},
    {"input-unknown-key", "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8, depth: 3}\nlayers:\n  - {name: r, type: relu}\n", {}},
    {"precision-typo-key", "name: m\nprecison: fp32\ninput: {features: 3}\nlayers:\n  - {name: r, type: relu}\n", {}},
    {"cycle-through-block", kHead + "blocks:\n  b:\n    layers:\n      - {name: a, type: relu}\nlayers:\n  - {name: x, type: relu, inputs: [r]}\n  - {name: r, block: b, inputs: x}\n", {}},
    {"kernel-pair-big", kHead + "layers:\n  - {name: c, type: conv2d, out_channels: 4, kernel: [3, 9]}\n", {}},
    {"too-big", kHead + "layers:\n  - {name: c, type: conv2d, out_channels: 2000000000000, kernel: 3}\n", {}},
    {"set-layer-scalar", kHead + "layers:\n  - {name: conv1, type: conv2d, out_channels: 4, kernel: 3}\n", {"layers.conv1=5"}},
    {"set-block", "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nblocks:\n  b:\n    layers:\n      - {name: a, type: conv2d, out_channels: 4, kernel: 3}\nlayers:\n  - {name: r, block: b}\n", {"blocks.b.layers.a.kernel=eight"}},
    {"dotname", kHead + "layers:\n  - {name: conv.1, type: conv2d, out_channels: 4, kernel: 3}\n", {"layers.conv.1.kernel=5"}},
    {"seq-token", "name: m\nprecision: fp32\nparameters: {seq_len: 100}\ninput: {sequence: $seq_len}\nlayers:\n  - {name: e, type: embedding, num_embeddings: 1000, embedding_dim: 8}\n  - {name: rnn, type: gru, hidden_size: 16}\n", {"parameters.seq_len=200"}},
    {"chain", kHead + "blocks:\n  b:\n    parameters: [c]\n    layers:\n      - {name: a, type: conv2d, out_channels: $c, kernel: 3, padding: 1, stride: 2}\nlayers:\n  - {name: res, block: b, repeat: 2, args: {c: 5}}\n  - {name: out, type: relu}\n", {}},
    {"float", kHead + "layers:\n  - {name: c, type: conv2d, out_channels: 4.0, kernel: 3}\n", {}},
    {"multi-layer-order", "name: m\nprecision: fp32\ninput: {channels: 3, height: 8, width: 8}\nlayers:\n  - {name: c, type: conv2d, out_channels: eight, kernel: 3, activation: swish}\n", {}},
  };
  for (const auto& p : probes) run(p);
}
