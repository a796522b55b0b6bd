//===- SweepReport.cpp - The page of one sweep ----------------------------===//

#include "Charts.h"
#include "Page.h"
#include "Svg.h"

#include "arecipe/Report/HtmlReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace arecipe::report {

namespace {

std::string renderHeader(const SweepResults &S) {
  std::string Out = fmt::format("<header class=\"page-header\"><div class=\"eyebrow\">arecipe "
                                "sweep report</div><h1>{}</h1>",
                                escapeHtml(S.Recipe));
  std::vector<std::string> Facts;
  for (const std::string *F : {&S.Model, &S.Hardware, &S.Engine})
    if (!F->empty())
      Facts.push_back("<span>" + escapeHtml(*F) + "</span>");
  if (!S.Image.empty())
    Facts.push_back("<code>" + escapeHtml(S.Image) + "</code>");
  Out += fmt::format("<p class=\"facts\">{} {}</p>", fmt::join(Facts, " · "), timeBasisBadge(S));
  if (!S.RecipeFile.empty())
    Out += fmt::format("<p class=\"source\">recipe <code>{}</code></p>", escapeHtml(S.RecipeFile));
  if (!S.Endpoint.empty())
    Out += fmt::format("<p class=\"source\">measured at the external endpoint <code>{}</code>: "
                       "the plan's server commands below were not run by this sweep</p>",
                       escapeHtml(S.Endpoint));
  return Out + "</header>\n";
}

std::string renderCards(const SweepResults &S) {
  std::map<std::string, int> ByStatus;
  for (const CellResult &C : S.Cells)
    ++ByStatus[C.Status];
  std::string Counts;
  for (const char *St : {"invalid", "failed", "pending"})
    if (ByStatus.count(St))
      Counts += fmt::format("{}{} {}", Counts.empty() ? "" : " · ", ByStatus[St], St);
  const CellResult *BestTput = nullptr, *BestIntvty = nullptr;
  std::string Started;
  for (const CellResult &C : S.Cells) {
    if (!C.StartedAt.empty() && (Started.empty() || C.StartedAt < Started))
      Started = C.StartedAt;
    if (C.Status != "ok")
      continue;
    if (C.TotalPerGpu && (!BestTput || *C.TotalPerGpu > *BestTput->TotalPerGpu))
      BestTput = &C;
    if (C.P90Interactivity && (!BestIntvty || *C.P90Interactivity > *BestIntvty->P90Interactivity))
      BestIntvty = &C;
  }
  std::string Out = "<section class=\"cards\">";
  Out += card("Cells ok", fmt::format("{} <small>of {}</small>", ByStatus["ok"], S.Cells.size()),
              Counts.empty() ? "every cell valid" : Counts);
  Out += card("Peak throughput / GPU",
              BestTput ? formatNumber(BestTput->TotalPerGpu) + " <small>tok/s</small>" : "–",
              BestTput ? fmt::format("total, at {}", escapeHtml(BestTput->Id)) : "");
  Out += card("Best P90 interactivity",
              BestIntvty ? formatNumber(BestIntvty->P90Interactivity) + " <small>tok/s/user</small>"
                         : "–",
              BestIntvty ? fmt::format("at {}", escapeHtml(BestIntvty->Id)) : "");
  Out += card("Time basis", S.Simulated ? "Simulated" : "Measured",
              S.Simulated ? fmt::format("time scale {}×; figures in simulated time", S.TimeScale)
              : S.Endpoint.empty() ? "on hardware"
                                   : "at an external endpoint");
  if (!Started.empty())
    Out += card("Started", escapeHtml(Started.substr(0, 10)),
                escapeHtml(Started.size() > 11 ? Started.substr(11) : ""));
  return Out + "</section>\n";
}

std::string renderCellTable(const SweepResults &S) {
  std::string Out = "<div class=\"table-wrap\"><table "
                    "class=\"cells\"><thead><tr><th>cell</th><th "
                    "class=\"num\">conc</th><th>band</th><th>status</th><th "
                    "class=\"num\">tok/s/GPU</th><th "
                    "class=\"num\">output tok/s/GPU</th><th class=\"num\">P90 "
                    "intvty</th><th class=\"num\">P90 "
                    "E2E-norm</th><th class=\"num\">TTFT p50</th><th "
                    "class=\"num\">TTFT p90</th><th "
                    "class=\"num\">ITL p50</th><th class=\"num\">E2E "
                    "p50</th><th class=\"num\">requests</th><th "
                    "class=\"num\">errors</th><th class=\"num\">accept. "
                    "len</th></tr></thead><tbody>";
  for (const CellResult &C : S.Cells) {
    std::string Requests =
        C.RequestsTotal ? fmt::format("{} / {}", formatCount(C.RequestsSuccessful.value_or(0)),
                                      formatCount(*C.RequestsTotal))
                        : "–";
    Out += fmt::format(
        "<tr data-cell=\"{0}\"><td><a href=\"#cell-{0}\">{0}</a>{1}</td><td "
        "class=\"num\">{2}</td>"
        "<td>{3}</td><td>{4}</td><td class=\"num\">{5}</td><td "
        "class=\"num\">{6}</td><td "
        "class=\"num\">{7}</td><td class=\"num\">{8}</td><td "
        "class=\"num\">{9}</td><td "
        "class=\"num\">{10}</td><td class=\"num\">{11}</td><td "
        "class=\"num\">{12}</td><td "
        "class=\"num\">{13}</td><td class=\"num\">{14}</td><td "
        "class=\"num\">{15}</td></tr>",
        escapeHtml(C.Id),
        C.ServerFrom.empty() ? ""
                             : fmt::format(" <span class=\"muted\" data-tip=\"Runs the server "
                                           "of {0} verbatim\">"
                                           "→ {0}</span>",
                                           escapeHtml(C.ServerFrom)),
        C.Conc, escapeHtml(C.Band), statusBadge(C.Status), formatNumber(C.TotalPerGpu),
        formatNumber(C.OutputPerGpu), formatNumber(C.P90Interactivity),
        formatNumber(C.P90E2eNormInteractivity), formatSeconds(C.TtftP50), formatSeconds(C.TtftP90),
        formatSeconds(C.ItlP50), formatSeconds(C.E2eP50), Requests,
        C.ErrorRate ? formatPercent(*C.ErrorRate) : "–", formatNumber(C.SpecAcceptanceLength));
  }
  return Out + "</tbody></table></div>\n<p class=\"note\">Throughput in "
               "tokens/s per GPU, "
               "interactivity in tokens/s per user (1 / p90 ITL; "
               "E2E-normalised: 1 / p90 "
               "(ITL + TTFT/OSL)), as docs/metrics.md defines them.</p>\n";
}

std::string renderProblems(const SweepResults &S) {
  std::string Out;
  for (const CellResult &C : S.Cells) {
    if (C.Status == "ok" || C.Status == "pending")
      continue;
    Out += fmt::format("<article class=\"problem\" id=\"cell-{0}\"><h3>{0} <span "
                       "class=\"muted\">conc {1}</span> {2}</h3><p class=\"reason\">{3}</p>",
                       escapeHtml(C.Id), C.Conc, statusBadge(C.Status), escapeHtml(C.Reason));
    std::vector<std::string> Where;
    if (!C.FailedPhase.empty())
      Where.push_back("phase <code>" + escapeHtml(C.FailedPhase) + "</code>");
    if (!C.FailedProcess.empty())
      Where.push_back("process <code>" + escapeHtml(C.FailedProcess) + "</code>");
    if (!Where.empty())
      Out += fmt::format("<p class=\"where\">{}</p>", fmt::join(Where, " · "));
    if (!C.LogTail.empty())
      Out += fmt::format("<details open><summary>Log tail{}</summary><pre "
                         "class=\"log\">{}</pre>"
                         "</details>",
                         C.FailedProcess.empty() ? "" : " of " + escapeHtml(C.FailedProcess),
                         escapeHtml(C.LogTail));
    Out += "</article>\n";
  }
  std::vector<std::string> Pending;
  for (const CellResult &C : S.Cells)
    if (C.Status == "pending")
      Pending.push_back(escapeHtml(C.Id));
  if (!Pending.empty())
    Out += fmt::format("<p class=\"note\">Not run yet (no summary): {}.</p>\n",
                       fmt::join(Pending, ", "));
  if (Out.empty())
    Out = "<p class=\"note ok-note\">Every cell that ran is valid.</p>\n";
  // The same warning from many cells is one line naming them.
  std::map<std::string, std::vector<std::string>> Warnings;
  std::vector<std::string> Order;
  for (const CellResult &C : S.Cells)
    for (const std::string &W : C.Warnings) {
      if (!Warnings.count(W))
        Order.push_back(W);
      Warnings[W].push_back(C.Id);
    }
  if (!Order.empty()) {
    Out += "<h3 class=\"warnings-title\">Warnings</h3><ul class=\"warnings\">";
    for (const std::string &W : Order)
      Out += fmt::format("<li>{} <span class=\"muted\">({})</span></li>", escapeHtml(W),
                         escapeHtml(fmt::format("{}", fmt::join(Warnings[W], ", "))));
    Out += "</ul>\n";
  }
  return Out;
}

std::string provenanceTip(const KnobValue &K, const CellResult &C) {
  std::string Tip = fmt::format("{} · {}\nValue\t{}\nSet by\t{}", K.Name, C.Id,
                                K.Value.size() > 300 ? K.Value.substr(0, 300) + "…" : K.Value,
                                K.Level.empty() ? "?" : K.Level);
  if (!K.File.empty())
    Tip += fmt::format("\nAt\t{}:{}:{}", K.File, K.Line, K.Col);
  return Tip;
}

std::string renderKnobRows(const SweepResults &S, const std::vector<std::string> &Names) {
  std::string Out;
  for (const std::string &Name : Names) {
    Out += fmt::format("<tr><th scope=\"row\"><code>{}</code></th>", escapeHtml(Name));
    for (const CellResult &C : S.Cells) {
      auto K = std::find_if(C.Knobs.begin(), C.Knobs.end(),
                            [&](const KnobValue &V) { return V.Name == Name; });
      if (K == C.Knobs.end()) {
        Out += "<td class=\"muted\">–</td>";
        continue;
      }
      Out += fmt::format("<td class=\"level-{}\" data-tip=\"{}\">{}</td>", escapeHtml(K->Level),
                         escapeAttr(provenanceTip(*K, C)), escapeHtml(shortKnobValue(K->Value)));
    }
    Out += "</tr>";
  }
  return Out;
}

/// The varying knobs pivoted: one row per cell, one column per knob.
std::string renderPivotedKnobs(const SweepResults &S, const std::vector<std::string> &Names) {
  std::string Out = "<thead><tr><th>cell</th>";
  for (const std::string &Name : Names)
    Out += fmt::format("<th><code>{}</code></th>", escapeHtml(Name));
  Out += "</tr></thead><tbody>";
  for (const CellResult &C : S.Cells) {
    Out += fmt::format("<tr data-cell=\"{0}\"><th scope=\"row\">{0}</th>", escapeHtml(C.Id));
    for (const std::string &Name : Names) {
      auto K = std::find_if(C.Knobs.begin(), C.Knobs.end(),
                            [&](const KnobValue &V) { return V.Name == Name; });
      if (K == C.Knobs.end())
        Out += "<td class=\"muted\">–</td>";
      else
        Out += fmt::format("<td class=\"level-{}\" data-tip=\"{}\">{}</td>", escapeHtml(K->Level),
                           escapeAttr(provenanceTip(*K, C)), escapeHtml(shortKnobValue(K->Value)));
    }
    Out += "</tr>";
  }
  return Out + "</tbody>";
}

std::string renderKnobs(const SweepResults &S) {
  std::set<std::string> All;
  for (const CellResult &C : S.Cells)
    for (const KnobValue &K : C.Knobs)
      All.insert(K.Name);
  if (All.empty())
    return "<p class=\"note\">The plan lists no knobs.</p>\n";
  std::vector<std::string> Varying, Constant;
  for (const std::string &Name : All) {
    std::set<std::string> Values;
    size_t Present = 0;
    for (const CellResult &C : S.Cells)
      for (const KnobValue &K : C.Knobs)
        if (K.Name == Name) {
          Values.insert(K.Value);
          ++Present;
        }
    (Values.size() > 1 || Present != S.Cells.size() ? Varying : Constant).push_back(Name);
  }
  std::string Head = "<thead><tr><th>knob</th>";
  for (const CellResult &C : S.Cells)
    Head += fmt::format("<th>{}</th>", escapeHtml(C.Id));
  Head += "</tr></thead>";
  std::string Out = "<div class=\"level-key\">Set by: <span "
                    "class=\"level-default\">default</span>"
                    "<span class=\"level-recipe\">recipe</span><span "
                    "class=\"level-arm\">arm</span><span "
                    "class=\"level-band\">band"
                    "</span><span class=\"level-at-conc\">at conc</span><span "
                    "class=\"level-server-from\">server from</span><span "
                    "class=\"level-command-line\">command line</span> — hover "
                    "a value for where "
                    "it was set.</div>";
  Out += fmt::format("<h3>Varying across cells <span class=\"muted\">({})</span></h3>",
                     Varying.size());
  // Knobs as rows reads best for a few cells; past eight, one row per cell
  // (the pivot) fits the page, and the other layout stays a click away.
  bool Pivot = S.Cells.size() > 8;
  Out += fmt::format("<div class=\"knob-tables\"><fieldset class=\"segmented knob-view\">"
                     "<legend>rows</legend><label><input type=\"radio\" name=\"knob-view\" "
                     "value=\"knobs\"{}><span>Knobs</span></label><label><input "
                     "type=\"radio\" "
                     "name=\"knob-view\" "
                     "value=\"cells\"{}><span>Cells</span></label></fieldset>",
                     Pivot ? "" : " checked", Pivot ? " checked" : "");
  Out += fmt::format("<div data-view=\"knobs\"{}><div class=\"table-wrap tall\"><table "
                     "class=\"knobs\">{}<tbody>{}</tbody></table></div></div>",
                     Pivot ? " hidden" : "", Head, renderKnobRows(S, Varying));
  Out += fmt::format("<div data-view=\"cells\"{}><div class=\"table-wrap tall\"><table "
                     "class=\"knobs pivot\">{}</table></div></div></div>",
                     Pivot ? "" : " hidden", renderPivotedKnobs(S, Varying));
  Out += fmt::format("<details><summary>Same in every cell ({})</summary><div "
                     "class=\"table-wrap\"><table class=\"knobs\">{}<tbody>{}</tbody></table>"
                     "</div></details>\n",
                     Constant.size(), Head, renderKnobRows(S, Constant));
  return Out;
}

/// An argv as a shell would need it typed: words with blanks, quotes or
/// shell syntax in single quotes.
std::string shellWords(const std::vector<std::string> &Argv) {
  std::string Out;
  for (const std::string &W : Argv) {
    bool Plain = !W.empty() && W.find_first_of(" \t\n'\"\\$`!*?[]{}()<>|&;#~") == std::string::npos;
    std::string Quoted = "'";
    for (char C : W)
      Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
    Out += (Out.empty() ? "" : " ") + (Plain ? W : Quoted + "'");
  }
  return Out;
}

std::string renderCommands(const SweepResults &S) {
  std::string Out;
  for (const CellResult &C : S.Cells)
    if (!C.ServerCommand.empty())
      Out += fmt::format("<h4>{}</h4><pre class=\"cmd\">{}</pre>", escapeHtml(C.Id),
                         escapeHtml(shellWords(C.ServerCommand)));
  if (Out.empty())
    return "";
  return "<details class=\"commands\"><summary>Server command per cell (from "
         "the plan)</summary>" +
         Out + "</details>\n";
}

} // namespace

std::string renderSweepReport(const SweepResults &S) {
  std::string Out = pageHead(S.Recipe + " — arecipe sweep report");
  Out += renderHeader(S);
  Out += renderCards(S);
  // On its own page a sweep's configurations are named by arm and band alone.
  std::vector<ChartSeries> Series = seriesOf(S, "");
  if (Series.size() == 1)
    Series[0].Name = S.label();
  Out += section("chart", "Throughput per GPU against interactivity", renderParetoFigure(Series));
  Out += section("cells", "Cells", renderCellTable(S));
  Out += section("latency", "Latency distributions", renderDistributionFigure(S));
  Out += section("problems", "Failed and invalid cells", renderProblems(S));
  Out += section("knobs", "Knobs per cell", renderKnobs(S) + renderCommands(S));
  return Out + pageTail(fmt::format("Generated by <code>arecipe-run report</code> from "
                                    "<code>{}</code>: plan.json, results.json and "
                                    "cells/&lt;id&gt;/summary.json, records.jsonl.",
                                    escapeHtml(S.Dir)));
}

} // namespace arecipe::report
