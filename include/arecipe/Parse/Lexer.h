//===- Lexer.h - The tokens of a recipe text, comments included -*- C++ -*-===//
//
// A view of a text as the language's lexer sees it, for tools that work on
// the text itself rather than on its meaning: the formatter (lib/Format),
// which must put every comment back where it was, and editors (a language
// server's semantic tokens and folding ranges). The parser keeps comments
// off its tree (docs/language.md §1); here they are tokens like the others,
// in source order. Nothing here reports diagnostics or needs the text to be
// a valid recipe: a lexical error is an Invalid token (or an unterminated
// string or comment token), and parse::parseFile says what is wrong. The
// ANTLR lexer behind it stays private to lib/Parse.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_PARSE_LEXER_H
#define ARECIPE_PARSE_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace arecipe::parse {

enum class TokenKind : uint8_t {
  Identifier,        ///< `max_num_seqs`, and type names such as `int`
  Keyword,           ///< reserved everywhere: `let`, `conc`, `and`, `for`
  ContextualKeyword, ///< a keyword only where a statement starts: `recipe`,
                     ///< `knob`, `json`; a name elsewhere
  Integer,           ///< `42`, `1_000`, `0x1F`
  Float,             ///< `0.343`, `1e9`
  Quantity,          ///< `128GB`, `60s` (any unit here; the parser checks it)
  String,            ///< `"..."`, escapes and `${...}` undecoded
  RawString,         ///< `r"..."`
  Punctuation,       ///< brackets, `,` `;` `:` `?` `.` `..` `->` and operators
  LineComment,       ///< `// ...` up to, not including, the line end
  BlockComment,      ///< `/* ... */` (to the end of the text if unterminated)
  Invalid,           ///< one character the language does not have
};

/// One token: its kind and the half-open byte range of its text, which
/// points into the text that was lexed.
struct Token {
  TokenKind Kind;
  llvm::SMRange Range;

  llvm::StringRef getText() const {
    return llvm::StringRef(Range.Start.getPointer(),
                           Range.End.getPointer() - Range.Start.getPointer());
  }
  bool isComment() const {
    return Kind == TokenKind::LineComment || Kind == TokenKind::BlockComment;
  }
  /// True for the punctuation or keyword spelled S (`is("{")`, `is("when")`).
  bool is(llvm::StringRef S) const {
    return Kind != TokenKind::String && Kind != TokenKind::RawString &&
           !isComment() && getText() == S;
  }
};

/// Every token of Text in source order, comments included, whitespace not.
/// A UTF-8 byte-order mark at the start is skipped, as the parser does.
/// Returns none when the text is not valid UTF-8 (the parser refuses it
/// too). Text must stay alive as long as the tokens are used.
std::optional<std::vector<Token>> lexTokens(llvm::StringRef Text);

} // namespace arecipe::parse

#endif // ARECIPE_PARSE_LEXER_H
