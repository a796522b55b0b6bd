//===- PlanLoader.h - Reading and validating a launch plan ------*- C++ -*-===//
//
// Turns plan JSON into a LaunchPlan, or into the list of everything wrong
// with it. Each error names the JSON path of the offending field and why
// (`cells[3].processes[0].argv: expected a non-empty list of strings`), and
// loading collects errors instead of stopping at the first, so one run of
// `arecipe-run --check` is enough to fix a hand-edited plan. It must never
// crash or throw on bad input, and it must not run anything: a plan that
// validates may still fail when executed.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PLANLOADER_H
#define ARECIPE_RUNTIME_PLANLOADER_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <string>
#include <string_view>
#include <vector>

namespace arecipe::runtime {

/// The longest cell id, process name or recipe name: each names a file or
/// directory, and `<cell>-<process>.mem` must fit in 255 bytes.
inline constexpr size_t MaxPlanNameLength = 100;
/// The longest duration a plan may ask for, in seconds (11.6 days): enough
/// for any benchmark, and far from overflowing a wait in milliseconds.
inline constexpr double MaxPlanDurationS = 1e6;
/// The largest token or request count (isl, osl, num_prompts, warmup) and
/// request rate.
inline constexpr int64_t MaxPlanCount = 10'000'000;

struct PlanError {
  std::string Path;    ///< `cells[3].processes[0].argv`, or `line:col` for syntax
  std::string Message; ///< lower-case, no trailing period
};

struct PlanLoadResult {
  LaunchPlan Plan;
  std::vector<PlanError> Errors;
  bool ok() const { return Errors.empty(); }
};

/// Validates Text. At most MaxErrors errors are kept.
PlanLoadResult parseLaunchPlan(std::string_view Text, size_t MaxErrors = 50);

/// Reads Path and parses it; an unreadable file is one error with an empty
/// path.
PlanLoadResult loadLaunchPlan(const std::string &Path, size_t MaxErrors = 50);

/// `[A-Za-z_][A-Za-z0-9_]*`: the names a plan may set or unset.
bool isValidEnvName(std::string_view Name);

/// A Hugging Face repository id that is safe to use in a path: 'org/name',
/// each part letters, digits, '_', '-' and '.', neither containing '..'.
bool isValidRepoId(std::string_view Repo);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PLANLOADER_H
