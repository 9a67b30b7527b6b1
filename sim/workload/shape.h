#pragma once
// Tensor shapes (per sample, without the batch), element precision, and checked arithmetic for
// the products of dimensions that every count is built from.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "util/enum_names.h"

namespace reusesim::workload {

enum class ShapeKind { image, vector, sequence };

struct Shape {
  ShapeKind kind = ShapeKind::vector;
  std::int64_t channels = 0;  // image
  std::int64_t height = 0;    // image
  std::int64_t width = 0;     // image
  std::int64_t steps = 0;     // sequence: time steps
  std::int64_t features = 0;  // vector and sequence

  static Shape image(std::int64_t channels, std::int64_t height, std::int64_t width);
  static Shape vector(std::int64_t features);
  static Shape sequence(std::int64_t steps, std::int64_t features);

  std::int64_t elements() const;
  // "96x55x55" (C x H x W), "4096", "35x1024" (T x F).
  std::string to_string() const;
  // "image 96x55x55", "vector 4096", "sequence 35x1024".
  std::string describe() const;
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
};

enum class Precision { fp32, fp16, bf16, int16, int8 };
// The model files' words (util/enum_names.h).
constexpr util::EnumNames<Precision, 5> enum_names(Precision) {
  return {{{Precision::fp32, "fp32"},
           {Precision::fp16, "fp16"},
           {Precision::bf16, "bf16"},
           {Precision::int16, "int16"},
           {Precision::int8, "int8"}}};
}

std::int64_t bytes_per_element(Precision precision);

}  // namespace reusesim::workload
