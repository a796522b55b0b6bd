//===- RouterPolicyTest.cpp - Which backend each routing policy picks -----===//
#include "arecipe/Sim/RouterPolicy.h"

#include <gtest/gtest.h>

#include <map>

using namespace arecipe::sim;

namespace {

std::vector<std::string> urls(int N) {
  std::vector<std::string> Out;
  for (int I = 0; I < N; ++I)
    Out.push_back("http://127.0.0.1:" + std::to_string(9000 + I));
  return Out;
}

TEST(RouterPolicy, NamesRoundTrip) {
  for (const char *Name :
       {"round_robin", "random", "consistent_hash", "dp_sticky", "pd"})
    EXPECT_STREQ(routingPolicyName(*routingPolicyFromName(Name)), Name);
  EXPECT_FALSE(routingPolicyFromName("least_loaded"));
}

TEST(RouterPolicy, RoundRobinTakesTurns) {
  BackendSelector S(RoutingPolicy::RoundRobin, urls(3), 0);
  std::vector<size_t> Got;
  for (int I = 0; I < 7; ++I)
    Got.push_back(S.choose("any").Backend);
  EXPECT_EQ(Got, (std::vector<size_t>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(RouterPolicy, RandomIsSeededAndSpreads) {
  BackendSelector A(RoutingPolicy::Random, urls(4), 42);
  BackendSelector B(RoutingPolicy::Random, urls(4), 42);
  BackendSelector C(RoutingPolicy::Random, urls(4), 43);
  std::vector<size_t> Counts(4);
  bool Differs = false;
  for (int I = 0; I < 4000; ++I) {
    size_t X = A.choose("").Backend;
    EXPECT_EQ(X, B.choose("").Backend); // same seed, same sequence
    Differs |= X != C.choose("").Backend;
    ++Counts[X];
  }
  EXPECT_TRUE(Differs);
  for (size_t N : Counts)
    EXPECT_NEAR(double(N), 1000, 150);
}

TEST(RouterPolicy, ConsistentHashKeepsKeysAndMovesFewWhenABackendIsAdded) {
  BackendSelector Four(RoutingPolicy::ConsistentHash, urls(4), 0);
  BackendSelector Five(RoutingPolicy::ConsistentHash, urls(5), 0);
  std::vector<size_t> Counts(4);
  int Moved = 0;
  const int Keys = 2000;
  for (int K = 0; K < Keys; ++K) {
    std::string Key = "session-" + std::to_string(K);
    BackendSelector::Choice First = Four.choose(Key);
    EXPECT_TRUE(First.NewKey);
    EXPECT_EQ(Four.choose(Key).Backend, First.Backend); // sticky
    EXPECT_FALSE(Four.choose(Key).NewKey);
    EXPECT_EQ(First.Backend, Four.ringLookup(Key));
    ++Counts[First.Backend];
    size_t After = Five.choose(Key).Backend;
    if (After != First.Backend) {
      EXPECT_EQ(After, 4u); // keys only move to the new backend
      ++Moved;
    }
  }
  for (size_t N : Counts)
    EXPECT_NEAR(double(N), Keys / 4.0, Keys / 4.0 * 0.25);
  // About 1/5 of the keys move to the fifth backend, not most of them.
  EXPECT_NEAR(double(Moved), Keys / 5.0, Keys / 5.0 * 0.35);
  EXPECT_EQ(Four.keys().size(), size_t(Keys));
}

TEST(RouterPolicy, DpStickyPutsNewSessionsWhereFewestAreAndKeepsThem) {
  BackendSelector S(RoutingPolicy::DpSticky, urls(2), 0);
  EXPECT_EQ(S.choose("s1").Backend, 0u);
  EXPECT_EQ(S.choose("s2").Backend, 1u);
  EXPECT_EQ(S.choose("s3").Backend, 0u);
  for (int I = 0; I < 5; ++I) {
    EXPECT_EQ(S.choose("s1").Backend, 0u);
    EXPECT_EQ(S.choose("s2").Backend, 1u);
  }
  EXPECT_EQ(S.choose("s4").Backend, 1u);
  EXPECT_EQ(S.sessionsPerBackend(), (std::vector<uint64_t>{2, 2}));
  // No key: round robin, counted.
  EXPECT_EQ(S.choose("").Backend, 0u);
  EXPECT_EQ(S.choose("").Backend, 1u);
  EXPECT_EQ(S.unkeyed(), 2u);
  EXPECT_EQ(S.keys().size(), 4u);
}

} // namespace
