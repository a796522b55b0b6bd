//===- SchedulerTest.cpp - Continuous batching without a network ----------===//
#include "arecipe/Sim/Scheduler.h"
#include "SimTestProfiles.h"

#include <gtest/gtest.h>

#include <map>

using namespace arecipe::sim;
using namespace arecipe::sim::test;

namespace {

ScheduledRequest request(uint64_t Id, long Prompt, long MaxTokens,
                         std::vector<uint64_t> Blocks = {}) {
  return {Id, Prompt, std::move(Blocks), MaxTokens};
}

std::vector<uint64_t> blocks(uint64_t Seed, size_t Count) {
  std::vector<uint64_t> B;
  for (size_t I = 0; I < Count; ++I)
    B.push_back(Seed * 1000 + I);
  return B;
}

/// Runs steps until idle; returns per-request emitted tokens and the number
/// of steps each needed to finish.
struct RunOutcome {
  std::map<uint64_t, long> Tokens;
  std::map<uint64_t, long> Cached;
  std::map<uint64_t, int> FinishStep;
  int Steps = 0;
  double Seconds = 0;
};

RunOutcome runToIdle(Scheduler &S, int Limit = 100000) {
  RunOutcome R;
  while (S.hasWork() && R.Steps < Limit) {
    StepResult Step = S.step();
    ++R.Steps;
    R.Seconds += Step.Seconds;
    for (const RequestProgress &P : Step.Progress) {
      R.Tokens[P.Id] += P.NewTokens;
      R.Cached[P.Id] = P.CachedTokens;
      if (P.Finished)
        R.FinishStep[P.Id] = R.Steps;
    }
  }
  return R;
}

Roofline kimi(std::vector<std::string> Extra) {
  return Roofline(mi355x(), model("kimi_k3"), atomConfig(Extra));
}

TEST(Scheduler, EveryRequestGetsExactlyMaxTokens) {
  Scheduler S(kimi({"--max-num-seqs", "4"}), 0, 1);
  for (uint64_t Id = 1; Id <= 10; ++Id)
    S.add(request(Id, 100 * Id, 5 + Id));
  RunOutcome R = runToIdle(S);
  for (uint64_t Id = 1; Id <= 10; ++Id)
    EXPECT_EQ(R.Tokens[Id], long(5 + Id)) << Id;
  EXPECT_EQ(S.stats().FinishedRequests, 10u);
  EXPECT_EQ(S.stats().GenerationTokens, 105u);
  EXPECT_EQ(S.kvUsedTokens(), 0);
}

TEST(Scheduler, MaxNumSeqsBoundsTheRunningBatch) {
  Scheduler S(kimi({"--max-num-seqs", "3"}), 0, 1);
  for (uint64_t Id = 1; Id <= 7; ++Id)
    S.add(request(Id, 10, 50));
  S.step();
  EXPECT_EQ(S.runningCount(), 3u);
  EXPECT_EQ(S.waitingCount(), 4u);
}

TEST(Scheduler, PipelineStagesEachTakeABudgetOfDifferentSequences) {
  // PP 2: two micro-batches in flight, each with its own 8192-token budget;
  // a single sequence's chunk still fits one micro-batch.
  Scheduler Pp2(kimi({"-pp", "2", "--max-num-batched-tokens", "8192"}), 0, 1);
  Pp2.add(request(1, 20000, 1));
  Pp2.add(request(2, 20000, 1));
  StepResult Both = Pp2.step();
  EXPECT_EQ(Both.PrefillTokens, 2 * 8192);
  Scheduler Alone(kimi({"-pp", "2", "--max-num-batched-tokens", "8192"}), 0, 1);
  Alone.add(request(1, 20000, 1));
  StepResult One = Alone.step();
  EXPECT_EQ(One.PrefillTokens, 8192);
  // The second micro-batch rides in the pipeline: no longer than one.
  EXPECT_NEAR(Both.Seconds, One.Seconds, 1e-9);
}

TEST(Scheduler, ChunkedPrefillRespectsTheTokenBudget) {
  Scheduler S(kimi({"--max-num-batched-tokens", "8192"}), 0, 1);
  S.add(request(1, 20000, 1));
  StepResult First = S.step();
  EXPECT_EQ(First.PrefillTokens, 8192);
  EXPECT_TRUE(First.Progress.empty() || First.Progress[0].NewTokens == 0);
  EXPECT_EQ(S.step().PrefillTokens, 8192);
  StepResult Last = S.step();
  EXPECT_EQ(Last.PrefillTokens, 20000 - 2 * 8192);
  ASSERT_EQ(Last.Progress.size(), 1u);
  EXPECT_EQ(Last.Progress[0].NewTokens, 1); // the first token ends prefill
  EXPECT_TRUE(Last.Progress[0].Finished);
}

TEST(Scheduler, DecodesAreScheduledBeforePrefillChunks) {
  Scheduler S(kimi({"--max-num-batched-tokens", "1000"}), 0, 1);
  S.add(request(1, 10, 100));
  S.step(); // prefill of request 1, first token
  S.add(request(2, 5000, 1));
  StepResult Mixed = S.step();
  // One decode row, then the rest of the budget to request 2's prefill.
  EXPECT_EQ(Mixed.Shape.DecodeSequences, 1);
  EXPECT_EQ(Mixed.PrefillTokens, 999);
}

TEST(Scheduler, PrefixCacheServesARepeatedPrefix) {
  Scheduler S(kimi({}), 0, 1);
  S.add(request(1, 64 * 10 + 5, 2, blocks(7, 10)));
  RunOutcome First = runToIdle(S);
  EXPECT_EQ(First.Cached[1], 0);
  // The next turn resends the same 10 blocks plus new words.
  std::vector<uint64_t> Next = blocks(7, 10);
  Next.push_back(999);
  S.add(request(2, 64 * 11 + 3, 2, Next));
  RunOutcome Second = runToIdle(S);
  EXPECT_EQ(Second.Cached[2], 640);
  EXPECT_EQ(S.stats().PrefixHitTokens, 640u);
  EXPECT_EQ(S.stats().PrefixQueriedTokens, 645u + 707u);
  EXPECT_EQ(S.stats().PromptTokens, 645u + 707u - 640u);
}

TEST(Scheduler, CachedPromptStillComputesItsLastToken) {
  Scheduler S(kimi({}), 0, 1);
  S.add(request(1, 128, 1, blocks(3, 2)));
  runToIdle(S);
  S.add(request(2, 128, 1, blocks(3, 2)));
  RunOutcome R = runToIdle(S);
  EXPECT_EQ(R.Cached[2], 127);
}

TEST(Scheduler, PrefixCachingOffMeansNoHits) {
  Scheduler S(kimi({"--no-enable_prefix_caching"}), 0, 1);
  S.add(request(1, 640, 1, blocks(1, 10)));
  runToIdle(S);
  S.add(request(2, 640, 1, blocks(1, 10)));
  RunOutcome R = runToIdle(S);
  EXPECT_EQ(R.Cached[2], 0);
  EXPECT_EQ(S.stats().PrefixHitTokens, 0u);
}

TEST(Scheduler, CpuTierServesBlocksEvictedFromTheGpu) {
  // A tiny GPU pool (utilization just above the weights) that holds one
  // request; the CPU tier keeps what the GPU evicts.
  Roofline Small = kimi({"--gpu-memory-utilization", "0.7265",
                         "--max-num-seqs", "1"});
  long Capacity = Small.kvCapacityTokens();
  ASSERT_GT(Capacity, 1000);
  long Prompt = (Capacity / 64 - 2) * 64;
  Scheduler S(Small, 100 * Capacity, 1);
  S.add(request(1, Prompt, 1, blocks(1, Prompt / 64)));
  S.add(request(2, Prompt, 1, blocks(2, Prompt / 64)));
  runToIdle(S);
  S.add(request(3, Prompt, 1, blocks(1, Prompt / 64)));
  RunOutcome R = runToIdle(S);
  EXPECT_EQ(R.Cached[3], Prompt - 1);
  EXPECT_GT(S.stats().CpuHitTokens, 0u);
}

TEST(Scheduler, SpeculativeDecodingEmitsAlTokensPerStepOnAverage) {
  Scheduler S(kimi({"--method", "dspark", "--num-speculative-tokens", "3",
                    "--spec-decode-acceptance-length", "3.0"}),
              0, 42);
  EXPECT_NEAR(S.acceptanceProbability(), acceptanceProbabilityFor(3, 3.0),
              1e-12);
  S.add(request(1, 10, 200000));
  S.step(); // prefill + first token
  long Tokens = 0;
  const int Steps = 20000;
  for (int I = 0; I < Steps; ++I) {
    StepResult R = S.step();
    ASSERT_EQ(R.Shape.Rows, 4); // verifying 1 + 3 rows
    Tokens += R.Progress[0].NewTokens;
    ASSERT_GE(R.Progress[0].NewTokens, 1);
    ASSERT_LE(R.Progress[0].NewTokens, 4);
  }
  EXPECT_NEAR(double(Tokens) / Steps, 3.0, 0.05);
  EXPECT_EQ(S.stats().DraftTokens, 3u * Steps);
  EXPECT_EQ(S.stats().AcceptedTokens + Steps, uint64_t(Tokens));
}

TEST(Scheduler, AcceptanceProbabilitySolvesTheMeanLength) {
  for (int N : {1, 3, 7}) {
    for (double AL : {1.2, 1.8, double(N) / 2 + 1}) {
      double A = acceptanceProbabilityFor(N, AL);
      double Mean = 0, Term = 1;
      for (int I = 0; I <= N; ++I, Term *= A)
        Mean += Term;
      EXPECT_NEAR(Mean, AL, 1e-9) << N << " " << AL;
    }
  }
  EXPECT_EQ(acceptanceProbabilityFor(0, 3), 0);
  EXPECT_EQ(acceptanceProbabilityFor(3, 4), 1);
}

TEST(Scheduler, SeedMakesRunsReproducible) {
  auto Run = [](uint64_t Seed) {
    Scheduler S(kimi({"--method", "mtp", "--num-speculative-tokens", "2"}), 0,
                Seed);
    S.add(request(1, 10, 1000));
    return runToIdle(S).Steps;
  };
  EXPECT_EQ(Run(5), Run(5));
}

TEST(Scheduler, CancelFreesKvAndQueueSlots) {
  Scheduler S(kimi({"--max-num-seqs", "1"}), 0, 1);
  S.add(request(1, 100, 1000));
  S.add(request(2, 100, 3));
  S.step();
  EXPECT_EQ(S.kvUsedTokens(), 101);
  S.cancel(1);
  EXPECT_EQ(S.kvUsedTokens(), 0);
  RunOutcome R = runToIdle(S);
  EXPECT_EQ(R.Tokens[2], 3);
  EXPECT_EQ(R.Tokens.count(1), 0u);
}

TEST(Scheduler, PreemptsTheNewestSequenceWhenKvRunsOut) {
  Roofline Small = kimi({"--gpu-memory-utilization", "0.7265",
                         "--max-num-seqs", "8"});
  long Capacity = Small.kvCapacityTokens();
  Scheduler S(Small, 0, 1);
  long Prompt = Capacity / 2 - 10;
  S.add(request(1, Prompt, 100));
  S.add(request(2, Prompt, 100));
  RunOutcome R = runToIdle(S);
  EXPECT_GT(S.stats().Preemptions, 0u);
  EXPECT_EQ(R.Tokens[1], 100);
  EXPECT_EQ(R.Tokens[2], 100); // recomputed, not lost or duplicated
}

TEST(Scheduler, MoreConcurrencyMoreThroughputSlowerSteps) {
  auto Measure = [](int Conc, double &TokensPerSecond, double &StepSeconds) {
    Scheduler S(kimi({"--max-num-seqs", "128"}), 0, 1);
    for (int I = 0; I < Conc; ++I)
      S.add(request(I + 1, 1000, 500));
    RunOutcome R = runToIdle(S);
    TokensPerSecond = 500.0 * Conc / R.Seconds;
    StepSeconds = R.Seconds / R.Steps;
  };
  double T1, S1, T32, S32;
  Measure(1, T1, S1);
  Measure(32, T32, S32);
  EXPECT_GT(T32, 10 * T1);
  EXPECT_GT(S32, S1);
}

} // namespace
