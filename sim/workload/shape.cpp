#include "workload/shape.h"

#include "util/checked_math.h"

namespace reusesim::workload {

Shape Shape::image(std::int64_t channels, std::int64_t height, std::int64_t width) {
  Shape shape;
  shape.kind = ShapeKind::image;
  shape.channels = channels;
  shape.height = height;
  shape.width = width;
  return shape;
}

Shape Shape::vector(std::int64_t features) {
  Shape shape;
  shape.kind = ShapeKind::vector;
  shape.features = features;
  return shape;
}

Shape Shape::sequence(std::int64_t steps, std::int64_t features) {
  Shape shape;
  shape.kind = ShapeKind::sequence;
  shape.steps = steps;
  shape.features = features;
  return shape;
}

std::int64_t Shape::elements() const {
  switch (kind) {
    case ShapeKind::image: return util::checked_product({channels, height, width});
    case ShapeKind::sequence: return util::checked_mul(steps, features);
    default: return features;
  }
}

std::string Shape::to_string() const {
  switch (kind) {
    case ShapeKind::image:
      return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
    case ShapeKind::sequence: return std::to_string(steps) + "x" + std::to_string(features);
    default: return std::to_string(features);
  }
}

std::string Shape::describe() const {
  switch (kind) {
    case ShapeKind::image: return "image " + to_string();
    case ShapeKind::sequence: return "sequence " + to_string();
    default: return "vector " + to_string();
  }
}

bool Shape::operator==(const Shape& other) const {
  return kind == other.kind && channels == other.channels && height == other.height && width == other.width &&
         steps == other.steps && features == other.features;
}

std::int64_t bytes_per_element(Precision precision) {
  switch (precision) {
    case Precision::fp32: return 4;
    case Precision::fp16:
    case Precision::bf16:
    case Precision::int16: return 2;
    default: return 1;
  }
}

}  // namespace reusesim::workload
