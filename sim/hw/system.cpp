#include "hw/system.h"

#include <string>

#include "hw/systemc_compat.h"

namespace reusesim::hw {

System::System(sc_core::sc_module_name name, const spec::SystemSpec& spec, program::SystemProgram program,
               spec::Fidelity fidelity, results::TimelineRecorder* timeline)
    : sc_core::sc_module(name),
      program_(std::move(program)),
      links_("links", spec),
      batch_barrier_(program_.chips.size()) {
  REUSESIM_HAS_PROCESS(System);
  const std::size_t chips = program_.chips.size();
  if (timeline != nullptr) {
    links_.record_to(*timeline);
    std::vector<std::string> names;
    for (const program::LinkProgram& link_program : program_.link_programs) names.push_back(link_program.name);
    timeline->set_link_programs(std::move(names));
  }
  for (std::size_t c = 0; c < chips; ++c) {
    const program::ChipWork& work = program_.chips[c];
    const std::string chip_name = "chip" + std::to_string(c);
    results::TimelineRecorder* chip_timeline = c == replayed_by(0) ? timeline : nullptr;
    chips_.push_back(work.same_layers_as >= 0 ? nullptr
                                              : std::make_unique<Accelerator>(chip_name.c_str(), spec.chip, work.runs,
                                                                              chip_timeline, fidelity, Driver::caller));
    engines_.push_back(std::make_unique<LinkEngine>(static_cast<std::int64_t>(c), spec.chip, links_));
  }
  for (std::size_t c = 0; c < chips; ++c) {
    const std::string controller_name = "chip" + std::to_string(c) + "_controller";
    const ChipController* twin = nullptr;
    if (program_.chips[c].same_layers_as >= 0)
      twin = controllers_.at(static_cast<std::size_t>(program_.chips[c].same_layers_as)).get();
    controllers_.push_back(std::make_unique<ChipController>(controller_name.c_str(), static_cast<std::int64_t>(c),
                                                            program_.chips[c], program_.link_programs, chips_[c].get(),
                                                            twin, *engines_[c], batch_barrier_));
  }
  SC_THREAD(stop_when_done);
}

void System::stop_when_done() {
  for (const auto& controller : controllers_) {
    while (!controller->finished()) sc_core::wait(controller->segment_done());
  }
  sc_core::sc_stop();
}

bool System::finished() const {
  for (const auto& controller : controllers_) {
    if (!controller->finished()) return false;
  }
  return true;
}

std::size_t System::replayed_by(std::size_t chip) const {
  const std::int64_t twin = program_.chips[chip].same_layers_as;
  return twin >= 0 ? static_cast<std::size_t>(twin) : chip;
}

const std::vector<results::LayerResult>& System::layer_results(std::size_t chip) const {
  return chips_[chip]->results();
}

results::DramChannelStats System::memory_stats(std::size_t chip) const { return chips_[chip]->memory_stats(); }

std::vector<results::CollectiveResult> System::collectives() const {
  std::vector<results::CollectiveResult> all;
  for (const auto& controller : controllers_)
    all.insert(all.end(), controller->collectives().begin(), controller->collectives().end());
  return all;
}

std::string System::symmetry_problem() const {
  for (std::size_t c = 0; c < controllers_.size(); ++c) {
    const std::size_t twin = replayed_by(c);
    if (twin == c) continue;
    const std::vector<std::uint64_t>& own = controllers_[c]->segment_start_ps();
    const std::vector<std::uint64_t>& twins = controllers_[twin]->segment_start_ps();
    for (std::size_t s = 0; s < own.size(); ++s) {
      if (program_.chips[c].segments[s].kind != program::ChipSegment::Kind::layers || own[s] == twins.at(s)) continue;
      return "chip " + std::to_string(c) + " reached its segment " + std::to_string(s) + " at " +
             std::to_string(own[s]) + " ps, its twin chip " + std::to_string(twin) + " at " +
             std::to_string(twins.at(s)) + " ps";
    }
  }
  return "";
}

}  // namespace reusesim::hw
