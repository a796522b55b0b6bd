//===- ParetoChart.cpp - Throughput per GPU against interactivity ---------===//

#include "Charts.h"
#include "Svg.h"

#include <fmt/format.h>

#include <algorithm>

namespace arecipe::report {

using namespace chart;

namespace {

struct MetricName {
  const char *Key, *Button, *Axis;
  bool LessIsBetter;
};
constexpr MetricName XNames[NumXMetrics] = {
    {"intvty", "P90 interactivity", "P90 interactivity (tok/s/user)", false},
    {"e2e", "P90 E2E-normalised", "P90 E2E-normalised interactivity (tok/s/user)", false},
    {"e2el", "Median E2E latency", "Median E2E latency (s)", true},
};
constexpr MetricName YNames[NumYMetrics] = {
    {"total", "Total", "Total throughput per GPU (tok/s/GPU)", false},
    {"output", "Output", "Output throughput per GPU (tok/s/GPU)", false},
};

} // namespace

std::string markerPath(size_t Marker, double X, double Y) {
  switch (Marker % NumMarkers) {
  case 0:
    return fmt::format("M{} {}m-5.5 0a5.5 5.5 0 1 0 11 0a5.5 5.5 0 1 0 -11 0z", coord(X), coord(Y));
  case 1:
    return fmt::format("M{} {}h10v10h-10z", coord(X - 5), coord(Y - 5));
  case 2:
    return fmt::format("M{} {}l6.5 6.5l-6.5 6.5l-6.5 -6.5z", coord(X), coord(Y - 6.5));
  case 3:
    return fmt::format("M{} {}l6.5 11h-13z", coord(X), coord(Y - 7));
  case 4:
    return fmt::format("M{} {}l6.5 -11h-13z", coord(X), coord(Y + 7));
  default: // a plus sign, drawn as one outline so it fills like the others
    return fmt::format("M{} {}h4v-4h3v4h4v3h-4v4h-3v-4h-4z", coord(X - 5.5), coord(Y - 1.5));
  }
}

std::vector<size_t> paretoFrontier(const std::vector<const ChartPoint *> &Points, XMetric XM,
                                   YMetric YM) {
  // Better x first: more interactivity, or less latency.
  double Sign = XNames[XM].LessIsBetter ? -1 : 1;
  std::vector<size_t> Order(Points.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    if (Points[A]->X[XM] != Points[B]->X[XM])
      return Sign * Points[A]->X[XM] > Sign * Points[B]->X[XM];
    return Points[A]->Y[YM] > Points[B]->Y[YM];
  });
  std::vector<size_t> Frontier;
  double BestY = -1;
  for (size_t I : Order)
    if (Points[I]->Y[YM] > BestY) {
      Frontier.push_back(I);
      BestY = Points[I]->Y[YM];
    }
  // By ascending x, so the frontier's polyline runs left to right.
  std::sort(Frontier.begin(), Frontier.end(),
            [&](size_t A, size_t B) { return Points[A]->X[XM] < Points[B]->X[XM]; });
  return Frontier;
}

namespace {

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

} // namespace

std::string renderAxes(const AxisScale &XS, const AxisScale &YS, const std::string &XTitle,
                       const std::string &YTitle) {
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
  // A log axis's 1-2-5 ticks span decades: each is labelled on its own.
  auto Labels = [](const AxisScale &S) {
    if (!S.isLog())
      return tickLabels(S.ticks());
    std::vector<std::string> Out;
    for (double T : S.ticks())
      Out.push_back(formatNumber(T));
    return Out;
  };
  std::vector<std::string> XLabels = Labels(XS), YLabels = Labels(YS);
  for (size_t I = 0; I < XLabels.size(); ++I)
    Out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                       coord(XS(XS.ticks()[I])), coord(Height - Bottom + 18), XLabels[I]);
  for (size_t I = 0; I < YLabels.size(); ++I)
    Out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", coord(Left - 8),
                       coord(YS(YS.ticks()[I]) + 4), YLabels[I]);
  Out +=
      fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" "
                  "text-anchor=\"middle\">{}</text>",
                  coord(Left + (Width - Left - Right) / 2), coord(Height - 14), escapeHtml(XTitle));
  Out += fmt::format("<text class=\"axis-title\" transform=\"translate({} {}) rotate(-90)\" "
                     "text-anchor=\"middle\">{}</text>",
                     coord(20), coord(Top + (Height - Top - Bottom) / 2), escapeHtml(YTitle));
  return Out + "</g>";
}

AxisScale scaleOver(const std::vector<double> &Values, bool Log, double PixelFrom, double PixelTo) {
  double Max = 0, MinPositive = 0;
  for (double V : Values) {
    Max = std::max(Max, V);
    if (V > 0 && (MinPositive == 0 || V < MinPositive))
      MinPositive = V;
  }
  if (!Log)
    return AxisScale::linearFromZero(Max, PixelFrom, PixelTo);
  if (!(MinPositive > 0))
    MinPositive = Max > 0 ? Max / 10 : 1;
  return AxisScale::logarithmic(MinPositive, std::max(Max, MinPositive), PixelFrom, PixelTo);
}

namespace {

std::string polyline(const std::vector<const ChartPoint *> &Points,
                     const std::vector<size_t> &Order, const AxisScale &XS, const AxisScale &YS,
                     XMetric XM, YMetric YM) {
  std::string Line;
  for (size_t F : Order)
    Line += fmt::format("{}{},{}", Line.empty() ? "" : " ", coord(XS(Points[F]->X[XM])),
                        coord(YS(Points[F]->Y[YM])));
  return Line;
}

/// The 95 % confidence interval of a point over its repeats, as a cross of
/// whiskers with caps; nothing for a point measured once.
std::string errorBars(const ChartPoint &P, const AxisScale &XS, const AxisScale &YS, XMetric XM,
                      YMetric YM, const char *Color) {
  std::string Out;
  double X = XS(P.X[XM]), Y = YS(P.Y[YM]);
  if (P.XHi[XM] > P.XLo[XM]) {
    double X0 = XS(P.XLo[XM]), X1 = XS(P.XHi[XM]);
    Out += fmt::format("M{0} {1}H{2}M{0} {3}V{4}M{2} {3}V{4}", coord(X0), coord(Y), coord(X1),
                       coord(Y - 4), coord(Y + 4));
  }
  if (P.YHi[YM] > P.YLo[YM]) {
    double Y0 = YS(P.YLo[YM]), Y1 = YS(P.YHi[YM]);
    Out += fmt::format("M{0} {1}V{2}M{3} {1}H{4}M{3} {2}H{4}", coord(X), coord(Y0), coord(Y1),
                       coord(X - 4), coord(X + 4));
  }
  if (Out.empty())
    return "";
  return fmt::format("<path class=\"error-bar\" d=\"{}\" stroke=\"{}\"/>", Out, Color);
}

std::string renderVariant(const std::vector<ChartSeries> &Series, XMetric XM, YMetric YM,
                          bool Log) {
  std::vector<double> Xs, Ys;
  std::vector<const ChartPoint *> All;
  for (const ChartSeries &S : Series)
    for (const ChartPoint &P : S.Points) {
      All.push_back(&P);
      Xs.insert(Xs.end(), {P.X[XM], P.XLo[XM], P.XHi[XM]});
      Ys.insert(Ys.end(), {P.Y[YM], P.YLo[YM], P.YHi[YM]});
    }
  AxisScale XS = scaleOver(Xs, Log, Left, Width - Right);
  AxisScale YS = scaleOver(Ys, Log, Height - Bottom, Top);
  bool Default = XM == XInteractivity && YM == YTotalPerGpu && !Log;
  std::string Out =
      fmt::format("<svg class=\"chart\" data-x=\"{}\" data-y=\"{}\" data-log=\"{}\" "
                  "viewBox=\"0 0 {} {}\" role=\"img\" "
                  "aria-label=\"{} against {}{}\"{}>",
                  XNames[XM].Key, YNames[YM].Key, Log ? 1 : 0, Width, Height, YNames[YM].Axis,
                  XNames[XM].Axis, Log ? ", log scales" : "", Default ? "" : " hidden");
  Out += renderAxes(XS, YS, XNames[XM].Axis, YNames[YM].Axis);
  // The frontier of every configuration together: which one to run at
  // each interactivity.
  if (Series.size() > 1) {
    std::vector<size_t> Combined = paretoFrontier(All, XM, YM);
    if (Combined.size() > 1)
      Out += fmt::format("<polyline class=\"frontier combined\" points=\"{}\"/>",
                         polyline(All, Combined, XS, YS, XM, YM));
  }
  LabelPlacer Labels;
  for (const ChartPoint *P : All)
    Labels.reservePoint(XS(P->X[XM]), YS(P->Y[YM]));
  for (size_t I = 0; I < Series.size(); ++I) {
    const ChartSeries &S = Series[I];
    const char *Color = seriesColor(S.Color);
    std::vector<const ChartPoint *> Points;
    for (const ChartPoint &P : S.Points)
      Points.push_back(&P);
    std::vector<size_t> Frontier = paretoFrontier(Points, XM, YM);
    Out += fmt::format("<g class=\"series\" data-series=\"{}\">", I);
    if (Frontier.size() > 1)
      Out += fmt::format("<polyline class=\"frontier\" points=\"{}\" stroke=\"{}\"/>",
                         polyline(Points, Frontier, XS, YS, XM, YM), Color);
    for (const ChartPoint &Pt : S.Points)
      Out += errorBars(Pt, XS, YS, XM, YM, Color);
    for (size_t P = 0; P < S.Points.size(); ++P) {
      const ChartPoint &Pt = S.Points[P];
      bool OnFrontier = std::find(Frontier.begin(), Frontier.end(), P) != Frontier.end();
      double X = XS(Pt.X[XM]), Y = YS(Pt.Y[YM]);
      Out += fmt::format("<path class=\"point{}\" d=\"{}\" fill=\"{}\" stroke=\"{}\" "
                         "data-cell=\"{}\" data-series=\"{}\" data-tip=\"{}\"/>",
                         OnFrontier ? "" : " dominated", markerPath(S.Marker, X, Y),
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

std::vector<ChartSeries> seriesOf(const SweepResults &Sweep, const std::string &Name,
                                  size_t FirstColor, bool SharedColor) {
  // One configuration per arm and band, in the order the plan lists them.
  std::vector<std::string> Keys;
  std::vector<ChartSeries> Series;
  for (const CellResult &C : Sweep.Cells) {
    std::string Key = C.Arm + "\n" + C.Band;
    if (std::find(Keys.begin(), Keys.end(), Key) == Keys.end()) {
      Keys.push_back(Key);
      ChartSeries S;
      std::string Config = C.Arm;
      if (!C.Band.empty())
        Config += (Config.empty() ? "band " : " · band ") + C.Band;
      S.Name = Name.empty() || Config.empty() ? Name + Config : Name + " · " + Config;
      S.Color = SharedColor ? FirstColor : FirstColor + Series.size();
      S.Marker = Series.size();
      Series.push_back(std::move(S));
    }
  }
  for (const CellResult &C : Sweep.Cells) {
    if (C.Status != "ok" || !C.P90Interactivity || !C.P90E2eNormInteractivity || !C.TotalPerGpu ||
        !C.OutputPerGpu || !C.E2eP50)
      continue;
    ChartPoint P;
    P.CellId = C.Id;
    P.Conc = C.Conc;
    auto Set = [](double &V, double &Lo, double &Hi, double Value,
                  const std::optional<Spread> &Ci) {
      V = Lo = Hi = Value;
      // Over repeats the point is the mean, the bar its interval.
      if (Ci && Ci->Count > 1) {
        V = Ci->Mean;
        Lo = Ci->CiLow;
        Hi = Ci->CiHigh;
      }
    };
    Set(P.X[XInteractivity], P.XLo[XInteractivity], P.XHi[XInteractivity], *C.P90Interactivity,
        C.Repeats.P90Interactivity);
    Set(P.X[XE2eNormInteractivity], P.XLo[XE2eNormInteractivity], P.XHi[XE2eNormInteractivity],
        *C.P90E2eNormInteractivity, C.Repeats.P90E2eNormInteractivity);
    Set(P.X[XE2eLatency], P.XLo[XE2eLatency], P.XHi[XE2eLatency], *C.E2eP50, C.Repeats.E2eP50);
    Set(P.Y[YTotalPerGpu], P.YLo[YTotalPerGpu], P.YHi[YTotalPerGpu], *C.TotalPerGpu,
        C.Repeats.TotalPerGpu);
    Set(P.Y[YOutputPerGpu], P.YLo[YOutputPerGpu], P.YHi[YOutputPerGpu], *C.OutputPerGpu,
        C.Repeats.OutputPerGpu);
    P.Tip = fmt::format("{} · conc {}{}", C.Id, C.Conc, C.Band.empty() ? "" : " · " + C.Band);
    auto Row = [&](const char *Label, const std::string &Value) {
      P.Tip += fmt::format("\n{}\t{}", Label, Value);
    };
    // With repeats, the figure is the mean and the interval its 95 % CI.
    auto WithCi = [](const std::optional<double> &V, const std::optional<Spread> &Ci,
                     std::string (*Format)(const std::optional<double> &)) {
      if (!Ci || Ci->Count < 2)
        return Format(V);
      return Format(Ci->Mean) + " [" + Format(Ci->CiLow) + " – " + Format(Ci->CiHigh) + "]";
    };
    std::string (*Num)(const std::optional<double> &) = formatNumber;
    std::string (*Sec)(const std::optional<double> &) = formatSeconds;
    Row("Throughput/GPU, total", WithCi(C.TotalPerGpu, C.Repeats.TotalPerGpu, Num) + " tok/s");
    Row("Throughput/GPU, output", WithCi(C.OutputPerGpu, C.Repeats.OutputPerGpu, Num) + " tok/s");
    Row("P90 interactivity",
        WithCi(C.P90Interactivity, C.Repeats.P90Interactivity, Num) + " tok/s/user");
    Row("P90 E2E-norm. interactivity",
        WithCi(C.P90E2eNormInteractivity, C.Repeats.P90E2eNormInteractivity, Num) + " tok/s/user");
    Row("TTFT p50 / p90", formatSeconds(C.TtftP50) + " / " + formatSeconds(C.TtftP90));
    Row("ITL p50 / p90", formatSeconds(C.ItlP50) + " / " + formatSeconds(C.ItlP90));
    Row("E2E p50 / p90", WithCi(C.E2eP50, C.Repeats.E2eP50, Sec) + " / " + formatSeconds(C.E2eP90));
    if (C.Repeats.Runs > 1)
      Row("Repeats", fmt::format("{} (mean, [95 % CI])", C.Repeats.Runs));
    if (C.RequestsSuccessful)
      Row("Requests", formatCount(*C.RequestsSuccessful) + " ok of " +
                          formatCount(C.RequestsTotal.value_or(0)));
    if (C.SpecAcceptanceLength)
      Row("Spec. acceptance length", formatNumber(C.SpecAcceptanceLength));
    Row("GPUs", std::to_string(C.Gpus));
    size_t Index = std::find(Keys.begin(), Keys.end(), C.Arm + "\n" + C.Band) - Keys.begin();
    Series[Index].Points.push_back(std::move(P));
  }
  // A configuration with no valid cell yet has nothing to draw; colours and
  // markers stay those of its place in the plan.
  Series.erase(std::remove_if(Series.begin(), Series.end(),
                              [](const ChartSeries &S) { return S.Points.empty(); }),
               Series.end());
  if (Series.empty()) {
    Series.emplace_back();
    Series.back().Name = Name;
  }
  return Series;
}

std::string renderParetoFigure(const std::vector<ChartSeries> &Series) {
  std::string Out = "<figure class=\"pareto\" id=\"pareto\">\n<div class=\"controls\">";
  Out += renderSelector("pareto-x", "x: interactivity or latency", XNames, NumXMetrics);
  Out += renderSelector("pareto-y", "y: throughput per GPU", YNames, NumYMetrics);
  Out += "<fieldset class=\"segmented\"><legend>scale</legend><label><input "
         "type=\"checkbox\" "
         "name=\"pareto-log\" value=\"1\"><span>Log "
         "axes</span></label></fieldset>";
  Out += "</div>\n";
  for (int Log = 0; Log < 2; ++Log)
    for (int Y = 0; Y < NumYMetrics; ++Y)
      for (int X = 0; X < NumXMetrics; ++X)
        Out += renderVariant(Series, XMetric(X), YMetric(Y), Log);
  Out += "<figcaption class=\"legend\">";
  for (const ChartSeries &S : Series)
    Out += fmt::format("<span class=\"legend-item\" data-points=\"{}\"><svg width=\"16\" "
                       "height=\"16\" viewBox=\"0 0 16 16\"><path d=\"{}\" "
                       "fill=\"{}\"/></svg>{}"
                       "</span>",
                       S.Points.size(), markerPath(S.Marker, 8, 8), seriesColor(S.Color),
                       escapeHtml(S.Name));
  if (Series.size() > 1)
    Out += "<span class=\"legend-item\"><svg width=\"22\" height=\"16\" "
           "viewBox=\"0 0 22 16\">"
           "<line class=\"frontier combined\" x1=\"1\" y1=\"8\" x2=\"21\" "
           "y2=\"8\"/></svg>"
           "all configurations</span>";
  Out += "<span class=\"legend-note\">Filled markers and the line of a series' "
         "colour: that "
         "configuration's Pareto frontier (no other of its points has both "
         "more throughput and "
         "more interactivity, or less latency). Hollow: dominated.";
  if (Series.size() > 1)
    Out += " Dashed: the frontier over every configuration.";
  Out += " Labels: concurrency.";
  bool Bars = std::any_of(Series.begin(), Series.end(), [](const ChartSeries &S) {
    return std::any_of(S.Points.begin(), S.Points.end(), [](const ChartPoint &P) {
      for (int I = 0; I < NumXMetrics; ++I)
        if (P.XHi[I] > P.XLo[I])
          return true;
      for (int I = 0; I < NumYMetrics; ++I)
        if (P.YHi[I] > P.YLo[I])
          return true;
      return false;
    });
  });
  if (Bars)
    Out += " Points are means over repeats; whiskers their 95 % confidence "
           "intervals.";
  Out += "</span>";
  if (std::all_of(Series.begin(), Series.end(),
                  [](const ChartSeries &S) { return S.Points.empty(); }))
    Out += "<span class=\"legend-note\">No cell finished with valid figures "
           "yet.</span>";
  return Out + "</figcaption>\n</figure>\n";
}

} // namespace arecipe::report
