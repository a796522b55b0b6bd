//===- Charts.h - The report's SVG figures ------------------------*- C++
//-*-===//
//
// The two figures of the report, drawn as inline SVG: the Pareto chart of
// throughput per GPU against interactivity (one series per sweep, one point
// per concurrency, every combination of the selectable axes drawn up front
// so that switching is instant and the page also reads without script), and
// the latency distributions per cell. Interaction — the metric switch and
// tooltips — is left to the page script, which finds what it needs through
// data-* attributes: `data-x`/`data-y` on each chart variant, `data-tip` on
// anything with a tooltip, `data-cell` to tie a point to its table row.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_CHARTS_H
#define ARECIPE_REPORT_CHARTS_H

#include "Svg.h"

#include "arecipe/Report/SweepResults.h"

#include <string>
#include <vector>

namespace arecipe::report {

/// The x metrics (P90 interactivity, P90 E2E-normalised interactivity,
/// median E2E latency, where less is better) and y metrics (total, output
/// throughput per GPU) a point is known by.
enum XMetric { XInteractivity, XE2eNormInteractivity, XE2eLatency, NumXMetrics };
enum YMetric { YTotalPerGpu, YOutputPerGpu, NumYMetrics };

struct ChartPoint {
  std::string CellId;
  int Conc = 0;
  double X[NumXMetrics] = {};
  double Y[NumYMetrics] = {};
  /// The 95 % confidence interval of each figure over the cell's repeats
  /// (docs/runtime.md, repeats), drawn as error bars; equal to the value when
  /// the cell ran once.
  double XLo[NumXMetrics] = {}, XHi[NumXMetrics] = {};
  double YLo[NumYMetrics] = {}, YHi[NumYMetrics] = {};
  std::string Tip; ///< tooltip lines: a title, then "label\tvalue" rows
};

/// One configuration's points: the cells of one arm and band of a sweep.
struct ChartSeries {
  std::string Name;
  size_t Color = 0, Marker = 0; ///< indexes into the palette and the shapes
  std::vector<ChartPoint> Points;
};

/// The plotted points of a sweep, its `ok` cells with all the figures, one
/// series per configuration: per arm and band, in plan order, so two arms
/// (TP4 and TP8) or two bands never share a frontier. Each is named by its
/// arm and band, after Name when Name is not empty; a sweep of one
/// configuration is one series named Name. Configurations without a valid
/// cell are left out (but always one series, maybe empty). Series get
/// consecutive colours and markers from FirstColor; with SharedColor, all take
/// FirstColor and differ by marker (a comparison colours by sweep).
std::vector<ChartSeries> seriesOf(const SweepResults &Sweep, const std::string &Name,
                                  size_t FirstColor = 0, bool SharedColor = false);

/// Indexes of the points no other point beats on both axes (more
/// throughput, and more interactivity or less latency), by ascending x.
std::vector<size_t> paretoFrontier(const std::vector<const ChartPoint *> &Points, XMetric XM,
                                   YMetric YM);

/// The colour of series I, from a palette safe for colour-blind readers.
const char *seriesColor(size_t I);

/// The frame every x/y chart of the reports is drawn in: the viewBox and the
/// margins that leave room for tick labels and axis titles.
namespace chart {
inline constexpr double Width = 820, Height = 460;
inline constexpr double Left = 78, Right = 24, Top = 18, Bottom = 58;
} // namespace chart

/// A marker shape per series, so series differ by more than colour.
inline constexpr size_t NumMarkers = 6;
/// Marker shape Marker (modulo NumMarkers) centred on (X, Y), as path data.
std::string markerPath(size_t Marker, double X, double Y);

/// The grid, axes, tick labels and axis titles of a chart in the frame.
std::string renderAxes(const AxisScale &XS, const AxisScale &YS, const std::string &XTitle,
                       const std::string &YTitle);

/// An axis covering Values (and their error bars): from zero, or
/// logarithmic over the positive ones.
AxisScale scaleOver(const std::vector<double> &Values, bool Log, double PixelFrom, double PixelTo);

/// The chart with its metric selector and legend, as one <figure>.
std::string renderParetoFigure(const std::vector<ChartSeries> &Series);

/// TTFT, ITL and E2E latency, one row per cell with records, side by side.
std::string renderDistributionFigure(const SweepResults &Sweep);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_CHARTS_H
