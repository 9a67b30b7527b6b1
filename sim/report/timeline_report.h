#pragma once
// `reusesim run --timeline`: the replay as a trace for chrome://tracing or ui.perfetto.dev (the
// JSON trace-event format, ts and dur in microseconds). Tracks, units and the merging rule:
// docs/timeline.md.

#include <cstdint>
#include <string>
#include <vector>

#include "results/timeline_recorder.h"
#include "report/run_report.h"

namespace reusesim::report {

// What a system run's trace says of the system: chip 0's tracks are drawn as an accelerator's,
// then each chip's segments and each link between chips that carried data.
struct SystemTimeline {
  std::string system;
  std::int64_t chips = 0;
  std::vector<std::int64_t> batches;  // the run's batch sizes, by place (ChipSegmentSpan::batch)
};

// The trace of the run `report` describes (with `system`, chip 0's in a system's run), from what
// `timeline` recorded during it. Throws std::logic_error if the recorder saw another number of
// layers than the report has.
std::string render_timeline(const RunReport& report, const results::TimelineRecorder& timeline,
                            const SystemTimeline* system = nullptr);

}  // namespace reusesim::report
