//===- CompletionStreamTest.cpp - OpenAI chunk interpretation -------------===//

#include "arecipe/Client/CompletionStream.h"

#include <gtest/gtest.h>

using namespace arecipe::client;

namespace {
TEST(CompletionStream, RoleOnlyChunkIsNotOutput) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"),
            ChunkKind::Other);
  EXPECT_EQ(D.outputChunks(), 0);
}

TEST(CompletionStream, ChatContentAndReasoningAreOutput) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"content":"hi"}}]})"), ChunkKind::Output);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})"),
            ChunkKind::Output);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"tool_calls":[{"index":0}]}}]})"),
            ChunkKind::Output);
  EXPECT_EQ(D.outputChunks(), 3);
}

TEST(CompletionStream, CompletionsTextIsOutput) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"index":0,"text":"a"}]})"), ChunkKind::Output);
}

TEST(CompletionStream, UsageChunkIsCaptured) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,)"
                      R"("prompt_tokens_details":{"cached_tokens":8}}})"),
            ChunkKind::Other);
  ASSERT_TRUE(D.hasUsage());
  EXPECT_EQ(D.usage().PromptTokens, 12);
  EXPECT_EQ(D.usage().CompletionTokens, 5);
  EXPECT_EQ(D.usage().CachedTokens, 8);
}

TEST(CompletionStream, DoneSentinel) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent("[DONE]"), ChunkKind::Done);
  EXPECT_TRUE(D.sawDone());
}

TEST(CompletionStream, InStreamErrorKeepsMessage) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"error":{"message":"maximum context length exceeded"}})"),
            ChunkKind::Error);
  EXPECT_EQ(D.errorMessage(), "maximum context length exceeded");
}

TEST(CompletionStream, NonJsonIsAnError) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent("{not json"), ChunkKind::Error);
  EXPECT_EQ(D.onEvent("[1,2]"), ChunkKind::Error);
}
} // namespace
