//===- Lockstep.h - What the virtual clock waits for ----------*- C++ -*-===//
//
// Under `--sim-clock virtual` the engine's clock no longer follows the wall
// clock: before each step it waits, in real time, until every request the
// client is going to send at this virtual instant has arrived, then runs the
// step at once. What "every request" is comes from the client's shape, which
// the runtime passes on the command line: a closed loop of C lanes that sends
// W warm-up requests, waits for all of them to end, then sends the measured
// ones, T in all. Given how many requests have left the engine (finished,
// cancelled or refused), that shape says exactly how many the client has sent
// once it has seen them end. Pure, so the rule is unit-tested apart from the
// event loop.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_LOCKSTEP_H
#define ARECIPE_SIM_LOCKSTEP_H

#include <cstdint>

namespace arecipe::sim {

struct LockstepPlan {
  /// Closed-loop lanes (C).
  uint64_t Concurrency = 0;
  /// Warm-up requests (W), all ended before the measured phase starts.
  uint64_t Warmup = 0;
  /// Every request of the run, warm-up included (T >= W).
  uint64_t Requests = 0;
};

/// The number of requests a closed-loop client of shape \p P has sent once
/// it has seen \p Completed of them end: in the warm-up phase
/// min(W, C + completed); once all W warm-up requests ended,
/// W + min(T - W, C + completed - W).
uint64_t lockstepExpectedArrivals(const LockstepPlan &P, uint64_t Completed);

} // namespace arecipe::sim

#endif
