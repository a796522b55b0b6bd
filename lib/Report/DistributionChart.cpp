//===- DistributionChart.cpp - Latency distributions per cell -------------===//

#include "Charts.h"
#include "Svg.h"

#include <fmt/format.h>

#include <algorithm>

namespace arecipe::report {

namespace {

constexpr double Width = 380, RowHeight = 24;
constexpr double Left = 46, Right = 14, Top = 8, AxisHeight = 44;

struct Panel {
  const char *Title;
  std::optional<LatencyQuantiles> CellResult::*Field;
};
constexpr Panel Panels[] = {
    {"Time to first token", &CellResult::Ttft},
    {"Inter-token latency", &CellResult::Itl},
    {"End-to-end latency", &CellResult::E2e},
};

std::string rowTip(const CellResult &C, const char *Title, const LatencyQuantiles &Q) {
  std::string Tip = fmt::format("{} · conc {}\n{}", C.Id, C.Conc, Title);
  auto Row = [&](const char *Label, double V) {
    Tip += fmt::format("\n{}\t{}", Label, formatSeconds(V));
  };
  Tip += fmt::format("\nRequests\t{}", Q.Count);
  Row("Mean", Q.Mean);
  Row("Min", Q.Min);
  Row("p25", Q.P25);
  Row("p50", Q.P50);
  Row("p75", Q.P75);
  Row("p90", Q.P90);
  Row("p95", Q.P95);
  Row("p99", Q.P99);
  Row("Max", Q.Max);
  return Tip;
}

/// A log axis when the cells span more than a factor of 20, which a linear
/// one would squash into the first few pixels.
AxisScale scaleFor(const std::vector<const CellResult *> &Rows, const Panel &P) {
  double Lo = 0, Hi = 0;
  bool First = true;
  for (const CellResult *C : Rows) {
    const LatencyQuantiles &Q = *(C->*P.Field);
    Lo = First ? Q.P5 : std::min(Lo, Q.P5);
    Hi = First ? Q.P99 : std::max(Hi, Q.P99);
    First = false;
  }
  if (Lo > 0 && Hi / Lo > 20)
    return AxisScale::logarithmic(Lo, Hi, Left, Width - Right);
  return AxisScale::linearFromZero(Hi, Left, Width - Right);
}

std::string renderPanel(const SweepResults &Sweep, const Panel &P) {
  std::vector<const CellResult *> Rows;
  // A failed cell's partial records describe a run cut short, not the
  // configuration; an invalid one was measured and is shown, marked.
  for (const CellResult &C : Sweep.Cells)
    if (C.*P.Field && C.Status != "failed")
      Rows.push_back(&C);
  std::string Out = fmt::format("<div class=\"dist-panel\"><h3>{}</h3>", P.Title);
  if (Rows.empty())
    return Out + "<p class=\"empty\">No measured requests.</p></div>";
  double Height = Top + RowHeight * double(Rows.size()) + AxisHeight;
  double Bottom = Top + RowHeight * double(Rows.size());
  AxisScale XS = scaleFor(Rows, P);
  Out += fmt::format("<svg class=\"dist\" viewBox=\"0 0 {} {}\" role=\"img\" "
                     "aria-label=\"{} per cell\"><g class=\"grid\">",
                     Width, coord(Height), P.Title);
  for (double T : XS.ticks())
    Out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", coord(XS(T)),
                       coord(Top), coord(Bottom));
  Out += "</g><g class=\"axis\">";
  Out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>", coord(Left),
                     coord(Width - Right), coord(Bottom));
  // Thin out labels that would collide on a narrow panel or run off it.
  double LastEnd = -1e9;
  for (double T : XS.ticks()) {
    std::string Label = T < 1 ? fmt::format("{:g} ms", T * 1000) : fmt::format("{:g} s", T);
    double HalfWidth = 3.9 * double(Label.size());
    if (XS(T) - HalfWidth < LastEnd + 6 || XS(T) + HalfWidth > Width)
      continue;
    LastEnd = XS(T) + HalfWidth;
    Out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", coord(XS(T)),
                       coord(Bottom + 16), escapeHtml(Label));
  }
  Out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">"
                     "seconds{}</text></g>",
                     coord(Left + (Width - Left - Right) / 2), coord(Bottom + 36),
                     XS.isLog() ? " (log scale)" : "");
  for (size_t I = 0; I < Rows.size(); ++I) {
    const CellResult &C = *Rows[I];
    const LatencyQuantiles &Q = *(C.*P.Field);
    double Mid = Top + RowHeight * (double(I) + 0.5);
    Out += fmt::format("<g class=\"dist-row{}\" data-cell=\"{}\" data-tip=\"{}\">",
                       C.Status == "ok" ? "" : " not-ok", escapeHtml(C.Id),
                       escapeAttr(rowTip(C, P.Title, Q)));
    Out += fmt::format("<rect class=\"hit\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
                       coord(Mid - RowHeight / 2), Width, RowHeight);
    Out += fmt::format("<text class=\"row-label\" x=\"{}\" y=\"{}\" "
                       "text-anchor=\"end\">{}</text>",
                       coord(Left - 8), coord(Mid + 4), escapeHtml(C.Id));
    Out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>",
                       coord(XS(Q.P5)), coord(XS(Q.P95)), coord(Mid));
    for (double W : {Q.P5, Q.P95})
      Out += fmt::format("<line class=\"whisker\" x1=\"{0}\" y1=\"{1}\" "
                         "x2=\"{0}\" y2=\"{2}\"/>",
                         coord(XS(W)), coord(Mid - 4), coord(Mid + 4));
    Out +=
        fmt::format("<rect class=\"iqr\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\"/>",
                    coord(XS(Q.P25)), coord(Mid - 6), coord(std::max(1.0, XS(Q.P75) - XS(Q.P25))));
    Out += fmt::format("<line class=\"median\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                       coord(XS(Q.P50)), coord(Mid - 7), coord(Mid + 7));
    Out += fmt::format("<path class=\"p90\" d=\"M{} {}l4 4l-4 4l-4 -4z\"/>", coord(XS(Q.P90)),
                       coord(Mid - 4));
    Out += fmt::format("<circle class=\"p99\" cx=\"{}\" cy=\"{}\" r=\"2.5\"/></g>",
                       coord(XS(Q.P99)), coord(Mid));
  }
  return Out + "</svg></div>";
}

} // namespace

std::string renderDistributionFigure(const SweepResults &Sweep) {
  std::string Out = "<figure class=\"distributions\">\n<div class=\"dist-grid\">";
  for (const Panel &P : Panels)
    Out += renderPanel(Sweep, P);
  Out += "</div>\n<figcaption class=\"legend\"><span "
         "class=\"legend-note\">Over each cell's "
         "successful measured requests (records.jsonl): box p25–p75, bar "
         "median, whiskers "
         "p5–p95, <span class=\"key-p90\">◆</span> p90, <span "
         "class=\"key-p99\">●</span> p99. "
         "Latency is timed from each request's scheduled "
         "time.</span></figcaption>\n</figure>\n";
  return Out;
}

} // namespace arecipe::report
