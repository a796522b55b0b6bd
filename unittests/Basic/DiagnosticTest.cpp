//===- DiagnosticTest.cpp - Engine, text and JSON output ------------------===//

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/JSONDiagnosticPrinter.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace arecipe;

namespace {

class DiagnosticTest : public ::testing::Test {
protected:
  unsigned addFile(llvm::StringRef Name, llvm::StringRef Text) {
    return SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  }
  /// The location of the first occurrence of Needle in buffer Buffer
  /// (after skipping Skip earlier occurrences).
  llvm::SMLoc at(unsigned Buffer, llvm::StringRef Needle, unsigned Skip = 0) {
    llvm::StringRef Text = SM.getMemoryBuffer(Buffer)->getBuffer();
    size_t Pos = Text.find(Needle);
    for (; Skip && Pos != llvm::StringRef::npos; --Skip)
      Pos = Text.find(Needle, Pos + 1);
    EXPECT_TRUE(Pos != llvm::StringRef::npos) << Needle.str();
    return llvm::SMLoc::getFromPointer(Text.data() + Pos);
  }
  llvm::SMRange over(unsigned Buffer, llvm::StringRef Needle) {
    llvm::SMLoc Start = at(Buffer, Needle);
    return {Start,
            llvm::SMLoc::getFromPointer(Start.getPointer() + Needle.size())};
  }

  llvm::SourceMgr SM;
  std::string Out;
  llvm::raw_string_ostream OS{Out};
  TextDiagnosticPrinter Text{OS};
};

TEST_F(DiagnosticTest, ClangStyleTextWithCaretAndRange) {
  unsigned F = addFile("t.arecipe", "recipe r {\n  window = 2 * conc +\n}\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, "+"), DiagID::err_expected_expr)
        << "'+'" << over(F, "2 * conc");
  }
  EXPECT_EQ(Out, "t.arecipe:2:21: error: expected expression after '+'\n"
                 "  window = 2 * conc +\n"
                 "           ~~~~~~~~ ^\n");
}

TEST_F(DiagnosticTest, ReportWithRangeUnderlinesIt) {
  unsigned F = addFile("t.arecipe", "x = unknown_knob\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(over(F, "unknown_knob"), DiagID::err_unexpected_token)
        << "identifier";
  }
  EXPECT_EQ(Out, "t.arecipe:1:5: error: unexpected identifier\n"
                 "x = unknown_knob\n"
                 "    ^~~~~~~~~~~~\n");
}

TEST_F(DiagnosticTest, ColumnsAreBytesAndCaretsFollowDisplayWidth) {
  // "é" is two bytes and "日" three bytes (two display columns); the
  // reported column counts bytes, the caret lines up on screen.
  unsigned F = addFile("u.arecipe", "s = \"é日\" + $\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, "$"), DiagID::err_invalid_character) << "$";
  }
  EXPECT_EQ(Out, "u.arecipe:1:15: error: invalid character '$' in recipe\n"
                 "s = \"é日\" + $\n"
                 "            ^\n");
}

TEST_F(DiagnosticTest, TabsExpandInBothLines) {
  unsigned F = addFile("t.arecipe", "\tx = @\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, "@"), DiagID::err_invalid_character) << "@";
  }
  EXPECT_EQ(Out, "t.arecipe:1:6: error: invalid character '@' in recipe\n"
                 "        x = @\n"
                 "            ^\n");
}

TEST_F(DiagnosticTest, CRLFAndInvalidBytesInTheSourceLine) {
  unsigned F = addFile("t.arecipe", "a = \xff\r\nb = 1\r\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, "\xff"), DiagID::err_invalid_utf8);
    Diags.report(at(F, "1"), DiagID::err_expected) << "';'";
  }
  EXPECT_EQ(Out, "t.arecipe:1:5: error: invalid UTF-8 byte sequence\n"
                 "a = <FF>\n"
                 "    ^\n"
                 "t.arecipe:2:5: error: expected ';'\n"
                 "b = 1\n"
                 "    ^\n");
}

TEST_F(DiagnosticTest, LongLinesShowAWindowAroundTheCaret) {
  std::string Line(5000, 'a');
  Line[4000] = '#';
  unsigned F = addFile("t.arecipe", Line + "\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, "#"), DiagID::err_invalid_character) << "#";
  }
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  llvm::StringRef(Out).split(Lines, '\n');
  ASSERT_GE(Lines.size(), 3u);
  EXPECT_EQ(Lines[0],
            "t.arecipe:1:4001: error: invalid character '#' in recipe");
  EXPECT_LE(Lines[1].size(), 1024u);
  EXPECT_EQ(Lines[1][Lines[2].size() - 1], '#');
  EXPECT_TRUE(Lines[2].endswith("^"));
}

TEST_F(DiagnosticTest, FixItLine) {
  unsigned F = addFile("t.arecipe", "tp = 8 dcp = 1\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    llvm::SMLoc After = at(F, " dcp");
    Diags.report(After, DiagID::err_expected)
        << "';' or newline" << FixIt::insert(After, ";");
  }
  EXPECT_EQ(Out, "t.arecipe:1:7: error: expected ';' or newline\n"
                 "tp = 8 dcp = 1\n"
                 "      ^\n"
                 "      ;\n");
}

TEST_F(DiagnosticTest, FixItsAreRecorded) {
  unsigned F = addFile("t.arecipe", "a == 1\n");
  std::vector<Diagnostic> Seen;
  struct Capture : DiagnosticConsumer {
    std::vector<Diagnostic> &Seen;
    explicit Capture(std::vector<Diagnostic> &Seen) : Seen(Seen) {}
    void handleDiagnostic(const llvm::SourceMgr &,
                          const Diagnostic &D) override {
      Seen.push_back(D);
    }
  } Consumer(Seen);
  {
    DiagnosticEngine Diags(SM, &Consumer);
    Diags.report(at(F, "=="), DiagID::err_unexpected_token)
        << "'=='" << FixIt::replace(over(F, "=="), "=")
        << FixIt::remove(over(F, " 1")) << FixIt::insert(llvm::SMLoc(), "x");
  }
  ASSERT_EQ(Seen.size(), 1u);
  ASSERT_EQ(Seen[0].FixIts.size(), 2u) << "an invalid location is dropped";
  EXPECT_EQ(Seen[0].FixIts[0].Text, "=");
  EXPECT_EQ(Seen[0].FixIts[1].Text, "");
}

TEST_F(DiagnosticTest, SortedByBufferThenOffsetWithNotesAttached) {
  unsigned A = addFile("a.arecipe", "one\ntwo\nthree\n");
  unsigned B = addFile("b.arecipe", "four\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(B, "four"), DiagID::err_expected) << "b";
    Diags.report(at(A, "three"), DiagID::err_expected) << "a3";
    Diags.report(at(A, "one"), DiagID::note_matching_delimiter) << "{";
    Diags.report(at(A, "two"), DiagID::err_expected) << "a2";
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file) << "c.arecipe"
                                                              << "no such file";
    Diags.report(at(A, "two"), DiagID::err_expected) << "a2 again";
  }
  EXPECT_EQ(Out, "arecipec: error: cannot open 'c.arecipe': no such file\n"
                 "a.arecipe:2:1: error: expected a2\n"
                 "two\n"
                 "^\n"
                 "a.arecipe:2:1: error: expected a2 again\n"
                 "two\n"
                 "^\n"
                 "a.arecipe:3:1: error: expected a3\n"
                 "three\n"
                 "^\n"
                 "a.arecipe:1:1: note: to match this '{'\n"
                 "one\n"
                 "^\n"
                 "b.arecipe:1:1: error: expected b\n"
                 "four\n"
                 "^\n");
}

TEST_F(DiagnosticTest, NotesThroughTheBuilder) {
  unsigned F = addFile("t.arecipe", "band a {\n}\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    DiagnosticBuilder Error = Diags.report(at(F, "}"), DiagID::err_expected);
    Error << "'x'";
    Error.note(at(F, "{"), DiagID::note_matching_delimiter) << "{";
  }
  EXPECT_EQ(Out, "t.arecipe:2:1: error: expected 'x'\n"
                 "}\n"
                 "^\n"
                 "t.arecipe:1:8: note: to match this '{'\n"
                 "band a {\n"
                 "       ^\n");
}

TEST_F(DiagnosticTest, ErrorLimit) {
  unsigned F = addFile("t.arecipe", "a\nb\nc\nd\n");
  DiagnosticEngine Diags(SM, &Text);
  Diags.setErrorLimit(2);
  for (llvm::StringRef Name : {"a", "b", "c"}) {
    Diags.report(at(F, Name), DiagID::err_expected) << Name;
    Diags.report(at(F, "a"), DiagID::note_matching_delimiter) << Name;
  }
  Diags.report(at(F, "d"), DiagID::err_expected) << "d";
  EXPECT_EQ(Diags.errorCount(), 2u);
  EXPECT_TRUE(Diags.hasErrors());
  EXPECT_TRUE(Diags.hasReachedErrorLimit());
  Diags.flush();
  EXPECT_EQ(Out, "t.arecipe:1:1: error: expected a\n"
                 "a\n"
                 "^\n"
                 "t.arecipe:1:1: note: to match this 'a'\n"
                 "a\n"
                 "^\n"
                 "t.arecipe:2:1: error: expected b\n"
                 "b\n"
                 "^\n"
                 "t.arecipe:1:1: note: to match this 'b'\n"
                 "a\n"
                 "^\n"
                 "arecipec: error: too many errors emitted, stopping now\n");
  // Said once, however often the engine is flushed.
  Out.clear();
  Diags.report(at(F, "d"), DiagID::err_expected) << "d";
  Diags.flush();
  EXPECT_EQ(Out, "");
}

TEST_F(DiagnosticTest, NoErrorLimit) {
  unsigned F = addFile("t.arecipe", "a\n");
  DiagnosticEngine Diags(SM);
  Diags.setErrorLimit(0);
  for (int I = 0; I < 100; ++I)
    Diags.report(at(F, "a"), DiagID::err_expected) << I;
  EXPECT_EQ(Diags.errorCount(), 100u);
  EXPECT_FALSE(Diags.hasReachedErrorLimit());
}

TEST_F(DiagnosticTest, WarningsCountAndCanBeErrors) {
  unsigned F = addFile("t.arecipe", "a = 1;;\n");
  {
    DiagnosticEngine Diags(SM, &Text);
    Diags.report(at(F, ";", 1), DiagID::warn_extra_semicolon);
    EXPECT_EQ(Diags.warningCount(), 1u);
    EXPECT_FALSE(Diags.hasErrors());
    Diags.setWarningsAsErrors(true);
    Diags.report(at(F, ";", 1), DiagID::warn_extra_semicolon);
    EXPECT_EQ(Diags.warningCount(), 1u);
    EXPECT_EQ(Diags.errorCount(), 1u);
  }
  EXPECT_EQ(Out, "t.arecipe:1:7: warning: extra ';' has no effect\n"
                 "a = 1;;\n"
                 "      ^\n"
                 "t.arecipe:1:7: error: extra ';' has no effect\n"
                 "a = 1;;\n"
                 "      ^\n");
}

TEST_F(DiagnosticTest, ArgumentsOfEveryKind) {
  DiagnosticEngine Diags(SM, &Text);
  Diags.report(llvm::SMLoc(), DiagID::err_expected_after) << 42 << 0.5;
  Diags.report(llvm::SMLoc(), DiagID::err_expected_after)
      << std::string("'a'") << size_t(7);
  Diags.report(llvm::SMLoc(), DiagID::err_expected_after) << int64_t(-3);
  Diags.flush();
  EXPECT_EQ(Out, "arecipec: error: expected 42 after 0.5\n"
                 "arecipec: error: expected 'a' after 7\n"
                 "arecipec: error: expected -3 after {1}\n");
}

TEST_F(DiagnosticTest, ProgramNameAndColors) {
  std::string Colored;
  llvm::raw_string_ostream ColorOS(Colored);
  TextDiagnosticPrinter Printer(ColorOS, "arecipe-run", /*UseColors=*/true);
  {
    DiagnosticEngine Diags(SM, &Printer);
    Diags.report(llvm::SMLoc(), DiagID::err_too_many_errors);
  }
  EXPECT_NE(Colored.find("arecipe-run: "), std::string::npos);
  EXPECT_NE(Colored.find("\x1b["), std::string::npos);
  EXPECT_NE(Colored.find("error: "), std::string::npos);
}

TEST_F(DiagnosticTest, JSONLines) {
  unsigned F = addFile("dir/t.arecipe", "band a {\n  tp == 8\n}\n");
  std::string Json;
  llvm::raw_string_ostream JsonOS(Json);
  JSONDiagnosticPrinter Printer(JsonOS);
  {
    DiagnosticEngine Diags(SM, &Printer);
    Diags.report(at(F, "=="), DiagID::err_unexpected_token)
        << "'=='" << over(F, "==") << FixIt::replace(over(F, "=="), "=");
    Diags.report(at(F, "{"), DiagID::note_matching_delimiter) << "{";
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_open_file)
        << "x"
        << "bad \xff byte";
  }
  EXPECT_EQ(
      Json,
      R"({"id":"err_cannot_open_file","level":"error","message":"cannot open 'x': bad )"
      "\xEF\xBF\xBD"
      R"( byte","file":null,"line":null,"column":null,"ranges":[],"fixits":[],"notes":[]})"
      "\n"
      R"({"id":"err_unexpected_token","level":"error","message":"unexpected '=='",)"
      R"("file":"dir/t.arecipe","line":2,"column":6,)"
      R"("ranges":[{"start":{"line":2,"column":6},"end":{"line":2,"column":8}}],)"
      R"("fixits":[{"start":{"line":2,"column":6},"end":{"line":2,"column":8},"text":"="}],)"
      R"("notes":[{"id":"note_matching_delimiter","level":"note","message":"to match this '{'",)"
      R"("file":"dir/t.arecipe","line":1,"column":8,"ranges":[],"fixits":[],"notes":[]}]})"
      "\n");
}

TEST_F(DiagnosticTest, JSONIsDeterministic) {
  unsigned F = addFile("t.arecipe", "a b c d e f\n");
  auto Run = [&] {
    std::string Json;
    llvm::raw_string_ostream JsonOS(Json);
    JSONDiagnosticPrinter Printer(JsonOS);
    DiagnosticEngine Diags(SM, &Printer);
    for (llvm::StringRef Name : {"f", "c", "a", "e", "b", "d"})
      Diags.report(over(F, Name), DiagID::err_expected) << Name;
    Diags.flush();
    return Json;
  };
  std::string First = Run();
  EXPECT_EQ(First, Run());
  EXPECT_LT(First.find("expected a"), First.find("expected b"));
  EXPECT_LT(First.find("expected e"), First.find("expected f"));
}

TEST_F(DiagnosticTest, CoverageFileListsEmittedIds) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("diag-coverage", Dir));
  ::setenv("ARECIPE_DIAG_COVERAGE_DIR", Dir.c_str(), 1);
  {
    DiagnosticEngine Diags(SM);
    Diags.report(llvm::SMLoc(), DiagID::err_expected) << "x";
    Diags.report(llvm::SMLoc(), DiagID::note_matching_delimiter) << "x";
    Diags.flush();
    Diags.report(llvm::SMLoc(), DiagID::err_expected) << "y";
    Diags.report(llvm::SMLoc(), DiagID::err_invalid_utf8);
  }
  ::unsetenv("ARECIPE_DIAG_COVERAGE_DIR");
  llvm::SmallString<128> File(Dir);
  llvm::sys::path::append(
      File,
      "diag-" + std::to_string(llvm::sys::Process::getProcessId()) + ".txt");
  auto Buffer = llvm::MemoryBuffer::getFile(File);
  ASSERT_TRUE(bool(Buffer));
  EXPECT_EQ((*Buffer)->getBuffer(),
            "err_expected\nnote_matching_delimiter\nerr_invalid_utf8\n");
  llvm::sys::fs::remove(File);
  llvm::sys::fs::remove(Dir);
}

} // namespace
