//===- StepProfiler.h - /start_profile and /stop_profile traces -*- C++ -*-===//
//
// The engines' torch profiler, as far as a benchmark sees it: between
// /start_profile and /stop_profile every engine step is recorded, and stop
// writes them as a Chrome-trace JSON (`traceEvents` of `engine_step`) into
// the profiler directory, as the engines write their traces there.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_STEPPROFILER_H
#define ARECIPE_LIB_SIM_STEPPROFILER_H

#include "arecipe/Sim/Scheduler.h"

#include <string>
#include <vector>

namespace arecipe::sim {

class StepProfiler {
public:
  bool active() const { return Profiling; }
  void start(double Now);
  /// Records the step that starts at simulated time \p Start, while active
  /// (at most 200,000 steps per trace).
  void record(double Start, const StepResult &R) {
    if (Profiling && Trace.size() < 200000)
      Trace.push_back({Start, R.Seconds, R.Shape.Rows, R.Shape.DecodeSequences,
                       R.PrefillTokens});
  }
  /// Stops and writes the trace under \p Dir; returns the file's path, or ""
  /// when it cannot be written.
  std::string stop(double Now, const std::string &Dir, const char *Engine,
                   double TimeScale);

private:
  struct TraceStep {
    double Start, Seconds;
    long Rows, DecodeSequences, PrefillTokens;
  };
  bool Profiling = false;
  double ProfileStart = 0;
  std::vector<TraceStep> Trace;
  int TraceFiles = 0;
};

} // namespace arecipe::sim

#endif
