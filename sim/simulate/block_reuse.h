#pragma once
// The rows of the copies a run with block reuse left out (workload/block_reuse.h): each a copy of
// the second copy's row, so every output has the model's every layer and its TOTAL the whole model's.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "program/system_program.h"
#include "results/layer_result.h"
#include "results/system_result.h"
#include "simulate/replay.h"
#include "workload/block_reuse.h"

namespace reusesim::simulate {

// `rows` (one batch's, or one micro-batch's, in run order) with the rows of each reused block's
// left-out copies after its second copy's: that copy's rows, named as the copy's layers, their
// mapping naming the row they repeat. The DRAM figures of the batch (on its last row) add the
// inserted rows' counters and latency counts; their percentiles stay the simulated layers'.
// Returns "" , or (a bug) the block whose second copy has no rows; throws nothing, as it runs
// after the simulation.
std::string insert_reused_copies(std::vector<results::LayerResult>& rows,
                                 const std::vector<workload::ReusedBlock>& reused);

// Whether link program `name` (a collective after a layer: "layers_2/o: ring all-reduce ...") is
// one of the second copy of a reused block: what the copies after it repeat.
bool repeated_link_program(const std::string& name, const std::vector<workload::ReusedBlock>& reused);

// A system's replay of a model cut to two copies of its blocks (one pipeline stage, so one
// micro-batch), made the whole model's. On each chip a later copy takes as long as the second did:
// from the end of its last collective to the end of the second's (with no collective, its layers'
// time), so the chip's collectives after the second copy move later by the copies' time and the
// copies' collectives come in between, each the second's moved by its period. A batch ends later
// by the most any chip's copies took, and the batches after it start later by as much; chip 0's
// layers and collectives time grow by its copies'. Links add the copies' traffic: what the second
// copy's collectives added to each (`program_links`, by link program, in replay.links' order).
// Each replayed chip's rows are completed as the accelerator's (insert_reused_copies above).
// Returns "" or a problem, throws nothing (it runs after the simulation).
std::string insert_reused_copies(SystemReplay& replay, const program::SystemProgram& program,
                                 const std::vector<workload::ReusedBlock>& reused,
                                 const std::map<std::size_t, std::vector<results::ChipLinkFigures>>& program_links);

}  // namespace reusesim::simulate
