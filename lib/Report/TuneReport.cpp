//===- TuneReport.cpp - The page of one tuning run ------------------------===//

#include "Charts.h"
#include "Page.h"
#include "Svg.h"

#include "arecipe/Report/TuneReport.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

namespace arecipe::report {

using json = nlohmann::json;
using namespace chart;

std::vector<std::string> simulatorCalibration(const std::string &Engine,
                                              const std::string &Hardware) {
  // The comparisons of docs/simulator.md#calibration, word for word in their
  // figures; a pair that is not listed there has none.
  struct Row {
    const char *Engine, *Hardware, *Line;
  };
  static constexpr Row Rows[] = {
      {"atom", "mi355x",
       "seed 003 (Kimi-K3, ATOM TP8, conc 1): TTFT p50 0.75 s simulated "
       "against ~0.79 s "
       "measured, within 5 %; throughput per GPU not compared with a "
       "measurement"},
      {"vllm", "mi355x",
       "seed 004 (Kimi-K3, vLLM TP8 x PP2, conc 16): throughput per GPU 2,851 "
       "tok/s simulated "
       "against ~2,049 measured, 39 % too high"},
      {"vllm", "mi355x",
       "seed 004 (Kimi-K3, vLLM TP8 x PP2, conc 20): throughput per GPU 54 % "
       "too high, TTFT p50 "
       "2.3x too high (3.85 s against ~1.68 s), E2E p50 1.4x too high (12.57 s "
       "against ~8.96 s)"},
  };
  std::vector<std::string> Out;
  for (const Row &R : Rows)
    if (Engine == R.Engine && Hardware == R.Hardware)
      Out.push_back(R.Line);
  return Out;
}

namespace {

std::string str(const json &J, const char *Key) {
  auto It = J.find(Key);
  return It != J.end() && It->is_string() ? It->get<std::string>() : std::string();
}

std::optional<double> metric(const json &M, const std::string &Name) {
  auto Ms = M.find("metrics");
  if (Ms == M.end() || !Ms->is_object())
    return std::nullopt;
  auto It = Ms->find(Name);
  if (It == Ms->end() || !It->is_number())
    return std::nullopt;
  return It->get<double>();
}

/// "dcp = 8, draft = 3", or what an empty configuration means.
std::string describeValues(const json &M) {
  auto V = M.find("values");
  if (V == M.end() || !V->is_object() || V->empty())
    return "(the recipe's values)";
  std::string S;
  for (auto It = V->begin(); It != V->end(); ++It)
    S += (S.empty() ? "" : ", ") + It.key() + " = " +
         (It->is_string() ? It->get<std::string>() : It->dump());
  return S;
}

/// A metric's value as the tables show it: seconds as latencies, rates as
/// numbers.
std::string formatMetric(const std::string &Name, const std::optional<double> &V) {
  if (!V)
    return "–";
  if (Name == "error_rate")
    return formatPercent(*V);
  bool Seconds =
      Name.find("ttft") != std::string::npos || Name.find("itl") != std::string::npos ||
      (Name.find("e2e") != std::string::npos && Name.find("interactivity") == std::string::npos);
  return Seconds ? formatSeconds(*V) : formatNumber(*V);
}

/// What the tune measured with, for the banner and every section's note.
struct Basis {
  bool Simulated = false;
  double TimeScale = 1;
  std::string Engine, Hardware;
  std::vector<std::string> Calibration;
  std::string Confirm;

  std::string calibrationText() const {
    if (Calibration.empty())
      return fmt::format("not calibrated: the simulator was never compared with a measurement "
                         "of {} on {}",
                         Engine.empty() ? "this engine" : Engine,
                         Hardware.empty() ? "this hardware" : Hardware);
    std::string S;
    for (const std::string &L : Calibration)
      S += (S.empty() ? "" : "; ") + L;
    return S;
  }

  /// The full banner at the top of the page.
  std::string banner() const {
    if (!Simulated)
      return "<p class=\"callout measured-note\">Measured with the real "
             "engines: the figures "
             "below are measurements, not the simulator's model.</p>\n";
    std::string Cal;
    if (Calibration.empty())
      Cal = "<p>Simulator calibration for <code>" + escapeHtml(Engine) + "</code> on <code>" +
            escapeHtml(Hardware) +
            "</code>: <strong>not calibrated</strong> (the simulator was "
            "never compared with a measurement of this engine on this "
            "hardware).</p>";
    else {
      Cal = "<p>Simulator calibration for <code>" + escapeHtml(Engine) + "</code> on <code>" +
            escapeHtml(Hardware) + "</code> (docs/simulator.md, calibration):</p><ul>";
      for (const std::string &L : Calibration)
        Cal += "<li>" + escapeHtml(L) + "</li>";
      Cal += "</ul>";
    }
    return fmt::format("<div class=\"callout sim-banner\" "
                       "role=\"note\"><p><strong>Simulated.</strong> Every "
                       "figure on this page is arecipe-sim's model of the "
                       "engine at time scale {}×, not a "
                       "measurement of GPUs: a winner here is a hypothesis to "
                       "confirm.</p>{}<p>Confirm the "
                       "winners on real hardware:</p><pre class=\"cmd "
                       "confirm-command\">{}</pre></div>\n",
                       formatNumber(TimeScale), Cal, escapeHtml(Confirm));
  }

  /// The one-line reminder at the head of every section.
  std::string note() const {
    if (!Simulated)
      return "";
    return fmt::format("<p class=\"callout sim-note\">Simulated figures (arecipe-sim, time "
                       "scale "
                       "{}×); calibration: {}. Confirm on GPUs: <code>{}</code></p>\n",
                       formatNumber(TimeScale), escapeHtml(calibrationText()), escapeHtml(Confirm));
  }
};

/// The x metric of a concurrency's frontier: the first SLA bound on a metric
/// other than the objective and the error rate; else the interactivity (or,
/// when that is the objective, the P90 TTFT).
std::string frontierMetric(const json &Cell, const std::string &Objective) {
  auto Cons = Cell.find("constraints");
  if (Cons != Cell.end() && Cons->is_array())
    for (const json &C : *Cons) {
      std::string M = str(C, "metric");
      if (!M.empty() && M != Objective && M != "error_rate")
        return M;
    }
  return Objective == "p90_interactivity" ? "p90_ttft" : "p90_interactivity";
}

/// The concurrency's SLA frontier: every measurement with both figures, the
/// objective against the SLA metric; feasible ones filled, infeasible ones
/// hollow; full windows round, short windows square; the SLA's bound on the
/// x metric dashed.
std::string renderFrontierChart(const json &Cell, const std::string &Objective,
                                const std::string &XMetricName) {
  struct Pt {
    double X, Y;
    bool Feasible, Full, Winner, Before;
    std::string Tip;
  };
  std::vector<Pt> Pts;
  size_t Unplotted = 0;
  std::string WinnerEval = Cell.contains("winner") ? str(Cell["winner"], "eval") : "";
  std::string BeforeEval = Cell.contains("before") ? str(Cell["before"], "eval") : "";
  for (const char *Window : {"short_window", "full_window"}) {
    auto List = Cell.find(Window);
    if (List == Cell.end() || !List->is_array())
      continue;
    bool Full = std::string(Window) == "full_window";
    for (const json &M : *List) {
      std::optional<double> X = metric(M, XMetricName), Y = metric(M, Objective);
      if (str(M, "status") != "ok" || !X || !Y) {
        ++Unplotted;
        continue;
      }
      Pt P{*X, *Y, M.value("meets_sla", false), Full, false, false, ""};
      std::string Eval = str(M, "eval");
      P.Winner = Full && !Eval.empty() && Eval == WinnerEval;
      P.Before = Full && !Eval.empty() && Eval == BeforeEval;
      P.Tip = fmt::format("{}\nWindow\t{} ({} s)\n{}\t{}\n{}\t{}\nSLA\t{}", describeValues(M),
                          Full ? "full" : "short", formatNumber(M.value("window_s", 0.0)),
                          Objective, formatMetric(Objective, Y), XMetricName,
                          formatMetric(XMetricName, X), P.Feasible ? "met" : "missed");
      if (M.contains("misses") && M["misses"].is_array())
        for (const json &Miss : M["misses"])
          if (Miss.is_string())
            P.Tip += "\nMissed\t" + Miss.get<std::string>();
      if (P.Winner)
        P.Tip += "\nChosen\tthe winner";
      if (P.Before)
        P.Tip += "\nBefore\tthe recipe's values";
      Pts.push_back(std::move(P));
    }
  }
  std::optional<double> Bound;
  std::string BoundText;
  if (Cell.contains("constraints") && Cell["constraints"].is_array())
    for (const json &C : Cell["constraints"])
      if (str(C, "metric") == XMetricName && C.contains("bound") && C["bound"].is_number()) {
        Bound = C["bound"].get<double>();
        BoundText = str(C, "text");
        break;
      }
  std::vector<double> Xs, Ys;
  for (const Pt &P : Pts) {
    Xs.push_back(P.X);
    Ys.push_back(P.Y);
  }
  if (Bound)
    Xs.push_back(*Bound);
  AxisScale XS = scaleOver(Xs, false, Left, Width - Right);
  AxisScale YS = scaleOver(Ys, false, Height - Bottom, Top);
  std::string Out = fmt::format("<svg class=\"chart frontier-chart\" viewBox=\"0 0 {} {}\" "
                                "role=\"img\" aria-label=\"{} against {}\">",
                                Width, Height, escapeHtml(Objective), escapeHtml(XMetricName));
  Out += renderAxes(XS, YS, XMetricName, Objective);
  if (Bound) {
    // The label reads away from the nearer edge of the plot.
    bool RightHalf = XS(*Bound) > (Left + Width - Right) / 2;
    Out += fmt::format("<line class=\"sla-bound\" x1=\"{0}\" y1=\"{1}\" "
                       "x2=\"{0}\" y2=\"{2}\"/>"
                       "<text class=\"sla-bound-label\" x=\"{3}\" y=\"{4}\" "
                       "text-anchor=\"{5}\">SLA {6}</text>",
                       coord(XS(*Bound)), coord(Top), coord(Height - Bottom),
                       coord(XS(*Bound) + (RightHalf ? -6 : 6)), coord(Top + 12),
                       RightHalf ? "end" : "start", escapeHtml(BoundText));
  }
  const char *FeasibleColor = seriesColor(2), *InfeasibleColor = seriesColor(1);
  for (const Pt &P : Pts) {
    const char *Color = P.Feasible ? FeasibleColor : InfeasibleColor;
    double X = XS(P.X), Y = YS(P.Y);
    if (P.Winner)
      Out += fmt::format("<circle class=\"winner-ring\" cx=\"{}\" cy=\"{}\" r=\"10\"/>", coord(X),
                         coord(Y));
    Out += fmt::format("<path class=\"point tune-point\" d=\"{}\" fill=\"{}\" stroke=\"{}\" "
                       "data-feasible=\"{}\" data-window=\"{}\"{} data-tip=\"{}\"/>",
                       markerPath(P.Full ? 0 : 1, X, Y), P.Feasible ? Color : "#ffffff", Color,
                       P.Feasible ? 1 : 0, P.Full ? "full" : "short",
                       P.Winner ? " data-winner=\"1\"" : "", escapeAttr(P.Tip));
  }
  Out += "</svg>\n";
  size_t Feasible = std::count_if(Pts.begin(), Pts.end(), [](const Pt &P) { return P.Feasible; });
  Out += fmt::format(
      "<figcaption class=\"legend\"><span class=\"legend-item\"><svg "
      "width=\"16\" height=\"16\" "
      "viewBox=\"0 0 16 16\"><path d=\"{}\" fill=\"{}\"/></svg>meets the SLA "
      "({})</span>"
      "<span class=\"legend-item\"><svg width=\"16\" height=\"16\" viewBox=\"0 "
      "0 16 16\"><path "
      "d=\"{}\" fill=\"#ffffff\" stroke=\"{}\" "
      "stroke-width=\"1.75\"/></svg>misses it ({})</span>"
      "<span class=\"legend-note\">Round: full measurement window; square: the "
      "descent's short "
      "window. Ringed: the winner.{}{}</span></figcaption>\n",
      markerPath(0, 8, 8), FeasibleColor, Feasible, markerPath(0, 8, 8), InfeasibleColor,
      Pts.size() - Feasible, Bound ? " Dashed: the SLA's bound." : "",
      Unplotted ? fmt::format(" Not plotted: {} measurement(s) without both figures (failed, "
                              "unmeasured or out of budget).",
                              Unplotted)
                : "");
  return Out;
}

std::string renderCandidateTable(const json &Cell, const std::string &Objective,
                                 const std::string &XMetricName) {
  std::string WinnerEval = Cell.contains("winner") ? str(Cell["winner"], "eval") : "";
  std::string Out = fmt::format("<div class=\"table-wrap\"><table "
                                "class=\"candidates\"><thead><tr><th>window</th>"
                                "<th>configuration</th><th>status</th><th "
                                "class=\"num\">{}</th><th class=\"num\">{}</th>"
                                "<th>SLA</th><th>measurement</th></tr></thead><tbody>",
                                escapeHtml(Objective), escapeHtml(XMetricName));
  for (const char *Window : {"full_window", "short_window"}) {
    auto List = Cell.find(Window);
    if (List == Cell.end() || !List->is_array())
      continue;
    for (const json &M : *List) {
      std::string Eval = str(M, "eval");
      std::string Sla;
      if (str(M, "status") == "ok" || M.contains("misses"))
        Sla = M.value("meets_sla", false) ? "<span class=\"status status-ok\">met</span>"
                                          : "<span class=\"status status-failed\">missed</span>";
      if (M.contains("misses") && M["misses"].is_array()) {
        std::vector<std::string> Misses;
        for (const json &Miss : M["misses"])
          if (Miss.is_string())
            Misses.push_back(escapeHtml(Miss.get<std::string>()));
        Sla += fmt::format(" <span class=\"muted\">{}</span>", fmt::join(Misses, "; "));
      }
      std::string Status = statusBadge(str(M, "status"));
      if (!str(M, "reason").empty())
        Status =
            fmt::format("<span data-tip=\"{}\">{}</span>", escapeAttr(str(M, "reason")), Status);
      Out += fmt::format("<tr class=\"candidate{}\" data-window=\"{}\"><td>{} <span "
                         "class=\"muted\">{} "
                         "s</span></td><td><code>{}</code>{}</td><td>{}</td><td "
                         "class=\"num\">{}</td><td "
                         "class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                         !Eval.empty() && Eval == WinnerEval && std::string(Window) == "full_window"
                             ? " winner"
                             : "",
                         std::string(Window) == "full_window" ? "full" : "short",
                         std::string(Window) == "full_window" ? "full" : "short",
                         formatNumber(M.value("window_s", 0.0)), escapeHtml(describeValues(M)),
                         !Eval.empty() && Eval == WinnerEval && std::string(Window) == "full_window"
                             ? " <span class=\"status status-ok\">winner</span>"
                             : "",
                         Status, formatMetric(Objective, metric(M, Objective)),
                         formatMetric(XMetricName, metric(M, XMetricName)), Sla,
                         Eval.empty() ? "–" : "<code>" + escapeHtml(Eval) + "</code>");
    }
  }
  return Out + "</tbody></table></div>\n";
}

std::string renderCell(const json &Cell, const std::string &Objective, const Basis &B) {
  int64_t Conc = Cell.value("conc", int64_t(0));
  std::string Band = str(Cell, "band");
  std::string Title =
      fmt::format("Concurrency {}{}", Conc, Band.empty() ? "" : " · band " + escapeHtml(Band));
  std::string Body = B.note();
  std::vector<std::string> Sla;
  if (Cell.contains("sla") && Cell["sla"].is_array())
    for (const json &S : Cell["sla"])
      if (S.is_string())
        Sla.push_back("<code>" + escapeHtml(S.get<std::string>()) + "</code>");
  Body += fmt::format("<p class=\"facts\">SLA: {}</p>",
                      Sla.empty() ? std::string("none") : fmt::format("{}", fmt::join(Sla, ", ")));
  if (!str(Cell, "note").empty())
    Body += fmt::format("<p class=\"callout\">{}</p>", escapeHtml(str(Cell, "note")));
  if (Cell.contains("winner")) {
    const json &W = Cell["winner"];
    std::string Changes =
        Cell.contains("changes") && Cell["changes"].is_object() && !Cell["changes"].empty()
            ? describeValues(json{{"values", Cell["changes"]}})
            : std::string();
    std::string Before;
    if (Cell.contains("before"))
      if (std::optional<double> V = metric(Cell["before"], Objective))
        Before = fmt::format(" (the recipe's values: {})", formatMetric(Objective, V));
    Body += fmt::format(
        "<p class=\"winner-line\"><strong>{}</strong> → {} = {}{}</p>",
        Changes.empty() ? "Keep the recipe's values" : "<code>" + escapeHtml(Changes) + "</code>",
        escapeHtml(Objective), formatMetric(Objective, metric(W, Objective)), escapeHtml(Before));
  }
  std::string XMetricName = frontierMetric(Cell, Objective);
  if (Cell.contains("full_window") || Cell.contains("short_window")) {
    Body += fmt::format("<h3>SLA frontier: {} against {}</h3>", escapeHtml(Objective),
                        escapeHtml(XMetricName));
    Body += fmt::format("<figure class=\"sla-frontier\" data-conc=\"{}\">", Conc) +
            renderFrontierChart(Cell, Objective, XMetricName) + "</figure>\n";
    Body += "<h3>Candidates tried</h3>" + renderCandidateTable(Cell, Objective, XMetricName);
  }
  if (Cell.contains("confirmed") && Cell["confirmed"].is_array()) {
    Body += "<h3>Confirmed with the real engines</h3><ul class=\"warnings\">";
    for (const json &M : Cell["confirmed"])
      Body += fmt::format("<li><code>{}</code> → {} {} = {}</li>", escapeHtml(describeValues(M)),
                          statusBadge(str(M, "status")), escapeHtml(Objective),
                          formatMetric(Objective, metric(M, Objective)));
    Body += "</ul>";
  }
  return section(fmt::format("conc-{}", Conc), Title, Body);
}

/// The recipe's configuration and the tuned one, one point per
/// concurrency each, on the sweep report's Pareto chart.
std::string renderBeforeAfter(const json &Cells) {
  std::vector<ChartSeries> Series(2);
  Series[0].Name = "before: the recipe's values";
  Series[0].Color = 0;
  Series[0].Marker = 1;
  Series[1].Name = "after: tuned";
  Series[1].Color = 2;
  Series[1].Marker = 0;
  size_t Missing = 0;
  std::vector<std::string> Unpatched;
  for (const json &Cell : Cells) {
    int Conc = Cell.value("conc", 0);
    if (!Cell.contains("winner"))
      Unpatched.push_back(std::to_string(Conc));
    for (int Which = 0; Which < 2; ++Which) {
      const char *Key = Which ? "winner" : "before";
      if (!Cell.contains(Key))
        continue; // no winner: said below the chart
      const json &M = Cell[Key];
      std::optional<double> Total = metric(M, "tput_per_gpu"),
                            Output = metric(M, "output_tput_per_gpu"),
                            Intvty = metric(M, "p90_interactivity"),
                            E2eNorm = metric(M, "p90_e2e_norm_interactivity"),
                            E2e = metric(M, "p50_e2e");
      if (str(M, "status") != "ok" || !Total || !Output || !Intvty || !E2eNorm || !E2e) {
        ++Missing;
        continue;
      }
      ChartPoint P;
      P.CellId = fmt::format("c{}-{}", Conc, Which ? "after" : "before");
      P.Conc = Conc;
      P.X[XInteractivity] = P.XLo[XInteractivity] = P.XHi[XInteractivity] = *Intvty;
      P.X[XE2eNormInteractivity] = P.XLo[XE2eNormInteractivity] = P.XHi[XE2eNormInteractivity] =
          *E2eNorm;
      P.X[XE2eLatency] = P.XLo[XE2eLatency] = P.XHi[XE2eLatency] = *E2e;
      P.Y[YTotalPerGpu] = P.YLo[YTotalPerGpu] = P.YHi[YTotalPerGpu] = *Total;
      P.Y[YOutputPerGpu] = P.YLo[YOutputPerGpu] = P.YHi[YOutputPerGpu] = *Output;
      P.Tip = fmt::format("conc {} · {}\nConfiguration\t{}\nThroughput/GPU, total\t{} tok/s\n"
                          "Throughput/GPU, output\t{} tok/s\nP90 interactivity\t{} tok/s/user\n"
                          "E2E p50\t{}",
                          Conc, Which ? "tuned" : "the recipe's values", describeValues(M),
                          formatNumber(*Total), formatNumber(*Output), formatNumber(*Intvty),
                          formatSeconds(*E2e));
      Series[Which].Points.push_back(std::move(P));
    }
  }
  std::string Out = renderParetoFigure(Series);
  if (!Unpatched.empty())
    Out += fmt::format("<p class=\"note\">No tuned point at conc {}: nothing met the SLA "
                       "there "
                       "(or nothing was measured within the budget), and the patched recipe "
                       "keeps the recipe's values.</p>\n",
                       fmt::join(Unpatched, ", "));
  if (Missing)
    Out += fmt::format("<p class=\"note\">{} configuration(s) have no valid full-window "
                       "figures (failed, or the recipe's values did not start) and are not "
                       "drawn.</p>\n",
                       Missing);
  return Out;
}

} // namespace

std::string renderTuneReport(const std::string &TuneJson, std::string &Err) {
  json T = json::parse(TuneJson, nullptr, false);
  if (T.is_discarded() || !T.is_object() || !T.contains("cells") || !T["cells"].is_array()) {
    Err = "not a tune summary (tune.json)";
    return {};
  }
  Basis B;
  B.Simulated = T.value("simulated", false);
  B.TimeScale = T.value("time_scale", 1.0);
  B.Engine = str(T, "engine");
  B.Hardware = str(T, "hardware");
  B.Confirm = str(T, "confirm_command");
  if (T.contains("calibration") && T["calibration"].is_array())
    for (const json &L : T["calibration"])
      if (L.is_string())
        B.Calibration.push_back(L.get<std::string>());
  std::string Objective = str(T, "objective");
  std::string ObjectiveMetric = Objective.substr(Objective.find(' ') + 1);

  std::string Out = pageHead(str(T, "tune") + " — arecipe tuning report");
  SweepResults ForBadge;
  ForBadge.Simulated = B.Simulated;
  ForBadge.TimeScale = B.TimeScale;
  std::vector<std::string> Facts;
  for (const char *K : {"model", "hardware", "engine"})
    if (!str(T, K).empty())
      Facts.push_back("<span>" + escapeHtml(str(T, K)) + "</span>");
  Out +=
      fmt::format("<header class=\"page-header\"><div class=\"eyebrow\">arecipe tuning "
                  "report</div><h1>{}</h1><p class=\"facts\">recipe <code>{}</code> · {} {}"
                  "</p><p class=\"source\">{} · strategy {}, seed {} · windows {} s / {} s"
                  "</p></header>\n",
                  escapeHtml(str(T, "tune")), escapeHtml(str(T, "recipe")), fmt::join(Facts, " · "),
                  timeBasisBadge(ForBadge), escapeHtml(Objective), escapeHtml(str(T, "strategy")),
                  T.value("seed", uint64_t(0)), formatNumber(T.value("short_window_s", 0.0)),
                  formatNumber(T.value("full_window_s", 0.0)));
  Out += B.banner();

  // The counts: cells, candidates, pruned, concurrencies changed.
  size_t Short = 0, Full = 0, Changed = 0, Cells = 0;
  auto Tried = [](const json &C, const char *Key) {
    size_t N = 0;
    if (C.contains(Key) && C[Key].is_array())
      for (const json &M : C[Key])
        N += str(M, "status") != "pruned" && str(M, "status") != "unmeasured";
    return N;
  };
  for (const json &C : T["cells"]) {
    ++Cells;
    Short += Tried(C, "short_window");
    Full += Tried(C, "full_window");
    if (C.contains("changes") && C["changes"].is_object() && !C["changes"].empty())
      ++Changed;
  }
  size_t PrunedCount = 0;
  if (T.contains("pruned") && T["pruned"].is_object())
    for (const auto &[Reason, N] : T["pruned"].items())
      PrunedCount += N.is_number_unsigned() ? N.get<size_t>() : 0;
  Out += "<section class=\"cards\">";
  Out += card("Cells used", fmt::format("{}", T.value("cells_used", 0)),
              "measurements the decision rests on");
  Out += card("Candidates tried", fmt::format("{}", Short + Full),
              fmt::format("measured or read back: {} short window · {} full window", Short, Full));
  Out += card("Pruned", fmt::format("{}", PrunedCount), "refused by the compiler, never run");
  Out += card("Concurrencies changed", fmt::format("{} <small>of {}</small>", Changed, Cells),
              "written into the patched recipe");
  Out += "</section>\n";

  Out += section("before-after", "Before and after: the recipe's values against the tuned ones",
                 B.note() + renderBeforeAfter(T["cells"]));

  std::string Pruned = B.note();
  if (PrunedCount == 0) {
    Pruned += "<p class=\"note ok-note\">No candidate was pruned.</p>\n";
  } else {
    Pruned += "<div class=\"table-wrap\"><table "
              "class=\"pruned\"><thead><tr><th>reason (the "
              "compiler's message)</th><th "
              "class=\"num\">candidates</th></tr></thead><tbody>";
    for (const auto &[Reason, N] : T["pruned"].items())
      Pruned += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>", escapeHtml(Reason),
                            N.dump());
    Pruned += "</tbody></table></div>\n<p class=\"note\">A pruned candidate "
              "fails the recipe's "
              "checks, a knob's constraint or the engine's schema when "
              "compiled into the "
              "recipe: it is never run.</p>\n";
  }
  Out += section("pruned", "Pruned candidates", Pruned);
  for (const json &C : T["cells"])
    Out += renderCell(C, ObjectiveMetric, B);
  return Out + pageTail("Generated by <code>arecipe-tune</code> from tune.json; each "
                        "measurement's own results and report are under "
                        "runs/&lt;key&gt;/.");
}

} // namespace arecipe::report
