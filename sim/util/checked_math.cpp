#include "util/checked_math.h"

#include <string>

namespace reusesim::util {

namespace {

[[noreturn]] void overflow(std::int64_t a, const char* symbol, std::int64_t b) {
  throw CountOverflow("count overflow: " + std::to_string(a) + " " + symbol + " " + std::to_string(b) +
                      " does not fit in 64 bits");
}

}  // namespace

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) overflow(a, "x", b);
  return result;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) overflow(a, "+", b);
  return result;
}

std::int64_t checked_product(std::initializer_list<std::int64_t> factors) {
  std::int64_t result = 1;
  for (std::int64_t factor : factors) result = checked_mul(result, factor);
  return result;
}

}  // namespace reusesim::util
