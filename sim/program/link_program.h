#pragma once
// What a chip does on the links between chips (docs/systems.md, "Collectives"): its part of a
// collective or of a point-to-point transfer, as steps the chip runs in order. parallel/ writes
// them; hw::LinkEngine runs them over hw::ChipLinks, so a collective's cost emerges from the
// links' bandwidth, latency and contention and from the vector unit's reductions.

#include <cstdint>
#include <string>
#include <vector>

#include "util/enum_names.h"

namespace reusesim::program {

enum class LinkStepKind { send, receive, reduce };
constexpr util::EnumNames<LinkStepKind, 3> enum_names(LinkStepKind) {
  return {{{LinkStepKind::send, "send"}, {LinkStepKind::receive, "receive"}, {LinkStepKind::reduce, "reduce"}}};
}

struct LinkStep {
  LinkStepKind kind = LinkStepKind::send;
  // send: bytes leave for chip `peer` at once (the step does not wait for them to arrive);
  // receive: wait until the next bytes chip `peer` sent this program have arrived;
  // reduce: add `elements` received elements into the chip's own on its vector unit (one op each).
  std::int64_t peer = -1;
  std::int64_t bytes = 0;
  std::int64_t elements = 0;

  bool operator==(const LinkStep& other) const {
    return kind == other.kind && peer == other.peer && bytes == other.bytes && elements == other.elements;
  }
};

// One collective (or transfer): every chip's steps, by the chip's index in the system (a chip that
// takes no part has none).
struct LinkProgram {
  std::string name;  // "ring all-reduce of 4,096 B over chips 0-3"
  std::vector<std::vector<LinkStep>> chips;

  // Bytes chip `chip` sends.
  std::int64_t sent_bytes(std::size_t chip) const {
    std::int64_t bytes = 0;
    for (const LinkStep& step : chips[chip]) bytes += step.kind == LinkStepKind::send ? step.bytes : 0;
    return bytes;
  }
};

}  // namespace reusesim::program
