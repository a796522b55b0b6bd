//===- ParseExprTest.cpp - parse::parseExpr on a slice of a buffer --------===//

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Expr.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Parse/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace arecipe;

namespace {

/// Records every diagnostic and note as "line:col: message".
class Recorder : public DiagnosticConsumer {
public:
  void handleDiagnostic(const llvm::SourceMgr &SM,
                        const Diagnostic &D) override {
    auto [Line, Col] = SM.getLineAndColumn(D.Loc);
    Lines.push_back(std::to_string(Line) + ":" + std::to_string(Col) + ": " +
                    D.Message);
    for (const Diagnostic &Note : D.Notes)
      handleDiagnostic(SM, Note);
  }
  std::vector<std::string> Lines;
};

/// A `<command line>` buffer of one `name=value` option per line, the way
/// Sema builds it for --set.
struct CommandLine {
  llvm::SourceMgr SM;
  ast::ASTContext Ctx;
  Recorder Diags;
  DiagnosticEngine Engine{SM, &Diags};
  llvm::StringRef Text;

  explicit CommandLine(llvm::StringRef Options) {
    unsigned ID = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Options, "<command line>"),
        llvm::SMLoc());
    Text = SM.getMemoryBuffer(ID)->getBuffer();
  }

  /// Parses the value of the option on line Line (1-based).
  ast::Expr *parseValue(unsigned Line) {
    llvm::StringRef Rest = Text;
    for (unsigned N = 1; N < Line; ++N)
      Rest = Rest.split('\n').second;
    llvm::StringRef Option = Rest.split('\n').first;
    ast::Expr *E = parse::parseExpr(SM, Option.split('=').second, Engine, Ctx);
    Engine.flush();
    return E;
  }
};

TEST(ParseExprTest, ConstructorCallWithNamedArguments) {
  CommandLine CL("scenario=agentic(duration = 10min, trace = \"x/y\")\n");
  ast::Expr *E = CL.parseValue(1);
  ASSERT_TRUE(E);
  EXPECT_TRUE(CL.Diags.Lines.empty());
  auto *Call = llvm::dyn_cast<ast::CallExpr>(E);
  ASSERT_TRUE(Call);
  ASSERT_EQ(Call->getArgs().size(), 2u);
  EXPECT_TRUE(Call->getArgs()[0].isNamed());
  // The expression's range is the value's bytes in the buffer.
  llvm::StringRef Spelled(E->getRange().Start.getPointer(),
                          E->getRange().End.getPointer() -
                              E->getRange().Start.getPointer());
  EXPECT_EQ(Spelled, "agentic(duration = 10min, trace = \"x/y\")");
}

TEST(ParseExprTest, ListOnSecondLine) {
  CommandLine CL("tp=8\ncudagraph_capture_sizes=[1, 2, 4]\n");
  ast::Expr *E = CL.parseValue(2);
  ASSERT_TRUE(E);
  auto *List = llvm::dyn_cast<ast::ListExpr>(E);
  ASSERT_TRUE(List);
  EXPECT_EQ(List->getElements().size(), 3u);
}

// Each bad value gives exactly these diagnostics, "line:col: message", with
// the line and column inside the <command line> buffer.
struct BadValue {
  const char *Name;
  const char *Text;
  unsigned Line;
  std::vector<std::string> Expected;
};

TEST(ParseExprTest, BadValuesAreReportedInsideTheValue) {
  const BadValue Cases[] = {
      {"text after the value", "tp=8 9\n", 1, {"1:5: expected end of the value after '8'"}},
      {"unclosed parenthesis",
       "tp=8\nscenario=agentic(duration = 1h\n",
       2,
       {"2:31: expected ')'", "2:17: to match this '('"}},
      {"empty value", "tp=\n", 1, {"1:4: expected expression"}},
      {"lexical error", "lmcache=64gb\n", 1, {"1:11: unknown unit 'gb' in quantity literal"}},
      {"invalid UTF-8", "image=\"\xff\"\n", 1, {"1:8: invalid UTF-8 byte sequence"}},
  };
  for (const BadValue &C : Cases) {
    SCOPED_TRACE(C.Name);
    CommandLine CL(C.Text);
    EXPECT_FALSE(CL.parseValue(C.Line));
    EXPECT_EQ(CL.Diags.Lines, C.Expected);
  }
}

} // namespace
