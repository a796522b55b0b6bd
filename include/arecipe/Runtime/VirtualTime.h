//===- VirtualTime.h - Figures on the simulator's own clock -*- C++ -*-===//
//
// `arecipe-run --simulate --sim-clock virtual`: the engine simulator steps in
// lock-step with the client (arecipe-sim --sim-clock virtual) and writes each
// request's virtual times to a timeline file in the cell's directory. After
// the cell, those times replace the client's wall-clock timestamps in every
// record and in the measured window, so every latency and throughput figure
// is the simulator's simulated time, the same for any time scale, machine
// load or client speed. This is where the mode's scope is decided (which
// cells it can run, with the reason for the others), which arguments the
// simulated engine gets, and how a timeline is checked and applied: every
// record and every token event must have its virtual time, or the cell fails
// naming the request. docs/simulator.md, "Virtual clock".
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_VIRTUALTIME_H
#define ARECIPE_RUNTIME_VIRTUALTIME_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/RunSettings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace arecipe::client {
struct RunResult;
}

namespace arecipe::runtime {

/// Why cell \p C cannot run under --sim-clock virtual, as a message naming
/// the cell (`cell 'ID': --sim-clock virtual cannot run REASON`); empty
/// when it can.
/// The mode is exact for one engine server measured by a closed-loop
/// fixed-length workload; the reason names what is outside that.
std::string virtualClockRefusal(const Cell &C);

/// Where the simulated engine serving cell directory \p CellDir writes its
/// timeline.
std::string simTimelinePath(const std::string &CellDir);

/// The arecipe-sim options that put the client's target of \p C on the
/// virtual clock: the client's closed-loop shape, the timeline file, and a
/// grace of half the client's stall window (10 s without one).
std::vector<std::string> virtualClockSimArgs(const Cell &C,
                                             const RunSettings &S,
                                             const std::string &CellDir);

/// Virtual nanoseconds of the records: the engine's virtual time plus this
/// offset, so that time 0 is not read as "did not happen".
inline constexpr int64_t VirtualTimeBaseNs = 1000000000;

struct VirtualTimeReport {
  /// Steps the engine ran without waiting for every request it expected
  /// (its real-time grace ran out), in all and within the measured window.
  uint64_t ForcedSteps = 0, ForcedStepsMeasured = 0;
};

/// Replaces every timestamp of \p Run's records, and its window, by the
/// virtual times in the timeline \p Path, keyed by record id, and orders
/// the records by virtual end time, then id. False with
/// \p Err naming the request when a record or a token event has no virtual
/// time (nothing is changed then).
bool applyVirtualTimeline(const std::string &Path, client::RunResult &Run,
                          VirtualTimeReport &Report, std::string &Err);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_VIRTUALTIME_H
