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

#include "arecipe/Report/SweepResults.h"

#include <string>
#include <vector>

namespace arecipe::report {

/// The x metrics (P90 interactivity, P90 E2E-normalised interactivity) and
/// y metrics (total, output throughput per GPU) a point is known by.
enum XMetric { XInteractivity, XE2eNormInteractivity, NumXMetrics };
enum YMetric { YTotalPerGpu, YOutputPerGpu, NumYMetrics };

struct ChartPoint {
  std::string CellId;
  int Conc = 0;
  double X[NumXMetrics] = {};
  double Y[NumYMetrics] = {};
  std::string Tip; ///< tooltip lines: a title, then "label\tvalue" rows
};

struct ChartSeries {
  std::string Name;
  std::vector<ChartPoint> Points;
};

/// The plotted points of a sweep: its `ok` cells with all four figures.
ChartSeries seriesOf(const SweepResults &Sweep, const std::string &Name);

/// The colour of series I, from a palette safe for colour-blind readers.
const char *seriesColor(size_t I);

/// The chart with its metric selector and legend, as one <figure>.
std::string renderParetoFigure(const std::vector<ChartSeries> &Series);

/// TTFT, ITL and E2E latency, one row per cell with records, side by side.
std::string renderDistributionFigure(const SweepResults &Sweep);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_CHARTS_H
