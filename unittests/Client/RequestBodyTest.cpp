//===- RequestBodyTest.cpp - Streamed request bodies match nlohmann -------===//
//
// Request bodies are written with support::JsonWriter; their bytes must be
// exactly what the previous implementation, a `json` DOM and its dump(),
// sent: keys sorted (std::map), nlohmann's escaping, and the same exception
// when a string is not valid UTF-8.
//
//===----------------------------------------------------------------------===//

#include "WorkloadDriver.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace arecipe::client;
using namespace arecipe::client::detail;
using nlohmann::json;

namespace {
// The previous implementation, kept here as the reference.
std::string finishDom(json &Body, int64_t MaxTokens, bool IgnoreEos) {
  Body["max_tokens"] = MaxTokens;
  Body["temperature"] = 0;
  if (IgnoreEos)
    Body["ignore_eos"] = true;
  Body["stream"] = true;
  Body["stream_options"] = {{"include_usage", true}};
  return Body.dump();
}

std::string domBody(const Endpoint &Target, const std::vector<Message> &Messages, int64_t MaxTokens,
                    bool IgnoreEos) {
  json Body;
  Body["model"] = Target.Model;
  if (Target.Api == ApiKind::Chat) {
    json List = json::array();
    for (const Message &M : Messages)
      List.push_back({{"role", M.FromUser ? "user" : "assistant"}, {"content", M.Text}});
    Body["messages"] = std::move(List);
  } else {
    std::string Prompt;
    for (const Message &M : Messages) {
      if (!Prompt.empty())
        Prompt.push_back(' ');
      Prompt += M.Text;
    }
    Body["prompt"] = std::move(Prompt);
  }
  return finishDom(Body, MaxTokens, IgnoreEos);
}

std::string domTokenIdsBody(const Endpoint &Target, const std::vector<uint32_t> &Ids,
                            int64_t MaxTokens, bool IgnoreEos) {
  json Body;
  Body["model"] = Target.Model;
  Body["prompt"] = Ids;
  return finishDom(Body, MaxTokens, IgnoreEos);
}

const std::vector<std::string> Texts = {"",
                                        "plain words here",
                                        "quote \" and backslash \\",
                                        "tab\tnewline\ncr\r",
                                        std::string("nul\0x", 5),
                                        "\x01\x1f\x7f",
                                        "unicode \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
                                        "/slash/ <tag> &amp;"};

TEST(RequestBody, IsTheDumpOfTheSortedDom) {
  std::mt19937_64 Rng(7);
  for (int Round = 0; Round < 2000; ++Round) {
    Endpoint Target;
    Target.Api = Rng() % 2 ? ApiKind::Chat : ApiKind::Completions;
    Target.Model = Texts[Rng() % Texts.size()];
    std::vector<Message> Messages;
    for (size_t I = 0, N = Rng() % 4; I < N; ++I)
      Messages.push_back({Rng() % 2 == 0, Texts[Rng() % Texts.size()]});
    int64_t MaxTokens = Rng() % 3 ? int64_t(Rng() % 100000) : -int64_t(Rng() >> 1);
    bool IgnoreEos = Rng() % 2;
    EXPECT_EQ(requestBody(Target, Messages, MaxTokens, IgnoreEos),
              domBody(Target, Messages, MaxTokens, IgnoreEos));

    std::vector<uint32_t> Ids;
    for (size_t I = 0, N = Rng() % 20; I < N; ++I)
      Ids.push_back(uint32_t(Rng()));
    EXPECT_EQ(tokenIdsRequestBody(Target, Ids, MaxTokens, IgnoreEos),
              domTokenIdsBody(Target, Ids, MaxTokens, IgnoreEos));
  }
}

TEST(RequestBody, InvalidUtf8FailsAsTheDumpDid) {
  Endpoint Target;
  Target.Api = ApiKind::Chat;
  Target.Model = "m";
  std::vector<Message> Bad = {{true, "cut \xe2\x82"}};
  EXPECT_THROW(domBody(Target, Bad, 4, true), nlohmann::json::type_error);
  EXPECT_THROW(requestBody(Target, Bad, 4, true), nlohmann::json::type_error);
  Target.Api = ApiKind::Completions;
  EXPECT_THROW(requestBody(Target, Bad, 4, true), nlohmann::json::type_error);
  // A UTF-16 surrogate and an overlong form are invalid to both.
  for (const char *Text : {"surrogate \xed\xa0\x80", "overlong \xc0\xaf"}) {
    EXPECT_THROW(domBody(Target, {{true, Text}}, 4, true), nlohmann::json::type_error);
    EXPECT_THROW(requestBody(Target, {{true, Text}}, 4, true), nlohmann::json::type_error);
  }
  Target.Model = "bad \xff";
  EXPECT_THROW(requestBody(Target, {}, 4, false), nlohmann::json::type_error);
  EXPECT_THROW(tokenIdsRequestBody(Target, {1, 2}, 4, false), nlohmann::json::type_error);
}
} // namespace
