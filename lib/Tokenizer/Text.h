//===- Text.h - UTF-8, Unicode properties and Oniguruma regexes -*- C++ -*-===//
//
// Private to lib/Tokenizer. The character-level operations a tokenizer.json
// pipeline needs, each with the semantics of the reference implementation
// (Rust's `char` predicates, Unicode normalization forms, Oniguruma's regex
// syntax and its match iteration), so the components above can be written
// against byte strings.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_TOKENIZER_TEXT_H
#define ARECIPE_LIB_TOKENIZER_TEXT_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arecipe::tokenizer::detail {

/// The sequence at S[I]: its length when it is well-formed UTF-8 (RFC 3629:
/// no overlongs, no surrogates), else the length of its maximal ill-formed
/// prefix (at least 1), the unit one U+FFFD replaces.
struct Utf8Step {
  size_t Len;
  bool Valid;
};
Utf8Step utf8Step(std::string_view S, size_t I);
/// True when S is well-formed UTF-8.
bool isValidUtf8(std::string_view S);
/// The code point at S[I] (S valid UTF-8) and its length in bytes.
char32_t decodeUtf8(std::string_view S, size_t I, size_t &Len);
void appendUtf8(std::string &Out, char32_t C);
/// Byte offset of the code point that ends at End (End > 0).
size_t previousCharStart(std::string_view S, size_t End);

/// Rust's char::is_whitespace: the Unicode White_Space property.
bool isWhitespace(char32_t C);
/// Rust's char::is_alphanumeric: Alphabetic, or general category N*.
bool isAlphanumeric(char32_t C);

enum class NormalForm { NFC, NFD, NFKC, NFKD };
std::string normalizeUnicode(std::string_view S, NormalForm Form);
/// Full Unicode lower-casing (final sigma included), as Rust's to_lowercase.
std::string toLowerUnicode(std::string_view S);

/// A compiled Oniguruma regex (UTF-8, the default Oniguruma syntax, no
/// options: what the reference implementation compiles patterns with).
class Regex {
public:
  static std::unique_ptr<Regex> compile(std::string_view Pattern, std::string &Err);
  /// A regex matching Literal and nothing else.
  static std::unique_ptr<Regex> literal(std::string_view Literal);
  ~Regex();
  /// Every match, left to right, as [begin, end) byte offsets; an empty
  /// match right where the previous match ended is skipped (the iteration
  /// rule of the reference implementation's regex wrapper).
  std::vector<std::pair<size_t, size_t>> findAll(std::string_view S) const;

private:
  Regex() = default;
  void *Compiled = nullptr;
};

} // namespace arecipe::tokenizer::detail

#endif // ARECIPE_LIB_TOKENIZER_TEXT_H
