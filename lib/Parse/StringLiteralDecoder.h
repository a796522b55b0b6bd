//===- StringLiteralDecoder.h - Escapes and `${...}` in strings -*- C++ -*-===//
//
// Splits the text of one string token into decoded text and the source of
// its `${...}` interpolations, reporting bad escapes and unclosed
// interpolations; parsing the interpolated expressions is the caller's job.
// The token text must be a slice of the SourceMgr buffer, so that the
// returned slices and locations point into it. Private to lib/Parse.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_STRINGLITERALDECODER_H
#define ARECIPE_LIB_PARSE_STRINGLITERALDECODER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <string>
#include <vector>

namespace arecipe {
class DiagnosticEngine;
namespace parse {

struct StringPiece {
  bool IsInterpolation = false;
  std::string Text;          ///< Decoded text of a text piece.
  llvm::StringRef Source;    ///< The expression's source (interpolations).
  llvm::SMRange Range;       ///< The piece as written (`${...}` included).
};

/// True if the token (`"..."` or `r"..."`) has its closing quote.
bool isTerminatedString(llvm::StringRef Token);

/// Decodes Token into Pieces. Returns false after reporting an error to
/// Diags, or without a report when Diags is null (the fast parser, which
/// leaves the report to the reference path).
bool decodeStringLiteral(llvm::StringRef Token, DiagnosticEngine *Diags,
                         std::vector<StringPiece> &Pieces);

} // namespace parse
} // namespace arecipe

#endif // ARECIPE_LIB_PARSE_STRINGLITERALDECODER_H
