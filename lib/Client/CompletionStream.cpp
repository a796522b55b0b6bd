//===- CompletionStream.cpp - OpenAI streaming-response decoder -----------===//

#include "arecipe/Client/CompletionStream.h"

#include <nlohmann/json.hpp>

using namespace arecipe::client;
using nlohmann::json;

static bool nonEmptyString(const json &Obj, const char *Key) {
  auto It = Obj.find(Key);
  return It != Obj.end() && It->is_string() && !It->get_ref<const std::string &>().empty();
}

static bool nonEmptyArray(const json &Obj, const char *Key) {
  auto It = Obj.find(Key);
  return It != Obj.end() && It->is_array() && !It->empty();
}

// A choice carries output when its delta (chat) or text (completions) is
// non-empty. Reasoning channels count: a reasoning model's first reasoning
// token is its first token.
static bool choiceHasOutput(const json &Choice) {
  if (!Choice.is_object())
    return false;
  if (nonEmptyString(Choice, "text"))
    return true;
  auto Delta = Choice.find("delta");
  if (Delta == Choice.end() || !Delta->is_object())
    return false;
  return nonEmptyString(*Delta, "content") ||
         nonEmptyString(*Delta, "reasoning_content") ||
         nonEmptyString(*Delta, "reasoning") || nonEmptyArray(*Delta, "tool_calls");
}

static int64_t intOr(const json &Obj, const char *Key, int64_t Default) {
  auto It = Obj.find(Key);
  return It != Obj.end() && It->is_number_integer() ? It->get<int64_t>() : Default;
}

ChunkKind CompletionStreamDecoder::onEvent(std::string_view Data) {
  if (Data == "[DONE]") {
    Done = true;
    return ChunkKind::Done;
  }
  json J = json::parse(Data.begin(), Data.end(), nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object()) {
    Error = "event data is not a JSON object";
    return ChunkKind::Error;
  }
  if (auto E = J.find("error"); E != J.end()) {
    if (E->is_object() && E->contains("message") && (*E)["message"].is_string())
      Error = (*E)["message"].get<std::string>();
    else
      Error = E->dump();
    return ChunkKind::Error;
  }
  if (auto UsageIt = J.find("usage"); UsageIt != J.end() && UsageIt->is_object()) {
    U.PromptTokens = intOr(*UsageIt, "prompt_tokens", U.PromptTokens);
    U.CompletionTokens = intOr(*UsageIt, "completion_tokens", U.CompletionTokens);
    if (auto D = UsageIt->find("prompt_tokens_details"); D != UsageIt->end() && D->is_object())
      U.CachedTokens = intOr(*D, "cached_tokens", U.CachedTokens);
    GotUsage = U.CompletionTokens >= 0;
  }
  bool Output = false;
  if (auto Choices = J.find("choices"); Choices != J.end() && Choices->is_array())
    for (const json &C : *Choices)
      Output |= choiceHasOutput(C);
  if (!Output)
    return ChunkKind::Other;
  ++OutputChunks;
  return ChunkKind::Output;
}
