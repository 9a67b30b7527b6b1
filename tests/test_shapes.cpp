// Shapes, precisions and checked arithmetic.
#include <catch2/catch.hpp>

#include <limits>

#include "util/checked_math.h"
#include "workload/shape.h"

using namespace reusesim::workload;
namespace util = reusesim::util;

TEST_CASE("shapes print C x H x W, features, or T x F", "[shapes]") {
  CHECK(Shape::image(96, 55, 55).to_string() == "96x55x55");
  CHECK(Shape::image(96, 55, 55).elements() == 290'400);
  CHECK(Shape::vector(4096).describe() == "vector 4096");
  CHECK(Shape::sequence(35, 1024).describe() == "sequence 35x1024");
  CHECK(Shape::sequence(35, 1024).elements() == 35'840);
  CHECK(Shape::image(1, 2, 3) != Shape::image(1, 3, 2));
}

TEST_CASE("precisions: names and bytes per element", "[shapes]") {
  CHECK(bytes_per_element(Precision::fp32) == 4);
  CHECK(bytes_per_element(Precision::bf16) == 2);
  CHECK(bytes_per_element(Precision::int16) == 2);
  CHECK(bytes_per_element(Precision::int8) == 1);
  CHECK_FALSE(reusesim::util::from_name<Precision>("fp64").has_value());
}

TEST_CASE("checked arithmetic refuses to wrap", "[shapes]") {
  CHECK(util::checked_product({1024, 1024, 1024}) == 1'073'741'824);
  CHECK_THROWS_WITH(util::checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 31),
                    "count overflow: 4294967296 x 2147483648 does not fit in 64 bits");
  CHECK_THROWS_AS(util::checked_add(std::numeric_limits<std::int64_t>::max(), 1), util::CountOverflow);
  CHECK_THROWS_AS(Shape::image(std::int64_t{1} << 30, std::int64_t{1} << 30, std::int64_t{1} << 30).elements(),
                  util::CountOverflow);
}
