//===- CellRunner.h - One cell, from pre-flight to teardown -----*- C++ -*-===//
//
// Runs one cell of a plan on this node: pre-flight actions in order, the
// processes in dependency order (a process starts once everything in its
// `after` list is ready), readiness of each, the client's measured run with
// its profile windows and server-metric scrapes, the validity rules, and
// then — always, whatever failed or was interrupted — teardown: every process
// group stopped, containers removed, adopted orphans killed, and the ports
// waited on until free. The outcome carries a precise reason for any failure
// (the phase, the process, its exit status, its last log lines). Writing the
// cell's files is done through ResultStore; choosing cells is the executor's.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_CELLRUNNER_H
#define ARECIPE_RUNTIME_CELLRUNNER_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/ProgressReport.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/RunSettings.h"

#include <string>

namespace arecipe::runtime {

enum class CellStatus {
  Ok,          ///< measured and valid
  Invalid,     ///< measured, but a validity rule failed
  Failed,      ///< could not be measured
  Interrupted, ///< stopped by SIGINT/SIGTERM; not a finished cell
};

const char *cellStatusName(CellStatus S);

struct CellOutcome {
  CellStatus Status = CellStatus::Failed;
  std::string Reason;
};

/// Runs C and writes its directory under Store. The runtime's environment
/// may be changed by unset_env actions.
CellOutcome runCell(const LaunchPlan &Plan, const Cell &C, const RunSettings &Settings,
                    const ResultStore &Store, ProgressReport &Progress);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_CELLRUNNER_H
