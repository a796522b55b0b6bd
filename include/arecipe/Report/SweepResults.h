//===- SweepResults.h - A results directory as the report reads it -*- C++
//-*-===//
//
// The report's input: what `arecipe-run` left in a results directory
// (docs/runtime.md) — plan.json for the recipe, image and each cell's knobs
// with their provenance, cells/<id>/summary.json for the verdict and the
// InferenceX figures, records.jsonl for the latency distributions and the
// verdict's log tail. Loading reads files and nothing else; it never runs a
// process or touches the network, and it tolerates a sweep in progress (a
// cell without summary is `pending`). Every text that may carry a secret is
// redacted here (support/Redaction.h), so nothing downstream can show one.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_REPORT_SWEEPRESULTS_H
#define ARECIPE_REPORT_SWEEPRESULTS_H

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace arecipe::report {

/// The report file `arecipe-run` writes into every results directory.
inline constexpr const char *ReportFileName = "report.html";

/// Quantiles of one latency over a cell's successful measured requests, in
/// seconds, with percentiles interpolated as docs/metrics.md defines them.
struct LatencyQuantiles {
  size_t Count = 0;
  double Mean = 0;
  double Min = 0, P5 = 0, P25 = 0, P50 = 0, P75 = 0, P90 = 0, P95 = 0, P99 = 0, Max = 0;
};

struct KnobValue {
  std::string Name;
  std::string Value; ///< compact JSON, redacted when the name is a secret's
  std::string File;
  int Line = 0, Col = 0;
  std::string Level; ///< default | recipe | band | at-conc | server-from | command-line
};

/// A headline figure over a cell's repeats: mean, sample standard
/// deviation and the 95 % confidence interval of the mean (Student t), as
/// the cell's summary.json `arecipe_repeats` has them (docs/runtime.md).
struct Spread {
  size_t Count = 0;
  double Mean = 0, Std = 0, CiLow = 0, CiHigh = 0;
};

struct RepeatFigures {
  int Runs = 1; ///< measured repeats of the cell
  std::optional<Spread> TotalPerGpu, OutputPerGpu, P90Interactivity, P90E2eNormInteractivity,
      E2eP50;
};

struct CellResult {
  std::string Id;
  int Conc = 0;
  std::string Arm; ///< the recipe's arm, or empty
  std::string Band;
  std::string ServerFrom; ///< the cell whose server this one runs, or empty
  int Gpus = 0;
  std::string Status; ///< ok | invalid | failed | pending
  std::string Reason, FailedPhase, FailedProcess, LogTail, StartedAt;
  std::vector<std::string> Warnings;
  std::vector<KnobValue> Knobs;
  std::vector<std::string> ServerCommand; ///< the API-serving process's argv

  // Figures from summary.json; absent when the cell produced none.
  std::optional<double> TotalPerGpu, OutputPerGpu, P90Interactivity, P90E2eNormInteractivity;
  std::optional<double> TtftP50, TtftP90, ItlP50, ItlP90, E2eP50, E2eP90;
  std::optional<double> ErrorRate, SpecAcceptanceLength, PrefixCacheHitRate;
  std::optional<double> RequestsTotal, RequestsSuccessful;

  RepeatFigures Repeats;

  // From records.jsonl (records.partial.jsonl for a cell stopped mid-run).
  std::optional<LatencyQuantiles> Ttft, Itl, E2e;
};

struct SweepResults {
  std::string Dir; ///< as given to loadSweepResults
  std::string Recipe, RecipeFile, Model, Image, Hardware, Engine;
  bool Simulated = false;
  double TimeScale = 1;          ///< simulated seconds per wall second
  std::string Endpoint; ///< the external server measured (--endpoint), or empty
  std::vector<CellResult> Cells; ///< in plan order (ascending concurrency)

  /// How a chart legend names this sweep: recipe and image.
  std::string label() const;
};

/// Reads DIR. Returns nullopt with Err when DIR holds no readable plan.json;
/// anything else missing or malformed leaves the affected figures absent.
std::optional<SweepResults> loadSweepResults(const std::string &Dir, std::string &Err);

/// A results directory read once and then kept current: refresh() reads a
/// cell again only when its summary or records changed on disk, so the
/// report rebuilt after every cell of a sweep costs one cell's reading,
/// not the whole directory's.
class SweepResultsReader {
public:
  /// Reads DIR's plan.json and every cell; false with Err as
  /// loadSweepResults.
  bool load(const std::string &Dir, std::string &Err);
  /// Reads again every cell whose files changed since they were read.
  void refresh();
  const SweepResults &results() const { return S; }

private:
  SweepResults S;
  std::vector<CellResult> FromPlan;  ///< each cell as the plan describes it
  std::vector<std::string> Versions; ///< of each cell's files when last read
};

/// The quantiles of Values (any order); nullopt when Values is empty.
std::optional<LatencyQuantiles> quantilesOf(std::vector<double> Values);

} // namespace arecipe::report

#endif // ARECIPE_REPORT_SWEEPRESULTS_H
