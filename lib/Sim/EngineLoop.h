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
// Under `--sim-clock virtual` (enableLockstep) the clock no longer follows
// the wall clock at all: before each step the loop waits, in real time, for
// the requests the closed-loop client will send at this virtual instant
// (Lockstep.h), admits them in the order of the client's sequence numbers,
// and runs the step at once; a request arrives at the end of the last step.
// The steps, and so every token's virtual time, then depend only on the
// requests and the seed, not on K, the machine's load or the client's speed.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_ENGINELOOP_H
#define ARECIPE_LIB_SIM_ENGINELOOP_H

#include "EventLoop.h"
#include "SimLog.h"
#include "arecipe/Sim/Lockstep.h"
#include "arecipe/Sim/Scheduler.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_set>

namespace arecipe::sim {

class StepProfiler;

class EngineLoop {
public:
  struct Sink {
    /// A step completed at simulated time \p StepEnd.
    std::function<void(const StepResult &, double StepEnd)> Deliver;
    /// The timer fire is over: whatever Deliver queued may be sent.
    std::function<void()> FireDone;
    /// Lock-step only: a step ran without waiting any longer for the
    /// requests the gate expected (its real-time grace ran out).
    std::function<void(double At, uint64_t Arrived, uint64_t Expected)>
        ForcedStep;
  };

  EngineLoop(const Roofline &Model, long CpuTierTokens, uint64_t Seed,
             EventLoop &Loop, const SimClock &Clock, StepProfiler &Profiler,
             Sink S);

  /// Steps run only once the engine is ready (start-up complete).
  void setReady() { Ready = true; }
  /// Stops stepping for good (the process is exiting).
  void stop() { Stopped = true; }

  /// Steps in lock-step with a closed-loop client of shape \p Plan; waits
  /// at most \p GraceWallSeconds for an expected request.
  void enableLockstep(const LockstepPlan &Plan, double GraceWallSeconds);
  bool lockstep() const { return Lockstep; }
  /// Lock-step: the engine's virtual time (the end of the last step), at
  /// which a request arriving now is stamped.
  double virtualNow() const { return EngineClock; }

  /// Queues a request that arrived at simulated time \p ArrivedAt; in
  /// lock-step, one with the client's sequence number \p Seq, admitted in
  /// the order of these numbers.
  void submit(double ArrivedAt, ScheduledRequest Request, uint64_t Seq = 0);
  /// Forgets a request, waiting or running (its client went away).
  void cancel(uint64_t Id);
  /// Lock-step: a request of the client was answered with an error before
  /// it reached the engine; it arrived and ended at once.
  void rejected();

  /// Lock-step counters, for /sim/info.
  uint64_t arrived() const { return Arrived; }
  uint64_t left() const { return Left; }
  uint64_t forcedSteps() const { return ForcedSteps; }
  uint64_t expectedArrivals() const {
    return lockstepExpectedArrivals(Plan, Left);
  }

  const Scheduler &scheduler() const { return Sched; }
  double busySeconds() const { return BusySeconds; }

private:
  void kick();
  void fire();
  void runDueSteps();
  void runLockstepSteps();
  void admitArrivals();
  /// Admits what has arrived and plans the next step, starting at
  /// EngineClock; none when there is nothing to do.
  std::optional<StepResult> startStep();
  void graceExpired();

  /// A request that reached the front end, waiting for the engine clock to
  /// pass its simulated arrival time.
  struct Arrival {
    double At;
    ScheduledRequest Request;
    uint64_t Seq = 0;
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

  // Lock-step (--sim-clock virtual).
  bool Lockstep = false;
  LockstepPlan Plan;
  double GraceWallSeconds = 10;
  std::unique_ptr<Timer> GraceTimer;
  bool GraceArmed = false;
  /// The grace ran out: steps run without waiting until the next request
  /// arrives (or one the gate expects leaves), each counted as forced.
  bool Forcing = false;
  uint64_t Arrived = 0; // requests of the client that reached the engine
  uint64_t Left = 0;    // of those, finished, cancelled or rejected
  uint64_t ForcedSteps = 0;
  std::unordered_set<uint64_t> Live; // engine ids of the client's requests
};

} // namespace arecipe::sim

#endif
