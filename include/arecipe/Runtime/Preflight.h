//===- Preflight.h - The guards that run before any server ------*- C++ -*-===//
//
// Executes a cell's pre-flight actions in plan order, each one a guard
// against a failure the seeds document: leaked proxies unset before the
// first network call (in the runtime's own environment, so every later
// command and process inherits the clean one), a tool version recorded and
// checked, a model staged into the shared cache with retries, paths checked,
// GPUs waited on until their memory is clean, a value captured from a
// command's output for the placeholders of the processes. Every command runs from its
// argv with its output appended to the cell's preflight.log. An action
// either passes, passes with a warning, or fails the cell with a reason; it
// never starts a server.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PREFLIGHT_H
#define ARECIPE_RUNTIME_PREFLIGHT_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/Placeholders.h"
#include "arecipe/Runtime/RunSettings.h"

#include <functional>
#include <string>

namespace arecipe::runtime {

struct PreflightContext {
  const LaunchPlan &Plan;
  const Cell &TheCell;
  const RunSettings &Settings;
  std::string LogPath; ///< the cell's preflight.log
  /// Reports a warning or a waiting state to the user as it happens.
  std::function<void(const std::string &)> Note;
  /// What the placeholders of `run` and `capture` argv stand for: the
  /// files, the nodes and the captures of the steps before.
  const PlaceholderValues *Values = nullptr;
};

struct PreflightOutcome {
  bool Ok = true;
  std::string Reason;                ///< why the cell fails, when !Ok
  std::vector<std::string> Warnings; ///< kept in the cell summary
  /// A `capture` step's value: its trimmed standard output (or, under
  /// --simulate, its simulated output).
  std::optional<std::string> Captured;
  bool Simulated = false; ///< Captured is the plan's simulated output
};

PreflightOutcome runPreflightAction(const PreflightAction &Action, const PreflightContext &Ctx);

/// One line saying what the action will do, for --dry-run and the log.
std::string describePreflightAction(const PreflightAction &Action);

/// The first of the plan's tool, amd-smi, rocm-smi and nvidia-smi on PATH.
std::optional<std::string> findGpuMemoryTool(const LaunchPlan &Plan);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PREFLIGHT_H
