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
}

void EngineLoop::submit(double ArrivedAt, ScheduledRequest Request) {
  Incoming.push_back({ArrivedAt, std::move(Request)});
  kick();
}

void EngineLoop::kick() {
  if (StepArmed || !Ready)
    return;
  StepArmed = true;
  StepTimer->arm(0);
}

void EngineLoop::admitArrivals() {
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
}

void EngineLoop::fire() {
  StepArmed = false;
  runDueSteps();
  Out.FireDone();
}

void EngineLoop::runDueSteps() {
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
    admitArrivals();
    if (!Sched.hasWork())
      return;
    StepResult R = Sched.step();
    if (R.Seconds <= 0)
      return;
    BusySeconds += R.Seconds;
    Profiler.record(EngineClock, R);
    PendingEnd = EngineClock + R.Seconds;
    Pending = std::move(R);
  }
}

} // namespace arecipe::sim
