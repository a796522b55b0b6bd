//===- Parser.h - Recipe text to syntax tree --------------------*- C++ -*-===//
//
// The front end's entry points: parseFile reads one SourceMgr buffer,
// parseExpr one expression in a slice of a buffer (an `arecipec --set`
// value). Both report every lexical and syntax error to the
// DiagnosticEngine (project wording, byte columns, at most one error per
// statement) and return the syntax tree, allocated in the given ASTContext.
// They do not open files, follow imports or look at meaning. The ANTLR
// machinery behind them is private to lib/Parse: nothing here (or reachable
// from here) includes an ANTLR header, and no ANTLR exception escapes.
//
// Two parsers stand behind each entry point. A hand-written one runs first
// and builds the tree of well-formed text; on anything it is not sure of it
// gives up silently and the ANTLR parser (grammar/ARecipe.g4, the
// reference and the one source of diagnostics) parses the text from
// scratch. Both build the same tree for any text the fast one accepts
// (docs/architecture.md, lib/Parse); ParserChoice lets tests run either.
//
// Limits, all reported as errors rather than crashes:
// - a buffer above MaxFileBytes (16 MiB) is refused unparsed;
// - invalid UTF-8 stops at the first bad byte, unparsed;
// - brackets ((, [, {) nested deeper than MaxNesting (256) stop the parse
//   before it starts;
// - an expression nested deeper than MaxExprDepth (1024 operators or
//   levels) is refused, so later recursive passes cannot overflow the stack.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_PARSE_PARSER_H
#define ARECIPE_PARSE_PARSER_H

#include <cstddef>
#include <cstdint>

namespace llvm {
class SourceMgr;
class StringRef;
} // namespace llvm

namespace arecipe {
class DiagnosticEngine;
namespace ast {
class ASTContext;
class Expr;
class File;
} // namespace ast

namespace parse {

struct ParseLimits {
  size_t MaxFileBytes = 16u << 20;
  unsigned MaxNesting = 256;
  unsigned MaxExprDepth = 1024;
};

/// Which parser runs, after the size and UTF-8 checks both share.
enum class ParserChoice : uint8_t {
  /// The fast parser, and the reference parser when it gives up.
  Default,
  /// Only the ANTLR parser: the reference of differential tests.
  ReferenceOnly,
  /// Only the fast parser: null, with nothing reported, where it gives up.
  FastOnly,
};

/// Parses buffer BufferID of SM. Returns the file's tree -- with the
/// statements that parsed, when there were errors -- or null when the
/// buffer was refused as a whole (too large, invalid UTF-8, nested too
/// deeply). Diags.hasErrors() tells whether the tree is complete.
ast::File *parseFile(const llvm::SourceMgr &SM, unsigned BufferID,
                     DiagnosticEngine &Diags, ast::ASTContext &Ctx,
                     const ParseLimits &Limits = ParseLimits());

/// Parses Text as one expression with nothing after it (the value of
/// `arecipec --set name=value`). Text must lie inside a buffer of SM (the
/// `<command line>` buffer for --set), so diagnostics point into it. The
/// same limits apply as to a file. Returns null after reporting an error,
/// including for empty text.
ast::Expr *parseExpr(const llvm::SourceMgr &SM, llvm::StringRef Text,
                     DiagnosticEngine &Diags, ast::ASTContext &Ctx,
                     const ParseLimits &Limits = ParseLimits());

/// parseFile and parseExpr with the parser chosen, for tests and fuzzers.
ast::File *parseFile(const llvm::SourceMgr &SM, unsigned BufferID,
                     DiagnosticEngine &Diags, ast::ASTContext &Ctx,
                     const ParseLimits &Limits, ParserChoice Choice);
ast::Expr *parseExpr(const llvm::SourceMgr &SM, llvm::StringRef Text,
                     DiagnosticEngine &Diags, ast::ASTContext &Ctx,
                     const ParseLimits &Limits, ParserChoice Choice);

} // namespace parse
} // namespace arecipe

#endif // ARECIPE_PARSE_PARSER_H
