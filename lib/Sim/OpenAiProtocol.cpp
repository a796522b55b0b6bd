//===- OpenAiProtocol.cpp - OpenAI request parsing and SSE chunks ---------===//
//
// Responses are formatted by hand rather than through nlohmann::json: the
// streaming path emits one event per request per engine step, and at
// 100k tokens/s the DOM round trip would dominate the simulator's CPU.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/OpenAiProtocol.h"
#include "arecipe/Sim/PrefixCache.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

namespace {

/// Checks one request body field by field; the first problem wins, with the
/// field's path as the error's `param`.
class BodyChecker {
public:
  BodyChecker(std::string &Error, std::string &Param)
      : Error(Error), Param(Param) {}

  bool ok() const { return Error.empty(); }

  bool fail(const std::string &Path, const std::string &Message) {
    if (Error.empty()) {
      Error = Message;
      Param = Path;
    }
    return false;
  }
  bool wrongType(const std::string &Path, const char *Expected,
                 const json &Got) {
    return fail(Path, fmt::format("'{}' must be {}, got {}", Path, Expected,
                                  Got.is_number_integer() ? "integer"
                                                          : Got.type_name()));
  }

  /// A field that may be absent or null; otherwise of the given kind.
  const json *optional(const json &Obj, const char *Key) {
    auto It = Obj.find(Key);
    return It == Obj.end() || It->is_null() ? nullptr : &*It;
  }
  std::optional<bool> boolean(const json &Obj, const char *Key,
                              const std::string &Path) {
    const json *V = optional(Obj, Key);
    if (!V)
      return std::nullopt;
    if (!V->is_boolean())
      return wrongType(Path, "a boolean", *V), std::nullopt;
    return V->get<bool>();
  }
  void number(const json &Obj, const char *Key) {
    if (const json *V = optional(Obj, Key); V && !V->is_number())
      wrongType(Key, "a number", *V);
  }
  void string(const json &Obj, const char *Key) {
    if (const json *V = optional(Obj, Key); V && !V->is_string())
      wrongType(Key, "a string", *V);
  }
  /// An integer in [Min, Max] (the JSON number must be integral).
  std::optional<long> integer(const json &Obj, const char *Key, long Min,
                              long Max) {
    const json *V = optional(Obj, Key);
    if (!V)
      return std::nullopt;
    if (V->is_number_unsigned() &&
        V->get<uint64_t>() > static_cast<uint64_t>(Max))
      return fail(Key, fmt::format("'{}' must be at most {}", Key, Max)),
             std::nullopt;
    if (!V->is_number_integer())
      return wrongType(Key, "an integer", *V), std::nullopt;
    long N = V->get<long>();
    if (N < Min || N > Max)
      return fail(Key, N < Min ? fmt::format("'{}' must be at least {}", Key,
                                             Min)
                               : fmt::format("'{}' must be at most {}", Key,
                                             Max)),
             std::nullopt;
    return N;
  }

private:
  std::string &Error;
  std::string &Param;
};

constexpr long MaxLong = std::numeric_limits<long>::max();

/// A message's content: a string, a list of parts (the text of "text"
/// parts counts; other parts such as images carry no words here) or null.
void addContent(BodyChecker &C, const json &Content, const std::string &Path,
                PromptHasher &Hasher) {
  if (Content.is_null())
    return;
  if (Content.is_string()) {
    Hasher.add(Content.get_ref<const std::string &>());
    return;
  }
  if (!Content.is_array()) {
    C.wrongType(Path, "a string or a list of content parts", Content);
    return;
  }
  for (size_t I = 0; I < Content.size() && C.ok(); ++I) {
    const json &Part = Content[I];
    std::string PartPath = fmt::format("{}[{}]", Path, I);
    if (!Part.is_object()) {
      C.wrongType(PartPath, "an object", Part);
      return;
    }
    auto Type = Part.find("type");
    if (Type == Part.end() || !Type->is_string()) {
      C.fail(PartPath + ".type", fmt::format("'{}.type' must be a string",
                                             PartPath));
      return;
    }
    if (*Type != "text")
      continue;
    auto Text = Part.find("text");
    if (Text == Part.end() || !Text->is_string()) {
      C.fail(PartPath + ".text",
             fmt::format("'{}.text' must be a string", PartPath));
      return;
    }
    Hasher.add(Text->get_ref<const std::string &>());
  }
}

void readMessages(BodyChecker &C, const json &J, PromptHasher &Hasher) {
  auto It = J.find("messages");
  if (It == J.end() || !It->is_array() || It->empty()) {
    C.fail("messages", "'messages' must be a non-empty list");
    return;
  }
  for (size_t I = 0; I < It->size() && C.ok(); ++I) {
    const json &Msg = (*It)[I];
    std::string Path = fmt::format("messages[{}]", I);
    if (!Msg.is_object()) {
      C.wrongType(Path, "an object", Msg);
      return;
    }
    auto Role = Msg.find("role");
    if (Role == Msg.end() || !Role->is_string()) {
      C.fail(Path + ".role", fmt::format("'{}.role' must be a string", Path));
      return;
    }
    if (auto Content = Msg.find("content"); Content != Msg.end())
      addContent(C, *Content, Path + ".content", Hasher);
  }
}

/// A prompt: a string, a list of strings, a list of token ids or a list of
/// lists of token ids (one token per id); never empty.
void readPrompt(BodyChecker &C, const json &J, PromptHasher &Hasher) {
  const char *Expected =
      "'prompt' must be a string or a list of strings or token ids";
  auto It = J.find("prompt");
  if (It == J.end() || !(It->is_string() || It->is_array()) ||
      (It->is_array() && It->empty())) {
    C.fail("prompt", Expected);
    return;
  }
  if (It->is_string()) {
    Hasher.add(It->get_ref<const std::string &>());
    return;
  }
  auto TokenId = [](const json &V) {
    return V.is_number_unsigned() ||
           (V.is_number_integer() && V.get<long>() >= 0);
  };
  for (const json &Item : *It) {
    if (Item.is_string()) {
      Hasher.add(Item.get_ref<const std::string &>());
    } else if (TokenId(Item)) {
      Hasher.add(Item.dump());
    } else if (Item.is_array() && !Item.empty() &&
               std::all_of(Item.begin(), Item.end(), TokenId)) {
      for (const json &Id : Item)
        Hasher.add(Id.dump());
    } else {
      C.fail("prompt", Expected);
      return;
    }
  }
}

} // namespace

bool parseCompletionRequest(std::string_view Body, bool Chat,
                            CompletionRequest &Out, std::string &Error) {
  std::string Param;
  return parseCompletionRequest(Body, Chat, Out, Error, Param);
}

bool parseCompletionRequest(std::string_view Body, bool Chat,
                            CompletionRequest &Out, std::string &Error,
                            std::string &Param) {
  Error.clear();
  Param.clear();
  json J = json::parse(Body.begin(), Body.end(), nullptr, false);
  if (J.is_discarded() || !J.is_object()) {
    Error = "request body is not a JSON object";
    return false;
  }
  BodyChecker C(Error, Param);
  Out.Chat = Chat;
  if (const json *Model = C.optional(J, "model")) {
    if (!Model->is_string())
      return C.wrongType("model", "a string", *Model);
    Out.Model = Model->get<std::string>();
  }
  PromptHasher Hasher;
  if (Chat)
    readMessages(C, J, Hasher);
  else
    readPrompt(C, J, Hasher);
  if (!C.ok())
    return false;
  Out.PromptTokens = Hasher.tokens();
  Out.BlockHashes = Hasher.takeBlocks();
  // max_completion_tokens is the newer name; it wins when both are given.
  for (const char *Key : {"max_completion_tokens", "max_tokens"})
    if (std::optional<long> N = C.integer(J, Key, 1, MaxLong);
        N && !Out.MaxTokens)
      Out.MaxTokens = N;
  Out.Stream = C.boolean(J, "stream", "stream").value_or(false);
  if (const json *Options = C.optional(J, "stream_options")) {
    if (!Options->is_object())
      return C.wrongType("stream_options", "an object", *Options);
    Out.IncludeUsage =
        C.boolean(*Options, "include_usage", "stream_options.include_usage")
            .value_or(false);
    C.boolean(*Options, "continuous_usage_stats",
              "stream_options.continuous_usage_stats");
  }
  Out.IgnoreEos = C.boolean(J, "ignore_eos", "ignore_eos").value_or(false);
  // vLLM's disaggregated-serving field, as its PD proxy sets it.
  if (const json *Kv = C.optional(J, "kv_transfer_params")) {
    if (!Kv->is_object())
      return C.wrongType("kv_transfer_params", "an object", *Kv);
    Out.RemotePrefill = C.boolean(*Kv, "do_remote_prefill",
                                  "kv_transfer_params.do_remote_prefill")
                            .value_or(false);
  }
  // Sampling fields change nothing the simulator models, but a client that
  // sends one of the wrong type gets the 400 a real engine would give.
  for (const char *Key : {"temperature", "top_p", "min_p", "frequency_penalty",
                          "presence_penalty", "repetition_penalty"})
    C.number(J, Key);
  for (const char *Key : {"top_k", "seed"})
    C.integer(J, Key, std::numeric_limits<long>::min(), MaxLong);
  C.integer(J, "min_tokens", 0, MaxLong);
  C.integer(J, "top_logprobs", 0, 20);
  C.string(J, "user");
  // One completion per request is all the simulator produces.
  C.integer(J, "n", 1, 1);
  if (Chat)
    C.boolean(J, "logprobs", "logprobs");
  else {
    C.integer(J, "logprobs", 0, 20);
    C.boolean(J, "echo", "echo");
  }
  if (const json *Stop = C.optional(J, "stop");
      Stop && !Stop->is_string() &&
      !(Stop->is_array() &&
        std::all_of(Stop->begin(), Stop->end(),
                    [](const json &S) { return S.is_string(); })))
    C.wrongType("stop", "a string or a list of strings", *Stop);
  return C.ok();
}

CompletionAdmission admitCompletion(const CompletionRequest &R,
                                    long ContextLimit, long DefaultMaxTokens) {
  CompletionAdmission A;
  if (R.PromptTokens <= 0) {
    A.Error = "the prompt is empty";
    return A;
  }
  // Room left for the completion; compared, never summed, so a max_tokens
  // near the largest integer cannot overflow past the check.
  long Room = ContextLimit - std::min(R.PromptTokens, ContextLimit);
  A.MaxTokens = R.MaxTokens.value_or(
      std::min(DefaultMaxTokens, std::max(1L, Room)));
  if (R.PromptTokens > ContextLimit || A.MaxTokens > Room) {
    unsigned long long Requested =
        static_cast<unsigned long long>(R.PromptTokens) +
        static_cast<unsigned long long>(A.MaxTokens);
    A.Error = fmt::format(
        "This model's maximum context length is {} tokens. However, you "
        "requested {} tokens ({} in the messages, {} in the completion). "
        "Please reduce the length of the messages or completion.",
        ContextLimit, Requested, R.PromptTokens, A.MaxTokens);
    A.Param = "max_tokens";
  }
  return A;
}

std::string errorBody(std::string_view Message, std::string_view Type,
                      int Code, std::string_view Param) {
  json ParamValue = Param.empty() ? json(nullptr) : json(Param);
  json J = {{"error",
             {{"message", Message},
              {"type", Type},
              {"param", ParamValue},
              {"code", Code}}},
            {"object", "error"},
            {"message", Message},
            {"type", Type},
            {"code", Code}};
  // The message may quote what the client sent (a path, a model name):
  // bytes that are not UTF-8 are replaced, never a reason to abort.
  return J.dump(-1, ' ', false, json::error_handler_t::replace);
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
  std::string Quoted =
      json(Model).dump(-1, ' ', false, json::error_handler_t::replace);
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
