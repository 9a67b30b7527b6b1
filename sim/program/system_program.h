#pragma once
// What each chip of a system does, in order (docs/systems.md, "Running a model on a system"):
// segments of its layer runs, replayed on the chip as one accelerator replays a network, and its
// steps of link programs (collectives, transfers), run on the links between chips. parallel/
// writes it from a plan; hw::System runs it.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "program/link_program.h"
#include "program/program.h"

namespace reusesim::program {

struct ChipSegment {
  enum class Kind { layers, link };
  Kind kind = Kind::layers;
  std::size_t first_run = 0, end_run = 0;  // layers: the chip's runs [first_run, end_run)
  std::size_t link_program = 0;            // link: its index in SystemProgram::link_programs
  std::size_t batch = 0;                   // the batch it belongs to (its place in the run's batch sizes)
};

struct ChipWork {
  std::vector<LayerRun> runs;
  std::vector<ChipSegment> segments;
  // Another chip whose runs are these and whose segments are these, in order: the system replays
  // that chip's layers for both (hw::System, "symmetric"); -1: none, the chip replays its own.
  std::int64_t same_layers_as = -1;
};

struct SystemProgram {
  std::vector<ChipWork> chips;  // by chip
  std::vector<LinkProgram> link_programs;
};

}  // namespace reusesim::program
