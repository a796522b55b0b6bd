//===- Svg.cpp - Text, numbers and axes for the report's markup -----------===//

#include "Svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace arecipe::report {

std::string escapeHtml(std::string_view Text) {
  std::string Out;
  Out.reserve(Text.size());
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

std::string escapeAttr(std::string_view Text) {
  std::string Out;
  for (char C : escapeHtml(Text))
    Out += C == '\n' ? std::string("&#10;") : C == '\t' ? std::string("&#9;") : std::string(1, C);
  return Out;
}

namespace {

std::string groupThousands(std::string Digits) {
  size_t Dot = Digits.find('.');
  size_t IntEnd = Dot == std::string::npos ? Digits.size() : Dot;
  size_t IntBegin = Digits[0] == '-' ? 1 : 0;
  for (size_t I = IntEnd; I > IntBegin + 3; I -= 3)
    Digits.insert(I - 3, ",");
  return Digits;
}

} // namespace

std::string formatNumber(double V) {
  if (!std::isfinite(V))
    return "–";
  double A = std::fabs(V);
  if (A >= 100 || A == 0)
    return groupThousands(fmt::format("{:.0f}", V));
  if (A >= 10)
    return fmt::format("{:.1f}", V);
  if (A >= 1)
    return fmt::format("{:.2f}", V);
  int Decimals = std::min(8, 2 - int(std::floor(std::log10(A))));
  return fmt::format("{:.{}f}", V, Decimals);
}

std::string formatNumber(const std::optional<double> &V) {
  return V ? formatNumber(*V) : std::string("–");
}

std::string formatCount(double V) { return groupThousands(fmt::format("{:.0f}", V)); }

std::vector<std::string> tickLabels(const std::vector<double> &Ticks) {
  double Step = Ticks.size() > 1 ? Ticks[1] - Ticks[0] : 1;
  int Decimals = std::max(0, int(std::ceil(-std::log10(Step) - 1e-9)));
  if (Step * std::pow(10, Decimals) != std::floor(Step * std::pow(10, Decimals) + 1e-9))
    ++Decimals; // 2.5, 0.25: one more digit than the power of ten
  std::vector<std::string> Labels;
  for (double T : Ticks)
    Labels.push_back(groupThousands(fmt::format("{:.{}f}", T, Decimals)));
  return Labels;
}

std::string formatSeconds(double Seconds) {
  if (!std::isfinite(Seconds))
    return "–";
  if (std::fabs(Seconds) < 1)
    return formatNumber(Seconds * 1000) + " ms";
  return formatNumber(Seconds) + " s";
}

std::string formatSeconds(const std::optional<double> &Seconds) {
  return Seconds ? formatSeconds(*Seconds) : std::string("–");
}

std::string formatPercent(double Fraction) { return fmt::format("{:.1f}%", Fraction * 100); }

std::string coord(double V) {
  std::string S = fmt::format("{:.1f}", V);
  return S == "-0.0" ? "0.0" : S;
}

namespace {

/// The 1, 2 or 5 times a power of ten nearest above Raw.
double niceStep(double Raw) {
  double Power = std::pow(10, std::floor(std::log10(Raw)));
  for (double M : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (M * Power >= Raw * (1 - 1e-9))
      return M * Power;
  return 10 * Power;
}

} // namespace

AxisScale AxisScale::linearFromZero(double Max, double PixelFrom, double PixelTo) {
  AxisScale S;
  S.PixelFrom = PixelFrom;
  S.PixelTo = PixelTo;
  if (!(Max > 0) || !std::isfinite(Max))
    Max = 1;
  // About five intervals, and a little room above the highest point so its
  // marker and label are not cut by the frame.
  double Step = niceStep(Max * 1.04 / 5);
  S.Hi = std::ceil(Max * 1.04 / Step) * Step;
  for (int I = 0; I * Step <= S.Hi * (1 + 1e-9); ++I)
    S.Ticks.push_back(I * Step);
  return S;
}

AxisScale AxisScale::logarithmic(double Min, double Max, double PixelFrom, double PixelTo) {
  AxisScale S;
  S.Log = true;
  S.PixelFrom = PixelFrom;
  S.PixelTo = PixelTo;
  double LoExp = std::floor(std::log10(Min)), HiExp = std::ceil(std::log10(Max));
  if (HiExp <= LoExp)
    HiExp = LoExp + 1;
  // Trim to the 1-2-5 ticks around the data, so a decade mostly empty does
  // not take half the width.
  S.Lo = std::pow(10, LoExp);
  S.Hi = std::pow(10, HiExp);
  for (double M : {1.0, 2.0, 5.0})
    if (M * std::pow(10, LoExp) <= Min)
      S.Lo = M * std::pow(10, LoExp);
  for (double M : {5.0, 2.0, 1.0})
    if (M * std::pow(10, HiExp - 1) >= Max)
      S.Hi = M * std::pow(10, HiExp - 1);
  for (double E = LoExp; E <= HiExp; ++E)
    for (double M : {1.0, 2.0, 5.0}) {
      double T = M * std::pow(10, E);
      if (T >= S.Lo * (1 - 1e-9) && T <= S.Hi * (1 + 1e-9))
        S.Ticks.push_back(T);
    }
  return S;
}

double AxisScale::operator()(double V) const {
  double F =
      Log ? (std::log10(std::max(V, Lo)) - std::log10(Lo)) / (std::log10(Hi) - std::log10(Lo))
          : (V - Lo) / (Hi - Lo);
  return PixelFrom + F * (PixelTo - PixelFrom);
}

} // namespace arecipe::report
