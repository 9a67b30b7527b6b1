#pragma once
// The text form of data-movement programs, so that external compilers can drive the simulator and
// `reusesim run --dump-program` can hand its programs to `reusesim replay`. Plain C++.
//
// One line per directive, steps numbered from 0 in order within a layer (docs/program-format.md):
//   # reusesim data-movement program, version 1
//   layer <name> type <type> batch <b> [onchip_inputs <bytes>] [onchip_outputs <bytes>]
//   mapping <free text to the end of the line>
//   load <weights|inputs|outputs|state|kv_cache> addr 0x<hex> bytes <n> after <i,j,...|->
//   compute m <m> n <n> k <k> [groups <g>] [k_row <r>] [stationary inputs] vector_ops <v>
//           bytes <sram bytes> after <...>
//   vector ops <v> bytes <sram bytes> after <...>
//   store outputs addr 0x<hex> bytes <n> after <...>
//   end
//
// The reader checks everything strictly and reports the first 20 problems in line order at once as
// `origin:line:col: error: message`; it recomputes each layer's totals (MACs = m*n*k per compute
// step, vector ops, burst-widened DRAM bytes) rather than trusting the file. Writing what was read
// gives back the same text: write(read(write(x))) == write(x).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "program/program.h"
#include "spec/accelerator_spec.h"

namespace reusesim::program {

constexpr int kProgramFormatVersion = 1;

// Limits of the format (larger values are errors).
constexpr std::int64_t kMaxProgramBatch = 1'000'000;
constexpr std::uint64_t kMaxProgramAddress = (std::uint64_t{1} << 48) - 1;  // addresses below 2^48
constexpr std::uint64_t kMaxStepBytes = std::uint64_t{1} << 40;             // bytes of one step
constexpr std::int64_t kMaxStepCount = std::int64_t{1} << 50;               // m, n, k, ops; m*n*k
constexpr std::int64_t kMaxLayerTotal = std::int64_t{1} << 62;              // a layer's sums

// One layer's program and the batch size it was mapped for.
struct ProgramRecord {
  std::int64_t batch = 1;
  LayerProgram program;
  std::vector<int> step_lines;  // read_programs: the line of each step in the text
  int layer_line = 0;           // read_programs: the line of its layer line
};

// A program text that does not follow the format. what() holds every message, each followed by a
// newline; messages() the same without newlines, in line order (at most 20).
class ProgramFormatError : public std::runtime_error {
 public:
  explicit ProgramFormatError(std::vector<std::string> messages);
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
};

// The programs as text, in order. Throws std::invalid_argument for a program the format cannot
// carry: a compute step whose macs is not m*n*k, MACs or vector ops on a load or store, MACs on a
// vector step, a store of anything but outputs. (LayerProgram::estimated_cycles is not written.)
std::string write_programs(const std::vector<ProgramRecord>& programs);

// Parses `text`, which stands for the file `origin` in messages. `burst_bytes` (the DRAM burst)
// widens load and store ranges to whole bursts for dram_read_bytes and dram_write_bytes.
// Throws ProgramFormatError listing every problem; std::invalid_argument if burst_bytes is 0.
// A layer of more than `limits.layer_steps` steps or a text of more than `limits.total_steps`
// is refused at the first step beyond the limit, before the rest is read.
struct StepLimits {
  std::size_t layer_steps = kMaxLayerSteps;  // the limits of `run` (program/program.h)
  std::size_t total_steps = kMaxRunSteps;
};
std::vector<ProgramRecord> read_programs(const std::string& text, const std::string& origin,
                                         std::uint64_t burst_bytes, const StepLimits& limits = {});

// What the format cannot check alone, before a replay on `accelerator`: every step's cycles fit
// in 64 bits, a compute step reads at least its k x n weight tile from SRAM, and every tile a
// buffer must hold at once fits it: a load's bytes the buffer of its tensor (state: the inputs'
// one), a store's the outputs' buffer, a compute step's weight tile the weights' buffer (its
// other bytes are input reads, which may re-read the inputs' buffer). Throws ProgramFormatError
// listing the problems (up to 20) as `origin:line: error: layer L (batch b), step i: ...` (no line
// when the records were not read from text).
void check_programs_on(const std::vector<ProgramRecord>& programs, const spec::AcceleratorSpec& accelerator,
                       const std::string& origin);

}  // namespace reusesim::program
