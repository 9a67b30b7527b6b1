// Table output: exact integers, CSV quoting, JSON nulls for "not applicable".
#include <catch2/catch.hpp>

#include "report/table.h"

using namespace reusesim::report;

TEST_CASE("digits are grouped for reading", "[report]") {
  CHECK(group_digits(0) == "0");
  CHECK(group_digits(999) == "999");
  CHECK(group_digits(1000) == "1,000");
  CHECK(group_digits(724406816) == "724,406,816");
  CHECK(group_digits(-1234567) == "-1,234,567");
}

TEST_CASE("one table, three formats", "[report]") {
  Table table({{"layer"}, {"macs"}, {"gbps", 1}});
  table.add_row({std::string("conv,1"), std::int64_t{105415200}, 351.947});
  table.add_row({std::string("pool"), std::int64_t{0}, Cell()});
  CHECK(table.to_csv() == "layer,macs,gbps\n\"conv,1\",105415200,351.947\npool,0,\n");
  CHECK(table.to_text() ==
        "layer          macs   gbps\n"
        "conv,1  105,415,200  351.9\n"
        "pool              0      -\n");
  const nlohmann::ordered_json rows = table.to_json();
  CHECK(rows[0]["macs"] == 105415200);
  CHECK(rows[1]["gbps"].is_null());
  CHECK_THROWS(table.add_row({std::string("short")}));
  CHECK(format_from_name("csv") == Format::csv);
  CHECK_FALSE(format_from_name("xml").has_value());
}
