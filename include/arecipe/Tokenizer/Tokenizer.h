//===- Tokenizer.h - Hugging Face tokenizer.json encoder/decoder -*- C++ -*-===//
//
// Loads the `tokenizer.json` that ships in a model directory and encodes and
// decodes text exactly as the Hugging Face `tokenizers` library does, so the
// load client can count tokens the way the server will: a fixed ISL/OSL cell
// then sends prompts of exactly ISL tokens (docs/tokenizer.md).
//
// What is implemented is implemented to the byte: byte-level BPE (GPT-2,
// Llama-3, Qwen, DeepSeek) and SentencePiece-style BPE with byte fallback
// (Llama-2, Mistral), with their normalizers, pre-tokenizers, added/special
// tokens, post-processors and decoders. A tokenizer.json that uses anything
// else (a Unigram or WordPiece model, BPE dropout, a BERT normalizer, ...) is
// refused at load time with an error naming the field, never encoded
// approximately. Regular expressions run on Oniguruma, the engine the
// reference implementation uses, so Unicode classes and look-arounds agree.
//
// A loaded Tokenizer is immutable; encode and decode may run concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_TOKENIZER_TOKENIZER_H
#define ARECIPE_TOKENIZER_TOKENIZER_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::tokenizer {

class Tokenizer {
public:
  /// Loads Path, either a tokenizer.json file or a directory that contains
  /// one. On failure returns null and sets Err to "file: field: reason".
  static std::unique_ptr<Tokenizer> loadFile(const std::string &Path, std::string &Err);
  /// Loads tokenizer.json text; Label names it in errors.
  static std::unique_ptr<Tokenizer> loadJson(std::string_view Json, std::string_view Label,
                                             std::string &Err);
  ~Tokenizer();

  /// Token ids of Text (valid UTF-8, else std::invalid_argument). With
  /// AddSpecialTokens the post-processor's tokens are added (a BOS, say), as
  /// a server does when it tokenizes a completions prompt.
  std::vector<uint32_t> encode(std::string_view Text, bool AddSpecialTokens = false) const;
  /// Text of Ids through the tokenizer's decoder; unknown ids are skipped.
  std::string decode(const std::vector<uint32_t> &Ids, bool SkipSpecialTokens = false) const;

  /// One past the largest id, added tokens included.
  uint32_t vocabSize() const;
  std::optional<uint32_t> tokenToId(std::string_view Token) const;
  /// The token string of Id (in the model's alphabet, e.g. "Ġthe"); null if
  /// no token has that id.
  const std::string *idToToken(uint32_t Id) const;
  /// Listed in `added_tokens` (special or not): not part of the model's
  /// learned vocabulary.
  bool isAddedToken(uint32_t Id) const;
  bool isSpecialToken(uint32_t Id) const;
  /// Tokens the post-processor adds to a single sequence.
  size_t numSpecialTokensToAdd() const;
  /// A one-line summary, e.g. "BPE, byte-level, 128256 tokens".
  const std::string &description() const;

  struct Impl;

private:
  explicit Tokenizer(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

} // namespace arecipe::tokenizer

#endif // ARECIPE_TOKENIZER_TOKENIZER_H
