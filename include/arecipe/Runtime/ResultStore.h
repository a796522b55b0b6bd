//===- ResultStore.h - The output directory of a sweep ----------*- C++ -*-===//
//
// Owns the layout of `--out DIR`: `cells/<id>/` with the process logs,
// `records.jsonl` and `summary.json` of each cell, and the sweep files
// `results.json`, `summary.csv`, `summary.md` rebuilt from every cell summary
// present after each cell. Every result file is written to a temporary file
// and renamed into place, and a cell's summary.json is written last, so
// killing arecipe-run at any moment leaves each cell either finished (its
// summary present and complete) or not — never half-written. Logs are the one
// exception: engines append to them live. `--resume` trusts a finished cell
// only if its summary records the same cell digest as the plan being run.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_RESULTSTORE_H
#define ARECIPE_RUNTIME_RESULTSTORE_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace arecipe::report {
class SweepResultsReader;
} // namespace arecipe::report

namespace arecipe::runtime {

// The sinks of the runtime. Everything it writes under --out goes through
// one of these, or through a child's output relay (ChildProcess.h), so
// every file gets the same redaction (support::redact) and is valid UTF-8;
// Security/secrets-never-reach-an-output.test plants secrets of every kind
// and greps every file of a sweep for them. The exceptions are files that
// must stay exact and hold no plan text: port and stop files, the job
// script, and the private copy of a plan that holds secrets (mode 0600).

/// Writes a text file (sweep tables, the report, a log line set): redacted,
/// made valid UTF-8 (support::sanitizeUtf8), atomically.
bool writeOutputFile(const std::string &Path, std::string_view Text, std::string &Err);
/// Writes a JSON document (summaries, results.json, rank reports):
/// redacted field by field (support::redactJson), then serialised with
/// support::dumpJson, which replaces invalid UTF-8 from engine logs and
/// pre-flight output instead of aborting.
bool writeOutputJson(const std::string &Path, const nlohmann::ordered_json &Doc,
                     std::string &Err);
/// Appends one line to a log under --out (preflight.log, a Slurm command
/// log), redacted; a log that cannot be written is skipped.
void appendOutputLine(const std::string &Path, std::string_view Line);

/// Creates Path as a real directory, or checks that it is one: a symbolic
/// link in its place (planted to send writes and deletions elsewhere) is
/// refused, never followed. False with Err ("refusing to use P: ...").
bool makeRealDirectory(const std::string &Path, std::string &Err);

/// The plan text for OUT/plan.json, redacted with support::redactJson. A
/// plan with no secret is returned byte for byte.
std::string redactPlanText(const std::string &PlanText);

/// One run at a time per output directory: arecipe-run takes this lock
/// (flock on OUT/.lock) before it writes anything there and holds it to its
/// end; a second run into the directory fails at once naming the holder.
/// The node ranks of a Slurm cell run under their submitter's lock.
class OutputLock {
public:
  OutputLock() = default;
  OutputLock(const OutputLock &) = delete;
  OutputLock &operator=(const OutputLock &) = delete;
  ~OutputLock();
  /// Creates OutDir if needed and locks it; false with Err otherwise.
  bool acquire(const std::string &OutDir, std::string &Err);

private:
  int Fd = -1;
};

class ResultStore {
public:
  /// Simulated, TimeScale and VirtualClock (--sim-clock virtual) describe
  /// this run: a summary of a run that measured differently is not a
  /// finished cell for it.
  explicit ResultStore(std::string OutDir, bool Simulated = false,
                       double TimeScale = 1, bool VirtualClock = false);
  ResultStore(const ResultStore &) = delete;
  ResultStore &operator=(const ResultStore &) = delete;
  ~ResultStore();

  const std::string &outDir() const { return OutDir; }
  std::string cellDir(const Cell &C) const;
  std::string summaryPath(const Cell &C) const;

  /// Creates the output directory and its `cells` (a real directory, never
  /// a link); false with Err on failure.
  bool create(std::string &Err) const;
  /// Empties the cell's directory: an interrupted attempt leaves no stale
  /// logs or records behind.
  bool resetCell(const Cell &C, std::string &Err) const;

  /// The cell's summary if it exists, parses (within bounds), has a string
  /// status and digest, and was written for a cell with C's digest by a run
  /// with this store's Simulated, TimeScale and VirtualClock.
  std::optional<nlohmann::ordered_json> finishedSummary(const Cell &C) const;

  bool writeCellSummary(const Cell &C, const nlohmann::ordered_json &Summary,
                        std::string &Err) const;

  /// Rewrites results.json, summary.csv and summary.md from the summaries
  /// present. Simulated and TimeScale describe this run.
  bool writeSweep(const LaunchPlan &Plan, bool Simulated, double TimeScale, std::string &Err) const;

private:
  /// A small file given up when a cell summary cannot be written for lack
  /// of space, so a cell that filled the disk still gets its verdict.
  std::string reservePath() const;

  std::string OutDir;
  bool Simulated;
  double TimeScale;
  bool VirtualClock;
  /// Each cell's summary as parsed, and the version of the file it came
  /// from (support::fileVersion): parsed again only when it changes.
  mutable std::map<std::string, std::pair<std::string, std::optional<nlohmann::ordered_json>>>
      Summaries;
  /// The report's view of the directory, kept between rebuilds.
  mutable std::unique_ptr<report::SweepResultsReader> Report;
};

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_RESULTSTORE_H
