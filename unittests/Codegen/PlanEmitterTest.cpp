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

#include <memory>

using namespace arecipe;
using codegen::PlanNumber;

namespace {

const std::string Root = ARECIPE_SOURCE_ROOT;

/// Plans whose knobs, argv and environments change between cells
/// (per-concurrency flags, bands, arms, disaggregated roles).
const char *const Examples[] = {
    "examples/kimik3-mi355x-atom.arecipe",
    "examples/suite/03-gptoss-fp4-h100-vllm.arecipe",
    "examples/corpus/08-dsv4-fp4-mi355x-sglang-disagg.arecipe",
    "examples/corpus/06-qwen3.5-fp8-mi355x-atom-mtp.arecipe",
    // 5,000 cells whose knobs change with the concurrency: the writer's
    // kept knob texts are compacted many times over.
    "test/Sema/concurrency-5000-cells.arecipe"};

/// An example of the repository, analysed and lowered (Plan is null after
/// an error, which DiagOS holds).
struct Lowered {
  std::string Diags;
  llvm::raw_string_ostream DiagOS{Diags};
  TextDiagnosticPrinter Printer{DiagOS, "PlanEmitterTest"};
  std::unique_ptr<frontend::CompilerInstance> CI;
  codegen::PlanLowering *Plan = nullptr;

  explicit Lowered(const char *Example) {
    frontend::CompilerInvocation Inv;
    Inv.MainFile = Root + "/" + Example;
    Inv.IncludeDirs = {Root + "/examples"};
    Inv.StdRoot = Root;
    CI = std::make_unique<frontend::CompilerInstance>(Inv, &Printer);
    Plan = CI->lowerPlan();
  }
};

TEST(PlanEmitter, CellsCopiedFromTheCellBeforeAreTheCellsWrittenAlone) {
  for (const char *Example : Examples) {
    SCOPED_TRACE(Example);
    Lowered L(Example);
    codegen::PlanLowering *Plan = L.Plan;
    ASSERT_NE(Plan, nullptr) << L.DiagOS.str();
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

/// The header as the plan document nlohmann would dump: members in schema
/// order, figures with `calibration.X` nested at the first one's place,
/// a slurm object with each field set or not.
TEST(PlanEmitter, HeaderIsTheDocumentDumped) {
  codegen::PlanHeader H;
  H.RecipeName = "r";
  H.RecipeFile = "dir/r.arecipe";
  H.Mode = "bench";
  H.ModelId = "org/model";
  H.ModelPath = "/models/\"q\"";
  H.HardwareName = "mi355x";
  H.GpusPerNode = 8;
  H.VisibleDevicesEnv = "HIP_VISIBLE_DEVICES";
  H.Smi = "amd-smi";
  H.HardwareProfile = "mi355x";
  H.EngineName = "atom";
  H.ModelFigures = {
      {"layers", PlanNumber(61)},
      {"attention", std::string("mla")},
      {"acceptance_lengths",
       std::vector<PlanNumber>{PlanNumber(3), *Rational::fraction(7, 2)}},
      {"precision", std::string("fp4")}};
  H.HardwareFigures = {
      {"hbm_bytes", PlanNumber(int64_t(288) << 30)},
      {"calibration.mem_efficiency", *Rational::fraction(85, 100)},
      {"calibration.step_overhead_s", *Rational::fraction(1, 1000)},
      {"dram_bytes", PlanNumber(1)}};
  auto Write = [](const codegen::PlanHeader &Header) {
    support::JsonWriter W;
    W.beginObject();
    codegen::writeHeader(Header, W);
    W.endObject();
    return std::string(W.text());
  };

  std::string Text = Write(H);
  nlohmann::ordered_json Doc = nlohmann::ordered_json::parse(Text);
  EXPECT_EQ(Text, Doc.dump(2));
  std::vector<std::string> Keys;
  for (auto It = Doc.begin(); It != Doc.end(); ++It)
    Keys.push_back(It.key());
  EXPECT_EQ(Keys, (std::vector<std::string>{"schema", "recipe", "model",
                                            "image", "hardware", "engine",
                                            "container", "slurm"}));
  EXPECT_EQ(Doc["schema"], "arecipe.plan/v1");
  EXPECT_EQ(Doc["model"].dump(),
            R"({"id":"org/model","path":"/models/\"q\"","layers":61,)"
            R"("attention":"mla","acceptance_lengths":[3,3.5],)"
            R"("precision":"fp4"})");
  EXPECT_EQ(Doc["hardware"].dump(),
            R"({"name":"mi355x","gpus_per_node":8,)"
            R"("visible_devices_env":"HIP_VISIBLE_DEVICES","smi":"amd-smi",)"
            R"("profile":"mi355x","hbm_bytes":309237645312,)"
            R"("calibration":{"mem_efficiency":0.85,"step_overhead_s":0.001},)"
            R"("dram_bytes":1})");
  EXPECT_EQ(Doc["image"], nullptr);
  EXPECT_EQ(Doc["engine"].dump(), R"({"name":"atom","metric_prefix":null})");
  EXPECT_EQ(Doc["slurm"], nullptr);

  H.UsesV11 = true;
  H.Image = "img:1";
  H.MetricPrefix = "atom:";
  H.Slurm.emplace();
  Text = Write(H);
  Doc = nlohmann::ordered_json::parse(Text);
  EXPECT_EQ(Text, Doc.dump(2));
  EXPECT_EQ(Doc["schema"], "arecipe.plan/v1.1");
  EXPECT_EQ(Doc["image"], "img:1");
  EXPECT_EQ(Doc["engine"]["metric_prefix"], "atom:");
  EXPECT_EQ(Doc["slurm"].dump(), R"({"partition":null,"account":null,)"
                                 R"("time_limit_s":null,"nodelist":"auto"})");

  H.Slurm->Partition = "gpu";
  H.Slurm->Account = "acct";
  H.Slurm->TimeLimitS = *Rational::fraction(3, 2);
  H.Slurm->Nodelist =
      sema::Value::list({sema::Value::string("n1"), sema::Value::string("n2")});
  Text = Write(H);
  Doc = nlohmann::ordered_json::parse(Text);
  EXPECT_EQ(Text, Doc.dump(2));
  EXPECT_EQ(Doc["slurm"].dump(),
            R"({"partition":"gpu","account":"acct","time_limit_s":1.5,)"
            R"("nodelist":["n1","n2"]})");
  H.Slurm->Nodelist = sema::Value::integer(4);
  Doc = nlohmann::ordered_json::parse(Write(H));
  EXPECT_EQ(Doc["slurm"]["nodelist"], 4);
}

/// Each cell, written alone, after lowering the cells from last to first:
/// every cell's processes are lowered after a different neighbour than in
/// check() (whose cells emitPlan takes), so a rendering or environment
/// reused where it changed would show as different bytes.
TEST(PlanLowering, CellsLoweredInAnyOrderAreTheSame) {
  for (const char *Example : Examples) {
    SCOPED_TRACE(Example);
    Lowered L(Example);
    codegen::PlanLowering *Plan = L.Plan;
    ASSERT_NE(Plan, nullptr) << L.DiagOS.str();
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
