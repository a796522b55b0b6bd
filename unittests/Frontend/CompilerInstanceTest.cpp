//===- CompilerInstanceTest.cpp - One process, many compilations ---------===//
//
// The front end is reusable: a tuner compiles thousands of candidates and a
// language server recompiles on every keystroke, in one process, with
// in-memory buffers standing in for files. These tests compile the example
// recipe repeatedly with and without overrides and check that every
// compilation sees exactly its own inputs.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/LaunchPlan.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace arecipe;
using namespace arecipe::frontend;

namespace {

const std::string Root = ARECIPE_SOURCE_ROOT;
const std::string Example = Root + "/examples/kimik3-mi355x-atom.arecipe";

std::string readFile(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buffer)) << Path;
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

CompilerInvocation exampleInvocation() {
  CompilerInvocation Inv;
  Inv.MainFile = Example;
  Inv.StdRoot = Root;
  return Inv;
}

/// The plan's JSON text, or the diagnostics' text prefixed "error: ".
std::string planOf(const CompilerInvocation &Inv) {
  std::string Diags;
  llvm::raw_string_ostream DiagOS(Diags);
  TextDiagnosticPrinter Printer(DiagOS);
  std::optional<std::string> Plan = compileToPlanJSON(Inv, Printer);
  return Plan ? *Plan : "error: " + DiagOS.str();
}

/// The value of Knob in cell Conc of the only recipe, as `--explain`
/// would print it.
std::string knob(CompilerInstance &CI, llvm::StringRef Knob, int64_t Conc) {
  if (CI.analyze() != Status::Ok)
    return "<errors>";
  const sema::RecipeCells &R = *CI.getSema().recipes().front();
  const sema::ResolvedValue *V = R.find(*R.findCell(Conc), Knob);
  return V ? V->V.str() : "<none>";
}

TEST(CompilerInstanceTest, SameInvocationSameBytesEveryTime) {
  std::string First = planOf(exampleInvocation());
  ASSERT_EQ(First.rfind("{\n  \"schema\": \"arecipe.plan/v1.1\"", 0), 0u)
      << First.substr(0, 500);
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(planOf(exampleInvocation()), First);
}

TEST(CompilerInstanceTest, OverrideReplacesTheFileOnlyInItsCompilation) {
  std::string Disk = planOf(exampleInvocation());
  std::string Text = readFile(Example);
  size_t At = Text.find("max_num_seqs           = 32");
  ASSERT_NE(At, std::string::npos);
  // An editor's unsaved change of the open file.
  CompilerInvocation Edited = exampleInvocation();
  Edited.Overrides[Example] =
      Text.replace(At, 27, "max_num_seqs           = 48");
  CompilerInstance CI(Edited, nullptr);
  EXPECT_EQ(knob(CI, "max_num_seqs", 1), "48");
  std::string EditedPlan = planOf(Edited);
  EXPECT_NE(EditedPlan, Disk);
  EXPECT_NE(EditedPlan.find("\"48\""), std::string::npos);
  // The file itself is untouched: the next compilation reads the disk.
  EXPECT_EQ(planOf(exampleInvocation()), Disk);
}

TEST(CompilerInstanceTest, OverrideOfAnImportedFile) {
  const std::string Atom = Root + "/std/engines/atom.arecipe";
  std::string Text = readFile(Atom);
  size_t At = Text.find("\"0.0.0.0\"");
  ASSERT_NE(At, std::string::npos);
  CompilerInvocation Inv = exampleInvocation();
  Inv.Overrides[Atom] = Text.replace(At, 9, "\"127.0.0.1\"");
  CompilerInstance Edited(Inv, nullptr);
  EXPECT_EQ(knob(Edited, "host", 1), "\"127.0.0.1\"");
  CompilerInstance Disk(exampleInvocation(), nullptr);
  EXPECT_EQ(knob(Disk, "host", 1), "\"0.0.0.0\"");
}

TEST(CompilerInstanceTest, FilesThatExistOnlyInMemory) {
  CompilerInvocation Inv;
  Inv.MainFile = "/nonexistent/dir/main.arecipe";
  Inv.StdRoot = Root;
  std::string Text = readFile(Example);
  const std::string Import = "import \"std/golden/kimik3_dspark\"";
  ASSERT_NE(Text.find(Import), std::string::npos);
  Inv.Overrides[Inv.MainFile] =
      Text.replace(Text.find(Import), Import.size(), "import \"golden\"");
  // The relative import is found beside the main file, in memory too.
  Inv.Overrides["/nonexistent/dir/golden.arecipe"] =
      readFile(Root + "/std/golden/kimik3_dspark.arecipe");
  CompilerInstance CI(Inv, nullptr);
  EXPECT_EQ(knob(CI, "acceptance", 1), "3.84");
}

TEST(CompilerInstanceTest, ManyCandidatesInOneProcess) {
  // What a tuner does: one invocation per candidate value.
  for (int Seqs = 8; Seqs <= 256; Seqs *= 2) {
    CompilerInvocation Inv = exampleInvocation();
    Inv.Sets = {"max_num_seqs=" + std::to_string(Seqs)};
    CompilerInstance CI(Inv, nullptr);
    EXPECT_EQ(knob(CI, "max_num_seqs", 1), std::to_string(Seqs));
    EXPECT_EQ(CI.getDiagnostics().errorCount(), 0u);
  }
}

TEST(CompilerInstanceTest, DiagnosticsStayInTheirCompilation) {
  CompilerInvocation Broken = exampleInvocation();
  Broken.Sets = {"tp=eight"};
  std::string Text = planOf(Broken);
  EXPECT_EQ(Text.rfind("error: ", 0), 0u);
  EXPECT_NE(Text.find("use of undeclared name 'eight'"), std::string::npos);
  // A clean compilation afterwards reports nothing.
  CompilerInstance CI(exampleInvocation(), nullptr);
  EXPECT_EQ(CI.analyze(), Status::Ok);
  EXPECT_EQ(CI.getDiagnostics().errorCount(), 0u);
  EXPECT_EQ(CI.getDiagnostics().warningCount(), 0u);
}

TEST(CompilerInstanceTest, UnreadableMainFile) {
  CompilerInvocation Inv;
  Inv.MainFile = "/nonexistent/recipe.arecipe";
  CompilerInstance CI(Inv, nullptr);
  EXPECT_EQ(CI.parse(), Status::Unreadable);
  EXPECT_EQ(CI.analyze(), Status::Unreadable);
  EXPECT_FALSE(CI.lowerPlan());
  EXPECT_EQ(CI.getDiagnostics().errorCount(), 1u);
}

} // namespace
