//===- OpenAiProtocolTest.cpp - Request parsing and SSE formatting --------===//
#include "arecipe/Sim/OpenAiProtocol.h"

#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>

using namespace arecipe::sim;
using nlohmann::json;

namespace {

TEST(OpenAiProtocol, ChatCountsWordsOfEveryMessageInOrder) {
  CompletionRequest R;
  std::string Error;
  ASSERT_TRUE(parseCompletionRequest(
      R"({"model":"m","messages":[{"role":"system","content":"be brief"},
          {"role":"user","content":[{"type":"text","text":"three more words"}]}],
          "max_completion_tokens":7,"stream":true,
          "stream_options":{"include_usage":true},"ignore_eos":true})",
      true, R, Error))
      << Error;
  EXPECT_EQ(R.Model, "m");
  EXPECT_EQ(R.PromptTokens, 5);
  EXPECT_EQ(R.MaxTokens, 7);
  EXPECT_TRUE(R.Stream);
  EXPECT_TRUE(R.IncludeUsage);
  EXPECT_TRUE(R.IgnoreEos);
}

TEST(OpenAiProtocol, CompletionPromptFormsAndErrors) {
  CompletionRequest R;
  std::string Error;
  ASSERT_TRUE(parseCompletionRequest(R"({"prompt":[1,2,3],"max_tokens":2})",
                                     false, R, Error));
  EXPECT_EQ(R.PromptTokens, 3);
  EXPECT_FALSE(R.Stream);
  EXPECT_FALSE(parseCompletionRequest("not json", false, R, Error));
  EXPECT_FALSE(parseCompletionRequest(R"({"prompt":"a","max_tokens":0})",
                                      false, R, Error));
  EXPECT_FALSE(parseCompletionRequest(R"({"messages":[]})", true, R, Error));
}

TEST(OpenAiProtocol, StreamEventsAreJsonWithUsageThenDone) {
  CompletionWriter W(true, "chatcmpl-1", "org/\"m\"", 5);
  std::string Out;
  W.appendTokensEvent(Out, 0, 2);
  W.appendTokensEvent(Out, 2, 1);
  W.appendFinalEvents(Out, {10, 3, 4}, true);
  std::vector<std::string> Events;
  for (size_t Pos = 0; Pos < Out.size();) {
    size_t End = Out.find("\n\n", Pos);
    ASSERT_NE(End, std::string::npos);
    std::string Event = Out.substr(Pos, End - Pos);
    ASSERT_EQ(Event.rfind("data: ", 0), 0u);
    Events.push_back(Event.substr(6));
    Pos = End + 2;
  }
  ASSERT_EQ(Events.size(), 5u);
  json First = json::parse(Events[0]);
  EXPECT_EQ(First["model"], "org/\"m\"");
  EXPECT_EQ(First["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(First["choices"][0]["delta"]["content"], "tok0 tok1");
  json Second = json::parse(Events[1]);
  EXPECT_FALSE(Second["choices"][0]["delta"].contains("role"));
  EXPECT_EQ(Second["choices"][0]["delta"]["content"], " tok2");
  EXPECT_EQ(json::parse(Events[2])["choices"][0]["finish_reason"], "length");
  json Usage = json::parse(Events[3])["usage"];
  EXPECT_EQ(Usage["prompt_tokens"], 10);
  EXPECT_EQ(Usage["completion_tokens"], 3);
  EXPECT_EQ(Usage["total_tokens"], 13);
  EXPECT_EQ(Usage["prompt_tokens_details"]["cached_tokens"], 4);
  EXPECT_EQ(Events[4], "[DONE]");
}

TEST(OpenAiProtocol, CompletionTextAndFullResponse) {
  CompletionWriter W(false, "cmpl-9", "m", 0);
  std::string Out;
  W.appendTokensEvent(Out, 0, 1);
  W.appendFinalEvents(Out, {1, 1, 0}, false);
  EXPECT_EQ(Out.find("usage"), std::string::npos);
  EXPECT_NE(Out.find(R"("text":"tok0")"), std::string::npos);
  json Full = json::parse(W.fullResponse({2, 3, 0}, 3));
  EXPECT_EQ(Full["choices"][0]["text"], "tok0 tok1 tok2");
  EXPECT_EQ(Full["usage"]["total_tokens"], 5);
  std::string Bad;
  W.appendMalformedEvent(Bad);
  EXPECT_TRUE(json::parse(Bad.substr(6), nullptr, false).is_discarded());
}

} // namespace

namespace {

TEST(OpenAiProtocol, WrongTypesAreErrorsNamingTheField) {
  struct Case {
    const char *Body;
    bool Chat;
    const char *Param;
  } Cases[] = {
      {R"({"prompt":"a","stream":"yes"})", false, "stream"},
      {R"({"prompt":"a","ignore_eos":1})", false, "ignore_eos"},
      {R"({"prompt":"a","stream_options":{"include_usage":"no"}})", false,
       "stream_options.include_usage"},
      {R"({"prompt":"a","max_tokens":1.0})", false, "max_tokens"},
      {R"({"prompt":"a","max_tokens":-3})", false, "max_tokens"},
      {R"({"prompt":{"a":1}})", false, "prompt"},
      {R"({"prompt":[]})", false, "prompt"},
      {R"({"prompt":[[]]})", false, "prompt"},
      {R"({"prompt":"a","seed":"1"})", false, "seed"},
      {R"({"messages":[{"role":"user","content":"a"}],"top_k":1.5})", true,
       "top_k"},
      {R"({"messages":[5]})", true, "messages[0]"},
      {R"({"messages":[{"role":"user","content":[{"text":"a"}]}]})", true,
       "messages[0].content[0].type"},
  };
  for (const Case &C : Cases) {
    CompletionRequest R;
    std::string Error, Param;
    EXPECT_FALSE(parseCompletionRequest(C.Body, C.Chat, R, Error, Param))
        << C.Body;
    EXPECT_EQ(Param, C.Param) << C.Body << ": " << Error;
    EXPECT_FALSE(Error.empty());
  }
}

TEST(OpenAiProtocol, NullFieldsAreAbsentAndImagePartsCarryNoWords) {
  CompletionRequest R;
  std::string Error;
  ASSERT_TRUE(parseCompletionRequest(
      R"({"model":null,"messages":[{"role":"user","content":[
          {"type":"image_url","image_url":{"url":"x"}},
          {"type":"text","text":"two words"}]},{"role":"assistant","content":null}],
          "max_tokens":null,"stream":null,"stop":["a"],"n":1})",
      true, R, Error))
      << Error;
  EXPECT_EQ(R.PromptTokens, 2);
  EXPECT_FALSE(R.MaxTokens);
  EXPECT_FALSE(R.Stream);
}

TEST(OpenAiProtocol, AdmissionNeverOverflows) {
  CompletionRequest R;
  R.PromptTokens = 3;
  R.MaxTokens = std::numeric_limits<long>::max();
  CompletionAdmission A = admitCompletion(R, 4096, 256);
  EXPECT_NE(A.Error.find("you requested 9223372036854775810 tokens"),
            std::string::npos)
      << A.Error;
  EXPECT_EQ(A.Param, "max_tokens");

  R.MaxTokens = 4093;
  EXPECT_EQ(admitCompletion(R, 4096, 256).Error, "");
  R.MaxTokens = 4094;
  EXPECT_NE(admitCompletion(R, 4096, 256).Error, "");

  // Without max_tokens: the default, cut to the room left, at least 1.
  R.MaxTokens.reset();
  EXPECT_EQ(admitCompletion(R, 4096, 256).MaxTokens, 256);
  EXPECT_EQ(admitCompletion(R, 100, 256).MaxTokens, 97);
  R.PromptTokens = 4096;
  EXPECT_NE(admitCompletion(R, 4096, 256).Error, ""); // 4096 + 1 > 4096
  R.PromptTokens = std::numeric_limits<long>::max();
  EXPECT_NE(admitCompletion(R, 4096, 256).Error, "");
  R.PromptTokens = 0;
  EXPECT_EQ(admitCompletion(R, 4096, 256).Error, "the prompt is empty");
}

TEST(OpenAiProtocol, ErrorBodiesReplaceBytesThatAreNotUtf8) {
  json J = json::parse(errorBody("no route /\xff", "NotFoundError", 404));
  EXPECT_EQ(J["error"]["message"], "no route /\xEF\xBF\xBD");
  EXPECT_TRUE(J["error"]["param"].is_null());
  EXPECT_EQ(json::parse(errorBody("m", "T", 400, "stream"))["error"]["param"],
            "stream");
}

} // namespace
