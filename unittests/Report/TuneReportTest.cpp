//===- TuneReportTest.cpp - What the tuning page shows for a tune.json ----===//

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
  // pruned, two concurrencies), each with the confirm command.
  EXPECT_EQ(count(Page, "class=\"callout sim-banner\""), 1u);
  EXPECT_EQ(count(Page, "class=\"callout sim-note\""), 4u);
  EXPECT_EQ(count(Page, "<section id="), 4u);
  EXPECT_EQ(count(Page, "<strong>not calibrated</strong>"), 1u);
  EXPECT_EQ(count(Page, "calibration: not calibrated: the simulator was never "
                        "compared with a "
                        "measurement of sglang on h100"),
            4u);
  EXPECT_EQ(count(Page, "arecipe-tune f.arecipe --out o --executor slurm --confirm-top 2"), 5u);
  // Per concurrency: two feasible points (short and full window) and one
  // infeasible; the pruned candidate is not a point.
  EXPECT_EQ(count(Page, "data-feasible=\"1\""), 4u);
  EXPECT_EQ(count(Page, "data-feasible=\"0\""), 2u);
  EXPECT_EQ(count(Page, "<td>dcp must divide tp</td><td class=\"num\">2</td>"), 1u);
  EXPECT_EQ(count(Page, "class=\"sla-bound\""), 2u);
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
  EXPECT_EQ(count(Page, "class=\"callout sim-banner\""), 0u);
  EXPECT_EQ(count(Page, "class=\"callout sim-note\""), 0u);
  EXPECT_EQ(count(Page, "class=\"callout measured-note\""), 1u);
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
