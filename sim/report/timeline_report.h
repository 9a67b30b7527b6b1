#pragma once
// `reusesim run --timeline`: the replay as a trace for chrome://tracing or ui.perfetto.dev (the
// JSON trace-event format, ts and dur in microseconds). Tracks, units and the merging rule:
// docs/timeline.md.

#include <string>

#include "results/timeline_recorder.h"
#include "report/run_report.h"

namespace reusesim::report {

// The trace of the run `report` describes, from what `timeline` recorded during it. Throws
// std::logic_error if the recorder saw another number of layers than the report has.
std::string render_timeline(const RunReport& report, const results::TimelineRecorder& timeline);

}  // namespace reusesim::report
