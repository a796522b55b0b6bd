//===- ParetoChart.cpp - Throughput per GPU against interactivity ---------===//

#include "Charts.h"
#include "Svg.h"

#include <fmt/format.h>

#include <algorithm>

namespace arecipe::report {

namespace {

constexpr double Width = 820, Height = 460;
constexpr double Left = 78, Right = 24, Top = 18, Bottom = 58;

struct MetricName {
  const char *Key, *Button, *Axis;
};
constexpr MetricName XNames[NumXMetrics] = {
    {"intvty", "P90 interactivity", "P90 interactivity (tok/s/user)"},
    {"e2e", "P90 E2E-normalised", "P90 E2E-normalised interactivity (tok/s/user)"},
};
constexpr MetricName YNames[NumYMetrics] = {
    {"total", "Total", "Total throughput per GPU (tok/s/GPU)"},
    {"output", "Output", "Output throughput per GPU (tok/s/GPU)"},
};

/// A marker shape per series, so series differ by more than colour.
std::string markerPath(size_t Series, double X, double Y) {
  switch (Series % 4) {
  case 0:
    return fmt::format("M{} {}m-5.5 0a5.5 5.5 0 1 0 11 0a5.5 5.5 0 1 0 -11 0z", coord(X), coord(Y));
  case 1:
    return fmt::format("M{} {}h10v10h-10z", coord(X - 5), coord(Y - 5));
  case 2:
    return fmt::format("M{} {}l6.5 6.5l-6.5 6.5l-6.5 -6.5z", coord(X), coord(Y - 6.5));
  default:
    return fmt::format("M{} {}l6.5 11h-13z", coord(X), coord(Y - 7));
  }
}

/// Indexes of the points no other point beats on both axes, by ascending x:
/// the frontier a configuration is judged by.
std::vector<size_t> paretoFrontier(const std::vector<ChartPoint> &Points, XMetric XM, YMetric YM) {
  std::vector<size_t> Order(Points.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    if (Points[A].X[XM] != Points[B].X[XM])
      return Points[A].X[XM] > Points[B].X[XM];
    return Points[A].Y[YM] > Points[B].Y[YM];
  });
  std::vector<size_t> Frontier;
  double BestY = -1;
  for (size_t I : Order)
    if (Points[I].Y[YM] > BestY) {
      Frontier.push_back(I);
      BestY = Points[I].Y[YM];
    }
  std::reverse(Frontier.begin(), Frontier.end());
  return Frontier;
}

struct Box {
  double X0, Y0, X1, Y1;
  bool overlaps(const Box &O) const { return X0 < O.X1 && O.X0 < X1 && Y0 < O.Y1 && O.Y0 < Y1; }
};

/// Places each concurrency label at the first spot around its point that
/// covers no other label or point, so dense knees stay readable.
class LabelPlacer {
public:
  void reservePoint(double X, double Y) { Taken.push_back({X - 6, Y - 6, X + 6, Y + 6}); }

  std::string place(double X, double Y, const std::string &Text, const char *Color) {
    struct Spot {
      double Dx, Dy;
      const char *Anchor;
    };
    static constexpr Spot Spots[] = {{8, -7, "start"}, {8, 15, "start"},   {-8, -7, "end"},
                                     {-8, 15, "end"},  {0, -11, "middle"}, {0, 21, "middle"},
                                     {12, 4, "start"}, {-12, 4, "end"}};
    double W = 6.8 * double(Text.size()) + 2, H = 12;
    const Spot *Chosen = &Spots[0];
    Box ChosenBox{};
    for (const Spot &S : Spots) {
      double X0 = S.Anchor[0] == 's' ? X + S.Dx : S.Anchor[0] == 'e' ? X + S.Dx - W : X - W / 2;
      Box B{X0, Y + S.Dy - H + 2, X0 + W, Y + S.Dy + 2};
      bool Inside = B.X0 >= Left && B.X1 <= Width - Right && B.Y0 >= Top && B.Y1 <= Height - Bottom;
      bool Free =
          std::none_of(Taken.begin(), Taken.end(), [&](const Box &T) { return T.overlaps(B); });
      if (Inside && Free) {
        Chosen = &S;
        ChosenBox = B;
        break;
      }
      if (&S == &Spots[0])
        ChosenBox = B;
    }
    Taken.push_back(ChosenBox);
    return fmt::format("<text class=\"point-label\" x=\"{}\" y=\"{}\" text-anchor=\"{}\" "
                       "fill=\"{}\">{}</text>",
                       coord(X + Chosen->Dx), coord(Y + Chosen->Dy), Chosen->Anchor, Color,
                       escapeHtml(Text));
  }

private:
  std::vector<Box> Taken;
};

std::string renderAxes(const AxisScale &XS, const AxisScale &YS, XMetric XM, YMetric YM) {
  std::string Out = "<g class=\"grid\">";
  for (double T : XS.ticks())
    Out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", coord(XS(T)),
                       coord(Top), coord(Height - Bottom));
  for (double T : YS.ticks())
    Out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", coord(Left),
                       coord(YS(T)), coord(Width - Right));
  Out += "</g><g class=\"axis\">";
  Out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>", coord(Left),
                     coord(Height - Bottom), coord(Width - Right));
  Out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", coord(Left), coord(Top),
                     coord(Height - Bottom));
  std::vector<std::string> XLabels = tickLabels(XS.ticks()), YLabels = tickLabels(YS.ticks());
  for (size_t I = 0; I < XLabels.size(); ++I)
    Out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       coord(XS(XS.ticks()[I])), coord(Height - Bottom + 18), XLabels[I]);
  for (size_t I = 0; I < YLabels.size(); ++I)
    Out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", coord(Left - 8),
                       coord(YS(YS.ticks()[I]) + 4), YLabels[I]);
  Out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" "
                     "text-anchor=\"middle\">{}</text>",
                     coord(Left + (Width - Left - Right) / 2), coord(Height - 14), XNames[XM].Axis);
  Out += fmt::format("<text class=\"axis-title\" transform=\"translate({} {}) rotate(-90)\" "
                     "text-anchor=\"middle\">{}</text>",
                     coord(20), coord(Top + (Height - Top - Bottom) / 2), YNames[YM].Axis);
  return Out + "</g>";
}

std::string renderVariant(const std::vector<ChartSeries> &Series, XMetric XM, YMetric YM) {
  double MaxX = 0, MaxY = 0;
  for (const ChartSeries &S : Series)
    for (const ChartPoint &P : S.Points) {
      MaxX = std::max(MaxX, P.X[XM]);
      MaxY = std::max(MaxY, P.Y[YM]);
    }
  AxisScale XS = AxisScale::linearFromZero(MaxX, Left, Width - Right);
  AxisScale YS = AxisScale::linearFromZero(MaxY, Height - Bottom, Top);
  bool Default = XM == XInteractivity && YM == YTotalPerGpu;
  std::string Out = fmt::format("<svg class=\"chart\" data-x=\"{}\" data-y=\"{}\" "
                                "viewBox=\"0 0 {} {}\" role=\"img\" "
                                "aria-label=\"{} against {}\"{}>",
                                XNames[XM].Key, YNames[YM].Key, Width, Height, YNames[YM].Axis,
                                XNames[XM].Axis, Default ? "" : " hidden");
  Out += renderAxes(XS, YS, XM, YM);
  LabelPlacer Labels;
  for (const ChartSeries &S : Series)
    for (const ChartPoint &P : S.Points)
      Labels.reservePoint(XS(P.X[XM]), YS(P.Y[YM]));
  for (size_t I = 0; I < Series.size(); ++I) {
    const ChartSeries &S = Series[I];
    const char *Color = seriesColor(I);
    std::vector<size_t> Frontier = paretoFrontier(S.Points, XM, YM);
    std::string Line;
    for (size_t F : Frontier)
      Line += fmt::format("{}{},{}", Line.empty() ? "" : " ", coord(XS(S.Points[F].X[XM])),
                          coord(YS(S.Points[F].Y[YM])));
    Out += fmt::format("<g class=\"series\" data-series=\"{}\">", I);
    if (Frontier.size() > 1)
      Out += fmt::format("<polyline class=\"frontier\" points=\"{}\" stroke=\"{}\"/>", Line, Color);
    for (size_t P = 0; P < S.Points.size(); ++P) {
      const ChartPoint &Pt = S.Points[P];
      bool OnFrontier = std::find(Frontier.begin(), Frontier.end(), P) != Frontier.end();
      double X = XS(Pt.X[XM]), Y = YS(Pt.Y[YM]);
      Out += fmt::format("<path class=\"point{}\" d=\"{}\" fill=\"{}\" stroke=\"{}\" "
                         "data-cell=\"{}\" data-series=\"{}\" data-tip=\"{}\"/>",
                         OnFrontier ? "" : " dominated", markerPath(I, X, Y),
                         OnFrontier ? Color : "#ffffff", Color, escapeHtml(Pt.CellId), I,
                         escapeAttr(Series.size() > 1 ? S.Name + "\n" + Pt.Tip : Pt.Tip));
    }
    for (const ChartPoint &Pt : S.Points)
      Out += Labels.place(XS(Pt.X[XM]), YS(Pt.Y[YM]), std::to_string(Pt.Conc), Color);
    Out += "</g>";
  }
  return Out + "</svg>\n";
}

std::string renderSelector(const char *Name, const char *Title, const MetricName *Names,
                           int Count) {
  std::string Out = fmt::format("<fieldset class=\"segmented\"><legend>{}</legend>", Title);
  for (int I = 0; I < Count; ++I)
    Out += fmt::format("<label><input type=\"radio\" name=\"{}\" value=\"{}\"{}>"
                       "<span>{}</span></label>",
                       Name, Names[I].Key, I == 0 ? " checked" : "", Names[I].Button);
  return Out + "</fieldset>";
}

} // namespace

const char *seriesColor(size_t I) {
  // Okabe and Ito's palette, in an order where neighbours differ in lightness.
  static constexpr const char *Palette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                            "#e69f00", "#56b4e9", "#000000"};
  return Palette[I % (sizeof(Palette) / sizeof(Palette[0]))];
}

ChartSeries seriesOf(const SweepResults &Sweep, const std::string &Name) {
  ChartSeries S;
  S.Name = Name;
  for (const CellResult &C : Sweep.Cells) {
    if (C.Status != "ok" || !C.P90Interactivity || !C.P90E2eNormInteractivity || !C.TotalPerGpu ||
        !C.OutputPerGpu)
      continue;
    ChartPoint P;
    P.CellId = C.Id;
    P.Conc = C.Conc;
    P.X[XInteractivity] = *C.P90Interactivity;
    P.X[XE2eNormInteractivity] = *C.P90E2eNormInteractivity;
    P.Y[YTotalPerGpu] = *C.TotalPerGpu;
    P.Y[YOutputPerGpu] = *C.OutputPerGpu;
    P.Tip = fmt::format("{} · conc {}{}", C.Id, C.Conc, C.Band.empty() ? "" : " · " + C.Band);
    auto Row = [&](const char *Label, const std::string &Value) {
      P.Tip += fmt::format("\n{}\t{}", Label, Value);
    };
    Row("Throughput/GPU, total", formatNumber(C.TotalPerGpu) + " tok/s");
    Row("Throughput/GPU, output", formatNumber(C.OutputPerGpu) + " tok/s");
    Row("P90 interactivity", formatNumber(C.P90Interactivity) + " tok/s/user");
    Row("P90 E2E-norm. interactivity", formatNumber(C.P90E2eNormInteractivity) + " tok/s/user");
    Row("TTFT p50 / p90", formatSeconds(C.TtftP50) + " / " + formatSeconds(C.TtftP90));
    Row("ITL p50 / p90", formatSeconds(C.ItlP50) + " / " + formatSeconds(C.ItlP90));
    Row("E2E p50 / p90", formatSeconds(C.E2eP50) + " / " + formatSeconds(C.E2eP90));
    if (C.RequestsSuccessful)
      Row("Requests", formatCount(*C.RequestsSuccessful) + " ok of " +
                          formatCount(C.RequestsTotal.value_or(0)));
    if (C.SpecAcceptanceLength)
      Row("Spec. acceptance length", formatNumber(C.SpecAcceptanceLength));
    Row("GPUs", std::to_string(C.Gpus));
    S.Points.push_back(std::move(P));
  }
  return S;
}

std::string renderParetoFigure(const std::vector<ChartSeries> &Series) {
  std::string Out = "<figure class=\"pareto\" id=\"pareto\">\n<div class=\"controls\">";
  Out += renderSelector("pareto-x", "x: interactivity", XNames, NumXMetrics);
  Out += renderSelector("pareto-y", "y: throughput per GPU", YNames, NumYMetrics);
  Out += "</div>\n";
  for (int Y = 0; Y < NumYMetrics; ++Y)
    for (int X = 0; X < NumXMetrics; ++X)
      Out += renderVariant(Series, XMetric(X), YMetric(Y));
  Out += "<figcaption class=\"legend\">";
  for (size_t I = 0; I < Series.size(); ++I)
    Out += fmt::format("<span class=\"legend-item\"><svg width=\"16\" height=\"16\" "
                       "viewBox=\"0 0 16 16\"><path d=\"{}\" fill=\"{}\"/></svg>{}</span>",
                       markerPath(I, 8, 8), seriesColor(I), escapeHtml(Series[I].Name));
  Out += "<span class=\"legend-note\">Filled markers and the line: the Pareto "
         "frontier (no "
         "other point has both higher throughput and higher interactivity). "
         "Hollow: dominated. "
         "Labels: concurrency.</span>";
  if (std::all_of(Series.begin(), Series.end(),
                  [](const ChartSeries &S) { return S.Points.empty(); }))
    Out += "<span class=\"legend-note\">No cell finished with valid figures "
           "yet.</span>";
  return Out + "</figcaption>\n</figure>\n";
}

} // namespace arecipe::report
