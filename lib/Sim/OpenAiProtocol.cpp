//===- OpenAiProtocol.cpp - OpenAI request parsing and SSE chunks ---------===//
//
// Responses are formatted by hand rather than through nlohmann::json: the
// streaming path emits one event per request per engine step, and at
// 100k tokens/s the DOM round trip would dominate the simulator's CPU.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/OpenAiProtocol.h"
#include "arecipe/Sim/PrefixCache.h"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

static void addContent(const json &Content, PromptHasher &Hasher) {
  if (Content.is_string()) {
    Hasher.add(Content.get_ref<const std::string &>());
    return;
  }
  if (!Content.is_array())
    return;
  for (const json &Part : Content)
    if (Part.is_object() && Part.contains("text") && Part["text"].is_string())
      Hasher.add(Part["text"].get_ref<const std::string &>());
}

static bool readPrompt(const json &Prompt, PromptHasher &Hasher) {
  if (Prompt.is_string()) {
    Hasher.add(Prompt.get_ref<const std::string &>());
    return true;
  }
  if (!Prompt.is_array())
    return false;
  for (const json &Item : Prompt) {
    if (Item.is_string())
      Hasher.add(Item.get_ref<const std::string &>());
    else if (Item.is_number_integer())
      Hasher.add(std::to_string(Item.get<long>())); // token ids
    else
      return false;
  }
  return true;
}

bool parseCompletionRequest(std::string_view Body, bool Chat,
                            CompletionRequest &Out, std::string &Error) {
  json J = json::parse(Body.begin(), Body.end(), nullptr, false);
  if (J.is_discarded() || !J.is_object()) {
    Error = "request body is not a JSON object";
    return false;
  }
  Out.Chat = Chat;
  if (J.contains("model") && J["model"].is_string())
    Out.Model = J["model"].get<std::string>();
  PromptHasher Hasher;
  if (Chat) {
    if (!J.contains("messages") || !J["messages"].is_array() ||
        J["messages"].empty()) {
      Error = "'messages' must be a non-empty array";
      return false;
    }
    for (const json &Msg : J["messages"])
      if (Msg.is_object() && Msg.contains("content"))
        addContent(Msg["content"], Hasher);
  } else if (!J.contains("prompt") || !readPrompt(J["prompt"], Hasher)) {
    Error = "'prompt' must be a string or a list of strings or token ids";
    return false;
  }
  Out.PromptTokens = Hasher.tokens();
  Out.BlockHashes = Hasher.takeBlocks();
  for (const char *Key : {"max_completion_tokens", "max_tokens"}) {
    if (J.contains(Key) && !J[Key].is_null()) {
      if (!J[Key].is_number_integer() || J[Key].get<long>() < 1) {
        Error = fmt::format("'{}' must be a positive integer", Key);
        return false;
      }
      Out.MaxTokens = J[Key].get<long>();
      break;
    }
  }
  Out.Stream = J.value("stream", false);
  if (J.contains("stream_options") && J["stream_options"].is_object())
    Out.IncludeUsage = J["stream_options"].value("include_usage", false);
  Out.IgnoreEos = J.value("ignore_eos", false);
  return true;
}

std::string errorBody(std::string_view Message, std::string_view Type,
                      int Code) {
  json J = {{"error",
             {{"message", Message}, {"type", Type}, {"param", nullptr},
              {"code", Code}}},
            {"object", "error"},
            {"message", Message},
            {"type", Type},
            {"code", Code}};
  return J.dump();
}

void appendTokenText(std::string &Out, long First, long Count) {
  // The hot path of streaming: no temporaries, no allocation once \p Out
  // has grown to its working size.
  char Digits[24];
  for (long I = First; I < First + Count; ++I) {
    if (I > 0)
      Out.push_back(' ');
    Out += "tok";
    char *End = std::to_chars(Digits, Digits + sizeof Digits, I).ptr;
    Out.append(Digits, End);
  }
}

CompletionWriter::CompletionWriter(bool Chat, std::string Id,
                                   std::string Model, int64_t Created)
    : Chat(Chat), Id(std::move(Id)), Created(Created) {
  std::string Quoted = json(Model).dump();
  this->Model = Quoted.substr(1, Quoted.size() - 2);
  // Every token event of this completion differs only in its text: render
  // what surrounds it once.
  if (Chat) {
    TokensHead = "data: " + prefix("chat.completion.chunk") +
                 R"("choices":[{"index":0,"delta":{"content":")";
    FirstTokensHead = "data: " + prefix("chat.completion.chunk") +
                      R"("choices":[{"index":0,"delta":{"role":"assistant","content":")";
    TokensTail = R"("},"logprobs":null,"finish_reason":null}]})"
                 "\n\n";
  } else {
    TokensHead = "data: " + prefix("text_completion") +
                 R"("choices":[{"index":0,"text":")";
    FirstTokensHead = TokensHead;
    TokensTail = R"(","logprobs":null,"finish_reason":null}]})"
                 "\n\n";
  }
}

std::string CompletionWriter::prefix(const char *Object) const {
  return fmt::format(R"({{"id":"{}","object":"{}","created":{},"model":"{}",)",
                     Id, Object, Created, Model);
}

static std::string usageJson(const Usage &U) {
  return fmt::format(
      R"({{"prompt_tokens":{},"completion_tokens":{},"total_tokens":{},)"
      R"("prompt_tokens_details":{{"cached_tokens":{}}}}})",
      U.PromptTokens, U.CompletionTokens, U.PromptTokens + U.CompletionTokens,
      U.CachedTokens);
}

void CompletionWriter::appendTokensEvent(std::string &Out, long First,
                                         long Count) {
  Out += SentRole ? TokensHead : FirstTokensHead;
  SentRole = true;
  appendTokenText(Out, First, Count);
  Out += TokensTail;
}

void CompletionWriter::appendFinalEvents(std::string &Out, const Usage &U,
                                         bool WithUsage) {
  const char *Object = Chat ? "chat.completion.chunk" : "text_completion";
  Out += "data: ";
  Out += prefix(Object);
  Out += Chat ? R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]})"
              : R"("choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length"}]})";
  Out += "\n\n";
  if (WithUsage) {
    Out += "data: ";
    Out += prefix(Object);
    Out += R"("choices":[],"usage":)";
    Out += usageJson(U);
    Out += "}\n\n";
  }
  Out += "data: [DONE]\n\n";
}

void CompletionWriter::appendMalformedEvent(std::string &Out) {
  Out += "data: ";
  Out += prefix(Chat ? "chat.completion.chunk" : "text_completion");
  Out += R"("choices":[{"index":0,"del)";
  Out += "\n\n";
}

std::string CompletionWriter::fullResponse(const Usage &U, long Tokens) const {
  std::string Out = prefix(Chat ? "chat.completion" : "text_completion");
  Out += Chat ? R"("choices":[{"index":0,"message":{"role":"assistant","content":")"
              : R"("choices":[{"index":0,"text":")";
  appendTokenText(Out, 0, Tokens);
  Out += Chat ? R"("},"logprobs":null,"finish_reason":"length"}],"usage":)"
              : R"(","logprobs":null,"finish_reason":"length"}],"usage":)";
  Out += usageJson(U);
  Out += "}";
  return Out;
}

} // namespace arecipe::sim
