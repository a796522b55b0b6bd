//===- Svg.h - Text, numbers and axes for the report's markup ---*- C++ -*-===//
//
// The small vocabulary every part of the report is written with: HTML
// escaping, human number and latency formats, and axis scales with tick
// values chosen the way a person would label an axis. Pure functions of their
// arguments, so the page is the same bytes for the same results.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_SVG_H
#define ARECIPE_REPORT_SVG_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::report {

/// Text safe inside an element or a double-quoted attribute.
std::string escapeHtml(std::string_view Text);
/// escapeHtml, with line breaks and tabs as character references too: an
/// attribute value (a tooltip) stays on one line of the page.
std::string escapeAttr(std::string_view Text);

/// 3 significant figures, thousands grouped: 950, 1,234, 12.3, 0.0412.
std::string formatNumber(double V);
std::string formatNumber(const std::optional<double> &V); ///< "–" when absent
/// A whole count, thousands grouped: 1,280.
std::string formatCount(double V);
/// The labels of evenly spaced axis ticks, all with the decimals their
/// spacing needs, so an axis never reads "0, 50.0, 100".
std::vector<std::string> tickLabels(const std::vector<double> &Ticks);
/// Seconds as a person reads a latency: "38.4 ms", "1.36 s".
std::string formatSeconds(double Seconds);
std::string formatSeconds(const std::optional<double> &Seconds);
/// A fraction as a percentage with one decimal: "12.5%".
std::string formatPercent(double Fraction);
/// SVG coordinates: fixed one decimal, so the output is stable.
std::string coord(double V);

/// Maps a data interval onto a pixel interval, linearly or logarithmically,
/// and names the ticks to label it with.
class AxisScale {
public:
  /// A linear axis from 0 (or Min when it is below 0) to a round value at or
  /// above Max.
  static AxisScale linearFromZero(double Max, double PixelFrom, double PixelTo);
  /// A logarithmic axis over whole 1-2-5 decades covering [Min, Max]
  /// (both > 0).
  static AxisScale logarithmic(double Min, double Max, double PixelFrom, double PixelTo);

  double operator()(double V) const;
  const std::vector<double> &ticks() const { return Ticks; }
  bool isLog() const { return Log; }

private:
  double Lo = 0, Hi = 1, PixelFrom = 0, PixelTo = 1;
  bool Log = false;
  std::vector<double> Ticks;
};

} // namespace arecipe::report

#endif // ARECIPE_REPORT_SVG_H
