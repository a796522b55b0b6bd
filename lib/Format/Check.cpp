//===- Check.cpp - Formatting that proves it kept the meaning ------------===//
//
// formatBuffer formats and then checks its own output three ways before it
// hands it out: the output parses to the same syntax tree (compared as the
// `--emit ast` dump without locations), it has the same comments between the
// same tokens, and formatting it again is a no-op. Any failure is a bug of
// the formatter, reported as such; the caller keeps the original text.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Format/Format.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Parse/Lexer.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace arecipe;
using namespace arecipe::format;

namespace {

/// One element of a text as the checks compare it: a significant token,
/// or a comment with whether it starts its line.
struct Element {
  std::string Text;
  bool Comment = false;
  bool OwnLine = false;
  unsigned Line = 0;

  bool operator==(const Element &O) const {
    return Text == O.Text && Comment == O.Comment && OwnLine == O.OwnLine;
  }
};

/// The tokens and comments of Text in order, without what the layout may
/// add or drop: `;` separators and a comma before a closing bracket.
/// Comments are compared as the formatter writes them (trailing blanks of
/// a line comment and the CR of CRLF line ends inside a block comment go).
std::optional<std::vector<Element>> elements(llvm::StringRef Text) {
  std::optional<std::vector<parse::Token>> Tokens = parse::lexTokens(Text);
  if (!Tokens)
    return std::nullopt;
  std::vector<Element> Out;
  const char *LineStart = Text.begin();
  unsigned Line = 1;
  const char *Scanned = Text.begin();
  for (size_t I = 0, E = Tokens->size(); I != E; ++I) {
    const parse::Token &T = (*Tokens)[I];
    const char *Start = T.Range.Start.getPointer();
    for (; Scanned < Start; ++Scanned)
      if (*Scanned == '\n') {
        ++Line;
        LineStart = Scanned + 1;
      }
    if (T.is(";"))
      continue;
    if (T.is(",")) {
      size_t J = I + 1;
      while (J < E && (*Tokens)[J].isComment())
        ++J;
      if (J < E && ((*Tokens)[J].is("]") || (*Tokens)[J].is(")") ||
                    (*Tokens)[J].is("}")))
        continue;
    }
    Element El;
    El.Line = Line;
    if (T.isComment()) {
      El.Comment = true;
      // A `;` the layout drops does not count as code before a comment.
      El.OwnLine = llvm::StringRef(LineStart, Start - LineStart)
                       .trim(" \t\f\v\r;")
                       .empty();
      llvm::StringRef S = T.getText();
      if (T.Kind == parse::TokenKind::LineComment)
        S = S.rtrim(" \t\f\v");
      for (size_t K = 0; K < S.size(); ++K)
        if (!(S[K] == '\r' && K + 1 < S.size() && S[K + 1] == '\n'))
          El.Text += S[K];
    } else {
      El.Text = T.getText().str();
    }
    Out.push_back(std::move(El));
  }
  return Out;
}

std::string dumpWithoutLocations(const ast::File &F,
                                 const llvm::SourceMgr &SM) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  ast::DumpOptions Opts;
  Opts.Locations = false;
  ast::dumpJSON(F, SM, OS, Opts);
  return OS.str();
}

/// Why Formatted differs from Original in its comments or tokens, or "".
std::string compareElements(llvm::StringRef Original,
                            llvm::StringRef Formatted) {
  std::optional<std::vector<Element>> A = elements(Original);
  std::optional<std::vector<Element>> B = elements(Formatted);
  if (!A || !B)
    return "produce text that is not valid UTF-8";
  size_t N = std::min(A->size(), B->size());
  for (size_t I = 0; I <= N; ++I) {
    if (I < N && (*A)[I] == (*B)[I])
      continue;
    if (I == N && A->size() == B->size())
      return "";
    const Element *Was = I < A->size() ? &(*A)[I] : nullptr;
    const Element *Now = I < B->size() ? &(*B)[I] : nullptr;
    if (Was && Was->Comment) {
      std::string What = "the comment '" +
                         llvm::StringRef(Was->Text).split('\n').first.str() +
                         "' on line " + std::to_string(Was->Line);
      if (Now && Now->Text == Was->Text)
        return "move " + What +
               (Was->OwnLine ? " off its own line" : " onto a line of its own");
      return "move or drop " + What;
    }
    if (Now && Now->Comment)
      return "move the comment '" +
             llvm::StringRef(Now->Text).split('\n').first.str() + "' before '" +
             (Was ? Was->Text : std::string("the end")) + "'";
    return "change the token '" +
           (Was ? Was->Text : std::string("end of file")) + "' on line " +
           std::to_string(Was ? Was->Line : 0);
  }
  return "";
}

/// Parses Text as a buffer Name of a fresh SourceMgr; the tree (null on
/// syntax errors) lives in Ctx, the buffer in SM.
ast::File *parseCopy(llvm::SourceMgr &SM, llvm::StringRef Text,
                     llvm::StringRef Name, ast::ASTContext &Ctx,
                     std::string &FirstError) {
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  struct Collector : DiagnosticConsumer {
    std::string &First;
    explicit Collector(std::string &First) : First(First) {}
    void handleDiagnostic(const llvm::SourceMgr &SM,
                          const Diagnostic &D) override {
      if (D.Level == DiagLevel::Error && First.empty()) {
        auto [Line, Col] = SM.getLineAndColumn(D.Loc);
        First =
            std::to_string(Line) + ":" + std::to_string(Col) + ": " + D.Message;
      }
    }
  } C(FirstError);
  DiagnosticEngine Diags(SM, &C);
  ast::File *F = parse::parseFile(SM, ID, Diags, Ctx);
  Diags.finish();
  return F && !Diags.hasErrors() ? F : nullptr;
}

/// Why Formatted, the formatter's output for Original (whose tree is
/// OriginalTree in OriginalSM), is not safe to hand out, or "".
std::string checkOutput(llvm::StringRef Original, const ast::File &OriginalTree,
                        const llvm::SourceMgr &OriginalSM,
                        llvm::StringRef Formatted, llvm::StringRef Name) {
  llvm::SourceMgr SM;
  ast::ASTContext Ctx;
  std::string ParseError;
  ast::File *F = parseCopy(SM, Formatted, Name, Ctx, ParseError);
  if (!F)
    return "produce text that does not parse (" + ParseError + ")";
  if (dumpWithoutLocations(OriginalTree, OriginalSM) !=
      dumpWithoutLocations(*F, SM))
    return "change its syntax tree";
  std::string Why = compareElements(Original, Formatted);
  if (!Why.empty())
    return Why;
  // The tree points into the SourceMgr's copy of the text.
  llvm::StringRef Copy = SM.getMemoryBuffer(SM.getMainFileID())->getBuffer();
  std::string Error;
  std::optional<std::string> Again = formatTree(Copy, *F, Error);
  if (!Again)
    return "fail on its own output (" + Error + ")";
  if (*Again != Formatted) {
    llvm::StringRef X = Formatted, Y = *Again;
    unsigned Line = 1;
    for (size_t I = 0; I < std::min(X.size(), Y.size()) && X[I] == Y[I]; ++I)
      Line += X[I] == '\n';
    return "not be stable: formatting the result again changes its line " +
           std::to_string(Line);
  }
  return "";
}

} // namespace

std::string arecipe::format::checkSameMeaning(llvm::StringRef Original,
                                              llvm::StringRef Formatted,
                                              llvm::StringRef Name) {
  llvm::SourceMgr SMA, SMB;
  ast::ASTContext CtxA, CtxB;
  std::string ErrA, ErrB;
  ast::File *A = parseCopy(SMA, Original, Name, CtxA, ErrA);
  if (!A)
    return "the original does not parse (" + ErrA + ")";
  ast::File *B = parseCopy(SMB, Formatted, Name, CtxB, ErrB);
  if (!B)
    return "produce text that does not parse (" + ErrB + ")";
  if (dumpWithoutLocations(*A, SMA) != dumpWithoutLocations(*B, SMB))
    return "change its syntax tree";
  return compareElements(Original, Formatted);
}

std::optional<std::string> arecipe::format::formatBuffer(
    const llvm::SourceMgr &SM, unsigned BufferID, DiagnosticEngine &Diags,
    llvm::function_ref<void(std::string &)> AfterFormat) {
  ast::ASTContext Ctx;
  unsigned Errors = Diags.errorCount();
  ast::File *F = parse::parseFile(SM, BufferID, Diags, Ctx);
  if (!F || Diags.errorCount() != Errors)
    return std::nullopt;
  const llvm::MemoryBuffer *Buffer = SM.getMemoryBuffer(BufferID);
  llvm::StringRef Text = Buffer->getBuffer();
  llvm::StringRef Name = Buffer->getBufferIdentifier();
  std::string Error;
  std::optional<std::string> Out = formatTree(Text, *F, Error);
  if (!Out) {
    Diags.report(llvm::SMLoc(), DiagID::err_fmt_not_safe)
        << Name << "fail to lay it out (" + Error + ")";
    return std::nullopt;
  }
  if (AfterFormat)
    AfterFormat(*Out);
  std::string Why = checkOutput(Text, *F, SM, *Out, Name);
  if (!Why.empty()) {
    Diags.report(llvm::SMLoc(), DiagID::err_fmt_not_safe) << Name << Why;
    return std::nullopt;
  }
  return Out;
}
