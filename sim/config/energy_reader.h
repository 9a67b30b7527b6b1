#pragma once
// Technology tables (configs/energy/, an accelerator's `technology`) and a DRAM file's `power`
// block -> spec::TechnologySpec / spec::DramPowerSpec (docs/energy-model.md). Every entry is checked:
// energies and areas finite and positive, IDD currents in the order physics allows.

#include "config/node_reader.h"
#include "spec/accelerator_spec.h"

namespace reusesim::config {

// A technology table's fields (preset already resolved).
spec::TechnologySpec read_technology(MapReader& reader);
// A DRAM's power block; `dram` supplies the bus width the devices must divide.
spec::DramPowerSpec read_dram_power(MapReader& reader, const spec::DramSpec& dram);
// What energy reporting needs of an accelerator that names a technology: an operand type, table
// entries for its operand and accumulator types, and a DRAM power block unless the memory is
// ideal. Problems are reported at `technology`'s location.
void check_energy_inputs(const spec::AcceleratorSpec& accelerator, const util::SourceLocation& technology,
                         util::Diagnostics& diagnostics);

}  // namespace reusesim::config
