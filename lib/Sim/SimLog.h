//===- SimLog.h - The simulator's clock and its log lines -------*- C++ -*-===//
//
// Every component of arecipe-sim reads one clock and writes one log. The
// clock runs K simulated seconds per wall-clock second from the moment the
// process starts (K = --sim-time-scale); the log writes one line per call to
// stderr, in the engine's level names and stamped with the simulated time, so
// the runtime's stall detector and log tails read it as an engine's log.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_SIMLOG_H
#define ARECIPE_LIB_SIM_SIMLOG_H

#include "arecipe/Sim/SimOptions.h"

#include <chrono>
#include <string>
#include <string_view>

namespace arecipe::sim {

/// Simulated time since start-up: wall time multiplied by the time scale.
class SimClock {
public:
  using WallClock = std::chrono::steady_clock;

  explicit SimClock(double TimeScale)
      : Scale(TimeScale), Start(WallClock::now()) {}

  double now() const {
    return std::chrono::duration<double>(WallClock::now() - Start).count() *
           Scale;
  }
  double scale() const { return Scale; }
  /// Wall seconds that \p SimulatedSeconds of simulated time take.
  double toWall(double SimulatedSeconds) const {
    return SimulatedSeconds / Scale;
  }

private:
  double Scale;
  WallClock::time_point Start;
};

/// `LEVEL [arecipe-sim WHO sim=Ts xK] text` lines on stderr.
class SimLog {
public:
  SimLog(const SimClock &Clock, LogLevel Min, std::string Who)
      : Clock(Clock), Min(Min), Who(std::move(Who)) {}

  bool enabled(LogLevel Level) const { return Level >= Min; }
  void operator()(LogLevel Level, std::string_view Text) const;
  void info(std::string_view Text) const { (*this)(LogLevel::Info, Text); }
  void warning(std::string_view Text) const {
    (*this)(LogLevel::Warning, Text);
  }
  void error(std::string_view Text) const { (*this)(LogLevel::Error, Text); }
  void debug(std::string_view Text) const { (*this)(LogLevel::Debug, Text); }

private:
  const SimClock &Clock;
  LogLevel Min;
  std::string Who;
};

} // namespace arecipe::sim

#endif
