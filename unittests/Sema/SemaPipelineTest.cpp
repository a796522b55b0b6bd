//===- SemaPipelineTest.cpp - Compilation over an in-memory recipe -------===//

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Sema/Sema.h"

#include "gtest/gtest.h"

#include <algorithm>

using namespace arecipe;

namespace {

struct Compiled {
  std::unique_ptr<frontend::CompilerInstance> CI;
  const sema::Compilation *C = nullptr;
  bool Ok = false;
  unsigned errorCount() { return CI->getDiagnostics().errorCount(); }
};

/// Text compiled as the file test.arecipe (in memory), with the source
/// tree's std/.
std::unique_ptr<Compiled> compile(llvm::StringRef Text,
                                  std::vector<std::string> Sets = {}) {
  auto Out = std::make_unique<Compiled>();
  frontend::CompilerInvocation Inv;
  Inv.MainFile = "test.arecipe";
  Inv.Overrides[Inv.MainFile] = Text.str();
  Inv.StdRoot = ARECIPE_SOURCE_STD_ROOT;
  Inv.Sets = std::move(Sets);
  Out->CI = std::make_unique<frontend::CompilerInstance>(Inv, nullptr);
  Out->Ok = Out->CI->analyze() == frontend::Status::Ok;
  if (Out->CI->getAST())
    Out->C = &Out->CI->getSema();
  return Out;
}

const char *Recipe = R"(
import "std/hardware/mi355x"
import "std/engines/atom"
import "std/models/kimi_k3"
recipe r {
  model = kimi_k3
  hardware = mi355x
  engine = atom
  tp = 8
  concurrency = [14, 16]
  let window = 2 * conc
  lmcache = dram_budget(0.343) / tp
  at conc 14 { server = cell(16) }
}
)";

TEST(SemaPipelineTest, ServerCellCopiesServerSideValues) {
  auto R = compile(Recipe);
  ASSERT_TRUE(R->Ok);
  ASSERT_EQ(R->C->recipes().size(), 1u);
  const sema::RecipeCells &Cells = *R->C->recipes()[0];
  const sema::Cell *C14 = Cells.findCell(14);
  ASSERT_TRUE(C14);
  EXPECT_EQ(C14->ServerFrom, std::optional<int64_t>(16));
  const sema::ResolvedValue *W = C14->find("window");
  ASSERT_TRUE(W);
  EXPECT_EQ(W->V.getInt(), 32);
  EXPECT_EQ(W->L, sema::Level::ServerFrom);
  EXPECT_EQ(C14->Gpus, 8);
  const sema::ResolvedValue *L = C14->find("lmcache");
  ASSERT_TRUE(L);
  EXPECT_EQ(L->V.str(), "128.5GB");
}

TEST(SemaPipelineTest, UnknownKnobIsAnError) {
  auto R = compile(llvm::StringRef(Recipe).str().replace(
      std::string(Recipe).find("tp = 8"), 6, "tpp = 8"));
  EXPECT_FALSE(R->Ok);
  EXPECT_GE(R->errorCount(), 1u);
}

TEST(SemaPipelineTest, SetValueIsALateBoundExpression) {
  auto R = compile(Recipe, {"max_num_seqs=2 * conc + tp",
                            "scenario=fixed(isl = 128, osl = 16)"});
  ASSERT_TRUE(R->Ok);
  const sema::RecipeCells &Cells = *R->C->recipes()[0];
  const sema::ResolvedValue *Seqs = Cells.findCell(16)->find("max_num_seqs");
  ASSERT_TRUE(Seqs);
  EXPECT_EQ(Seqs->V.getInt(), 40);
  EXPECT_EQ(Seqs->L, sema::Level::CommandLine);
  const sema::ResolvedValue *Scenario = Cells.findCell(16)->find("scenario");
  ASSERT_TRUE(Scenario);
  ASSERT_TRUE(Scenario->V.lookup("isl"));
  EXPECT_EQ(Scenario->V.lookup("isl")->getInt(), 128);
}

TEST(SemaPipelineTest, SetValueThatDoesNotParseIsAnError) {
  auto R = compile(Recipe, {"tp=(8"});
  EXPECT_FALSE(R->Ok);
}

TEST(SemaPipelineTest, ConcurrencyIsOneValuePerRecipe) {
  auto R = compile(Recipe);
  ASSERT_TRUE(R->Ok);
  const sema::RecipeCells &Cells = *R->C->recipes()[0];
  const sema::Cell &C16 = *Cells.findCell(16);
  EXPECT_EQ(C16.find("concurrency"), nullptr);
  const sema::ResolvedValue *List = Cells.find(C16, "concurrency");
  ASSERT_TRUE(List);
  EXPECT_EQ(List->V.str(), "[14, 16]");
  EXPECT_EQ(List->L, sema::Level::Recipe);
}

TEST(SemaPipelineTest, ValueSameInEveryCellIsShared) {
  std::string Text = Recipe;
  Text.replace(Text.find("  let window"), 0,
               "  cudagraph_capture_sizes = [1 .. 512]\n");
  auto R = compile(Text);
  ASSERT_TRUE(R->Ok);
  const sema::RecipeCells &Cells = *R->C->recipes()[0];
  const sema::ResolvedValue *A =
      Cells.findCell(14)->find("cudagraph_capture_sizes");
  const sema::ResolvedValue *B =
      Cells.findCell(16)->find("cudagraph_capture_sizes");
  ASSERT_TRUE(A && B);
  EXPECT_TRUE(A->V.isSameAs(B->V));
  EXPECT_EQ(A->V.listSize(), 512u);
}

} // namespace

TEST(SemaPipelineTest, CellInvariantFormulaSharesItsOperandList) {
  auto R = compile(llvm::StringRef(Recipe).str().replace(
      std::string(Recipe).find("  at conc 14"), 0, "  let twice = tp * 2\n"));
  ASSERT_TRUE(R->Ok);
  const sema::RecipeCells &Cells = *R->C->recipes()[0];
  const sema::ResolvedValue *T14 = Cells.findCell(14)->find("twice");
  const sema::ResolvedValue *T16 = Cells.findCell(16)->find("twice");
  ASSERT_TRUE(T14 && T16);
  EXPECT_EQ(T16->Deps.names(), std::vector<std::string>{"tp"});
  // Evaluated once for the recipe: both cells hold the one list.
  EXPECT_EQ(&T14->Deps.names(), &T16->Deps.names());
  const sema::ResolvedValue *W = Cells.findCell(16)->find("window");
  ASSERT_TRUE(W);
  EXPECT_EQ(W->Deps.names(), std::vector<std::string>{"conc"});
}

TEST(SemaPipelineTest, CellValuesIterateSortedByName) {
  auto R = compile(Recipe);
  ASSERT_TRUE(R->Ok);
  for (const sema::Cell &C : R->C->recipes()[0]->Cells) {
    std::vector<std::string> Names;
    for (const auto &[Name, RV] : C.Values) {
      Names.push_back(Name);
      EXPECT_EQ(C.find(Name), &RV);
    }
    EXPECT_EQ(Names.size(), C.Values.size());
    EXPECT_TRUE(std::is_sorted(Names.begin(), Names.end()));
    EXPECT_NE(std::find(Names.begin(), Names.end(), "window"), Names.end());
  }
}
