//===- TraceTest.cpp - Trace loader, generator and prompt text ------------===//

#include "arecipe/Client/PromptText.h"
#include "arecipe/Client/Trace.h"
#include "arecipe/Client/TraceGenerator.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace arecipe::client;

namespace {
size_t words(const std::string &S) {
  return S.empty() ? 0 : size_t(std::count(S.begin(), S.end(), ' ')) + 1;
}

TEST(Trace, ParsesSessionsTurnsAndSubagents) {
  auto R = parseTrace(
      R"({"session_id":"a","turns":[{"hash_ids":[1,2],"input_tokens":100,"output_tokens":5},)"
      R"({"hash_ids":[3],"output_tokens":7,"think_time_s":1.5,"subagents":[{"turns":[{"hash_ids":[9],"output_tokens":2}]}]}]})"
      "\n\n",
      "t.jsonl");
  ASSERT_TRUE(R.ok()) << R.Errors.front();
  ASSERT_EQ(R.Sessions.size(), 1u);
  const TraceSession &S = R.Sessions[0];
  EXPECT_EQ(S.Id, "a");
  ASSERT_EQ(S.Turns.size(), 2u);
  EXPECT_EQ(S.Turns[0].InputTokens, 100);
  EXPECT_EQ(S.Turns[1].InputTokens, 64); // defaults to 64 per block
  EXPECT_DOUBLE_EQ(S.Turns[1].ThinkTimeS, 1.5);
  ASSERT_EQ(S.Turns[1].Subagents.size(), 1u);
  EXPECT_EQ(S.Turns[1].Subagents[0].Turns[0].OutputTokens, 2);
}

TEST(Trace, ErrorsNameLineAndField) {
  auto R = parseTrace(
      "{\"session_id\":\"ok\",\"turns\":[{\"hash_ids\":[1],\"output_tokens\":1}]}\n"
      "{\"session_id\":\"b\",\"turns\":[{\"hash_ids\":[1,2],\"input_tokens\":64,\"output_tokens\":0}]}\n"
      "not json\n"
      "{\"turns\":[{\"hash_ids\":[-1],\"output_tokens\":3,\"think_time_s\":-2,\"extra\":1}]}\n",
      "t.jsonl");
  ASSERT_EQ(R.Sessions.size(), 1u);
  std::vector<std::string> Expected = {
      "t.jsonl:2: turns[0].input_tokens: 64 does not fit 2 blocks of 64 tokens (expected 65..128)",
      "t.jsonl:2: turns[0].output_tokens: expected a positive integer",
      "t.jsonl:3: session: not valid JSON",
      "t.jsonl:4: session_id: missing",
      "t.jsonl:4: turns[0].hash_ids: block ids must be non-negative integers",
      "t.jsonl:4: turns[0].think_time_s: expected a non-negative number of seconds",
      "t.jsonl:4: turns[0].extra: unknown field",
  };
  EXPECT_EQ(R.Errors, Expected);
}

TEST(Trace, SubagentsMayNotNest) {
  auto R = parseTrace(R"({"session_id":"a","turns":[{"hash_ids":[1],"output_tokens":1,"subagents":[)"
                      R"({"turns":[{"hash_ids":[2],"output_tokens":1,"subagents":[]}]}]}]})",
                      "t");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0], "t:1: turns[0].subagents[0].turns[0].subagents: sub-agents may not "
                         "spawn sub-agents");
}

TEST(Trace, EmptyFileIsAnError) {
  auto R = parseTrace("\n\n", "e.jsonl");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0], "e.jsonl: no sessions");
}

TEST(Trace, MissingFileIsAnError) {
  auto R = loadTraceFile("/nonexistent/trace.jsonl");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0], "/nonexistent/trace.jsonl: cannot open the trace file");
}

TEST(TraceGenerator, DeterministicAndRoundTrips) {
  TraceGeneratorOptions O;
  O.Sessions = 8;
  auto A = generateTrace(O), B = generateTrace(O);
  std::string TextA, TextB;
  for (auto &S : A)
    TextA += sessionToJsonLine(S) + "\n";
  for (auto &S : B)
    TextB += sessionToJsonLine(S) + "\n";
  EXPECT_EQ(TextA, TextB);
  auto Parsed = parseTrace(TextA, "gen");
  ASSERT_TRUE(Parsed.ok()) << Parsed.Errors.front();
  EXPECT_EQ(Parsed.Sessions.size(), 8u);
  O.Seed = 7;
  std::string TextC;
  for (auto &S : generateTrace(O))
    TextC += sessionToJsonLine(S) + "\n";
  EXPECT_NE(TextA, TextC);
}

TEST(TraceGenerator, SessionsShareTheSystemPromptAndRespectTheContextCap) {
  TraceGeneratorOptions O;
  O.Sessions = 20;
  O.MaxContextTokens = 50000;
  auto Sessions = generateTrace(O);
  for (const TraceSession &S : Sessions) {
    EXPECT_EQ(S.Turns[0].HashIds[0], 1u);
    int64_t Context = 0;
    for (const TraceTurn &T : S.Turns)
      Context += T.InputTokens + T.OutputTokens;
    EXPECT_LE(Context, 50000 + 60000 + 8000 + O.SystemPromptTokens); // first turn may exceed
  }
  TraceStats St = computeTraceStats(Sessions);
  EXPECT_EQ(St.Sessions, 20u);
  EXPECT_GT(St.TheoreticalPrefixHitRate, 0.5);
}

TEST(TraceStats, HandComputed) {
  TraceSession S;
  S.Turns.resize(2);
  S.Turns[0].InputTokens = 100;
  S.Turns[0].OutputTokens = 10;
  S.Turns[1].InputTokens = 50;
  S.Turns[1].OutputTokens = 20;
  S.Turns[1].ThinkTimeS = 3;
  TraceStats St = computeTraceStats({S});
  EXPECT_EQ(St.Requests, 2u);
  EXPECT_DOUBLE_EQ(St.FinalContextMean, 180);
  // prompts: 100 and 160; history reused: 0 and 110.
  EXPECT_DOUBLE_EQ(St.TheoreticalPrefixHitRate, 110.0 / 260.0);
  EXPECT_DOUBLE_EQ(St.ThinkMeanS, 3);
}

TEST(PromptText, BlocksAreDeterministicAndExactlySized) {
  std::string A, B, C;
  appendBlockWords(42, 64, A);
  appendBlockWords(42, 64, B);
  appendBlockWords(43, 64, C);
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
  EXPECT_EQ(words(A), 64u);
  std::string Short;
  appendBlockWords(42, 10, Short);
  EXPECT_EQ(words(Short), 10u);
  EXPECT_EQ(A.rfind(Short, 0), 0u); // a truncated block is a prefix of the block
}

TEST(PromptText, RandomWordsHaveTheRequestedCount) {
  std::string S;
  appendRandomWords(1, 1000, S);
  EXPECT_EQ(words(S), 1000u);
  EXPECT_EQ(S.find("  "), std::string::npos);
}

TEST(PromptText, CacheBustMarkerIsOneToken) {
  std::string M = cacheBustMarker(5);
  EXPECT_EQ(M.size(), 18u); // "[rid:" + 12 hex + "]"
  EXPECT_EQ(M.rfind("[rid:", 0), 0u);
  EXPECT_EQ(words(M), 1u);
  EXPECT_NE(M, cacheBustMarker(6));
}
} // namespace
