//===- Lockstep.cpp - The virtual clock's model of a closed-loop client ---===//
#include "arecipe/Sim/Lockstep.h"

#include <algorithm>

namespace arecipe::sim {

uint64_t lockstepExpectedArrivals(const LockstepPlan &P, uint64_t Completed) {
  const uint64_t W = std::min(P.Warmup, P.Requests);
  if (Completed < W)
    return std::min(W, P.Concurrency + Completed);
  // The warm-up has drained: the measured phase opens with C lanes, and each
  // request that ends makes room for the next.
  const uint64_t Measured = P.Requests - W;
  return W + std::min(Measured, P.Concurrency + (Completed - W));
}

} // namespace arecipe::sim
