//===- ProgressReport.cpp - What the user sees while a sweep runs ---------===//

#include "arecipe/Runtime/ProgressReport.h"

#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/Utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace arecipe::runtime {

std::string formatDuration(double Seconds) {
  long long S = std::isfinite(Seconds) && Seconds > 0 ? std::llround(Seconds) : 0;
  if (S < 60)
    return fmt::format("{}s", S);
  if (S < 3600)
    return fmt::format("{}m{:02}s", S / 60, S % 60);
  return fmt::format("{}h{:02}m", S / 3600, S / 60 % 60);
}

void ProgressReport::write(std::string_view Text) {
  // The console is a sink like any file: reasons and notes quote commands,
  // logs and engine answers.
  std::string Safe = support::sanitizeUtf8(support::redact(Text));
  std::fwrite(Safe.data(), 1, Safe.size(), Out);
  std::fflush(Out);
}

std::string ProgressReport::prefix() const { return fmt::format("[{}/{}] {}", Index, Count, Id); }

void ProgressReport::clearLive() {
  if (Live && LineShown) {
    std::fputs("\r\x1b[2K", Out);
    LineShown = false;
  }
}

std::string ProgressReport::requestText(const RequestCounts &C) const {
  // n of N counts the requests that got an answer; the cancelled ones are
  // told apart, since no one will wait for them.
  size_t Done = C.Ok + C.Failed;
  std::string Text =
      Expected ? fmt::format("requests {}/{}", Done, Expected) : fmt::format("requests {}", Done);
  Text += fmt::format(" ({} failed", C.Failed);
  for (size_t I = 0; I < C.FailedByKind.size(); ++I)
    Text +=
        fmt::format("{}{} {}", I ? ", " : ": ", C.FailedByKind[I].second, C.FailedByKind[I].first);
  if (C.Cancelled)
    Text += fmt::format("; {} cancelled", C.Cancelled);
  return Text + ")";
}

std::optional<double> ProgressReport::cellSecondsLeft() const {
  if (!Measuring)
    return std::nullopt;
  double Elapsed = std::chrono::duration<double>(Clock::now() - MeasureStart).count();
  size_t Done = Counts.Ok + Counts.Failed;
  if (Expected && Done)
    return Elapsed / double(Done) * double(Expected - std::min(Done, Expected));
  if (PlannedWallS > 0)
    return std::max(0.0, PlannedWallS - Elapsed);
  return std::nullopt;
}

std::string ProgressReport::etaText() const {
  std::optional<double> Left = cellSecondsLeft();
  double Elapsed = std::chrono::duration<double>(Clock::now() - CellStart).count();
  // The cells still to come are assumed to take as long as the finished
  // ones did, or, before any finished, as long as this one will.
  std::optional<double> Mean;
  if (SweepEstimate && FinishedCells)
    Mean = FinishedCellSeconds / double(FinishedCells);
  else if (SweepEstimate && Left)
    Mean = Elapsed + *Left;
  std::string Text;
  if (Left)
    Text = "ETA cell " + formatDuration(*Left);
  if (Mean) {
    double ThisLeft = Left ? *Left : std::max(0.0, *Mean - Elapsed);
    double Sweep = ThisLeft + double(Count > Index ? Count - Index : 0) * *Mean;
    Text += (Text.empty() ? "ETA sweep " : ", sweep ") + formatDuration(Sweep);
  }
  return Text;
}

void ProgressReport::redraw() {
  if (!Live)
    return;
  double Elapsed = std::chrono::duration<double>(Clock::now() - CellStart).count();
  std::string Line = fmt::format("{}  {:<10} {:>6.1f}s", prefix(), Phase, Elapsed);
  if (Measuring)
    Line += fmt::format("  {}  {:.0f} tok/s", requestText(Counts), Counts.TokensPerSecond);
  if (std::string Eta = etaText(); !Eta.empty())
    Line += "  " + Eta;
  write("\r\x1b[2K" + Line);
  LineShown = true;
}

void ProgressReport::beginCell(size_t I, size_t N, const std::string &CellId) {
  Index = I;
  Count = N;
  Id = CellId;
  Phase.clear();
  Measuring = false;
  Expected = 0;
  PlannedWallS = 0;
  Counts = RequestCounts();
  QuarterShown = 0;
  CellStart = Clock::now();
}

void ProgressReport::phase(const std::string &Name) {
  Phase = Name;
  if (Live) {
    redraw();
    return;
  }
  write(fmt::format("{}: {}\n", prefix(), Name));
}

void ProgressReport::beginMeasure(size_t Exp, double WallS) {
  Measuring = true;
  MeasureStart = Clock::now();
  Expected = Exp;
  PlannedWallS = WallS;
  Counts = RequestCounts();
  QuarterShown = 0;
}

void ProgressReport::requests(const RequestCounts &C) {
  Counts = C;
  if (Live) {
    redraw();
    return;
  }
  // Plain output: a line at each quarter of the requests (or of the planned
  // duration), so a log shows progress without a line per request.
  double Fraction = 0;
  if (Expected)
    Fraction = double(C.Ok + C.Failed) / double(Expected);
  else if (PlannedWallS > 0)
    Fraction = std::chrono::duration<double>(Clock::now() - MeasureStart).count() / PlannedWallS;
  int Quarter = static_cast<int>(std::min(Fraction, 1.0) * 4);
  if (Quarter <= QuarterShown || Quarter >= 4)
    return;
  QuarterShown = Quarter;
  std::string Eta = etaText();
  write(fmt::format("{}: {}, {:.0f} tok/s{}{}\n", prefix(), requestText(C), C.TokensPerSecond,
                    Eta.empty() ? "" : ", ", Eta));
}

void ProgressReport::endMeasure(const RequestCounts &C) {
  Counts = C;
  clearLive();
  write(fmt::format("{}: measurement ended with {}: {} ok\n", prefix(), requestText(C), C.Ok));
  Measuring = false;
  redraw();
}

void ProgressReport::note(const std::string &Text) {
  clearLive();
  write(fmt::format("{}: {}\n", prefix(), Text));
  redraw();
}

void ProgressReport::endCell(const std::string &Status, const std::string &Detail) {
  clearLive();
  double Elapsed = std::chrono::duration<double>(Clock::now() - CellStart).count();
  FinishedCellSeconds += Elapsed;
  ++FinishedCells;
  Measuring = false;
  write(fmt::format("{}: {} after {:.1f}s{}{}\n", prefix(), Status, Elapsed,
                    Detail.empty() ? "" : ": ", Detail));
}

void ProgressReport::message(const std::string &Text) {
  clearLive();
  write(Text + "\n");
}

void ProgressReport::endSweep(const SweepTally &T) {
  message(fmt::format("{} of {} cells ok, {} failed or invalid{}{}; results in {}", T.Ok, T.Cells,
                      T.Bad, T.Skipped ? fmt::format(", {} skipped as finished", T.Skipped) : "",
                      T.Interrupted ? ", interrupted" : "", T.OutDir));
  if (T.Interrupted && !T.ResumeCommand.empty())
    message("to finish the sweep: " + T.ResumeCommand);
  else if (T.Bad && !T.RetryCommand.empty())
    message("to rerun the failed and invalid cells: " + T.RetryCommand);
}

} // namespace arecipe::runtime
