//===- SlurmExecutor.h - Running a plan's cells through Slurm ---*- C++ -*-===//
//
// The Slurm executor: arecipe does not schedule nodes, it hands each cell to
// Slurm and collects what comes back. Cells with the same node count go out
// as one job array (`sbatch --parsable`), one task per cell, whose script
// runs the local executor on the allocation (`arecipe-run --executor local
// --cells ID --node-rank R`), so a cell behaves the same here as on one
// machine; a multi-node cell gets one `srun` step per node rank. The
// submitter then polls `scontrol show job` (no accounting database needed),
// prints each cell's progress, and takes each cell's verdict from the
// summary its job wrote; a job that ended without one (cancelled, timed out,
// killed) is recorded as a failed cell with its Slurm state, exit code and
// the tail of its output. SIGINT/SIGTERM cancels the sweep's jobs and keeps
// what finished; --resume skips finished cells.
//
// Limits: the output directory, the plan and arecipe-run must be on a
// filesystem every node shares (docs/slurm.md); a job forgotten by
// slurmctld (MinJobAge) before it was polled is reported as unknown.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_SLURMEXECUTOR_H
#define ARECIPE_RUNTIME_SLURMEXECUTOR_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/ProgressReport.h"
#include "arecipe/Runtime/RunSettings.h"
#include "arecipe/Runtime/SlurmJob.h"

#include <string>
#include <vector>

namespace arecipe::runtime {

struct SlurmSweepSettings {
  SlurmOptions Options;
  /// `auto` (empty) or the nodes the sweep may use, as names or hostlist
  /// expressions (`n[1-3]`); turned into SlurmOptions::Exclude on submission.
  std::vector<std::string> NodeList;
  /// The runtime on the nodes and the arguments that make a cell run there
  /// exactly as asked here (see JobScriptSpec::CellRun).
  Argv CellRun;
};

/// Runs the sweep through Slurm; the exit status is runLocalSweep's.
int runSlurmSweep(const LaunchPlan &Plan, const std::string &PlanText, const RunSettings &Settings,
                  const SlurmSweepSettings &Slurm, ProgressReport &Progress);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_SLURMEXECUTOR_H
