//===- TokenPrompts.h - Fixed-workload prompts of an exact token length -*- C++ -*-===//
//
// How a fixed ISL/OSL cell makes a prompt of ISL tokens, and how the client
// checks afterwards that the server saw what it sent (docs/metrics.md,
// "Token-exact prompts"):
//
// - words: ISL seeded random words, one token each under arecipe-sim's
//   tokenisation (the original behaviour; not ISL tokens on a real server);
// - token_ids: ISL random ids from the model's vocabulary, sent as a
//   `/v1/completions` prompt list, so the server counts exactly ISL;
// - text: words that are single tokens of the model's own tokenizer, joined
//   by spaces and re-encoded until the text is exactly ISL tokens (special
//   tokens the tokenizer adds included, as a server counts a completions
//   prompt).
//
// Each request record carries the client's count next to the server's usage,
// and tokenCountMismatch says where they disagree beyond the documented
// tolerance.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_TOKENPROMPTS_H
#define ARECIPE_CLIENT_TOKENPROMPTS_H

#include "arecipe/Client/RequestRecord.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::tokenizer {
class Tokenizer;
}

namespace arecipe::client {

enum class PromptMode { Words, TokenIds, Text };

std::string_view promptModeName(PromptMode M);
std::optional<PromptMode> parsePromptMode(std::string_view Name);

/// Server prompt tokens may exceed the client's count by up to this much on
/// the chat API: the chat template's tokens, which the client cannot count.
inline constexpr int64_t ChatTemplateSlack = 64;

class PromptBuilder {
public:
  struct Prompt {
    std::string Text;          ///< words and text modes
    std::vector<uint32_t> Ids; ///< token-id mode
    int64_t ClientTokens = 0;  ///< the client's count of what the server will see
  };

  /// Mode's requirements: token_ids needs TokenizerPath or VocabSize > 0,
  /// text needs TokenizerPath. Returns null with Err set otherwise, or when
  /// the tokenizer cannot be loaded or offers too few single-token words.
  static std::unique_ptr<PromptBuilder> create(PromptMode Mode, const std::string &TokenizerPath,
                                               int64_t VocabSize, std::string &Err);
  ~PromptBuilder();

  PromptMode mode() const { return Mode; }
  /// A prompt of Tokens tokens drawn from Seed. With ChatApi the chat
  /// template is the server's business and only the content is counted;
  /// otherwise the tokenizer's special tokens count too.
  Prompt build(uint64_t Seed, int64_t Tokens, bool ChatApi) const;
  /// Single-token words available to text mode (0 in other modes).
  size_t wordPoolSize() const { return Words.size(); }

private:
  PromptBuilder() = default;
  PromptMode Mode = PromptMode::Words;
  std::unique_ptr<tokenizer::Tokenizer> Tok;
  std::vector<uint32_t> Allowed; ///< token-id mode: ids to draw from
  uint32_t VocabSize = 0;        ///< token-id mode without a tokenizer
  std::vector<std::string> Words;
};

/// Which of the record's counts disagree with the server's usage.
struct TokenMismatch {
  bool Input = false, Output = false;
};
/// Input: the server's prompt tokens differ from ClientInputTokens (by more
/// than InputTokenSlack above it). Output: with ExpectExactOutput the server
/// generated other than max_tokens, or fewer tokens than output chunks.
/// Only successful requests with server usage are judged.
TokenMismatch tokenCountMismatch(const RequestRecord &R);

/// `token_counts` of a cell summary: over successful measured requests with
/// a client count, how many disagree and the range of server - client.
nlohmann::ordered_json tokenCountSummary(const std::vector<RequestRecord> &Records);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TOKENPROMPTS_H
