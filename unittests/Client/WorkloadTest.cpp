//===- WorkloadTest.cpp - Fixed and agentic workloads end to end ----------===//

#include "arecipe/Client/CellSummary.h"
#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/TraceGenerator.h"
#include "arecipe/Client/Workload.h"

#include "StreamServer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <set>

using namespace arecipe::client;
using arecipe::bench::StreamServer;
using arecipe::bench::StreamServerOptions;

namespace {
class CollectingSink : public RecordSink {
public:
  void write(const RequestRecord &R) override { Lines.push_back(recordToJsonLine(R)); }
  std::vector<std::string> Lines;
};

class WorkloadTest : public ::testing::Test {
protected:
  void SetUp() override {
    StreamServerOptions O;
    O.TickUs = 200;
    Server = std::make_unique<StreamServer>(O);
    int Port = Server->listen();
    ASSERT_GT(Port, 0);
    Server->serveInBackground();
    Target.BaseUrl = "http://127.0.0.1:" + std::to_string(Port);
    Target.Model = "m";
  }
  std::unique_ptr<StreamServer> Server;
  Endpoint Target;
};

TEST(LengthRange, AroundFollowsVllmRangeRatio) {
  EXPECT_EQ(lengthRange(1024, 0.8, LengthRule::Around), (std::pair<int64_t, int64_t>{204, 1843}));
  EXPECT_EQ(lengthRange(1024, 0, LengthRule::Around), (std::pair<int64_t, int64_t>{1024, 1024}));
  EXPECT_EQ(lengthRange(1, 0.5, LengthRule::Around), (std::pair<int64_t, int64_t>{1, 1}));
}

TEST(LengthRange, BelowFollowsInferenceXClient) {
  // numpy randint(int(L * r), L + 1): the top is L itself.
  EXPECT_EQ(lengthRange(1024, 0.8, LengthRule::Below), (std::pair<int64_t, int64_t>{819, 1024}));
  EXPECT_EQ(lengthRange(8192, 0.8, LengthRule::Below), (std::pair<int64_t, int64_t>{6553, 8192}));
  EXPECT_EQ(lengthRange(1024, 1, LengthRule::Below), (std::pair<int64_t, int64_t>{1024, 1024}));
  // r = 0 would allow an empty prompt; the client sends at least one token.
  EXPECT_EQ(lengthRange(1024, 0, LengthRule::Below), (std::pair<int64_t, int64_t>{1, 1024}));
}

/// A closed-loop fixed workload of 4 lanes against Target.
static RunResult runFixed(const Endpoint &Target, const FixedWorkload &F,
                          CollectingSink &Sink) {
  WorkloadSpec Spec;
  Spec.Concurrency = 4;
  Spec.Kind = F;
  return runWorkload(Spec, Target, Sink);
}

// Every drawn length is inside lengthRange and both ends are drawn: the
// bounds are inclusive under either rule.
static void expectDrawsSpan(const Endpoint &Target, LengthRule Rule) {
  FixedWorkload F;
  F.InputTokens = 10;
  F.OutputTokens = 6;
  F.RangeRatio = 0.5;
  F.Rule = Rule;
  F.NumPrompts = 200;
  F.WarmupRequests = 0;
  CollectingSink Sink;
  RunResult R = runFixed(Target, F, Sink);
  ASSERT_FALSE(R.Aborted) << R.AbortReason;
  auto [InLo, InHi] = lengthRange(10, 0.5, Rule);
  auto [OutLo, OutHi] = lengthRange(6, 0.5, Rule);
  int64_t MinIn = INT64_MAX, MaxIn = 0, MinOut = INT64_MAX, MaxOut = 0;
  for (const RequestRecord &Rec : R.Records) {
    MinIn = std::min(MinIn, Rec.ExpectedInputTokens);
    MaxIn = std::max(MaxIn, Rec.ExpectedInputTokens);
    MinOut = std::min(MinOut, Rec.MaxOutputTokens);
    MaxOut = std::max(MaxOut, Rec.MaxOutputTokens);
  }
  EXPECT_EQ(R.Records.size(), 200u);
  EXPECT_EQ(MinIn, InLo);
  EXPECT_EQ(MaxIn, InHi);
  EXPECT_EQ(MinOut, OutLo);
  EXPECT_EQ(MaxOut, OutHi);
}

TEST_F(WorkloadTest, BelowRuleDrawsFromItsInclusiveRange) {
  // [5, 10] input and [3, 6] output tokens.
  expectDrawsSpan(Target, LengthRule::Below);
}

TEST_F(WorkloadTest, AroundRuleDrawsFromItsInclusiveRange) {
  // [5, 15] input and [3, 9] output tokens.
  expectDrawsSpan(Target, LengthRule::Around);
}

TEST_F(WorkloadTest, FixedClosedLoopSendsWarmupThenPrompts) {
  FixedWorkload F;
  F.InputTokens = 50;
  F.OutputTokens = 8;
  F.RangeRatio = 0.5;
  CollectingSink Sink;
  RunResult R = runFixed(Target, F, Sink);
  ASSERT_FALSE(R.Aborted) << R.AbortReason;
  // 10 x 4 measured + 2 x 4 warm-up, every one written to the sink.
  EXPECT_EQ(R.Records.size(), 48u);
  EXPECT_EQ(Sink.Lines.size(), 48u);
  CellMetrics M = computeCellMetrics(R.Records, GpuTopology::aggregated(1));
  EXPECT_EQ(M.NumWarmup, 8u);
  EXPECT_EQ(M.NumSuccessful, 40u);
  EXPECT_EQ(M.UsageFallbacks, 0u);
  auto [Lo, Hi] = lengthRange(8, 0.5, LengthRule::Around);
  for (const RequestRecord &Rec : R.Records) {
    EXPECT_GE(Rec.OutputTokens, Lo);
    EXPECT_LE(Rec.OutputTokens, Hi);
    EXPECT_EQ(Rec.OutputTokens, Rec.MaxOutputTokens);
  }
  // Warm-up records all come before the window opens.
  for (const RequestRecord &Rec : R.Records) {
    if (Rec.RequestPhase == Phase::Warmup) {
      EXPECT_LE(Rec.EndNs, R.WindowStartNs);
    }
  }
  EXPECT_LE(R.PeakInFlight, 4u);
}

TEST_F(WorkloadTest, FixedOpenLoopSendsEveryPrompt) {
  WorkloadSpec Spec;
  Spec.Concurrency = 2; // cap
  FixedWorkload F;
  F.InputTokens = 10;
  F.OutputTokens = 4;
  F.NumPrompts = 12;
  F.WarmupRequests = 0;
  F.Arrival = ArrivalMode::Poisson;
  F.RequestRate = 500;
  Spec.Kind = F;
  NullRecordSink Sink;
  RunResult R = runWorkload(Spec, Target, Sink);
  ASSERT_EQ(R.Records.size(), 12u);
  for (const RequestRecord &Rec : R.Records) {
    EXPECT_TRUE(Rec.ok()) << Rec.ErrorMessage;
    EXPECT_EQ(Rec.Lane, -1);
    EXPECT_LE(Rec.ScheduledNs, Rec.DispatchedNs);
  }
  EXPECT_LE(R.PeakInFlight, 2u);
}

TEST_F(WorkloadTest, FailedRequestThresholdAbortsTheRun) {
  Target.Model = "fail-500";
  WorkloadSpec Spec;
  Spec.Concurrency = 2;
  FixedWorkload F;
  F.InputTokens = 4;
  F.OutputTokens = 2;
  F.WarmupRequests = 0;
  F.NumPrompts = 100;
  Spec.Kind = F;
  NullRecordSink Sink;
  RunResult R = runWorkload(Spec, Target, Sink);
  EXPECT_TRUE(R.Aborted);
  EXPECT_NE(R.AbortReason.find("failed-request threshold exceeded"), std::string::npos);
  EXPECT_LT(R.Records.size(), 100u);
  CellMetrics M = computeCellMetrics(R.Records, GpuTopology::aggregated(1));
  SummaryContext Ctx;
  auto J = buildCellSummary(M, R, Ctx);
  EXPECT_FALSE(J["arecipe_client"]["valid"].get<bool>());
  EXPECT_EQ(J["arecipe_client"]["errors_by_kind"]["http_status"].get<size_t>(), M.NumFailed);
}

TEST_F(WorkloadTest, AgenticSessionsKeepOneSessionIdAndGrowContext) {
  TraceGeneratorOptions G;
  G.Sessions = 4;
  G.TurnsMedian = 6;
  G.SystemPromptTokens = 128;
  G.FirstTurnMedianTokens = 200;
  G.ToolResultMedianTokens = 50;
  G.OutputMedianTokens = 6;
  G.ThinkMedianS = 0.001;
  G.ThinkMaxS = 0.005;
  G.SubagentProbability = 0.3;
  WorkloadSpec Spec;
  Spec.Concurrency = 3;
  AgenticWorkload A;
  A.Sessions = generateTrace(G);
  A.DurationS = 0.5;
  Spec.Kind = A;
  NullRecordSink Sink;
  RunResult R = runWorkload(Spec, Target, Sink);
  ASSERT_FALSE(R.Aborted) << R.AbortReason;
  std::map<std::string, std::vector<const RequestRecord *>> BySession;
  size_t Warmups = 0;
  for (const RequestRecord &Rec : R.Records) {
    EXPECT_TRUE(Rec.ok() || Rec.Error == ErrorKind::Cancelled) << Rec.ErrorMessage;
    ASSERT_FALSE(Rec.SessionId.empty());
    BySession[Rec.SessionId].push_back(&Rec);
    Warmups += Rec.RequestPhase == Phase::Warmup;
  }
  EXPECT_LE(Warmups, 3u);
  EXPECT_EQ(Server->distinctSessions(), BySession.size());
  size_t MultiTurn = 0;
  for (auto &[Id, Recs] : BySession)
    MultiTurn += Recs.size() >= 2;
  EXPECT_GT(MultiTurn, 0u);
  for (auto &[Id, Recs] : BySession) {
    for (size_t I = 1; I < Recs.size(); ++I) {
      // Turns of one session go out in order, on one lane, and every turn
      // resends the history, so the prompt grows.
      EXPECT_EQ(Recs[I]->Turn, Recs[I - 1]->Turn + 1) << Id;
      EXPECT_EQ(Recs[I]->Lane, Recs[I - 1]->Lane);
      EXPECT_GT(Recs[I]->ExpectedInputTokens, Recs[I - 1]->ExpectedInputTokens);
      EXPECT_GT(Recs[I]->InputTokens, Recs[I - 1]->InputTokens);
    }
  }
}

TEST(CellSummary, UsesInferenceXFieldNames) {
  RequestRecord Rec;
  Rec.ScheduledNs = 0;
  Rec.FirstTokenNs = 100000000;
  Rec.EndNs = 1100000000;
  Rec.InputTokens = 10;
  Rec.OutputTokens = 11;
  Rec.MaxOutputTokens = 11;
  Rec.UsageFromServer = true;
  RunResult Run;
  Run.Records = {Rec};
  CellMetrics M = computeCellMetrics(Run.Records, GpuTopology::aggregated(2));
  SummaryContext Ctx;
  Ctx.Metadata["hw"] = "mi355x";
  Ctx.Metadata["conc"] = 1;
  Ctx.ExpectedOutputTokens = expectedOutputTokens(Run.Records);
  auto J = buildCellSummary(M, Run, Ctx);
  EXPECT_EQ(J.begin().key(), "hw");
  EXPECT_EQ(J["num_requests_total"], 1);
  EXPECT_EQ(J["num_requests_successful"], 1);
  const auto &T = J["request_metrics"]["throughput"];
  EXPECT_DOUBLE_EQ(T["total"].get<double>(), 21 / 1.1);
  EXPECT_DOUBLE_EQ(T["per_gpu"]["total"].get<double>(), 21 / 1.1 / 2);
  EXPECT_DOUBLE_EQ(T["duration_seconds"].get<double>(), 1.1);
  const auto &L = J["request_metrics"]["latency"];
  for (const char *K : {"ttft", "e2el", "itl", "intvty", "e2e_norm_intvty"})
    for (const char *S : {"mean", "p50", "p75", "p90", "p95", "p99", "std"})
      EXPECT_TRUE(L[K].contains(S)) << K << "." << S;
  EXPECT_DOUBLE_EQ(L["itl"]["p90"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(L["intvty"]["p90"].get<double>(), 10);
  EXPECT_EQ(J["request_metrics"]["tokens"]["output_expected"], 11);
  EXPECT_FALSE(J["server_metrics"]["available"].get<bool>());
  EXPECT_TRUE(J["arecipe_client"]["valid"].get<bool>());
}

TEST(RequestRecord, JsonLineRoundTrip) {
  RequestRecord R;
  R.Id = 7;
  R.RequestPhase = Phase::Warmup;
  R.SessionId = "s1#0";
  R.Turn = 3;
  R.ScheduledNs = 5;
  R.EndNs = 9;
  R.ChunkNs = {6, 7, 8};
  R.Error = ErrorKind::ContextOverflow;
  R.ErrorMessage = "too long";
  std::string Err;
  auto Back = recordFromJsonLine(recordToJsonLine(R), Err);
  ASSERT_TRUE(Back) << Err;
  EXPECT_EQ(recordToJsonLine(*Back), recordToJsonLine(R));
  EXPECT_FALSE(recordFromJsonLine("{\"id\":1}", Err));
}
} // namespace
