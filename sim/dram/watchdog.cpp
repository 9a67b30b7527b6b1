#include "dram/watchdog.h"

#include <algorithm>

namespace reusesim::dram {

namespace {

std::int64_t refresh_rounds(const spec::DramSpec& spec, std::size_t refresh_units) {
  const std::int64_t gap = std::max<std::int64_t>(1, spec.timing.trefi - spec.refresh_cycles());
  return static_cast<std::int64_t>(refresh_units) * (spec.timing.trefi / gap + 4);
}

}  // namespace

Watchdog::Watchdog(const spec::DramSpec& spec, std::size_t refresh_units)
    : trefi_cycles_(spec.timing.trefi), bound_(refresh_rounds(spec, refresh_units)) {}

bool Watchdog::refresh_issued(bool requests_queued) {
  if (!requests_queued) {
    refreshes_without_progress_ = 0;
    return false;
  }
  if (++refreshes_without_progress_ <= bound_) return false;
  fired_ = true;
  return true;
}

std::string Watchdog::message() const {
  return std::to_string(bound_) + " refreshes went by without a read or write while requests waited: tREFI " +
         std::to_string(trefi_cycles_) + " leaves too little time between refreshes (docs/dram-model.md)";
}

}  // namespace reusesim::dram
