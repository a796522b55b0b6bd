//===- RenderTest.cpp - What the pages show for given results -------------===//

#include "arecipe/Report/HtmlReport.h"

#include <gtest/gtest.h>

using namespace arecipe::report;

namespace {

size_t count(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t At = Text.find(Needle); At != std::string::npos; At = Text.find(Needle, At + 1))
    ++N;
  return N;
}

CellResult okCell(int Conc, double Tput, double Intvty) {
  CellResult C;
  C.Id = "c" + std::to_string(Conc);
  C.Conc = Conc;
  C.Gpus = 8;
  C.Status = "ok";
  C.TotalPerGpu = Tput;
  C.OutputPerGpu = Tput / 5;
  C.P90Interactivity = Intvty;
  C.P90E2eNormInteractivity = Intvty * 0.9;
  C.Ttft = quantilesOf({0.1, 0.2, 0.3});
  return C;
}

SweepResults sweep() {
  SweepResults S;
  S.Dir = "results/k3";
  S.Recipe = "k3";
  S.Image = "img:1";
  S.Simulated = true;
  S.TimeScale = 50;
  S.Cells = {okCell(2, 200, 160), okCell(8, 480, 100), okCell(32, 450, 40)};
  CellResult Failed;
  Failed.Id = "c64";
  Failed.Conc = 64;
  Failed.Status = "failed";
  Failed.Reason = "process 'server' exited <oops>";
  S.Cells.push_back(Failed);
  return S;
}

} // namespace

TEST(RenderTest, QuantilesInterpolateLikeTheSummary) {
  std::optional<LatencyQuantiles> Q = quantilesOf({4, 1, 3, 2});
  ASSERT_TRUE(Q);
  EXPECT_EQ(Q->Count, 4u);
  EXPECT_DOUBLE_EQ(Q->Min, 1);
  EXPECT_DOUBLE_EQ(Q->P50, 2.5);
  EXPECT_DOUBLE_EQ(Q->P90, 3.7);
  EXPECT_DOUBLE_EQ(Q->Max, 4);
  EXPECT_FALSE(quantilesOf({}));
}

TEST(RenderTest, OnePointPerValidCellInEachOfTheFourViews) {
  std::string Html = renderSweepReport(sweep());
  EXPECT_EQ(count(Html, "<svg class=\"chart\""), 4u);
  EXPECT_EQ(count(Html, "<path class=\"point"), 12u);
  // c32 has less throughput and less interactivity than c8: dominated.
  EXPECT_EQ(count(Html, "<path class=\"point dominated\""), 4u);
  EXPECT_NE(Html.find("Simulated · time scale 50×"), std::string::npos);
}

TEST(RenderTest, FailedCellsAreListedWithTheirReasonEscaped) {
  std::string Html = renderSweepReport(sweep());
  EXPECT_NE(Html.find("<article class=\"problem\" id=\"cell-c64\">"), std::string::npos);
  EXPECT_NE(Html.find("exited &lt;oops&gt;"), std::string::npos);
  EXPECT_EQ(Html.find("<oops>"), std::string::npos);
}

TEST(RenderTest, TheSameResultsGiveTheSameBytes) {
  EXPECT_EQ(renderSweepReport(sweep()), renderSweepReport(sweep()));
  EXPECT_EQ(renderComparisonReport({sweep(), sweep()}, "."),
            renderComparisonReport({sweep(), sweep()}, "."));
}

TEST(RenderTest, ComparisonDeltasAgainstTheFirstSweep) {
  SweepResults After = sweep();
  After.Recipe = "k3-retuned";
  *After.Cells[0].TotalPerGpu = 250; // +25% at conc 2
  std::string Html = renderComparisonReport({sweep(), After}, ".");
  EXPECT_NE(Html.find("<h1>k3 vs k3-retuned</h1>"), std::string::npos);
  EXPECT_NE(Html.find("<span class=\"delta better\">+25.0%</span>"), std::string::npos);
  EXPECT_EQ(count(Html, "<path class=\"point"), 24u);
}
