//===- SyntaxErrorStrategy.h - Syntax errors in the project's words -*- C++ -*-===//
//
// Replaces ANTLR's error reporting and recovery. Reporting maps the parser's
// state (rule, expected tokens, the token before the error) to messages in
// the project's style -- "expected expression after '='", "expected '}' to
// close band 'mid'" with a note at the brace -- never ANTLR's "mismatched
// input". Recovery is at statement boundaries: after an error the parser
// skips to the next `;`, the `}` closing the enclosing block, or a token that
// starts a statement (in a tune block, also an item) on a new line, and
// reports nothing more until then, so independent mistakes in separate
// statements, or tune items, give one error each.
// Private to lib/Parse.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_SYNTAXERRORSTRATEGY_H
#define ARECIPE_LIB_PARSE_SYNTAXERRORSTRATEGY_H

#include "SourceText.h"

#include "DefaultErrorStrategy.h"
#include "BaseErrorListener.h"

#include <vector>

namespace arecipe {
class DiagnosticEngine;
namespace parse {

/// Where the lexical checks found errors, so the parser does not report a
/// second, syntactic error for the same mistake.
struct LexicalErrors {
  std::vector<size_t> Offsets; ///< Byte offsets in the SourceText, sorted.
  bool UnterminatedComment = false;

  /// True if a lexical error lies in the byte range [Begin, End].
  bool within(size_t Begin, size_t End) const;
};

class SyntaxErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  SyntaxErrorStrategy(const SourceText &Src, DiagnosticEngine &Diags,
                      const LexicalErrors &LexErrors)
      : Src(Src), Diags(Diags), LexErrors(LexErrors) {}

  /// The parser calls this whenever a statement or declaration begins.
  void beginStatement() {
    Unwinding = false;
    StatementBegun = true;
  }

  /// The parser calls this whenever an item of a tune block begins.
  void beginItem(antlr4::Parser *P);

  void reset(antlr4::Parser *P) override;
  void reportError(antlr4::Parser *P,
                   const antlr4::RecognitionException &E) override;
  void recover(antlr4::Parser *P, std::exception_ptr E) override;
  antlr4::Token *recoverInline(antlr4::Parser *P) override;
  void sync(antlr4::Parser *P) override;
  void reportMatch(antlr4::Parser *P) override;

private:
  void reportNoViableAlt(antlr4::Parser *P, antlr4::Token *Offending);
  void reportMismatch(antlr4::Parser *P, antlr4::Token *Offending,
                      const antlr4::misc::IntervalSet &Expected);
  void reportJunk(antlr4::Parser *P, antlr4::Token *Junk);
  /// `80 GB`: a unit name right after a number, separated by spaces.
  bool reportSpacedUnit(antlr4::Parser *P, antlr4::Token *Unit);
  /// A reserved keyword where a name is expected (`let step = 4`).
  bool reportReservedName(antlr4::Token *Offending);
  bool shouldSuppress(antlr4::Parser *P, antlr4::Token *Offending);
  void skipToSyncPoint(antlr4::Parser *P, bool ConsumeOne);
  bool startsStatementOnNewLine(antlr4::TokenStream *TS, size_t Index);
  bool startsTuneItemOnNewLine(antlr4::TokenStream *TS, size_t Index);
  /// Whether the token at Index is the first on its line.
  bool beginsLine(antlr4::TokenStream *TS, size_t Index);

  antlr4::Token *previousToken(antlr4::TokenStream *TS, antlr4::Token *T);
  llvm::SMLoc endOf(antlr4::Token *T) const;
  llvm::SMRange rangeOf(antlr4::Token *T) const;
  std::string describe(antlr4::Token *T) const;
  bool reportDottedBlock(antlr4::Parser *P, antlr4::Token *Offending);
  void reportExpectedAfter(antlr4::Parser *P, antlr4::Token *Offending,
                           const std::string &What);
  void reportUnclosed(antlr4::Parser *P, antlr4::Token *Offending,
                      size_t OpenType);

  const SourceText &Src;
  DiagnosticEngine &Diags;
  const LexicalErrors &LexErrors;
  /// Set once recovery reached a sync point: the rules still on the stack
  /// return without consuming or reporting.
  bool Unwinding = false;
  /// Start token of the statement whose error was reported last.
  ssize_t LastErrorStatement = -1;
  /// A junk token was reported and nothing has parsed since.
  bool JunkReported = false;
  /// A statement began since the last error: junk in a block after it is a
  /// new mistake even though the enclosing statement is the same.
  bool StatementBegun = false;
};

/// Turns any error the ANTLR runtime reports outside the strategy (none is
/// expected: the lexer has a catch-all rule) into a diagnostic instead of
/// ANTLR's console output.
class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(const SourceText &Src, DiagnosticEngine &Diags)
      : Src(Src), Diags(Diags) {}
  void syntaxError(antlr4::Recognizer *Recognizer,
                   antlr4::Token *OffendingSymbol, size_t Line,
                   size_t CharPositionInLine, const std::string &Msg,
                   std::exception_ptr E) override;

private:
  const SourceText &Src;
  DiagnosticEngine &Diags;
};

} // namespace parse
} // namespace arecipe

#endif // ARECIPE_LIB_PARSE_SYNTAXERRORSTRATEGY_H
