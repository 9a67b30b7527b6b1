#pragma once
// The system top (docs/systems.md, "Running a model on a system"): its chips (hw::Accelerator
// each, with its own DRAM), the links between them (hw::ChipLinks) and, per chip, a link engine
// and the controller that sequences the chip's work (hw::ChipController). The simulation stops
// when every chip has done its work.
//
// A chip whose work names a twin (program::ChipWork::same_layers_as) is not built: its twin's
// replay stands for its layers, and symmetry_problem() says whether that was exact.

#include <systemc>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hw/accelerator.h"
#include "hw/chip_controller.h"
#include "hw/chip_links.h"
#include "hw/link_engine.h"
#include "program/system_program.h"
#include "spec/fidelity.h"
#include "spec/system_spec.h"

namespace reusesim::hw {

class System : public sc_core::sc_module {
 public:
  // With a `timeline`, the chip that replays chip 0's layers records its tracks there, and the
  // links their transfers.
  System(sc_core::sc_module_name name, const spec::SystemSpec& spec, program::SystemProgram program,
         spec::Fidelity fidelity = spec::Fidelity::exact, results::TimelineRecorder* timeline = nullptr);

  bool finished() const;
  // The chip that replayed chip `chip`'s layers: itself, or its twin.
  std::size_t replayed_by(std::size_t chip) const;
  // The layers' results of a chip that replayed its own (replayed_by(chip) == chip).
  const std::vector<results::LayerResult>& layer_results(std::size_t chip) const;
  results::DramChannelStats memory_stats(std::size_t chip) const;
  // Every chip's part of the link programs, chip after chip.
  std::vector<results::CollectiveResult> collectives() const;
  const timing::SystemLinks& links() const { return links_.links(); }
  ChipLinks& chip_links() { return links_; }
  const ChipController& controller(std::size_t chip) const { return *controllers_[chip]; }
  // "" when every chip without an accelerator reached each layer segment when its twin did (its
  // twin's replay was then its own); otherwise the first chip and segment that did not.
  std::string symmetry_problem() const;
  const program::SystemProgram& program() const { return program_; }

 private:
  void stop_when_done();

  program::SystemProgram program_;
  ChipLinks links_;
  BatchBarrier batch_barrier_;
  std::vector<std::unique_ptr<Accelerator>> chips_;  // by chip; null where a twin replays
  std::vector<std::unique_ptr<LinkEngine>> engines_;
  std::vector<std::unique_ptr<ChipController>> controllers_;
};

}  // namespace reusesim::hw
