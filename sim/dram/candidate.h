#pragma once
// A command the controller could issue next, and the earliest cycle it may: a request's (RD or WR
// on a row hit, ACT to a closed bank, PRE on a conflict), a refresh's (its PREs, then REF), or the
// closed-page policy's PRE. Each part proposes its own; one rule picks among them all.

#include <cstddef>
#include <cstdint>

#include "dram/request_queue.h"
#include "timing/dram_timing.h"

namespace reusesim::dram {

struct Candidate {
  timing::DramCommand command = timing::DramCommand::activate;
  std::int64_t cycle = timing::DramTimingState::kNever;
  timing::BankTarget bank;
  std::int64_t row = 0;
  RequestRef request = kNoRef;  // the request it serves; kNoRef: a refresh's or the page policy's
  bool is_column = false;
  bool planned = false;  // a request command was found (else the request must wait)
  std::uint64_t sequence = 0;  // its request's
  std::int64_t not_before = 0;  // its request's ready cycle
  std::size_t flat_bank = 0;
  std::size_t floor_slot = 0;  // column candidates: their (rank, bank group, read/write)
};

// Earliest first; at equal cycles column commands (row hits) first, then the oldest.
inline bool earlier(const Candidate& a, const Candidate& b) {
  if (a.cycle != b.cycle) return a.cycle < b.cycle;
  if (a.is_column != b.is_column) return a.is_column;
  return a.sequence < b.sequence;
}

// Keeps in `best` whichever of it and `candidate` goes first (a candidate that can never go loses).
inline void consider(Candidate& best, const Candidate& candidate) {
  if (candidate.cycle == timing::DramTimingState::kNever) return;
  if (best.cycle == timing::DramTimingState::kNever || earlier(candidate, best)) best = candidate;
}

}  // namespace reusesim::dram
