//===- StartupRunner.cpp - Plays the start-up plan on the log -------------===//
#include "StartupRunner.h"

#include <fmt/format.h>

namespace arecipe::sim {

StartupRunner::StartupRunner(const StartupPlan &Plan, EventLoop &Loop,
                             const SimClock &Clock, const SimLog &Log, Hooks H)
    : Plan(Plan), Clock(Clock), Log(Log), H(std::move(H)) {
  PhaseTimer = Loop.timer([this] { endPhase(); });
  ProgressTimer = Loop.timer([this] { progressTick(); });
}

void StartupRunner::beginPhase() {
  if (PhaseIndex >= Plan.Phases.size()) {
    Ready = true;
    PhaseName = "ready";
    Log.info("Started server process");
    Log.info("Waiting for application startup.");
    Log.info("Application startup complete.");
    H.Ready();
    return;
  }
  const StartupPhase &P = Plan.Phases[PhaseIndex];
  PhaseName = P.Name;
  for (const std::string &Line : P.StartLines)
    Log.info(Line);
  if (P.Name == "kv-cache")
    H.KvCacheAllocated();
  if (P.NeverEnds) {
    // Nothing more is logged: the runtime's stall detector must notice.
    PhaseName = P.Name + " (stalled)";
    return;
  }
  if (P.Seconds > 0) {
    PhaseTimer->arm(Clock.toWall(P.Seconds));
    if (!P.ProgressLabel.empty()) {
      ProgressStep = 0;
      ProgressTimer->arm(Clock.toWall(P.Seconds / 10));
    }
    return;
  }
  endPhase();
}

void StartupRunner::progressTick() {
  const StartupPhase &P = Plan.Phases[PhaseIndex];
  ++ProgressStep;
  Log.info(fmt::format("{}: {}%", P.ProgressLabel, ProgressStep * 10));
  if (ProgressStep < 9)
    ProgressTimer->arm(Clock.toWall(P.Seconds / 10));
}

void StartupRunner::endPhase() {
  ProgressTimer->cancel();
  const StartupPhase &P = Plan.Phases[PhaseIndex];
  for (const std::string &Line : P.EndLines)
    Log(P.ExitCode ? LogLevel::Error : LogLevel::Info, Line);
  if (P.ExitCode) {
    H.Exit(P.ExitCode);
    return;
  }
  ++PhaseIndex;
  beginPhase();
}

} // namespace arecipe::sim
