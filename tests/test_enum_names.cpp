#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "spec/accelerator_spec.h"
#include "util/enum_names.h"
#include "workload/footprint.h"
#include "workload/layer.h"

// The one name table per enum (util/enum_names.h) that the loaders and the writers share.

namespace spec = reusesim::spec;
namespace util = reusesim::util;
namespace workload = reusesim::workload;

namespace {

// The table lists every value from the first to `last` in declaration order, each value's name
// reads back as the value, and no two values share a name.
template <typename Enum>
void check_names(Enum last) {
  const std::vector<std::string> names = util::names<Enum>();
  CHECK(names.size() == static_cast<std::size_t>(last) + 1);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    const std::optional<Enum> value = util::from_name<Enum>(names[i]);
    REQUIRE(value.has_value());
    CHECK(static_cast<std::size_t>(*value) == i);
    CHECK(util::name(*value) == names[i]);
    CHECK(std::count(names.begin(), names.end(), names[i]) == 1);
  }
  CHECK_FALSE(util::from_name<Enum>("no such name").has_value());
}

}  // namespace

TEST_CASE("every enum's name table reads back each name", "[enum_names]") {
  check_names(spec::ArrayKind::vector_mac);
  check_names(spec::Dataflow::is);
  check_names(spec::OutputStage::pooling);
  check_names(spec::LaneDimension::k);
  check_names(spec::TensorKind::outputs);
  check_names(spec::PagePolicy::closed);
  check_names(spec::RefreshMode::off);
  check_names(spec::DramPowerForm::per_access);
  check_names(spec::WriteDrainPolicy::drain_all);
  check_names(spec::AddressField::pseudo_channel);
  check_names(spec::AddressHash::xor_bank);
  check_names(workload::LayerType::position_embedding);
  check_names(workload::Activation::silu);
  check_names(workload::Precision::int8);
  check_names(workload::NumberFormat::fp32);
  check_names(workload::FootprintMode::train);
  check_names(workload::Optimizer::adam);
  // The words of the files, not the enumerators' spellings where they differ.
  CHECK(util::name(spec::AddressHash::xor_bank) == "xor");
  CHECK(util::name(spec::AddressField::bank_group) == "bg");
  CHECK(util::names<spec::Dataflow>() == std::vector<std::string>{"ws", "os", "is"});
}
