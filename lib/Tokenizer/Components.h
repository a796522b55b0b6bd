//===- Components.h - tokenizer.json pipeline components -------*- C++ -*-===//
//
// Private to lib/Tokenizer. The stages of a Hugging Face tokenizer, each a
// small class with the reference implementation's semantics: normalizers
// rewrite a piece of text, pre-tokenizers split pieces into the words the
// model encodes, the BPE model maps a word to ids, post-processors add
// special tokens, decoders turn tokens back into text. Every factory reads
// its JSON object and reports an unsupported type or option as
// "path: reason" instead of guessing.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_TOKENIZER_COMPONENTS_H
#define ARECIPE_LIB_TOKENIZER_COMPONENTS_H

#include "Text.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace arecipe::tokenizer::detail {

/// A tokenizer.json the implementation refuses: Path names the field.
struct LoadError : std::runtime_error {
  LoadError(const std::string &Path, const std::string &Why)
      : std::runtime_error(Path + ": " + Why) {}
};

/// Text on its way to the model. AtStart: the piece begins at offset 0 of
/// the caller's text (Metaspace's "first" prepend scheme needs it).
struct Piece {
  std::string Text;
  bool AtStart = false;
};

class Normalizer {
public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string &S) const = 0;
  /// Whether the normalizer can insert text before the first character.
  virtual bool prepends() const { return false; }
};
/// Null for a JSON null.
std::unique_ptr<Normalizer> makeNormalizer(const nlohmann::json &J, const std::string &Path);

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  virtual void split(std::vector<Piece> &Pieces) const = 0;
  virtual bool needsStartOffsets() const { return false; }
};
std::unique_ptr<PreTokenizer> makePreTokenizer(const nlohmann::json &J, const std::string &Path);

class Decoder {
public:
  virtual ~Decoder() = default;
  virtual std::vector<std::string> decodeChain(std::vector<std::string> Tokens) const = 0;
};
std::unique_ptr<Decoder> makeDecoder(const nlohmann::json &J, const std::string &Path);

/// What a post-processor wraps around a single sequence.
struct SpecialTokenFrame {
  std::vector<uint32_t> Prefix, Suffix;
};
/// Token lookups a post-processor needs while it is read.
using TokenLookup = std::function<std::optional<uint32_t>(const std::string &)>;
SpecialTokenFrame makePostProcessorFrame(const nlohmann::json &J, const std::string &Path,
                                         const TokenLookup &Lookup);

/// The BPE model of tokenizer.json.
class BpeModel {
public:
  BpeModel(const nlohmann::json &Model, const std::string &Path);
  /// Appends the ids of Word (one pre-tokenized piece) to Out.
  void tokenize(std::string_view Word, std::vector<uint32_t> &Out) const;
  const std::unordered_map<std::string, uint32_t> &vocab() const { return Vocab; }
  bool byteFallback() const { return ByteFallback; }

private:
  struct MergeTarget {
    uint32_t Rank, NewId;
  };
  static uint64_t pairKey(uint32_t A, uint32_t B) { return (uint64_t(A) << 32) | B; }
  std::unordered_map<std::string, uint32_t> Vocab;
  std::unordered_map<uint64_t, MergeTarget> Merges;
  std::optional<uint32_t> UnkId;
  std::string ContinuingSubwordPrefix, EndOfWordSuffix;
  bool FuseUnk = false, ByteFallback = false, IgnoreMerges = false;
  uint32_t ByteTokens[256];
  bool HasByteTokens[256];
};

/// GPT-2's byte-to-character map: printable bytes stand for themselves, the
/// rest are shifted to U+0100 and up, so every byte string is visible text.
const std::vector<char32_t> &byteToChar();

} // namespace arecipe::tokenizer::detail

#endif // ARECIPE_LIB_TOKENIZER_COMPONENTS_H
