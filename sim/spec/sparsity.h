#pragma once
// N:M structured sparsity of weights (docs/model-format.md, "Structured sparsity"): a model's
// layer stores at most N nonzeros in every M consecutive weights of a column along K, and an
// accelerator's array may skip the zeros of a pattern (docs/accelerator-format.md).

#include <algorithm>
#include <cstdint>
#include <string>

namespace reusesim::spec {

// Stored compressed as the kept values plus index_bits() of metadata each (the position within
// its block, as NVIDIA's 2:4 format). A K that M does not divide ends in a short block keeping
// min(N, its length). m == 0: dense.
struct Sparsity {
  std::int64_t n = 0, m = 0;

  bool sparse() const { return m > 0; }
  // Values kept among a column's first `k` along K (k itself when dense).
  std::int64_t kept(std::int64_t k) const { return sparse() ? k / m * n + std::min(n, k % m) : k; }
  // Metadata bits per kept value: ceil(log2(m)); 0 when dense.
  std::int64_t index_bits() const {
    std::int64_t bits = 0;
    while (sparse() && (std::int64_t{1} << bits) < m) ++bits;
    return bits;
  }
  // An array that skips the zeros of `hardware`'s pattern can skip this one's: every block of
  // hardware.m along K holds at most hardware.n of our nonzeros (on a 2:4 array 1:4, 2:8 and 1:2
  // run as 2:4; 3:4 and 3:8 do not).
  bool runs_on(const Sparsity& hardware) const {
    if (!sparse() || !hardware.sparse()) return false;
    if (m % hardware.m == 0) return n <= hardware.n;
    return hardware.m % m == 0 && n * (hardware.m / m) <= hardware.n;
  }
  std::string describe() const { return std::to_string(n) + ":" + std::to_string(m); }
  bool operator==(const Sparsity& other) const { return n == other.n && m == other.m; }
};

// The most M a pattern may have: a position within a byte of metadata (ASSUMED bound).
constexpr std::int64_t kMaxSparsityBlock = 256;

}  // namespace reusesim::spec
