//===- DiagnosticVerifier.cpp - The -verify mode --------------------------===//

#include "arecipe/Basic/DiagnosticVerifier.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/SourceMgr.h"

#include <optional>

using namespace arecipe;

namespace {

/// One expected-<level> directive after parsing.
struct Expectation {
  DiagLevel Level;
  unsigned Buffer;
  std::optional<unsigned> Line; ///< None for "@*": any line, or none.
  unsigned Count;
  std::string Text;
  unsigned Seen = 0;
};

struct Directives {
  std::vector<Expectation> Expected;
  std::vector<llvm::SMLoc> NoDiagnostics;
  bool Malformed = false;
};

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_' || C == '-'; }

std::optional<DiagLevel> parseLevelWord(llvm::StringRef Word) {
  return llvm::StringSwitch<std::optional<DiagLevel>>(Word)
      .Case("error", DiagLevel::Error)
      .Case("warning", DiagLevel::Warning)
      .Case("note", DiagLevel::Note)
      .Case("remark", DiagLevel::Remark)
      .Default(std::nullopt);
}

/// Parses the rest of one directive, Rest starting just after
/// "expected-<level>"; on success consumes it from Rest. Returns the reason
/// when the directive is malformed.
std::optional<std::string>
parseDirective(llvm::StringRef &Rest, unsigned CurrentLine, Expectation &E) {
  E.Line = CurrentLine;
  if (Rest.consume_front("@")) {
    if (Rest.consume_front("*")) {
      E.Line.reset();
    } else {
      char Sign = 0;
      if (Rest.startswith("+") || Rest.startswith("-")) {
        Sign = Rest[0];
        Rest = Rest.drop_front();
      }
      unsigned Number;
      if (Rest.consumeInteger(10, Number))
        return std::string("expected a line number after '@'");
      long Line = Sign == '+'   ? long(CurrentLine) + Number
                  : Sign == '-' ? long(CurrentLine) - Number
                                : long(Number);
      if (Line < 1)
        return std::string("line number out of range");
      E.Line = unsigned(Line);
    }
  }
  Rest = Rest.ltrim(" \t");
  E.Count = 1;
  if (!Rest.empty() && llvm::isDigit(Rest[0])) {
    if (Rest.consumeInteger(10, E.Count) || E.Count == 0)
      return std::string("expected a positive count");
    Rest = Rest.ltrim(" \t");
  }
  if (!Rest.consume_front("{{"))
    return std::string("expected '{{'");
  size_t Close = Rest.find("}}");
  if (Close == llvm::StringRef::npos)
    return std::string("expected '}}'");
  E.Text = Rest.take_front(Close).trim().str();
  Rest = Rest.drop_front(Close + 2);
  return std::nullopt;
}

void scanLine(llvm::StringRef Line, unsigned Buffer, unsigned LineNo,
              Directives &Found, DiagnosticEngine &Out) {
  static constexpr llvm::StringLiteral Prefix = "expected-";
  size_t Pos = 0;
  while ((Pos = Line.find(Prefix, Pos)) != llvm::StringRef::npos) {
    const char *Start = Line.data() + Pos;
    bool StartsWord = Pos == 0 || !isIdentChar(Line[Pos - 1]);
    Pos += Prefix.size();
    if (!StartsWord)
      continue;
    llvm::StringRef Rest = Line.drop_front(Pos);
    size_t WordEnd = 0;
    while (WordEnd < Rest.size() && isIdentChar(Rest[WordEnd]))
      ++WordEnd;
    llvm::StringRef Word = Rest.take_front(WordEnd);
    Rest = Rest.drop_front(WordEnd);
    if (Word == "no-diagnostics") {
      Found.NoDiagnostics.push_back(llvm::SMLoc::getFromPointer(Start));
      continue;
    }
    std::optional<DiagLevel> Level = parseLevelWord(Word);
    if (!Level)
      continue; // Prose such as "expected-value", not a directive.
    Expectation E{*Level, Buffer, std::nullopt, 1, "", 0};
    if (std::optional<std::string> Problem = parseDirective(Rest, LineNo, E)) {
      Found.Malformed = true;
      llvm::SMLoc Loc = llvm::SMLoc::getFromPointer(Start);
      Out.report(Loc, DiagID::err_verify_malformed_directive)
          << ("expected-" + Word).str() << *Problem
          << llvm::SMRange(Loc, llvm::SMLoc::getFromPointer(Word.end()));
      continue;
    }
    Pos = Rest.data() - Line.data();
    Found.Expected.push_back(std::move(E));
  }
}

Directives scanBuffers(const llvm::SourceMgr &SM, DiagnosticEngine &Out) {
  Directives Found;
  for (unsigned Buffer = 1; Buffer <= SM.getNumBuffers(); ++Buffer) {
    llvm::StringRef Text = SM.getMemoryBuffer(Buffer)->getBuffer();
    unsigned LineNo = 1;
    while (!Text.empty()) {
      auto [Line, Next] = Text.split('\n');
      scanLine(Line, Buffer, LineNo, Found, Out);
      Text = Next;
      ++LineNo;
    }
  }
  return Found;
}

/// Where a captured diagnostic is: buffer 0 when it has no location.
struct Place {
  unsigned Buffer = 0;
  unsigned Line = 0;
};

Place placeOf(const llvm::SourceMgr &SM, llvm::SMLoc Loc) {
  Place P;
  if (Loc.isValid())
    P.Buffer = SM.FindBufferContainingLoc(Loc);
  if (P.Buffer)
    P.Line = SM.FindLineNumber(Loc, P.Buffer);
  return P;
}

std::string describePlace(const llvm::SourceMgr &SM, unsigned Buffer,
                          std::optional<unsigned> Line) {
  if (!Buffer)
    return "(no location)";
  std::string S = "File ";
  S += SM.getMemoryBuffer(Buffer)->getBufferIdentifier();
  S += " Line ";
  S += Line ? std::to_string(*Line) : "*";
  return S;
}

} // namespace

void DiagnosticVerifier::handleDiagnostic(const llvm::SourceMgr &SM,
                                          const Diagnostic &Diag) {
  Captured.push_back(Diag);
  Captured.back().Notes.clear();
  for (const Diagnostic &Note : Diag.Notes)
    handleDiagnostic(SM, Note);
}

bool DiagnosticVerifier::verify(const llvm::SourceMgr &SM,
                                DiagnosticEngine &Out) {
  Directives Found = scanBuffers(SM, Out);
  bool Ok = !Found.Malformed;
  if (!Found.NoDiagnostics.empty() && !Found.Expected.empty()) {
    Out.report(Found.NoDiagnostics.front(),
               DiagID::err_verify_no_diagnostics_with_directives);
    Ok = false;
  } else if (Found.NoDiagnostics.empty() && Found.Expected.empty() &&
             !Found.Malformed) {
    Out.report(llvm::SMLoc(), DiagID::err_verify_no_directives);
    Ok = false;
  }

  // Each diagnostic satisfies at most one expectation; expectations are
  // tried in the order they appear, each taking up to its count.
  std::vector<bool> Matched(Captured.size());
  for (Expectation &E : Found.Expected) {
    for (size_t I = 0; I < Captured.size() && E.Seen < E.Count; ++I) {
      const Diagnostic &D = Captured[I];
      if (Matched[I] || D.Level != E.Level ||
          !llvm::StringRef(D.Message).contains(E.Text))
        continue;
      Place P = placeOf(SM, D.Loc);
      if (E.Line && (P.Buffer != E.Buffer || P.Line != *E.Line))
        continue;
      Matched[I] = true;
      ++E.Seen;
    }
  }

  for (DiagLevel Level : {DiagLevel::Error, DiagLevel::Warning,
                          DiagLevel::Remark, DiagLevel::Note}) {
    std::string NotSeen;
    for (const Expectation &E : Found.Expected)
      for (unsigned I = E.Seen; I < E.Count && E.Level == Level; ++I)
        NotSeen += "\n  " + describePlace(SM, E.Buffer, E.Line) + ": " + E.Text;
    if (!NotSeen.empty()) {
      Out.report(llvm::SMLoc(), DiagID::err_verify_expected_not_seen)
          << getLevelName(Level) << NotSeen;
      Ok = false;
    }
    std::string Unexpected;
    for (size_t I = 0; I < Captured.size(); ++I) {
      if (Matched[I] || Captured[I].Level != Level)
        continue;
      Place P = placeOf(SM, Captured[I].Loc);
      Unexpected += "\n  " + describePlace(SM, P.Buffer, P.Line) + ": " +
                    Captured[I].Message;
    }
    if (!Unexpected.empty()) {
      Out.report(llvm::SMLoc(), DiagID::err_verify_seen_not_expected)
          << getLevelName(Level) << Unexpected;
      Ok = false;
    }
  }
  return Ok;
}
