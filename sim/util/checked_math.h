#pragma once
// Counts (MACs, bytes, elements) multiplied and added with a check: an absurd input says so
// instead of wrapping around.

#include <cstdint>
#include <initializer_list>
#include <stdexcept>

namespace reusesim::util {

// A product or sum of counts that would not fit in 64 bits: the input is absurd, say so.
class CountOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

std::int64_t checked_mul(std::int64_t a, std::int64_t b);
std::int64_t checked_add(std::int64_t a, std::int64_t b);
std::int64_t checked_product(std::initializer_list<std::int64_t> factors);

}  // namespace reusesim::util
