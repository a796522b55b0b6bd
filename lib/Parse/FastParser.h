//===- FastParser.h - A hand-written parser for well-formed text -*- C++
//-*-===//
//
// The fast path of parse::parseFile and parse::parseExpr: a hand-written
// lexer and recursive-descent parser that build the same AST as the ANTLR
// parser plus ASTBuilder (same nodes, byte ranges, decoded strings and
// numbers), in a fraction of the time, for text that is well formed.
//
// It reports nothing and accepts nothing it is not sure of: at the first
// lexical or syntax error, literal it cannot convert, limit of ParseLimits,
// or place where the grammar's adaptive prediction could choose otherwise
// than a single token of lookahead does, it gives up (returns null) and the
// caller runs the ANTLR path from scratch, which stays the reference and
// the one source of diagnostics. What it allocated in the ASTContext before
// giving up is unreferenced garbage in the arena, freed with it; nothing of
// it reaches a returned tree. docs/architecture.md (lib/Parse) says how the
// two parsers are kept equal. Private to lib/Parse.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_FASTPARSER_H
#define ARECIPE_LIB_PARSE_FASTPARSER_H

#include "arecipe/Parse/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace arecipe::parse {

/// Parses Text (a whole buffer without its byte-order mark, already checked
/// for size and UTF-8) as a file named Name spanning FileRange. On success
/// reports the warnings the reference path would (extra semicolons) to
/// Diags and returns the tree; otherwise returns null and reports nothing.
ast::File *fastParseFile(llvm::StringRef Text, llvm::StringRef Name,
                         llvm::SMRange FileRange, DiagnosticEngine &Diags,
                         ast::ASTContext &Ctx, const ParseLimits &Limits);

/// Parses Text (checked for size and UTF-8) as one expression with nothing
/// after it. Returns null, reporting nothing, when it is not sure.
ast::Expr *fastParseExpr(llvm::StringRef Text, ast::ASTContext &Ctx,
                         const ParseLimits &Limits);

} // namespace arecipe::parse

#endif // ARECIPE_LIB_PARSE_FASTPARSER_H
