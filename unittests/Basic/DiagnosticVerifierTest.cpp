//===- DiagnosticVerifierTest.cpp - The -verify mode ----------------------===//

#include "arecipe/Basic/DiagnosticVerifier.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>

using namespace arecipe;

namespace {

/// A diagnostic the "compiler" under test emits: on a 1-based line of the
/// first buffer (0: no location), with its level's id and a message
/// argument.
struct Emit {
  unsigned Line;
  DiagID ID;
  const char *Arg = "x";
};

struct VerifyResult {
  bool Ok;
  std::string Output;
};

VerifyResult runVerify(llvm::StringRef Source, std::vector<Emit> Emits,
                       llvm::StringRef Second = {}) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Source, "t.arecipe"), llvm::SMLoc());
  if (!Second.empty())
    SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Second, "u.arecipe"),
        llvm::SMLoc());
  DiagnosticVerifier Verifier;
  {
    DiagnosticEngine Diags(SM, &Verifier);
    for (const Emit &E : Emits) {
      llvm::SMLoc Loc;
      if (E.Line) {
        const char *P = SM.getMemoryBuffer(1)->getBufferStart();
        for (unsigned L = 1; L < E.Line; ++L)
          P = strchr(P, '\n') + 1;
        Loc = llvm::SMLoc::getFromPointer(P);
      }
      Diags.report(Loc, E.ID) << E.Arg;
    }
  }
  VerifyResult Result;
  llvm::raw_string_ostream OS(Result.Output);
  TextDiagnosticPrinter Printer(OS);
  DiagnosticEngine Out(SM, &Printer);
  Result.Ok = Verifier.verify(SM, Out);
  Out.flush();
  return Result;
}

TEST(DiagnosticVerifierTest, MatchedOnTheSameLine) {
  VerifyResult R = runVerify("a = // expected-error {{expected 'x'}}\n",
                             {{1, DiagID::err_expected, "'x'"}});
  EXPECT_TRUE(R.Ok) << R.Output;
  EXPECT_EQ(R.Output, "");
}

TEST(DiagnosticVerifierTest, TextIsASubstring) {
  VerifyResult R = runVerify("/* expected-error {{after 'b'}} */\n",
                             {{1, DiagID::err_expected_after, "'a'"}});
  EXPECT_FALSE(R.Ok);
  R = runVerify("a // expected-error {{xpect}}\n",
                {{1, DiagID::err_expected, "'a'"}});
  EXPECT_TRUE(R.Ok) << R.Output;
}

TEST(DiagnosticVerifierTest, UnmatchedExpectation) {
  VerifyResult R = runVerify("a\nb // expected-error {{expected 'y'}}\n", {});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Output, "arecipec: error: 'error' diagnostics expected but not "
                      "seen:\n  File t.arecipe Line 2: expected 'y'\n");
}

TEST(DiagnosticVerifierTest, UnexpectedDiagnostic) {
  VerifyResult R = runVerify("// expected-no-diagnostics\nx\n",
                             {{2, DiagID::err_expected, "'z'"},
                              {0, DiagID::err_cannot_open_file, "f"}});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Output,
            "arecipec: error: 'error' diagnostics seen but not expected:\n"
            "  (no location): cannot open 'f': {1}\n"
            "  File t.arecipe Line 2: expected 'z'\n");
}

TEST(DiagnosticVerifierTest, WrongLineIsBothUnmatchedAndUnexpected) {
  VerifyResult R = runVerify("a // expected-error {{expected}}\nb\n",
                             {{2, DiagID::err_expected}});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Output,
            "arecipec: error: 'error' diagnostics expected but not seen:\n"
            "  File t.arecipe Line 1: expected\n"
            "arecipec: error: 'error' diagnostics seen but not expected:\n"
            "  File t.arecipe Line 2: expected x\n");
}

TEST(DiagnosticVerifierTest, LevelsMustMatch) {
  VerifyResult R = runVerify("a // expected-warning {{extra}}\n",
                             {{1, DiagID::warn_extra_semicolon}});
  EXPECT_TRUE(R.Ok) << R.Output;
  R = runVerify("a // expected-note {{extra}}\n",
                {{1, DiagID::warn_extra_semicolon}});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Output.find("'note' diagnostics expected but not seen"),
            std::string::npos);
  EXPECT_NE(R.Output.find("'warning' diagnostics seen but not expected"),
            std::string::npos);
}

TEST(DiagnosticVerifierTest, RelativeAndAbsoluteLines) {
  VerifyResult R = runVerify("// expected-error@+2 {{two}}\n"
                             "// expected-note@-1 {{this}}\n"
                             "line three\n"
                             "// expected-error@1 {{one}}\n",
                             {{3, DiagID::err_expected, "two"},
                              {1, DiagID::err_expected, "one"},
                              {1, DiagID::note_matching_delimiter, "this"}});
  EXPECT_TRUE(R.Ok) << R.Output;
}

TEST(DiagnosticVerifierTest, AnyLineAndNoLocation) {
  VerifyResult R = runVerify("// expected-error@* {{cannot open}}\n",
                             {{0, DiagID::err_cannot_open_file, "f"}});
  EXPECT_TRUE(R.Ok) << R.Output;
}

TEST(DiagnosticVerifierTest, NotesAreMatchedWhereTheyPoint) {
  // A note attached to an error on line 2 points at line 1.
  VerifyResult R = runVerify("{ // expected-note {{to match}}\n"
                             "x // expected-error {{expected '}'}}\n",
                             {{2, DiagID::err_unmatched_delimiter, "}"},
                              {1, DiagID::note_matching_delimiter, "{"}});
  EXPECT_TRUE(R.Ok) << R.Output;
}

TEST(DiagnosticVerifierTest, Counts) {
  std::vector<Emit> Three(3, Emit{1, DiagID::err_expected});
  EXPECT_TRUE(runVerify("a // expected-error 3 {{expected}}\n", Three).Ok);
  VerifyResult R = runVerify("a // expected-error 2 {{expected}}\n", Three);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Output.find("seen but not expected:\n  File t.arecipe Line 1"),
            std::string::npos);
  R = runVerify("a // expected-error 4 {{expected}}\n", Three);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Output.find("expected but not seen:\n  File t.arecipe Line 1"),
            std::string::npos);
}

TEST(DiagnosticVerifierTest, SeveralDirectivesOnALine) {
  VerifyResult R =
      runVerify("a // expected-error {{x}} expected-warning {{extra}}\n",
                {{1, DiagID::err_expected}, {1, DiagID::warn_extra_semicolon}});
  EXPECT_TRUE(R.Ok) << R.Output;
}

TEST(DiagnosticVerifierTest, DirectivesInEveryBuffer) {
  VerifyResult R = runVerify("// expected-no-diagnostics\n", {},
                             "// expected-error {{never}}\n");
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Output.find("File u.arecipe Line 1: never"), std::string::npos);
}

TEST(DiagnosticVerifierTest, ExpectedNoDiagnostics) {
  EXPECT_TRUE(runVerify("// expected-no-diagnostics\n", {}).Ok);
  VerifyResult R =
      runVerify("// expected-no-diagnostics\n// expected-error {{x}}\n",
                {{2, DiagID::err_expected}});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Output, "t.arecipe:1:4: error: 'expected-no-diagnostics' cannot "
                      "be combined with other expected directives\n"
                      "// expected-no-diagnostics\n"
                      "   ^\n");
}

TEST(DiagnosticVerifierTest, NoDirectives) {
  VerifyResult R = runVerify("recipe r {}\n", {});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Output, "arecipec: error: no expected directives found: "
                      "consider use of 'expected-no-diagnostics'\n");
}

TEST(DiagnosticVerifierTest, MalformedDirectives) {
  struct Case {
    const char *Line;
    const char *Problem;
  };
  for (Case C :
       {Case{"// expected-error expected\n", "expected '{{'"},
        Case{"// expected-error {{never closed\n", "expected '}}'"},
        Case{"// expected-error@ {{x}}\n", "expected a line number after '@'"},
        Case{"// expected-error@-5 {{x}}\n", "line number out of range"},
        Case{"// expected-note 0 {{x}}\n", "expected a positive count"}}) {
    VerifyResult R = runVerify(C.Line, {});
    EXPECT_FALSE(R.Ok) << C.Line;
    EXPECT_NE(R.Output.find(std::string("directive: ") + C.Problem),
              std::string::npos)
        << R.Output;
    EXPECT_EQ(R.Output.find("no expected directives"), std::string::npos)
        << "a malformed directive is not 'no directive'";
  }
  VerifyResult R = runVerify("// expected-error {{x\n", {});
  EXPECT_EQ(R.Output, "t.arecipe:1:4: error: malformed 'expected-error' "
                      "directive: expected '}}'\n"
                      "// expected-error {{x\n"
                      "   ^~~~~~~~~~~~~~\n");
}

TEST(DiagnosticVerifierTest, ProseIsNotADirective) {
  VerifyResult R = runVerify(
      "// unexpected-error and expected-value are words, not directives\n"
      "// expected-no-diagnostics\n",
      {});
  EXPECT_TRUE(R.Ok) << R.Output;
}

} // namespace
