//===- Tune.h - The search space of a `tune` block --------------*- C++ -*-===//
//
// What Sema makes of a `tune NAME for RECIPE { ... }` block (docs/tuning.md):
// per cell of the recipe, the knobs to search with their candidate values
// (each the source text of an expression of the language, evaluated late in
// the cell as an `arecipec --set` value is), the objective and the SLA
// constraints that apply there. The block is checked against the analysed
// recipe: the knobs must be the recipe's, the metrics known and their bounds
// in the metric's unit, every candidate set non-empty, every band and
// concurrency the recipe's. Whether one candidate passes the recipe's checks
// and the engine's schema is decided by compiling the recipe with it
// (arecipe-tune does, through lib/Frontend), not here.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SEMA_TUNE_H
#define ARECIPE_SEMA_TUNE_H

#include "arecipe/Sema/Sema.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arecipe {
namespace sema {

/// A metric the tuner can read from a cell's results.
struct TuneMetric {
  const char *Name;
  const char *Unit;    ///< As written after a bound: "tok/s/gpu", "s", "".
  bool HigherIsBetter; ///< For the objective's direction and the frontier.
};
/// Every metric a tune block may name, in documentation order.
const std::vector<TuneMetric> &tuneMetrics();
const TuneMetric *findTuneMetric(llvm::StringRef Name);

struct TuneConstraint {
  std::string Metric;
  std::string Op;   ///< "<=", ">=", "<", ">", "==", "!="
  double Bound = 0; ///< In the metric's unit (seconds for durations).
  std::string Text; ///< "p90_ttft <= 2s", as written.
  bool holds(double V) const;
};

struct TuneKnob {
  std::string Knob;
  /// Each candidate as the source text of its expression ("8", "2 * conc").
  std::vector<std::string> Candidates;
};

struct TuneCell {
  int64_t Conc = 0;
  std::string Band; ///< The recipe's band holding the cell, or empty.
  /// The N of `server = cell(N)`: the cell runs another cell's server and
  /// is not searched (its server is tuned in cell N).
  std::optional<int64_t> ServerFrom;
  std::vector<TuneKnob> Knobs;
  std::vector<TuneConstraint> Constraints;
};

struct TuneSpace {
  std::string Name;
  std::string Recipe;
  std::string Objective;
  bool Maximize = true;
  std::vector<TuneCell> Cells; ///< One per concurrency, recipe order.
};

/// Checks every `tune` block of \p Main against the analysed recipes of
/// \p C and reports its mistakes to \p Diags. Returns the search spaces of
/// the blocks that had none.
std::vector<TuneSpace> checkTuneBlocks(const Compilation &C,
                                       const ast::File &Main,
                                       DiagnosticEngine &Diags);

} // namespace sema
} // namespace arecipe

#endif // ARECIPE_SEMA_TUNE_H
