//===- LockstepTest.cpp - What the virtual clock waits for ----------------===//
#include "arecipe/Sim/Lockstep.h"

#include <gtest/gtest.h>

using namespace arecipe::sim;

namespace {

TEST(Lockstep, ClosedLoopWithoutWarmupKeepsEveryLaneBusy) {
  LockstepPlan P{4, 0, 10};
  EXPECT_EQ(lockstepExpectedArrivals(P, 0), 4u); // every lane sends at once
  EXPECT_EQ(lockstepExpectedArrivals(P, 1), 5u); // one ended, its lane sends
  EXPECT_EQ(lockstepExpectedArrivals(P, 6), 10u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 9), 10u); // the tail: nothing more
  EXPECT_EQ(lockstepExpectedArrivals(P, 10), 10u);
}

TEST(Lockstep, TheMeasuredPhaseOpensOnlyOnceTheWarmupHasDrained) {
  LockstepPlan P{4, 6, 14}; // 6 warm-up, 8 measured
  EXPECT_EQ(lockstepExpectedArrivals(P, 0), 4u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 2), 6u); // warm-up fully sent
  // Lanes that end now send nothing until the last warm-up request ends.
  EXPECT_EQ(lockstepExpectedArrivals(P, 3), 6u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 5), 6u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 6), 10u); // C measured at once
  EXPECT_EQ(lockstepExpectedArrivals(P, 7), 11u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 10), 14u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 14), 14u);
}

TEST(Lockstep, MoreLanesThanRequests) {
  LockstepPlan P{64, 2, 5};
  EXPECT_EQ(lockstepExpectedArrivals(P, 0), 2u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 1), 2u);
  EXPECT_EQ(lockstepExpectedArrivals(P, 2), 5u);
  // A warm-up larger than the run (refused by the options) never asks for
  // more than the run has.
  EXPECT_EQ(lockstepExpectedArrivals(LockstepPlan{4, 9, 5}, 0), 4u);
  EXPECT_EQ(lockstepExpectedArrivals(LockstepPlan{4, 9, 5}, 5), 5u);
}

} // namespace
