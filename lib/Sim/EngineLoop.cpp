//===- EngineLoop.cpp - The engine's steps on a virtual clock -------------===//
#include "EngineLoop.h"
#include "StepProfiler.h"

#include <algorithm>
#include <chrono>

namespace arecipe::sim {

EngineLoop::EngineLoop(const Roofline &Model, long CpuTierTokens, uint64_t Seed,
                       EventLoop &Loop, const SimClock &Clock,
                       StepProfiler &Profiler, Sink S)
    : Sched(Model, CpuTierTokens, Seed), Clock(Clock), Profiler(Profiler),
      Out(std::move(S)) {
  StepTimer = Loop.timer([this] { fire(); });
  GraceTimer = Loop.timer([this] { graceExpired(); });
}

void EngineLoop::enableLockstep(const LockstepPlan &ThePlan,
                                double GraceSeconds) {
  Lockstep = true;
  Plan = ThePlan;
  GraceWallSeconds = GraceSeconds;
}

void EngineLoop::submit(double ArrivedAt, ScheduledRequest Request,
                        uint64_t Seq) {
  if (Lockstep) {
    // Every request arrives between steps, at the end of the last one.
    ArrivedAt = EngineClock;
    ++Arrived;
    Live.insert(Request.Id);
    Forcing = false;
  }
  Incoming.push_back({ArrivedAt, std::move(Request), Seq});
  kick();
}

void EngineLoop::rejected() {
  if (!Lockstep)
    return;
  ++Arrived;
  ++Left;
  Forcing = false;
  kick();
}

void EngineLoop::graceExpired() {
  GraceArmed = false;
  Forcing = true;
  kick();
}

void EngineLoop::kick() {
  if (StepArmed || !Ready)
    return;
  StepArmed = true;
  StepTimer->arm(0);
}

void EngineLoop::admitArrivals() {
  if (Lockstep) {
    // Requests of one virtual instant join in the client's order, whatever
    // order their sockets were read in.
    std::stable_sort(
        Incoming.begin(), Incoming.end(),
        [](const Arrival &A, const Arrival &B) { return A.Seq < B.Seq; });
    for (Arrival &A : Incoming)
      Sched.add(std::move(A.Request));
    Incoming.clear();
    return;
  }
  // An idle engine waits for the next arrival rather than stepping empty.
  if (!Sched.hasWork() && !Incoming.empty())
    EngineClock = std::max(EngineClock, Incoming.front().At);
  while (!Incoming.empty() && Incoming.front().At <= EngineClock) {
    Sched.add(std::move(Incoming.front().Request));
    Incoming.pop_front();
  }
}

void EngineLoop::cancel(uint64_t Id) {
  auto It = std::find_if(Incoming.begin(), Incoming.end(),
                         [Id](const Arrival &A) { return A.Request.Id == Id; });
  if (It != Incoming.end())
    Incoming.erase(It);
  else
    Sched.cancel(Id);
  if (Lockstep && Live.erase(Id)) {
    ++Left;
    kick();
  }
}

void EngineLoop::fire() {
  StepArmed = false;
  runDueSteps();
  Out.FireDone();
}

std::optional<StepResult> EngineLoop::startStep() {
  admitArrivals();
  if (!Sched.hasWork())
    return std::nullopt;
  StepResult R = Sched.step();
  if (R.Seconds <= 0)
    return std::nullopt;
  BusySeconds += R.Seconds;
  Profiler.record(EngineClock, R);
  return R;
}

void EngineLoop::runLockstepSteps() {
  // As fast as the CPU allows, but a long run of steps still yields to the
  // network every few milliseconds, so streams flow and /health answers.
  const auto Deadline =
      SimClock::WallClock::now() + std::chrono::milliseconds(5);
  while (!Stopped) {
    const uint64_t Expected = lockstepExpectedArrivals(Plan, Left);
    if (Arrived >= Expected)
      Forcing = false;
    if (Arrived < Expected && !Forcing) {
      // Wait (in real time) for the client; a request that never comes
      // must not hang the engine, so the wait has a grace.
      if (!GraceArmed) {
        GraceArmed = true;
        GraceTimer->arm(GraceWallSeconds);
      }
      return;
    }
    if (GraceArmed) {
      GraceTimer->cancel();
      GraceArmed = false;
    }
    std::optional<StepResult> Step = startStep();
    if (!Step)
      return;
    StepResult &R = *Step;
    if (Arrived < Expected) {
      ++ForcedSteps;
      if (Out.ForcedStep)
        Out.ForcedStep(EngineClock, Arrived, Expected);
    }
    EngineClock += R.Seconds;
    for (const RequestProgress &P : R.Progress)
      if (P.Finished && Live.erase(P.Id))
        ++Left;
    Out.Deliver(R, EngineClock);
    if (SimClock::WallClock::now() > Deadline) {
      StepArmed = true;
      StepTimer->arm(0);
      return;
    }
  }
}

void EngineLoop::runDueSteps() {
  if (Lockstep) {
    runLockstepSteps();
    return;
  }
  const double Now = Clock.now();
  // A fire that cannot catch up in a few milliseconds yields to the network
  // and resumes at once, so new requests and /health are not starved.
  const auto Deadline =
      SimClock::WallClock::now() + std::chrono::milliseconds(5);
  while (!Stopped) {
    if (Pending) {
      if (PendingEnd > Now) {
        StepArmed = true;
        StepTimer->arm(Clock.toWall(PendingEnd - Now));
        return;
      }
      EngineClock = PendingEnd;
      StepResult R = std::move(*Pending);
      Pending.reset();
      Out.Deliver(R, EngineClock);
      if (SimClock::WallClock::now() > Deadline) {
        StepArmed = true;
        StepTimer->arm(0);
        return;
      }
      continue;
    }
    std::optional<StepResult> Step = startStep();
    if (!Step)
      return;
    PendingEnd = EngineClock + Step->Seconds;
    Pending = std::move(Step);
  }
}

} // namespace arecipe::sim
