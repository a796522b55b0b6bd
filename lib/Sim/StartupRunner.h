//===- StartupRunner.h - Plays the start-up plan on the log ----*- C++ -*-===//
//
// Startup.h decides what the engine does between exec and "Application
// startup complete"; this plays it in (scaled) time: each phase logs its
// start lines, lasts its simulated duration with progress lines, logs its
// end lines, and either hands over to the next phase, exits the process, or
// never ends (the log goes silent, as the real engine's does). /health says
// which phase is running until the last one completes.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_STARTUPRUNNER_H
#define ARECIPE_LIB_SIM_STARTUPRUNNER_H

#include "EventLoop.h"
#include "SimLog.h"
#include "arecipe/Sim/Startup.h"

#include <functional>
#include <memory>
#include <string>

namespace arecipe::sim {

class StartupRunner {
public:
  struct Hooks {
    std::function<void()> KvCacheAllocated; // the KV-cache phase began
    std::function<void()> Ready;            // every phase completed
    std::function<void(int)> Exit;          // a phase failed with this code
  };

  StartupRunner(const StartupPlan &Plan, EventLoop &Loop, const SimClock &Clock,
                const SimLog &Log, Hooks H);

  /// Starts the first phase.
  void start() { beginPhase(); }
  bool ready() const { return Ready; }
  /// The running phase's name ("… (stalled)" for one that never ends), or
  /// "ready".
  const std::string &phase() const { return PhaseName; }

private:
  void beginPhase();
  void endPhase();
  void progressTick();

  const StartupPlan &Plan;
  const SimClock &Clock;
  const SimLog &Log;
  Hooks H;
  std::unique_ptr<Timer> PhaseTimer;
  std::unique_ptr<Timer> ProgressTimer;
  size_t PhaseIndex = 0;
  int ProgressStep = 0;
  bool Ready = false;
  std::string PhaseName = "starting";
};

} // namespace arecipe::sim

#endif
