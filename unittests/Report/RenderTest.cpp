//===- RenderTest.cpp - What the pages show for given results -------------===//

#include "arecipe/Report/HtmlReport.h"
#include "arecipe/Report/TuneReport.h"

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
  C.E2eP50 = 10.0 / Intvty;
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

TEST(RenderTest, OnePointPerValidCellInEachOfTheTwelveViews) {
  std::string Html = renderSweepReport(sweep());
  // 3 x metrics, 2 y metrics, linear and log axes.
  EXPECT_EQ(count(Html, "<svg class=\"chart\""), 12u);
  EXPECT_EQ(count(Html, "data-log=\"1\""), 6u);
  EXPECT_EQ(count(Html, "<path class=\"point"), 36u);
  // c32 has less throughput and less interactivity (more E2E latency) than
  // c8: dominated in every view.
  EXPECT_EQ(count(Html, "<path class=\"point dominated\""), 12u);
  // One configuration: no combined frontier, no error bars.
  EXPECT_EQ(count(Html, "class=\"frontier combined\""), 0u);
  EXPECT_EQ(count(Html, "class=\"error-bar\""), 0u);
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
  EXPECT_EQ(count(Html, "<path class=\"point"), 72u);
}

namespace {

/// Two arms: tp8 has more throughput at every concurrency, tp4 reaches more
/// interactivity at conc 2.
SweepResults twoArms() {
  SweepResults S = sweep();
  S.Cells.pop_back();
  for (CellResult &C : S.Cells) {
    C.Arm = "tp4";
    C.Id = "tp4." + C.Id;
  }
  for (CellResult C : sweep().Cells) {
    if (C.Status != "ok")
      continue;
    C.Arm = "tp8";
    C.Id = "tp8." + C.Id;
    *C.TotalPerGpu *= 1.5;
    *C.P90Interactivity *= 0.5;
    *C.P90E2eNormInteractivity *= 0.5;
    *C.E2eP50 *= 2;
    S.Cells.push_back(C);
  }
  return S;
}

std::string defaultView(const std::string &Html) {
  size_t At = Html.find("<svg class=\"chart\" data-x=\"intvty\" data-y=\"total\" data-log=\"0\"");
  return Html.substr(At, Html.find("</svg>", At) - At);
}

/// Each needle occurs in Page as often as it says.
void expectCounts(const std::string &Page,
                  const std::vector<std::pair<std::string, size_t>> &Expected) {
  for (const auto &[Needle, N] : Expected)
    EXPECT_EQ(count(Page, Needle), N) << Needle;
}

/// A tune.json of two concurrencies on an engine and hardware the
/// simulator was never compared with, as arecipe-tune writes it.
std::string tuneJson(bool Simulated, const std::string &Calibration) {
  std::string M =
      R"("metrics": {"tput_per_gpu": 900, "output_tput_per_gpu": 100,
      "p90_interactivity": 45, "p90_e2e_norm_interactivity": 40, "p50_e2e": 3})";
  std::string Miss =
      R"("metrics": {"tput_per_gpu": 1200, "output_tput_per_gpu": 130,
      "p90_interactivity": 30, "p90_e2e_norm_interactivity": 28, "p50_e2e": 4})";
  std::string Cell =
      R"({"conc": CONC, "band": "", "sla": ["p90_interactivity >= 40 tok/s/user"],
    "constraints": [{"metric": "p90_interactivity", "op": ">=", "bound": 40,
                     "text": "p90_interactivity >= 40 tok/s/user"}],
    "short_window": [{"values": {}, "window_s": 10, "status": "ok", )" +
      M + R"(, "eval": "evals/a.json", "meets_sla": true},
                     {"values": {"dcp": "8"}, "window_s": 10, "status": "ok", )" +
      Miss + R"(, "eval": "evals/b.json", "meets_sla": false,
                      "misses": ["p90_interactivity = 30"]},
                     {"values": {"dcp": "3"}, "window_s": 10, "status": "pruned",
                      "reason": "dcp must divide tp", "metrics": {}}],
    "full_window": [{"values": {}, "window_s": 40, "status": "ok", )" +
      M + R"(, "eval": "evals/c.json", "meets_sla": true}],
    "before": {"values": {}, "window_s": 40, "status": "ok", )" +
      M + R"(, "eval": "evals/c.json"},
    "winner": {"values": {}, "window_s": 40, "status": "ok", )" +
      M + R"(, "eval": "evals/c.json"}, "changes": {}})";
  auto At = [&](int Conc) {
    std::string C = Cell;
    C.replace(C.find("CONC"), 4, std::to_string(Conc));
    return C;
  };
  return std::string(R"({"tune": "t", "recipe": "r", "simulated": )") +
         (Simulated ? "true" : "false") +
         R"(, "time_scale": 100, "model": "m", "hardware": "h100", "engine": "sglang",
    "calibration": )" +
         Calibration +
         R"(, "strategy": "descent", "seed": 1, "objective": "maximize tput_per_gpu",
    "full_window_s": 40, "short_window_s": 10, "cells_used": 6,
    "pruned": {"dcp must divide tp": 2}, "cells": [)" +
         At(4) + "," + At(8) +
         R"(], "confirm_command": "arecipe-tune f.arecipe --out o --executor slurm --confirm-top 2"})";
}

TEST(TuneReport, UncalibratedPairSaysSoInEverySection) {
  EXPECT_TRUE(simulatorCalibration("sglang", "h100").empty());
  std::string Err;
  std::string Page = renderTuneReport(tuneJson(true, "\"not calibrated\""), Err);
  ASSERT_FALSE(Page.empty()) << Err;
  // The banner once, the note in each of the four sections (before/after,
  // pruned, two concurrencies), each with the confirm command. Per
  // concurrency: two feasible points (short and full window) and one
  // infeasible; the pruned candidate is not a point.
  expectCounts(Page, {{"class=\"callout sim-banner\"", 1},
                      {"class=\"callout sim-note\"", 4},
                      {"<section id=", 4},
                      {"<strong>not calibrated</strong>", 1},
                      {"calibration: not calibrated: the simulator was never compared with a "
                       "measurement of sglang on h100",
                       4},
                      {"arecipe-tune f.arecipe --out o --executor slurm --confirm-top 2", 5},
                      {"data-feasible=\"1\"", 4},
                      {"data-feasible=\"0\"", 2},
                      {"<td>dcp must divide tp</td><td class=\"num\">2</td>", 1},
                      {"class=\"sla-bound\"", 2}});
}

TEST(TuneReport, CalibratedPairListsItsComparisons) {
  std::vector<std::string> Cal = simulatorCalibration("vllm", "mi355x");
  ASSERT_EQ(Cal.size(), 2u);
  EXPECT_NE(Cal[0].find("39 % too high"), std::string::npos);
  EXPECT_EQ(simulatorCalibration("atom", "mi355x").size(), 1u);
}

TEST(TuneReport, MeasuredTuneHasNoSimulationNote) {
  std::string Err;
  std::string Page = renderTuneReport(tuneJson(false, "[]"), Err);
  ASSERT_FALSE(Page.empty()) << Err;
  expectCounts(Page, {{"class=\"callout sim-banner\"", 0},
                      {"class=\"callout sim-note\"", 0},
                      {"class=\"callout measured-note\"", 1}});
}

TEST(TuneReport, SameInputSameBytes) {
  std::string Err;
  EXPECT_EQ(renderTuneReport(tuneJson(true, "[]"), Err),
            renderTuneReport(tuneJson(true, "[]"), Err));
}

TEST(TuneReport, NotATuneSummary) {
  std::string Err;
  EXPECT_EQ(renderTuneReport("{\"cells\": 3}", Err), "");
  EXPECT_EQ(Err, "not a tune summary (tune.json)");
  EXPECT_EQ(renderTuneReport("not json", Err), "");
}

} // namespace

TEST(RenderTest, EachArmIsASeriesWithItsOwnFrontierAndACombinedOne) {
  std::string Html = renderSweepReport(twoArms());
  std::string View = defaultView(Html);
  EXPECT_EQ(count(View, "<g class=\"series\" data-series=\"0\">"), 1u);
  EXPECT_EQ(count(View, "<g class=\"series\" data-series=\"1\">"), 1u);
  EXPECT_EQ(count(View, "data-series=\"0\" data-tip=\"tp4\n"),
            0u); // escaped line breaks
  EXPECT_EQ(count(View, "data-tip=\"tp4&#10;tp4.c"), 3u);
  EXPECT_EQ(count(View, "data-tip=\"tp8&#10;tp8.c"), 3u);
  // Per series: c2 and c8 on the frontier, c32 dominated; each series'
  // frontier is a polyline of its colour.
  EXPECT_EQ(count(View, "<path class=\"point dominated\""), 2u);
  EXPECT_EQ(count(View, "<polyline class=\"frontier\" points="), 2u);
  // Combined: tp4.c2 (160 intvty, 200 tok/s), tp4.c8 (100, 480), tp8.c8
  // (50, 720); tp8.c2 (80, 300) is beaten by tp4.c8.
  size_t At = View.find("<polyline class=\"frontier combined\" points=\"");
  ASSERT_NE(At, std::string::npos);
  std::string Points = View.substr(At, View.find("\"/>", At) - At);
  EXPECT_EQ(count(Points, ","), 3u);
  // The legend names both arms, with different markers.
  EXPECT_NE(Html.find("</svg>tp4</span>"), std::string::npos);
  EXPECT_NE(Html.find("</svg>tp8</span>"), std::string::npos);
  EXPECT_NE(Html.find("all configurations</span>"), std::string::npos);
}

TEST(RenderTest, BandsAreSeriesToo) {
  SweepResults S = sweep();
  S.Cells[0].Band = "latency";
  S.Cells[1].Band = "throughput";
  S.Cells[2].Band = "throughput";
  std::string View = defaultView(renderSweepReport(S));
  EXPECT_EQ(count(View, "<g class=\"series\""), 2u);
  EXPECT_EQ(count(View, "data-tip=\"band latency&#10;"), 1u);
  EXPECT_EQ(count(View, "data-tip=\"band throughput&#10;"), 2u);
}

TEST(RenderTest, RepeatsPlotTheMeanWithItsConfidenceInterval) {
  SweepResults S = sweep();
  S.Cells[0].Repeats.Runs = 3;
  S.Cells[0].Repeats.TotalPerGpu = Spread{3, 210, 10, 185.2, 234.8};
  std::string Html = renderSweepReport(S);
  // Both y views and their log twins of each x metric draw the bar.
  EXPECT_EQ(count(Html, "class=\"error-bar\""), 6u);
  EXPECT_NE(Html.find("Throughput/GPU, total&#9;210 [185 – 235] tok/s"), std::string::npos);
  EXPECT_NE(Html.find("Repeats&#9;3 (mean, [95 % CI])"), std::string::npos);
}

TEST(RenderTest, ManyCellsPivotTheKnobTable) {
  SweepResults S = sweep();
  S.Cells.clear();
  for (int Conc = 1; Conc <= 11; ++Conc) {
    CellResult C = okCell(Conc, 100 * Conc, 200.0 / Conc);
    C.Knobs = {{"max_num_seqs", std::to_string(Conc), "r.arecipe", 3, 1, "at-conc"}};
    S.Cells.push_back(C);
  }
  std::string Html = renderSweepReport(S);
  EXPECT_NE(Html.find("name=\"knob-view\" value=\"cells\" checked>"), std::string::npos);
  EXPECT_NE(Html.find("<div data-view=\"knobs\" hidden>"), std::string::npos);
  // Pivoted: a row per cell.
  EXPECT_EQ(count(Html, "<tr data-cell=\"c11\"><th scope=\"row\">c11</th>"), 1u);
  EXPECT_EQ(renderSweepReport(sweep()).find("value=\"cells\" checked"), std::string::npos);
}
