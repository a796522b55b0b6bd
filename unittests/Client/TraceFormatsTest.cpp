//===- TraceFormatsTest.cpp - Mooncake and Weka traces into sessions ------===//
//
// The committed samples (test/Client/Inputs/{mooncake,weka}-sample.jsonl,
// written in each format's published layout) convert into the sessions
// docs/traces.md describes, field by field.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/TraceFormats.h"

#include <gtest/gtest.h>

using namespace arecipe::client;

namespace {
const std::string Inputs = ARECIPE_CLIENT_TEST_INPUTS;

TEST(TraceFormats, Names) {
  EXPECT_EQ(parseTraceFormat("weka"), TraceFormat::Weka);
  EXPECT_EQ(parseTraceFormat("mooncake"), TraceFormat::Mooncake);
  EXPECT_EQ(parseTraceFormat("arecipe"), TraceFormat::Arecipe);
  EXPECT_FALSE(parseTraceFormat("sharegpt"));
}

TEST(TraceFormats, MooncakeRequestsBecomeSingleTurnSessions) {
  TraceLoadResult R = loadTrace(Inputs + "/mooncake-sample.jsonl", TraceFormat::Mooncake);
  ASSERT_TRUE(R.ok()) << R.Errors.front();
  ASSERT_EQ(R.Sessions.size(), 4u);
  const TraceSession &A = R.Sessions[0], &B = R.Sessions[1];
  EXPECT_EQ(A.Id, "mooncake-1");
  ASSERT_EQ(A.Turns.size(), 1u);
  EXPECT_EQ(A.Turns[0].InputTokens, 6755);
  EXPECT_EQ(A.Turns[0].OutputTokens, 500);
  // 14 blocks of 512 tokens are 112 blocks of 64; 6755 tokens need 106.
  ASSERT_EQ(A.Turns[0].HashIds.size(), 106u);
  EXPECT_EQ(A.Turns[0].HashIds[0], 0u);
  EXPECT_EQ(A.Turns[0].HashIds[9], 9u); // block 1, part 1
  // Requests sharing Mooncake block 0 share its eight 64-token blocks.
  std::vector<uint64_t> First8(A.Turns[0].HashIds.begin(), A.Turns[0].HashIds.begin() + 8);
  std::vector<uint64_t> Other8(B.Turns[0].HashIds.begin(), B.Turns[0].HashIds.begin() + 8);
  EXPECT_EQ(First8, Other8);
  EXPECT_NE(A.Turns[0].HashIds[8], B.Turns[0].HashIds[8]);
  EXPECT_EQ(R.Sessions[3].Turns[0].HashIds.size(), 8u); // exactly one full block
}

TEST(TraceFormats, WekaSessionsTurnsAndSubagents) {
  TraceLoadResult R = loadTrace(Inputs + "/weka-sample.jsonl", TraceFormat::Weka);
  ASSERT_TRUE(R.ok()) << R.Errors.front();
  ASSERT_EQ(R.Sessions.size(), 3u);

  // Session 1: `in` is the whole prompt; a turn adds what the history (the
  // earlier prompts and outputs) does not hold.
  const TraceSession &S = R.Sessions[0];
  EXPECT_EQ(S.Id, "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b");
  ASSERT_EQ(S.Turns.size(), 3u);
  EXPECT_EQ(S.Turns[0].InputTokens, 418);
  EXPECT_EQ(S.Turns[0].OutputTokens, 20);
  EXPECT_EQ(S.Turns[0].HashIds.size(), 7u);
  EXPECT_EQ(S.Turns[1].InputTokens, 560 - 418 - 20);
  EXPECT_DOUBLE_EQ(S.Turns[1].ThinkTimeS, 1.2); // recorded think_time
  EXPECT_EQ(S.Turns[2].InputTokens, 700 - 560 - 35);
  EXPECT_NEAR(S.Turns[2].ThinkTimeS, 10.2 - (4.1 + 1.9), 1e-9); // t - previous end
  // The sub-agent follows turn 1 and is a session of its own.
  ASSERT_EQ(S.Turns[1].Subagents.size(), 1u);
  const TraceSession &Sub = S.Turns[1].Subagents[0];
  ASSERT_EQ(Sub.Turns.size(), 2u);
  EXPECT_EQ(Sub.Turns[0].InputTokens, 300);
  EXPECT_EQ(Sub.Turns[1].InputTokens, 420 - 300 - 40);
  // Local scope: the sub-agent's first blocks are the parent's blocks 0..3.
  for (size_t K = 0; K < 4; ++K)
    EXPECT_EQ(Sub.Turns[0].HashIds[K], S.Turns[0].HashIds[K]);

  // A prompt shorter than the history (the context was compacted) starts a
  // new session.
  const TraceSession &Part = R.Sessions[1];
  EXPECT_EQ(Part.Id, "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b~1");
  ASSERT_EQ(Part.Turns.size(), 1u);
  EXPECT_EQ(Part.Turns[0].InputTokens, 450);

  // Session 2: a sub-agent's own sub-agent joins the same parent turn.
  const TraceSession &G = R.Sessions[2];
  ASSERT_EQ(G.Turns.size(), 2u);
  EXPECT_EQ(G.Turns[1].InputTokens, 200 - 130 - 10);
  EXPECT_DOUBLE_EQ(G.Turns[1].ThinkTimeS, 0.25);
  ASSERT_EQ(G.Turns[0].Subagents.size(), 2u);
  EXPECT_EQ(G.Turns[0].Subagents[0].Turns[0].InputTokens, 64);
  EXPECT_EQ(G.Turns[0].Subagents[1].Turns[0].InputTokens, 70);
  EXPECT_TRUE(G.Turns[0].Subagents[0].Turns[0].Subagents.empty());
  // Different sessions of local scope never share block ids.
  EXPECT_NE(S.Turns[0].HashIds[0], G.Turns[0].HashIds[0]);
}

TEST(TraceFormats, UnreadableFile) {
  TraceLoadResult R = loadTrace("/nonexistent/t.jsonl", TraceFormat::Weka);
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0], "/nonexistent/t.jsonl: cannot open the trace file");
}
} // namespace
