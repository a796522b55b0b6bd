//===- ProgressReport.h - What the user sees while a sweep runs -*- C++ -*-===//
//
// One live status line per cell on a terminal (cell i/N, phase, elapsed,
// measured requests n/N, failed ones by error kind, cancelled ones apart,
// tokens/s, and the estimated time left for the cell and the sweep),
// rewritten in place and replaced by a final line when the cell ends;
// plain, line-oriented messages when stderr is a file or a pipe (CI logs,
// lit tests), one per phase change and one per quarter of a cell's
// measurement. Everything goes to stderr, redacted (support::redact);
// stdout is left for --dry-run output. It reports and never decides: the
// estimates are the requests (or the duration) left at the rate so far, and
// the cells left at the mean duration of the cells this run has finished.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PROGRESSREPORT_H
#define ARECIPE_RUNTIME_PROGRESSREPORT_H

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arecipe::runtime {

/// The measured requests of a cell so far. A cancelled request was stopped
/// by the client (at the end of an agentic run, or on Ctrl-C) and is neither
/// a success nor a failure.
struct RequestCounts {
  size_t Ok = 0, Failed = 0, Cancelled = 0;
  /// Failed requests by error kind (records' `error` names), most first.
  std::vector<std::pair<std::string, size_t>> FailedByKind;
  /// Output tokens per second of the measured window.
  double TokensPerSecond = 0;
};

/// How a sweep ended, for its last lines.
struct SweepTally {
  size_t Cells = 0, Ok = 0, Bad = 0, Skipped = 0;
  bool Interrupted = false;
  std::string OutDir;
  /// The command lines that continue this sweep (--resume added) and that
  /// rerun its failed and invalid cells (--retry-failed too); empty when
  /// there is none to suggest.
  std::string ResumeCommand, RetryCommand;
};

class ProgressReport {
public:
  /// Live updates when Live (a terminal), plain lines otherwise.
  ProgressReport(std::FILE *Out, bool Live) : Out(Out), Live(Live) {}

  void beginCell(size_t Index, size_t Count, const std::string &Id);
  void phase(const std::string &Name);
  /// The measurement starts: Expected measured requests (0: not known in
  /// advance, as for an agentic replay), and its planned wall-clock length
  /// in seconds (0: it ends when the requests are done).
  void beginMeasure(size_t Expected, double PlannedWallS);
  /// Measured-phase counters: the live line shows them; plain output prints
  /// a line at each quarter of the measurement.
  void requests(const RequestCounts &Counts);
  /// The measurement ended (done, stopped or interrupted): one line that
  /// stays, with the final counts.
  void endMeasure(const RequestCounts &Counts);
  /// A message that stays (a warning, a wait), printed on its own line.
  void note(const std::string &Text);
  void endCell(const std::string &Status, const std::string &Detail);
  /// A line outside any cell.
  void message(const std::string &Text);
  /// Whether the live line estimates the sweep's time left too: not on a
  /// node rank of a Slurm cell, which sees one cell of a sweep it does not
  /// run.
  void estimateSweep(bool On) { SweepEstimate = On; }
  /// The sweep's last lines: the tally, and how to resume an interrupted
  /// sweep or retry its failed cells.
  void endSweep(const SweepTally &Tally);

private:
  void write(std::string_view Text);
  std::string prefix() const;
  std::string requestText(const RequestCounts &Counts) const;
  /// Wall seconds left in this cell's measurement, when it can be told.
  std::optional<double> cellSecondsLeft() const;
  std::string etaText() const;
  void redraw();
  void clearLive();

  using Clock = std::chrono::steady_clock;
  std::FILE *Out;
  bool Live;
  size_t Index = 0, Count = 0;
  std::string Id, Phase;
  Clock::time_point CellStart, MeasureStart;
  bool Measuring = false;
  size_t Expected = 0;
  double PlannedWallS = 0;
  RequestCounts Counts;
  /// The last quarter of the measurement a plain line was printed for.
  int QuarterShown = 0;
  /// Wall seconds of the cells this run has finished (run, not skipped).
  double FinishedCellSeconds = 0;
  size_t FinishedCells = 0;
  bool LineShown = false;
  bool SweepEstimate = true;
};

/// "12s", "3m05s", "2h07m": a duration for people.
std::string formatDuration(double Seconds);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PROGRESSREPORT_H
