//===- CompletionStreamTest.cpp - OpenAI chunk interpretation -------------===//

#include "arecipe/Client/CompletionStream.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <string>
#include <vector>

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
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})"), ChunkKind::Output);
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

TEST(CompletionStream, MalformedChunksAreErrors) {
  // Each is a token chunk broken in one place; none may count as output.
  for (const char *Data : {
           R"({"choices":[{"text":"a"}])",             // unclosed object
           R"({"choices":[{"text":"a"}]} x)",          // trailing garbage
           R"({"choices":[{"text":"a\q"}]})",          // unknown escape
           R"({"choices":[{"text":"\u12G4"}]})",       // bad unicode escape
           R"({"choices":[{"text":"\udc00"}]})",       // lone low surrogate
           R"({"choices":[{"text":"\ud800x"}]})",      // unpaired high surrogate
           "{\"choices\":[{\"text\":\"a\tb\"}]}",      // raw control character
           "{\"choices\":[{\"text\":\"\xff\"}]}",      // invalid UTF-8
           "{\"choices\":[{\"text\":\"\xe2\x82\"}]}",  // truncated UTF-8
           R"({"choices":[{"text":"a",}]})",           // trailing comma
           R"({"choices":[{"index":01,"text":"a"}]})", // leading zero
           R"({"choices":[{"index":1.,"text":"a"}]})", // bare decimal point
           R"({"choices":[{"text":"a"}],"x":tru})",    // bad literal
           R"({'choices':[]})",                        // single quotes
           "",
       }) {
    CompletionStreamDecoder D;
    EXPECT_EQ(D.onEvent(Data), ChunkKind::Error) << Data;
    EXPECT_EQ(D.outputChunks(), 0) << Data;
  }
}

TEST(CompletionStream, EscapesInsideContent) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"content":"say \"hi\" \\ \/"}}]})"),
            ChunkKind::Output);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"content":"\u00e9\ud83d\ude00"}}]})"),
            ChunkKind::Output);
  // An escaped quote does not end the string: the closing brace inside it is text.
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"\"}]}\""}]})"), ChunkKind::Output);
  EXPECT_EQ(D.onEvent("{\"choices\":[{\"text\":\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\"}]}"),
            ChunkKind::Output);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"\u0000"}]})"), ChunkKind::Output);
  EXPECT_EQ(D.outputChunks(), 5);
}

TEST(CompletionStream, NestedObjectsAroundTheChoice) {
  CompletionStreamDecoder D;
  // vLLM-style token chunk: logprobs with nested objects, escaped member
  // names among the top logprobs, null usage, floats.
  EXPECT_EQ(D.onEvent(R"({"id":"cmpl-1","object":"chat.completion.chunk","created":1700000000,)"
                      R"("model":"m","choices":[{"index":0,"delta":{"content":" the"},)"
                      R"("logprobs":{"content":[{"token":" the","logprob":-0.25,)"
                      R"("top_logprobs":[{"\n":-1.5},{"a":{"b":[[],{}]}}]}]},)"
                      R"("finish_reason":null,"stop_reason":null}],"usage":null})"),
            ChunkKind::Output);
  // Output-looking members outside a choice's delta do not count.
  EXPECT_EQ(D.onEvent(R"({"choices":[{"index":0,"x":{"content":"no","text":"no"},)"
                      R"("delta":{"role":"assistant","meta":{"content":"no"}}}]})"),
            ChunkKind::Other);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"delta":{"content":null,"tool_calls":[]}},)"
                      R"({"delta":{"reasoning":"r"}}]})"),
            ChunkKind::Output);
  EXPECT_EQ(D.onEvent(R"({"choices":[],"usage":null})"), ChunkKind::Other);
  EXPECT_EQ(D.onEvent(R"({"choices":"none"})"), ChunkKind::Other);
  EXPECT_EQ(D.outputChunks(), 2);
  EXPECT_FALSE(D.hasUsage());
}

TEST(CompletionStream, RepeatedMemberKeepsTheLastValue) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"a","text":""}]})"), ChunkKind::Other);
  EXPECT_EQ(D.onEvent(R"({"choices":[],"choices":[{"text":"a"}]})"), ChunkKind::Output);
}

TEST(CompletionStream, UsageAlongsideOutputIsCaptured) {
  // Continuous usage stats put usage on every token chunk.
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"a"}],"usage":{"prompt_tokens":3,)"
                      R"("completion_tokens":1}})"),
            ChunkKind::Output);
  ASSERT_TRUE(D.hasUsage());
  EXPECT_EQ(D.usage().CompletionTokens, 1);
}

// What the scanner must agree with: classification by the full parser.
ChunkScan parserVerdict(std::string_view Data) {
  using nlohmann::json;
  json J = json::parse(Data.begin(), Data.end(), nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object() || J.contains("error"))
    return ChunkScan::NeedsParser;
  if (auto U = J.find("usage"); U != J.end() && !U->is_null())
    return ChunkScan::NeedsParser;
  auto NonEmptyString = [](const json &O, const char *K) {
    auto It = O.find(K);
    return It != O.end() && It->is_string() && !It->get_ref<const std::string &>().empty();
  };
  bool Out = false;
  if (auto C = J.find("choices"); C != J.end() && C->is_array())
    for (const json &Choice : *C) {
      if (!Choice.is_object())
        continue;
      Out |= NonEmptyString(Choice, "text");
      auto D = Choice.find("delta");
      if (D == Choice.end() || !D->is_object())
        continue;
      auto T = D->find("tool_calls");
      Out |= NonEmptyString(*D, "content") || NonEmptyString(*D, "reasoning_content") ||
             NonEmptyString(*D, "reasoning") || (T != D->end() && T->is_array() && !T->empty());
    }
  return Out ? ChunkScan::Output : ChunkScan::NoOutput;
}

TEST(CompletionStream, ScannerAgreesWithTheParserOnMutatedChunks) {
  // Deterministic mutation fuzzing: whenever the scanner decides a chunk
  // itself, the parser must accept it and decide the same.
  const std::vector<std::string> Seeds = {
      R"({"choices":[{"index":0,"delta":{"content":"tok \"q\" \u00e9"}}],"usage":null})",
      R"({"choices":[{"index":0,"text":"a","logprobs":{"top":[{"\n":-1.5e0}]}}]})",
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]})",
      R"({"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}})",
      "{\"choices\":[{\"text\":\"\xf0\x9f\x98\x80 -12.5 true false null\"}]}",
  };
  const std::string Alphabet = "{}[]\":,\\u0aeE.-+ \ttnfl\x80\xbf\xc3\xed\xf4";
  std::mt19937 Rng(1234);
  size_t Decided = 0;
  for (int Round = 0; Round < 20000; ++Round) {
    std::string S = Seeds[Rng() % Seeds.size()];
    for (int Edits = 1 + int(Rng() % 3); Edits > 0 && !S.empty(); --Edits) {
      size_t At = Rng() % S.size();
      switch (Rng() % 3) {
      case 0:
        S[At] = Alphabet[Rng() % Alphabet.size()];
        break;
      case 1:
        S.erase(At, 1);
        break;
      default:
        S.insert(At, 1, Alphabet[Rng() % Alphabet.size()]);
      }
    }
    ChunkScan Fast = scanChunk(S);
    if (Fast == ChunkScan::NeedsParser)
      continue;
    ++Decided;
    ASSERT_EQ(Fast, parserVerdict(S)) << S;
  }
  // The mutations must leave enough chunks valid for the check to mean something.
  EXPECT_GT(Decided, 1000u);
}

TEST(CompletionStream, ScannerDecidesTheCommonChunks) {
  EXPECT_EQ(scanChunk(R"({"choices":[{"index":0,"text":"tok "}]})"), ChunkScan::Output);
  EXPECT_EQ(scanChunk(R"({"choices":[{"index":0,"delta":{"role":"assistant"}}]})"),
            ChunkScan::NoOutput);
  EXPECT_EQ(scanChunk(R"({"choices":[],"usage":{"completion_tokens":2}})"), ChunkScan::NeedsParser);
  EXPECT_EQ(scanChunk(R"({"error":{"message":"x"}})"), ChunkScan::NeedsParser);
  EXPECT_EQ(scanChunk(R"({"choices":[{"text":"a"}],"x":1e400})"), ChunkScan::NeedsParser);
}
} // namespace
