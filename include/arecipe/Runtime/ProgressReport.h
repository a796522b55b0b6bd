//===- ProgressReport.h - What the user sees while a sweep runs -*- C++ -*-===//
//
// One live status line per cell on a terminal (cell i/N, phase, elapsed,
// requests done, tokens/s), rewritten in place and replaced by a final line
// when the cell ends; plain, line-oriented messages when stderr is a file or
// a pipe (CI logs, lit tests), one per phase change. Everything goes to
// stderr, redacted (support::redact); stdout is left for --dry-run output.
// It reports and never decides.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PROGRESSREPORT_H
#define ARECIPE_RUNTIME_PROGRESSREPORT_H

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

namespace arecipe::runtime {

class ProgressReport {
public:
  /// Live updates when Live (a terminal), plain lines otherwise.
  ProgressReport(std::FILE *Out, bool Live) : Out(Out), Live(Live) {}

  void beginCell(size_t Index, size_t Count, const std::string &Id);
  void phase(const std::string &Name);
  /// Measured-phase counters; only the live line shows them.
  void requests(size_t Finished, size_t Failed, double TokensPerSecond);
  /// A message that stays (a warning, a wait), printed on its own line.
  void note(const std::string &Text);
  void endCell(const std::string &Status, const std::string &Detail);
  /// A line outside any cell.
  void message(const std::string &Text);

private:
  void write(std::string_view Text);
  std::string prefix() const;
  void redraw();
  void clearLive();

  std::FILE *Out;
  bool Live;
  size_t Index = 0, Count = 0;
  std::string Id, Phase;
  std::chrono::steady_clock::time_point CellStart;
  size_t Finished = 0, Failed = 0;
  double TokensPerSecond = 0;
  bool LineShown = false;
};

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PROGRESSREPORT_H
