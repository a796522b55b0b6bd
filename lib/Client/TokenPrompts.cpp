//===- TokenPrompts.cpp - Fixed-workload prompts of an exact token length -===//

#include "arecipe/Client/TokenPrompts.h"

#include "arecipe/Client/PromptText.h"
#include "arecipe/Tokenizer/Tokenizer.h"

#include <algorithm>

using namespace arecipe::client;
using arecipe::tokenizer::Tokenizer;
using nlohmann::ordered_json;

std::string_view arecipe::client::promptModeName(PromptMode M) {
  switch (M) {
  case PromptMode::Words:
    return "words";
  case PromptMode::TokenIds:
    return "token_ids";
  case PromptMode::Text:
    return "text";
  }
  return "words";
}

std::optional<PromptMode> arecipe::client::parsePromptMode(std::string_view Name) {
  for (PromptMode M : {PromptMode::Words, PromptMode::TokenIds, PromptMode::Text})
    if (promptModeName(M) == Name)
      return M;
  return std::nullopt;
}

namespace {
// Enough distinct words that prompts do not repeat visibly; a tokenizer
// with fewer usable words than MinWords is refused.
constexpr size_t MaxWords = 4096, MinWords = 256;

/// "Ġword" or "▁word" with 2..10 lower-case ASCII letters: a candidate for a
/// word that is one token wherever it stands after a space.
std::optional<std::string> candidateWord(const std::string &Token) {
  std::string_view T = Token;
  if (T.rfind("\xC4\xA0", 0) == 0) // U+0120, the byte-level space
    T.remove_prefix(2);
  else if (T.rfind("\xE2\x96\x81", 0) == 0) // U+2581, the metaspace
    T.remove_prefix(3);
  else
    return std::nullopt;
  if (T.size() < 2 || T.size() > 10)
    return std::nullopt;
  for (char C : T)
    if (C < 'a' || C > 'z')
      return std::nullopt;
  return std::string(T);
}
} // namespace

PromptBuilder::~PromptBuilder() = default;

std::unique_ptr<PromptBuilder> PromptBuilder::create(PromptMode Mode,
                                                     const std::string &TokenizerPath,
                                                     int64_t VocabSize, std::string &Err) {
  auto B = std::unique_ptr<PromptBuilder>(new PromptBuilder());
  B->Mode = Mode;
  if (Mode == PromptMode::Words)
    return B;
  if (TokenizerPath.empty()) {
    if (Mode == PromptMode::Text) {
      Err = "prompt mode 'text' needs a tokenizer";
      return nullptr;
    }
    if (VocabSize <= 0 || VocabSize > int64_t(UINT32_MAX)) {
      Err = "prompt mode 'token_ids' needs a tokenizer or a vocabulary size";
      return nullptr;
    }
    B->VocabSize = uint32_t(VocabSize);
    return B;
  }
  B->Tok = Tokenizer::loadFile(TokenizerPath, Err);
  if (!B->Tok)
    return nullptr;
  if (Mode == PromptMode::TokenIds) {
    // Every id of the learned vocabulary; added tokens (special or not)
    // are not ordinary text.
    for (uint32_t Id = 0; Id < B->Tok->vocabSize(); ++Id)
      if (B->Tok->idToToken(Id) && !B->Tok->isAddedToken(Id))
        B->Allowed.push_back(Id);
    return B;
  }
  // Text: keep a word only if, repeated three times after a first copy, it
  // encodes to one token per copy with the same id in the middle, so a text
  // of N such words is N tokens. The whole prompt is re-encoded anyway.
  for (uint32_t Id = 0; Id < B->Tok->vocabSize() && B->Words.size() < MaxWords; ++Id) {
    const std::string *T = B->Tok->idToToken(Id);
    if (!T || B->Tok->isAddedToken(Id))
      continue;
    std::optional<std::string> W = candidateWord(*T);
    if (!W)
      continue;
    std::vector<uint32_t> Ids = B->Tok->encode(*W + " " + *W + " " + *W, false);
    if (Ids.size() == 3 && Ids[1] == Ids[2])
      B->Words.push_back(*W);
  }
  if (B->Words.size() < MinWords) {
    Err = TokenizerPath + ": only " + std::to_string(B->Words.size()) +
          " words encode to one token each; prompt mode 'text' needs " + std::to_string(MinWords);
    return nullptr;
  }
  return B;
}

PromptBuilder::Prompt PromptBuilder::build(uint64_t Seed, int64_t Tokens, bool ChatApi) const {
  Prompt P;
  SplitMix64 R(Seed);
  switch (Mode) {
  case PromptMode::Words:
    // Words average under five letters and a space: one allocation, not
    // one per doubling, for each of a run's prompts.
    P.Text.reserve(size_t(std::max<int64_t>(Tokens, 0)) * 6);
    appendRandomWords(Seed, Tokens, P.Text);
    P.ClientTokens = Tokens;
    return P;
  case PromptMode::TokenIds:
    P.Ids.reserve(size_t(Tokens));
    for (int64_t I = 0; I < Tokens; ++I)
      P.Ids.push_back(Allowed.empty() ? uint32_t(R.next() % VocabSize)
                                      : Allowed[R.next() % Allowed.size()]);
    P.ClientTokens = Tokens;
    return P;
  case PromptMode::Text:
    break;
  }
  // A completions prompt is counted with the special tokens the server's
  // tokenizer adds (a BOS); a chat prompt's template is not countable here.
  bool AddSpecial = !ChatApi;
  int64_t Target = Tokens;
  int64_t Content =
      std::max<int64_t>(1, Target - (AddSpecial ? int64_t(Tok->numSpecialTokensToAdd()) : 0));
  std::vector<size_t> Picks;
  for (int64_t I = 0; I < Content; ++I)
    Picks.push_back(size_t(R.next() % Words.size()));
  auto Render = [&] {
    std::string S;
    for (size_t K = 0; K < Picks.size(); ++K) {
      if (K)
        S.push_back(' ');
      S += Words[Picks[K]];
    }
    return S;
  };
  P.Text = Render();
  P.ClientTokens = int64_t(Tok->encode(P.Text, AddSpecial).size());
  // Pool words are one token each, so this converges at once in practice;
  // the loop is the guarantee, bounded so a pathological tokenizer ends with
  // its closest count (recorded, and flagged if the server disagrees).
  for (int Round = 0; Round < 64 && P.ClientTokens != Target; ++Round) {
    if (P.ClientTokens < Target)
      Picks.push_back(size_t(R.next() % Words.size()));
    else if (Picks.size() > 1)
      Picks.pop_back();
    else
      break;
    P.Text = Render();
    P.ClientTokens = int64_t(Tok->encode(P.Text, AddSpecial).size());
  }
  return P;
}

TokenMismatch arecipe::client::tokenCountMismatch(const RequestRecord &R) {
  TokenMismatch M;
  if (!R.ok() || !R.UsageFromServer)
    return M;
  if (R.ClientInputTokens >= 0) {
    int64_t Delta = R.InputTokens - R.ClientInputTokens;
    M.Input = Delta < 0 || Delta > R.InputTokenSlack;
  }
  M.Output = (R.ExpectExactOutput && R.OutputTokens != R.MaxOutputTokens) ||
             R.OutputTokens < int64_t(R.ChunkNs.size());
  return M;
}

ordered_json arecipe::client::tokenCountSummary(const std::vector<RequestRecord> &Records) {
  size_t Checked = 0, InputMismatches = 0, OutputMismatches = 0;
  int64_t ClientSum = 0, ServerSum = 0;
  std::optional<int64_t> MinDelta, MaxDelta;
  for (const RequestRecord &R : Records) {
    if (R.RequestPhase != Phase::Measured || !R.ok() || !R.UsageFromServer ||
        R.ClientInputTokens < 0)
      continue;
    ++Checked;
    TokenMismatch M = tokenCountMismatch(R);
    InputMismatches += M.Input;
    OutputMismatches += M.Output;
    ClientSum += R.ClientInputTokens;
    ServerSum += R.InputTokens;
    int64_t Delta = R.InputTokens - R.ClientInputTokens;
    MinDelta = std::min(MinDelta.value_or(Delta), Delta);
    MaxDelta = std::max(MaxDelta.value_or(Delta), Delta);
  }
  ordered_json J;
  J["requests_checked"] = Checked;
  J["client_input_tokens"] = ClientSum;
  J["server_input_tokens"] = ServerSum;
  J["input_delta_min"] = MinDelta ? ordered_json(*MinDelta) : ordered_json(nullptr);
  J["input_delta_max"] = MaxDelta ? ordered_json(*MaxDelta) : ordered_json(nullptr);
  J["input_mismatches"] = InputMismatches;
  J["output_mismatches"] = OutputMismatches;
  return J;
}
