//===- PlanEmitterTest.cpp - The plan's cells as writeCell writes them ----===//
//
// emitPlan copies the text of a knob from the cell before when the knob is
// the same (name, value, origin), and of a process's environment when it is
// the same map, instead of writing it again; writeCell alone never does.
// Each cell of a plan must be the same bytes either way, in plans whose
// knobs and environments change between cells (per-concurrency flags,
// bands, arms, disaggregated roles). The lowering reuses a process's
// rendered words and environment from the cell it lowered before when
// Sema hands the same renderings: a cell lowered after any other cell must
// be the cell lowered after its predecessor.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Support/JsonWriter.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace arecipe;

namespace {

const std::string Root = ARECIPE_SOURCE_ROOT;

TEST(PlanEmitter, CellsCopiedFromTheCellBeforeAreTheCellsWrittenAlone) {
  for (const char *Example :
       {"examples/kimik3-mi355x-atom.arecipe",
        "examples/suite/03-gptoss-fp4-h100-vllm.arecipe",
        "examples/corpus/08-dsv4-fp4-mi355x-sglang-disagg.arecipe",
        "examples/corpus/06-qwen3.5-fp8-mi355x-atom-mtp.arecipe",
        // 5,000 cells whose knobs change with the concurrency: the kept
        // knob texts are compacted many times over.
        "test/Sema/concurrency-5000-cells.arecipe"}) {
    SCOPED_TRACE(Example);
    frontend::CompilerInvocation Inv;
    Inv.MainFile = Root + "/" + Example;
    Inv.IncludeDirs = {Root + "/examples"};
    Inv.StdRoot = Root;
    std::string Diags;
    llvm::raw_string_ostream DiagOS(Diags);
    TextDiagnosticPrinter Printer(DiagOS, "PlanEmitterTest");
    frontend::CompilerInstance CI(Inv, &Printer);
    codegen::PlanLowering *Plan = CI.lowerPlan();
    ASSERT_NE(Plan, nullptr) << DiagOS.str();
    ASSERT_GT(Plan->size(), 5u);

    std::string Text;
    llvm::raw_string_ostream OS(Text);
    codegen::emitPlan(*Plan, OS);
    OS.flush();

    // The same cells at the same depth, each written on its own (cell()
    // lowers a cell again once emitPlan has taken it).
    support::JsonWriter W;
    W.beginObject();
    W.key("cells");
    W.beginArray();
    for (size_t I = 0; I < Plan->size(); ++I)
      codegen::writeCell(Plan->cell(I), W);
    W.endArray();
    W.endObject();
    std::string Alone = std::string(W.text()) + "\n";

    size_t Cells = Text.find("\n  \"cells\": [");
    ASSERT_NE(Cells, std::string::npos);
    EXPECT_EQ(Text.substr(Cells), Alone.substr(Alone.find('\n')));
  }
}

/// Each cell, written alone, after lowering the cells from last to first:
/// every cell's processes are lowered after a different neighbour than in
/// check() (whose cells emitPlan takes), so a rendering or environment
/// reused where it changed would show as different bytes.
TEST(PlanLowering, CellsLoweredInAnyOrderAreTheSame) {
  for (const char *Example :
       {"examples/kimik3-mi355x-atom.arecipe",
        "examples/corpus/08-dsv4-fp4-mi355x-sglang-disagg.arecipe",
        "examples/corpus/06-qwen3.5-fp8-mi355x-atom-mtp.arecipe"}) {
    SCOPED_TRACE(Example);
    frontend::CompilerInvocation Inv;
    Inv.MainFile = Root + "/" + Example;
    Inv.IncludeDirs = {Root + "/examples"};
    Inv.StdRoot = Root;
    std::string Diags;
    llvm::raw_string_ostream DiagOS(Diags);
    TextDiagnosticPrinter Printer(DiagOS, "PlanEmitterTest");
    frontend::CompilerInstance CI(Inv, &Printer);
    codegen::PlanLowering *Plan = CI.lowerPlan();
    ASSERT_NE(Plan, nullptr) << DiagOS.str();
    size_t N = Plan->size();
    ASSERT_GT(N, 5u);
    auto Write = [](const codegen::PlanCell &C) {
      support::JsonWriter W;
      codegen::writeCell(C, W);
      return std::string(W.text());
    };
    // What check() lowered, in plan order (handed out once).
    std::vector<std::string> Forward;
    for (size_t I = 0; I < N; ++I)
      Forward.push_back(Write(Plan->cell(I)));
    // Lowered again, last to first.
    for (size_t I = N; I-- > 0;)
      EXPECT_EQ(Write(Plan->cell(I)), Forward[I]) << "cell " << I;
    // The argv or environment of some process differs between two cells,
    // so the comparison above covers a changed part lowered anew.
    bool Changes = false;
    for (size_t I = 1; I < N && !Changes; ++I) {
      codegen::PlanCell A = Plan->cell(I - 1), B = Plan->cell(I);
      for (size_t P = 0; P < A.Processes.size() && P < B.Processes.size(); ++P)
        Changes |= A.Processes[P].Argv != B.Processes[P].Argv ||
                   A.Processes[P].env() != B.Processes[P].env();
    }
    EXPECT_TRUE(Changes);
  }
}

} // namespace
