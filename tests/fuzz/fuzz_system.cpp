// Fuzz target: system files (docs/systems.md). A system that loads has its links built, and every
// route between two chips must lead from one to the other over links that exist.

#include "config/system_loader.h"
#include "fuzz_support.h"
#include "timing/system_links.h"

using namespace reusesim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::accept_bad_input([&] {
    // The chip file is found from the shipped systems.
    const spec::SystemSpec system =
        config::load_system_text(fuzz::input_text(data, size), fuzz::source_path("configs/systems/fuzz.yaml"));
    timing::SystemLinks links(system);
    // Routes from chip 0 and to it: enough to cross every dimension without n^2 work on 4,096 chips.
    for (std::int64_t chip = 0; chip < system.chips; ++chip) {
      for (const auto& [from, to] : {std::pair{std::int64_t{0}, chip}, std::pair{chip, std::int64_t{0}}}) {
        const std::vector<std::int32_t>& route = links.route(from, to);
        if (route.size() > static_cast<std::size_t>(system.chips)) {
          throw fuzz::PropertyFailure("a route of more hops than chips");
        }
        for (const std::int32_t link : route) {
          if (link < 0 || static_cast<std::size_t>(link) >= links.link_count()) {
            throw fuzz::PropertyFailure("a route over a link that does not exist");
          }
        }
        if (links.carry(route, 0, 1) < links.hop_ps() * route.size()) {
          throw fuzz::PropertyFailure("bytes arrive before their head could");
        }
      }
    }
  });
  return 0;
}
