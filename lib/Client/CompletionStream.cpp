//===- CompletionStream.cpp - OpenAI streaming-response decoder -----------===//

#include "arecipe/Client/CompletionStream.h"

#include <nlohmann/json.hpp>

using namespace arecipe::client;
using nlohmann::json;

namespace {
// Validates JSON with the same rules as nlohmann's strict parser (RFC 8259,
// well-formed UTF-8, paired surrogate escapes) while looking only at the
// few members a chunk's classification depends on. Every method returns
// false for "leave this to the parser": invalid input, but also input that is
// valid and merely unusual (escaped member names, exponents and long
// integers, whose overflow handling is the parser's business, deep nesting).
class ChunkScanner {
public:
  explicit ChunkScanner(std::string_view S) : P(S.data()), End(S.data() + S.size()) {}

  ChunkScan run() {
    bool Out = false;
    if (!consume('{'))
      return ChunkScan::NeedsParser;
    bool Ok = members([&](std::string_view Key) {
      if (Key == "choices")
        return choices(Out);
      // vLLM and OpenAI send `"usage": null` on token chunks; a real usage
      // object is read by the parser.
      if (Key == "usage")
        return literal("null");
      if (Key == "error")
        return false;
      return value(1);
    });
    skipSpace();
    if (!Ok || P != End)
      return ChunkScan::NeedsParser;
    return Out ? ChunkScan::Output : ChunkScan::NoOutput;
  }

private:
  static constexpr int MaxDepth = 64;

  void skipSpace() {
    while (P != End && (*P == ' ' || *P == '\t' || *P == '\n' || *P == '\r'))
      ++P;
  }
  bool peek(char C) {
    skipSpace();
    return P != End && *P == C;
  }
  bool consume(char C) {
    if (!peek(C))
      return false;
    ++P;
    return true;
  }
  static bool isDigit(char C) { return C >= '0' && C <= '9'; }

  // The members of an object whose '{' was consumed; Member parses the value
  // of the member named Key (member names with escapes are left to the
  // parser: one could spell "error").
  template <typename Fn> bool members(Fn &&Member) {
    if (consume('}'))
      return true;
    do {
      std::string_view Key;
      bool Escaped = false;
      if (!string(Key, Escaped) || Escaped || !consume(':') || !Member(Key))
        return false;
    } while (consume(','));
    return consume('}');
  }

  // The elements of an array whose '[' was consumed.
  template <typename Fn> bool elements(Fn &&Element) {
    if (consume(']'))
      return true;
    do {
      if (!Element())
        return false;
    } while (consume(','));
    return consume(']');
  }

  // Skips any value nested inside Depth containers.
  bool value(int Depth) {
    skipSpace();
    if (P == End)
      return false;
    switch (*P) {
    case '{':
      ++P;
      return Depth < MaxDepth && genericMembers(Depth + 1);
    case '[':
      ++P;
      return Depth < MaxDepth && elements([&] { return value(Depth + 1); });
    case '"': {
      std::string_view Raw;
      bool Escaped;
      return string(Raw, Escaped);
    }
    case 't':
      return literal("true");
    case 'f':
      return literal("false");
    case 'n':
      return literal("null");
    default:
      return number();
    }
  }

  // Members of an object nobody looks into: escaped names are fine here.
  bool genericMembers(int Depth) {
    if (consume('}'))
      return true;
    do {
      std::string_view Key;
      bool Escaped;
      if (!string(Key, Escaped) || !consume(':') || !value(Depth))
        return false;
    } while (consume(','));
    return consume('}');
  }

  bool literal(std::string_view Word) {
    skipSpace();
    if (size_t(End - P) < Word.size() || std::string_view(P, Word.size()) != Word)
      return false;
    P += Word.size();
    return true;
  }

  bool number() {
    const char *Start = P;
    if (P != End && *P == '-')
      ++P;
    const char *IntStart = P;
    if (P != End && *P == '0') {
      ++P;
    } else if (P != End && *P >= '1' && *P <= '9') {
      while (P != End && isDigit(*P))
        ++P;
    } else {
      return false;
    }
    if (P - IntStart > 18)
      return false;
    if (P != End && *P == '.') {
      ++P;
      if (P == End || !isDigit(*P))
        return false;
      while (P != End && isDigit(*P))
        ++P;
    }
    return P != Start && (P == End || (*P != 'e' && *P != 'E'));
  }

  bool hex4(unsigned &U) {
    if (End - P < 4)
      return false;
    U = 0;
    for (int I = 0; I < 4; ++I, ++P) {
      char C = *P;
      unsigned D = isDigit(C)               ? unsigned(C - '0')
                   : (C >= 'a' && C <= 'f') ? unsigned(C - 'a' + 10)
                   : (C >= 'A' && C <= 'F') ? unsigned(C - 'A' + 10)
                                            : 16u;
      if (D == 16)
        return false;
      U = U * 16 + D;
    }
    return true;
  }

  // One UTF-8 sequence starting with a byte >= 0x80 (RFC 3629 table 3.7).
  bool utf8() {
    auto In = [](unsigned char C, unsigned char Lo, unsigned char Hi) {
      return C >= Lo && C <= Hi;
    };
    const auto *U = reinterpret_cast<const unsigned char *>(P);
    size_t Left = size_t(End - P);
    unsigned char B0 = U[0];
    size_t Len;
    unsigned char Lo = 0x80, Hi = 0xBF; // the second byte's range
    if (In(B0, 0xC2, 0xDF))
      Len = 2;
    else if (B0 == 0xE0)
      Len = 3, Lo = 0xA0;
    else if (B0 == 0xED)
      Len = 3, Hi = 0x9F;
    else if (In(B0, 0xE1, 0xEF))
      Len = 3;
    else if (B0 == 0xF0)
      Len = 4, Lo = 0x90;
    else if (B0 == 0xF4)
      Len = 4, Hi = 0x8F;
    else if (In(B0, 0xF1, 0xF3))
      Len = 4;
    else
      return false;
    if (Left < Len || !In(U[1], Lo, Hi))
      return false;
    for (size_t I = 2; I < Len; ++I)
      if (!In(U[I], 0x80, 0xBF))
        return false;
    P += Len;
    return true;
  }

  // A string; Raw is its undecoded contents, which are empty exactly when
  // the decoded string is.
  bool string(std::string_view &Raw, bool &Escaped) {
    if (!consume('"'))
      return false;
    const char *Start = P;
    Escaped = false;
    for (;;) {
      if (P == End)
        return false;
      unsigned char C = static_cast<unsigned char>(*P);
      if (C == '"') {
        Raw = std::string_view(Start, size_t(P - Start));
        ++P;
        return true;
      }
      if (C < 0x20)
        return false;
      if (C >= 0x80) {
        if (!utf8())
          return false;
        continue;
      }
      ++P;
      if (C != '\\')
        continue;
      Escaped = true;
      if (P == End)
        return false;
      switch (*P++) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        break;
      case 'u': {
        unsigned Code;
        if (!hex4(Code) || (Code >= 0xDC00 && Code <= 0xDFFF))
          return false;
        if (Code >= 0xD800 && Code <= 0xDBFF) {
          unsigned Low;
          if (End - P < 2 || P[0] != '\\' || P[1] != 'u')
            return false;
          P += 2;
          if (!hex4(Low) || Low < 0xDC00 || Low > 0xDFFF)
            return false;
        }
        break;
      }
      default:
        return false;
      }
    }
  }

  // Value of a member that counts when it is a non-empty string.
  bool nonEmptyString(bool &Out, int Depth) {
    Out = false;
    if (!peek('"'))
      return value(Depth);
    std::string_view Raw;
    bool Escaped;
    if (!string(Raw, Escaped))
      return false;
    Out = !Raw.empty();
    return true;
  }

  // Value of a member that counts when it is a non-empty array.
  bool nonEmptyArray(bool &Out, int Depth) {
    Out = false;
    if (!consume('['))
      return value(Depth);
    Out = !peek(']');
    return elements([&] { return value(Depth + 1); });
  }

  // Member values assign rather than accumulate: with a repeated name the
  // parser keeps the last value, and so does the scanner.
  bool choices(bool &Out) {
    Out = false;
    if (!consume('['))
      return value(1);
    return elements([&] {
      bool Choice = false;
      if (!choice(Choice))
        return false;
      Out |= Choice;
      return true;
    });
  }

  bool choice(bool &Out) {
    Out = false;
    if (!consume('{'))
      return value(2);
    bool Text = false, Delta = false;
    bool Ok = members([&](std::string_view Key) {
      if (Key == "text")
        return nonEmptyString(Text, 3);
      if (Key == "delta")
        return delta(Delta);
      return value(3);
    });
    Out = Text || Delta;
    return Ok;
  }

  bool delta(bool &Out) {
    Out = false;
    if (!consume('{'))
      return value(3);
    bool Content = false, ReasoningContent = false, Reasoning = false, ToolCalls = false;
    bool Ok = members([&](std::string_view Key) {
      if (Key == "content")
        return nonEmptyString(Content, 4);
      if (Key == "reasoning_content")
        return nonEmptyString(ReasoningContent, 4);
      if (Key == "reasoning")
        return nonEmptyString(Reasoning, 4);
      if (Key == "tool_calls")
        return nonEmptyArray(ToolCalls, 4);
      return value(4);
    });
    Out = Content || ReasoningContent || Reasoning || ToolCalls;
    return Ok;
  }

  const char *P;
  const char *End;
};
} // namespace

ChunkScan arecipe::client::scanChunk(std::string_view Data) { return ChunkScanner(Data).run(); }

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
  return nonEmptyString(*Delta, "content") || nonEmptyString(*Delta, "reasoning_content") ||
         nonEmptyString(*Delta, "reasoning") || nonEmptyArray(*Delta, "tool_calls");
}

// A usage count: a non-negative integer, or Default when absent or null.
// Anything else is noted in Problem (the first one wins) and ignored.
static int64_t usageCount(const json &Obj, const char *Key, int64_t Default, std::string &Problem,
                          const char *Path) {
  auto It = Obj.find(Key);
  if (It == Obj.end() || It->is_null())
    return Default;
  if (It->is_number_unsigned() && It->get<uint64_t>() <= uint64_t(INT64_MAX))
    return It->get<int64_t>();
  if (Problem.empty())
    Problem = std::string(Path) + " is " + It->dump() + ", not a count";
  return Default;
}

ChunkKind CompletionStreamDecoder::onEvent(std::string_view Data) {
  if (Done) {
    ++AfterDoneEvents;
    return ChunkKind::AfterDone;
  }
  if (Data == "[DONE]") {
    Done = true;
    return ChunkKind::Done;
  }
  switch (scanChunk(Data)) {
  case ChunkScan::Output:
    ++OutputChunks;
    return ChunkKind::Output;
  case ChunkScan::NoOutput:
    return ChunkKind::Other;
  case ChunkScan::NeedsParser:
    break;
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
    U.PromptTokens =
        usageCount(*UsageIt, "prompt_tokens", U.PromptTokens, UsageFormat, "usage.prompt_tokens");
    U.CompletionTokens = usageCount(*UsageIt, "completion_tokens", U.CompletionTokens, UsageFormat,
                                    "usage.completion_tokens");
    if (auto D = UsageIt->find("prompt_tokens_details"); D != UsageIt->end() && D->is_object())
      U.CachedTokens = usageCount(*D, "cached_tokens", U.CachedTokens, UsageFormat,
                                  "usage.prompt_tokens_details.cached_tokens");
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

std::string arecipe::client::usageProblem(const Usage &U, int64_t OutputChunks, int64_t MaxTokens,
                                          int64_t RequestBytes) {
  auto N = [](int64_t V) { return std::to_string(V); };
  if (U.CompletionTokens >= 0) {
    if (MaxTokens > 0 && U.CompletionTokens > MaxTokens)
      return "usage.completion_tokens " + N(U.CompletionTokens) +
             " exceeds the request's max_tokens " + N(MaxTokens);
    if (U.CompletionTokens < OutputChunks)
      return "usage.completion_tokens " + N(U.CompletionTokens) + " is fewer than the " +
             N(OutputChunks) + " output chunks streamed";
  }
  if (U.PromptTokens >= 0 && RequestBytes >= 0 &&
      U.PromptTokens > RequestBytes + PromptTemplateAllowance)
    return "usage.prompt_tokens " + N(U.PromptTokens) + " exceeds what a request body of " +
           N(RequestBytes) + " bytes can hold";
  if (U.CachedTokens >= 0 && U.PromptTokens >= 0 && U.CachedTokens > U.PromptTokens)
    return "usage cached_tokens " + N(U.CachedTokens) + " exceeds prompt_tokens " +
           N(U.PromptTokens);
  return {};
}
