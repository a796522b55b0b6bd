//===- MetricsTest.cpp - Cell metrics against hand-computed values --------===//

#include "arecipe/Client/Metrics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

using namespace arecipe::client;

namespace {
constexpr int64_t Sec = 1000000000;

RequestRecord request(double Sched, double First, double End, int64_t In, int64_t Out) {
  RequestRecord R;
  R.ScheduledNs = int64_t(Sched * Sec);
  R.DispatchedNs = R.ScheduledNs;
  R.FirstTokenNs = int64_t(First * Sec);
  R.EndNs = int64_t(End * Sec);
  R.InputTokens = In;
  R.OutputTokens = Out;
  R.UsageFromServer = true;
  return R;
}

// Four successful measured requests, plus a warm-up, a failure and a
// cancellation that must not move any latency or throughput figure.
std::vector<RequestRecord> cell() {
  std::vector<RequestRecord> Rs = {
      request(0, 0.5, 2.5, 100, 5),   // TTFT 0.5, E2E 2.5, ITL 2.0/4  = 0.5
      request(1, 1.2, 3.2, 200, 11),  // TTFT 0.2, E2E 2.2, ITL 2.0/10 = 0.2
      request(2, 3.0, 6.0, 300, 4),   // TTFT 1.0, E2E 4.0, ITL 3.0/3  = 1.0
      request(2.5, 2.6, 4.6, 400, 21) // TTFT 0.1, E2E 2.1, ITL 2.0/20 = 0.1
  };
  Rs[0].ChunkNs = {int64_t(0.5 * Sec), int64_t(1.0 * Sec), int64_t(2.5 * Sec)};
  RequestRecord Warm = request(-10, -9, 100, 1000000, 1000);
  Warm.RequestPhase = Phase::Warmup;
  RequestRecord Failed = request(0, 0, 50, 7, 7);
  Failed.Error = ErrorKind::HttpStatus;
  RequestRecord Cancelled = request(0, 0, 60, 7, 7);
  Cancelled.Error = ErrorKind::Cancelled;
  Rs.push_back(Warm);
  Rs.push_back(Failed);
  Rs.push_back(Cancelled);
  return Rs;
}

TEST(Percentile, LinearInterpolationBetweenRanks) {
  std::vector<double> V = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile(V, 50), 2.5);  // rank 1.5
  EXPECT_DOUBLE_EQ(percentile(V, 75), 3.25); // rank 2.25
  EXPECT_DOUBLE_EQ(percentile(V, 90), 3.7);  // rank 2.7
  EXPECT_DOUBLE_EQ(percentile(V, 99), 3.97); // rank 2.97
  EXPECT_DOUBLE_EQ(percentile(V, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(V, 100), 4);
  EXPECT_DOUBLE_EQ(percentile({7}, 90), 7);
}

TEST(Summarize, MeanAndPopulationStd) {
  Distribution D = summarize({0.5, 0.2, 1.0, 0.1});
  EXPECT_EQ(D.Count, 4u);
  EXPECT_DOUBLE_EQ(D.Mean, 0.45);
  EXPECT_NEAR(D.Std, 0.35, 1e-12); // sqrt(0.49 / 4)
  EXPECT_NEAR(D.P50, 0.35, 1e-12);
}

TEST(ReciprocalSummary, PercentilesAreReciprocalsOfLatencyPercentiles) {
  Distribution D = reciprocalSummary({0.5, 0.2, 1.0, 0.1});
  EXPECT_NEAR(D.P90, 1 / 0.85, 1e-12); // p90 of latency = 0.85: the slow tail
  EXPECT_NEAR(D.P50, 1 / 0.35, 1e-12);
  EXPECT_NEAR(D.Mean, (2.0 + 5.0 + 1.0 + 10.0) / 4, 1e-12);
}

TEST(GpuTopology, AggregatedCountsTpPpPcp) {
  EXPECT_EQ(GpuTopology::aggregated(8).gpus(), 8);
  EXPECT_EQ(GpuTopology::aggregated(8, 2).gpus(), 16);
  EXPECT_EQ(GpuTopology::aggregated(4, 1, 2).gpus(), 8);
}

TEST(GpuTopology, DisaggregatedCountsBothPools) {
  // 1P (TP8) + 1D (TP8) = 16; 2P (TP4) + 1D (TP8) = 16; agg over the
  // pipeline (decode workers 0) counts only the prefill server.
  EXPECT_EQ(GpuTopology::disaggregated(1, 8, 1, 1, 8).gpus(), 16);
  EXPECT_EQ(GpuTopology::disaggregated(2, 4, 1, 1, 8).gpus(), 16);
  EXPECT_EQ(GpuTopology::disaggregated(1, 8, 2, 0, 8).gpus(), 16);
}

TEST(CellMetrics, CountsExcludeWarmupAndCancelled) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::aggregated(8));
  EXPECT_EQ(M.NumWarmup, 1u);
  EXPECT_EQ(M.NumCancelled, 1u);
  EXPECT_EQ(M.NumTotal, 5u);
  EXPECT_EQ(M.NumSuccessful, 4u);
  EXPECT_EQ(M.NumFailed, 1u);
  EXPECT_EQ(M.ErrorsByKind.at("http_status"), 1u);
  EXPECT_DOUBLE_EQ(M.ErrorRate, 0.2);
}

TEST(CellMetrics, ThroughputOverFirstStartToLastEnd) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::aggregated(8));
  // duration = 6.0 - 0.0; Σ ISL = 1000, Σ OSL = 41.
  EXPECT_DOUBLE_EQ(M.Tput.DurationSeconds, 6.0);
  EXPECT_EQ(M.TotalInputTokens, 1000);
  EXPECT_EQ(M.TotalOutputTokens, 41);
  EXPECT_NEAR(M.Tput.Input, 1000.0 / 6, 1e-9);
  EXPECT_NEAR(M.Tput.Output, 41.0 / 6, 1e-9);
  EXPECT_NEAR(M.Tput.Total, 1041.0 / 6, 1e-9);
  EXPECT_NEAR(M.Tput.PerGpuTotal, 1041.0 / 6 / 8, 1e-9);
  EXPECT_NEAR(M.Tput.PerGpuOutput, 41.0 / 6 / 8, 1e-9);
}

TEST(CellMetrics, PerGpuDivisionForDisaggregatedCell) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::disaggregated(1, 8, 1, 2, 8));
  EXPECT_EQ(M.Gpus, 24);
  EXPECT_NEAR(M.Tput.PerGpuTotal, 1041.0 / 6 / 24, 1e-9);
  EXPECT_NEAR(M.Tput.PerGpuInput, 1000.0 / 6 / 24, 1e-9);
}

TEST(CellMetrics, LatenciesFromScheduledTime) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::aggregated(8));
  EXPECT_NEAR(M.Ttft.Mean, 0.45, 1e-9);
  EXPECT_NEAR(M.Ttft.Std, 0.35, 1e-9);
  EXPECT_NEAR(M.E2el.Mean, (2.5 + 2.2 + 4.0 + 2.1) / 4, 1e-9);
  // ITL sorted 0.1 0.2 0.5 1.0
  EXPECT_NEAR(M.Itl.P50, 0.35, 1e-9);
  EXPECT_NEAR(M.Itl.P90, 0.85, 1e-9);
  EXPECT_NEAR(M.Itl.P95, 0.925, 1e-9);
}

TEST(CellMetrics, Interactivity) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::aggregated(8));
  EXPECT_NEAR(M.p90Interactivity(), 1 / 0.85, 1e-9);
  // ITL + TTFT/OSL: 0.6, 0.2181818, 1.25, 0.1047619; p90 at rank 2.7
  // = 0.6 + 0.7 * (1.25 - 0.6) = 1.055.
  EXPECT_NEAR(M.p90E2eNormInteractivity(), 1 / 1.055, 1e-9);
}

TEST(CellMetrics, ChunkGapsAreANamedApartView) {
  CellMetrics M = computeCellMetrics(cell(), GpuTopology::aggregated(8));
  EXPECT_EQ(M.ChunkGap.Count, 2u); // 0.5 and 1.5 from the first request
  EXPECT_NEAR(M.ChunkGap.Mean, 1.0, 1e-9);
  EXPECT_EQ(M.Itl.Count, 4u);
}

// computeCellMetrics sorts the chunk gaps as integers and ITL once for both
// of its views; every figure must be what sorting each view's seconds gives,
// bit for bit, for gaps of any sign and size and for repeated values.
TEST(CellMetrics, SortedOnceEqualsEachViewSortedOnItsOwn) {
  std::mt19937_64 Rng(11);
  for (int Round = 0; Round < 30; ++Round) {
    std::vector<RequestRecord> Rs;
    std::vector<double> Gaps, Itl, Ttft;
    for (int I = 0, N = 1 + int(Rng() % 300); I < N; ++I) {
      RequestRecord R = request(double(Rng() % 1000) / 7, 0, 0, 10, int64_t(Rng() % 40));
      R.FirstTokenNs = R.ScheduledNs + int64_t(Rng() % Sec);
      int64_t T = R.FirstTokenNs;
      for (int64_t K = 0, C = int64_t(Rng() % 50); K < C; ++K) {
        R.ChunkNs.push_back(T);
        if (K)
          Gaps.push_back(double(T - R.ChunkNs[size_t(K - 1)]) / 1e9);
        // Mostly small gaps, some repeated, some negative, some huge.
        int64_t Step = Rng() % 5 == 0    ? 5000000
                       : Rng() % 9 == 0  ? -int64_t(Rng() % Sec)
                       : Rng() % 31 == 0 ? int64_t(Rng() >> 4)
                                         : int64_t(Rng() % 20000000);
        T += Step;
      }
      R.EndNs = R.FirstTokenNs + int64_t(Rng() % (3 * Sec)) - (Rng() % 10 == 0 ? 2 * Sec : 0);
      double TtftS = double(R.FirstTokenNs - R.ScheduledNs) / 1e9;
      Ttft.push_back(TtftS);
      if (R.OutputTokens >= 2)
        Itl.push_back((double(R.EndNs - R.ScheduledNs) / 1e9 - TtftS) / double(R.OutputTokens - 1));
      Rs.push_back(std::move(R));
    }
    CellMetrics M = computeCellMetrics(Rs, GpuTopology::aggregated(1));
    auto Same = [](const Distribution &A, const Distribution &B) {
      EXPECT_EQ(A.Count, B.Count);
      for (auto F :
           {&Distribution::Mean, &Distribution::Std, &Distribution::P50, &Distribution::P75,
            &Distribution::P90, &Distribution::P95, &Distribution::P99})
        EXPECT_EQ(std::memcmp(&(A.*F), &(B.*F), sizeof(double)), 0) << A.*F << " vs " << B.*F;
    };
    Same(M.ChunkGap, summarize(Gaps));
    Same(M.Itl, summarize(Itl));
    Same(M.Intvty, reciprocalSummary(Itl));
    Same(M.Ttft, summarize(Ttft));
  }
}

TEST(CellMetrics, SingleTokenOutputHasNoItl) {
  std::vector<RequestRecord> Rs = {request(0, 1, 1, 10, 1), request(0, 0.5, 1.5, 10, 3)};
  CellMetrics M = computeCellMetrics(Rs, GpuTopology::aggregated(1));
  EXPECT_EQ(M.ItlExcluded, 1u);
  EXPECT_EQ(M.Itl.Count, 1u);
  EXPECT_EQ(M.Ttft.Count, 2u);
  EXPECT_NEAR(M.Itl.Mean, 0.5, 1e-12);
}

TEST(CellMetrics, UsageFallbackIsCounted) {
  std::vector<RequestRecord> Rs = {request(0, 1, 2, 10, 3)};
  Rs[0].UsageFromServer = false;
  EXPECT_EQ(computeCellMetrics(Rs, GpuTopology::aggregated(1)).UsageFallbacks, 1u);
}

TEST(CellMetrics, NoSuccessLeavesThroughputZero) {
  RequestRecord F = request(0, 0, 1, 1, 1);
  F.Error = ErrorKind::Timeout;
  CellMetrics M = computeCellMetrics({F}, GpuTopology::aggregated(8));
  EXPECT_EQ(M.NumSuccessful, 0u);
  EXPECT_DOUBLE_EQ(M.Tput.Total, 0);
  EXPECT_DOUBLE_EQ(M.ErrorRate, 1.0);
}
} // namespace

// Repeats: the 95 % confidence interval of a mean by Student's t, checked
// against values worked by hand from the published t table.
TEST(MeanInterval95, ThreeRepeatsByHand) {
  // mean 12, sample std sqrt(((-2)^2 + 0 + 2^2) / 2) = 2, standard error
  // 2 / sqrt(3) = 1.154701, t(0.975, 2) = 4.3027: half-width 4.968330.
  MeanInterval M = meanInterval95({10, 12, 14});
  EXPECT_EQ(M.Count, 3u);
  EXPECT_DOUBLE_EQ(M.Mean, 12);
  EXPECT_DOUBLE_EQ(M.Std, 2);
  EXPECT_NEAR(M.Low, 12 - 4.968330, 1e-6);
  EXPECT_NEAR(M.High, 12 + 4.968330, 1e-6);
}

TEST(MeanInterval95, FiveRepeatsByHand) {
  // mean 3, std sqrt(10 / 4) = 1.581139, se 0.707107, t(0.975, 4) = 2.7764:
  // half-width 1.963212.
  MeanInterval M = meanInterval95({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(M.Mean, 3);
  EXPECT_NEAR(M.Std, 1.581139, 1e-6);
  EXPECT_NEAR(M.Low, 1.036788, 1e-6);
  EXPECT_NEAR(M.High, 4.963212, 1e-6);
}

TEST(MeanInterval95, OneValueHasNoSpread) {
  MeanInterval M = meanInterval95({7.5});
  EXPECT_EQ(M.Count, 1u);
  EXPECT_DOUBLE_EQ(M.Std, 0);
  EXPECT_DOUBLE_EQ(M.Low, 7.5);
  EXPECT_DOUBLE_EQ(M.High, 7.5);
  EXPECT_EQ(meanInterval95({}).Count, 0u);
}

TEST(StudentT975, TableAndExpansion) {
  EXPECT_DOUBLE_EQ(studentT975(1), 12.7062);
  EXPECT_DOUBLE_EQ(studentT975(9), 2.2622);
  EXPECT_DOUBLE_EQ(studentT975(30), 2.0423);
  // Beyond the table: t(0.975, 40) = 2.021075, t(0.975, 120) = 1.979930
  // (numerical integration of the t density); tends to the normal 1.959964.
  EXPECT_NEAR(studentT975(40), 2.021075, 1e-5);
  EXPECT_NEAR(studentT975(120), 1.979930, 1e-5);
  EXPECT_NEAR(studentT975(1000000), 1.959964, 1e-5);
  EXPECT_GT(studentT975(31), studentT975(32));
}
