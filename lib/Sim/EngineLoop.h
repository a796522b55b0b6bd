//===- EngineLoop.h - The engine's steps on a virtual clock ----*- C++ -*-===//
//
// Drives the Scheduler in simulated time. The engine runs on its own clock,
// not on timer fires: a step planned at engine time t ends at t + duration,
// and its tokens are due at wall time start + (t + duration) / K. When the
// engine timer fires, every step that is due by then is completed in turn
// (catch-up), each starting where the previous one ended, so simulated time
// tracks K x wall time however coarse the timer is. A request joins the
// first step that starts after its simulated arrival, as in a real engine.
// What a completed step produced goes to a sink (the HTTP side); the loop
// knows nothing about connections.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_ENGINELOOP_H
#define ARECIPE_LIB_SIM_ENGINELOOP_H

#include "EventLoop.h"
#include "SimLog.h"
#include "arecipe/Sim/Scheduler.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace arecipe::sim {

class StepProfiler;

class EngineLoop {
public:
  struct Sink {
    /// A step completed at simulated time \p StepEnd.
    std::function<void(const StepResult &, double StepEnd)> Deliver;
    /// The timer fire is over: whatever Deliver queued may be sent.
    std::function<void()> FireDone;
  };

  EngineLoop(const Roofline &Model, long CpuTierTokens, uint64_t Seed,
             EventLoop &Loop, const SimClock &Clock, StepProfiler &Profiler,
             Sink S);

  /// Steps run only once the engine is ready (start-up complete).
  void setReady() { Ready = true; }
  /// Stops stepping for good (the process is exiting).
  void stop() { Stopped = true; }

  /// Queues a request that arrived at simulated time \p ArrivedAt.
  void submit(double ArrivedAt, ScheduledRequest Request);
  /// Forgets a request, waiting or running (its client went away).
  void cancel(uint64_t Id);

  const Scheduler &scheduler() const { return Sched; }
  double busySeconds() const { return BusySeconds; }

private:
  void kick();
  void fire();
  void runDueSteps();
  void admitArrivals();

  /// A request that reached the front end, waiting for the engine clock to
  /// pass its simulated arrival time.
  struct Arrival {
    double At;
    ScheduledRequest Request;
  };

  Scheduler Sched;
  const SimClock &Clock;
  StepProfiler &Profiler;
  Sink Out;
  std::unique_ptr<Timer> StepTimer;
  bool Ready = false;
  bool Stopped = false;
  std::deque<Arrival> Incoming;
  bool StepArmed = false;
  double EngineClock = 0; // simulated start of the next step
  std::optional<StepResult> Pending;
  double PendingEnd = 0; // simulated end of the pending step
  double BusySeconds = 0;
};

} // namespace arecipe::sim

#endif
