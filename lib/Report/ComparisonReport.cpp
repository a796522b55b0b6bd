//===- ComparisonReport.cpp - Several sweeps on one chart -----------------===//

#include "Charts.h"
#include "Page.h"
#include "Svg.h"

#include "arecipe/Report/HtmlReport.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace arecipe::report {

namespace {

/// A legend name per sweep: recipe and image, with the directory added when
/// two sweeps would otherwise read the same.
std::vector<std::string> seriesNames(const std::vector<SweepResults> &Sweeps) {
  std::vector<std::string> Names;
  for (const SweepResults &S : Sweeps)
    Names.push_back(S.label());
  for (size_t I = 0; I < Names.size(); ++I)
    if (std::count(Names.begin(), Names.end(), Names[I]) > 1)
      for (size_t J = I; J < Names.size(); ++J)
        if (Sweeps[J].label() == Sweeps[I].label() && Names[J] == Sweeps[J].label())
          Names[J] += " (" + fs::path(Sweeps[J].Dir).lexically_normal().filename().string() + ")";
  return Names;
}

const CellResult *cellAt(const SweepResults &S, int Conc) {
  for (const CellResult &C : S.Cells)
    if (C.Conc == Conc)
      return &C;
  return nullptr;
}

std::string reportLink(const SweepResults &S, const std::string &OutputDir) {
  fs::path Target = fs::absolute(fs::path(S.Dir) / ReportFileName).lexically_normal();
  fs::path Base = fs::absolute(OutputDir).lexically_normal();
  return Target.lexically_relative(Base).generic_string();
}

std::string renderSweepList(const std::vector<SweepResults> &Sweeps,
                            const std::vector<std::string> &Names, const std::string &OutputDir) {
  std::string Out = "<section class=\"sweeps\">";
  for (size_t I = 0; I < Sweeps.size(); ++I) {
    const SweepResults &S = Sweeps[I];
    size_t Ok = std::count_if(S.Cells.begin(), S.Cells.end(),
                              [](const CellResult &C) { return C.Status == "ok"; });
    Out +=
        fmt::format("<div class=\"sweep-card\" style=\"border-left-color:{}\"><div "
                    "class=\"sweep-name\">{}"
                    "{}</div><div class=\"facts\">{} · {} · {} · {} of {} cells ok "
                    "{}</div><div "
                    "class=\"source\"><a href=\"{}\">{}</a></div></div>",
                    seriesColor(I), escapeHtml(Names[I]),
                    I == 0 ? " <span class=\"muted\">(baseline)</span>" : "", escapeHtml(S.Model),
                    escapeHtml(S.Hardware), escapeHtml(S.Engine), Ok, S.Cells.size(),
                    timeBasisBadge(S), escapeHtml(reportLink(S, OutputDir)), escapeHtml(S.Dir));
  }
  Out += "</section>\n";
  std::set<std::string> Bases;
  for (const SweepResults &S : Sweeps)
    Bases.insert(S.Simulated ? fmt::format("simulated at time scale {}", S.TimeScale) : "measured");
  if (Bases.size() > 1)
    Out += "<p class=\"callout\">These sweeps were not measured the same way (" +
           escapeHtml(fmt::format("{}", fmt::join(Bases, "; "))) +
           "): their figures are not directly comparable.</p>\n";
  return Out;
}

struct DeltaMetric {
  const char *Title;
  std::optional<double> CellResult::*Field;
  bool HigherIsBetter;
  bool Seconds;
};
constexpr DeltaMetric DeltaMetrics[] = {
    {"tok/s/GPU", &CellResult::TotalPerGpu, true, false},
    {"output tok/s/GPU", &CellResult::OutputPerGpu, true, false},
    {"P90 interactivity", &CellResult::P90Interactivity, true, false},
    {"P90 E2E-norm. intvty", &CellResult::P90E2eNormInteractivity, true, false},
    {"TTFT p90", &CellResult::TtftP90, false, true},
    {"E2E p90", &CellResult::E2eP90, false, true},
};

std::string deltaCell(const DeltaMetric &M, const CellResult *Base,
                      const std::vector<const CellResult *> &Others) {
  auto Value = [&](const CellResult *C) -> std::optional<double> {
    if (!C || C->Status != "ok")
      return std::nullopt;
    return C->*M.Field;
  };
  auto Show = [&](const CellResult *C) {
    if (!C)
      return std::string("<span class=\"muted\">no cell</span>");
    if (C->Status != "ok")
      return statusBadge(C->Status);
    return M.Seconds ? formatSeconds(C->*M.Field) : formatNumber(C->*M.Field);
  };
  std::string Out = fmt::format("<td class=\"num\"><div class=\"base\"><span class=\"swatch\" "
                                "style=\"background:{}\"></span>{}</div>",
                                seriesColor(0), Show(Base));
  for (size_t I = 0; I < Others.size(); ++I) {
    std::optional<double> A = Value(Base), B = Value(Others[I]);
    std::string Delta;
    if (A && B && *A != 0) {
      double Change = (*B - *A) / std::fabs(*A);
      bool Better = M.HigherIsBetter ? Change > 0 : Change < 0;
      const char *Class = std::fabs(Change) < 0.01 ? "flat" : Better ? "better" : "worse";
      Delta = fmt::format(" <span class=\"delta {}\">{}{:.1f}%</span>", Class,
                          Change >= 0 ? "+" : "−", std::fabs(Change) * 100);
    }
    Out += fmt::format("<div class=\"other\"><span class=\"swatch\" style=\"background:{}\">"
                       "</span>{}{}</div>",
                       seriesColor(I + 1), Show(Others[I]), Delta);
  }
  return Out + "</td>";
}

std::string renderDeltas(const std::vector<SweepResults> &Sweeps) {
  std::set<int> Concs;
  for (const SweepResults &S : Sweeps)
    for (const CellResult &C : S.Cells)
      Concs.insert(C.Conc);
  std::string Out = "<div class=\"table-wrap\"><table class=\"deltas\"><thead><tr><th "
                    "class=\"num\">conc</th>";
  for (const DeltaMetric &M : DeltaMetrics)
    Out += fmt::format("<th class=\"num\">{}</th>", M.Title);
  Out += "</tr></thead><tbody>";
  for (int Conc : Concs) {
    const CellResult *Base = cellAt(Sweeps[0], Conc);
    std::vector<const CellResult *> Others;
    for (size_t I = 1; I < Sweeps.size(); ++I)
      Others.push_back(cellAt(Sweeps[I], Conc));
    Out += fmt::format("<tr data-conc=\"{0}\"><th class=\"num\" scope=\"row\">{0}</th>", Conc);
    for (const DeltaMetric &M : DeltaMetrics)
      Out += deltaCell(M, Base, Others);
    Out += "</tr>";
  }
  return Out + "</tbody></table></div>\n<p class=\"note\">Top line: the "
               "baseline (first "
               "sweep). Below it each other sweep, with its change against the "
               "baseline; "
               "green is better (more throughput or interactivity, less "
               "latency), red worse, "
               "grey within 1%. Only valid (ok) cells are compared.</p>\n";
}

std::string renderKnobDiffs(const std::vector<SweepResults> &Sweeps,
                            const std::vector<std::string> &Names) {
  std::set<int> Concs;
  for (const SweepResults &S : Sweeps)
    for (const CellResult &C : S.Cells)
      Concs.insert(C.Conc);
  std::string Rows;
  int LastConc = -1;
  for (int Conc : Concs) {
    std::set<std::string> KnobNames;
    for (const SweepResults &S : Sweeps)
      if (const CellResult *C = cellAt(S, Conc))
        for (const KnobValue &K : C->Knobs)
          KnobNames.insert(K.Name);
    for (const std::string &Name : KnobNames) {
      std::vector<std::string> Values;
      for (const SweepResults &S : Sweeps) {
        const CellResult *C = cellAt(S, Conc);
        const KnobValue *K = nullptr;
        if (C)
          for (const KnobValue &V : C->Knobs)
            if (V.Name == Name)
              K = &V;
        Values.push_back(K ? K->Value : "");
      }
      if (std::all_of(Values.begin(), Values.end(),
                      [&](const std::string &V) { return V == Values[0]; }))
        continue;
      // The concurrency is written once per group of rows, as in a printed
      // table.
      Rows += fmt::format("<tr{}><td class=\"num\">{}</td><td><code>{}</code></td>",
                          Conc == LastConc ? "" : " class=\"group-start\"",
                          Conc == LastConc ? "" : std::to_string(Conc), escapeHtml(Name));
      LastConc = Conc;
      for (const std::string &V : Values)
        Rows += V.empty() ? "<td class=\"muted\">–</td>"
                          : fmt::format("<td data-tip=\"{}\">{}</td>",
                                        escapeAttr(Name + "\nValue\t" + V.substr(0, 300)),
                                        escapeHtml(shortKnobValue(V)));
      Rows += "</tr>";
    }
  }
  if (Rows.empty())
    return "<p class=\"note\">Every cell present in several sweeps has the "
           "same knobs in "
           "each.</p>\n";
  std::string Out = "<div class=\"table-wrap\"><table class=\"knobs "
                    "knob-diff\"><thead><tr><th "
                    "class=\"num\">conc</th><th>knob</th>";
  for (size_t I = 0; I < Names.size(); ++I)
    Out += fmt::format("<th><span class=\"swatch\" style=\"background:{}\"></span>{}</th>",
                       seriesColor(I), escapeHtml(Names[I]));
  return Out + "</tr></thead><tbody>" + Rows + "</tbody></table></div>\n";
}

std::string renderProblems(const std::vector<SweepResults> &Sweeps,
                           const std::vector<std::string> &Names) {
  std::string Out;
  for (size_t I = 0; I < Sweeps.size(); ++I)
    for (const CellResult &C : Sweeps[I].Cells)
      if (C.Status == "failed" || C.Status == "invalid")
        Out +=
            fmt::format("<li><span class=\"swatch\" style=\"background:{}\"></span>{} "
                        "<strong>{}</strong> {} {}</li>",
                        seriesColor(I), escapeHtml(Names[I]), escapeHtml(C.Id),
                        statusBadge(C.Status), escapeHtml(C.Reason.substr(0, C.Reason.find('\n'))));
  if (Out.empty())
    return "<p class=\"note ok-note\">Every cell that ran is valid in every "
           "sweep.</p>\n";
  return "<ul class=\"problem-list\">" + Out +
         "</ul>\n<p class=\"note\">Each sweep's own report has the log "
         "tails.</p>\n";
}

} // namespace

std::string renderComparisonReport(const std::vector<SweepResults> &Sweeps,
                                   const std::string &OutputDir) {
  std::vector<std::string> Names = seriesNames(Sweeps);
  std::vector<ChartSeries> Series;
  // A sweep keeps its colour; its configurations (arms, bands) differ by
  // marker.
  for (size_t I = 0; I < Sweeps.size(); ++I)
    for (ChartSeries &S : seriesOf(Sweeps[I], Names[I], I, /*SharedColor=*/true))
      Series.push_back(std::move(S));
  std::string Out = pageHead("Sweep comparison — arecipe");
  // The title names recipes only; the cards and the legend add the images.
  std::vector<std::string> Recipes;
  for (const SweepResults &S : Sweeps)
    if (std::find(Recipes.begin(), Recipes.end(), S.Recipe) == Recipes.end())
      Recipes.push_back(S.Recipe);
  Out += fmt::format("<header class=\"page-header\"><div class=\"eyebrow\">arecipe sweep "
                     "comparison</div><h1>{}</h1></header>\n",
                     escapeHtml(fmt::format("{}", fmt::join(Recipes, " vs "))));
  Out += renderSweepList(Sweeps, Names, OutputDir);
  auto Section = [](const char *Id, const char *Title, const std::string &Body) {
    return fmt::format("<section id=\"{}\"><h2>{}</h2>\n{}</section>\n", Id, Title, Body);
  };
  Out += Section("chart", "Throughput per GPU against interactivity", renderParetoFigure(Series));
  Out += Section("deltas", "Per concurrency, against the baseline", renderDeltas(Sweeps));
  Out += Section("knob-diff", "Knobs that differ", renderKnobDiffs(Sweeps, Names));
  Out += Section("problems", "Failed and invalid cells", renderProblems(Sweeps, Names));
  std::vector<std::string> Dirs;
  for (const SweepResults &S : Sweeps)
    Dirs.push_back("<code>" + escapeHtml(S.Dir) + "</code>");
  return Out + pageTail(fmt::format("Generated by <code>arecipe-run report</code> from {}.",
                                    fmt::join(Dirs, ", ")));
}

} // namespace arecipe::report
