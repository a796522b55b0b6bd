//===- LocalExecutor.h - Running a plan's cells on this node ----*- C++ -*-===//
//
// The local executor: the cells of a plan one at a time on this machine, in
// plan order, each through runCell; after every cell the sweep files are
// rebuilt, so a sweep killed half-way still has a correct results.json for
// what finished. It honours --cells, --resume (finished cells with a
// matching digest are skipped; with --retry-failed only the `ok` ones) and --dry-run (every action
// and command printed, nothing run), and stops after the current cell's teardown on SIGINT/SIGTERM.
// Multi-node cells belong to the Slurm executor; this one refuses them rather than run rank 0
// alone, except as one node rank of a Slurm allocation (--node-rank), where it runs that rank's
// processes and leaves the plan copy and the sweep files to the submitter, and under
// --simulate, where it plays the allocation on this machine: every node rank is a local
// `arecipe-run --node-rank R` (rank 0 in this process), node addresses 127.0.0.1, and the
// fixed ports remapped per rank so the ranks never collide.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_LOCALEXECUTOR_H
#define ARECIPE_RUNTIME_LOCALEXECUTOR_H

#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/ProgressReport.h"
#include "arecipe/Runtime/RunSettings.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace arecipe::runtime {

class ResultStore;

/// The cells --cells selects, in plan order; unknown ids go to Unknown.
std::vector<const Cell *> selectCells(const LaunchPlan &Plan, const RunSettings &Settings,
                                      std::vector<std::string> &Unknown);

/// With --resume: the status of cell C when it finished earlier in --out
/// and is skipped now (saying so on the console); nullopt when it runs. A
/// `failed` or `invalid` cell counts as finished unless --retry-failed.
/// Index and Total place the cell in the sweep, for the console line.
std::optional<std::string> skipFinishedCell(const ResultStore &Store, const Cell &C,
                                            const RunSettings &Settings, ProgressReport &Progress,
                                            size_t Index, size_t Total);

/// Prints what a run would do, cell by cell, to Out.
void printDryRun(const LaunchPlan &Plan, const RunSettings &Settings, std::FILE *Out);

/// Runs the sweep. Returns the process exit status: 0 when every selected
/// cell is ok, 1 when one failed or is invalid, 128 + signal when
/// interrupted, 2 when the output directory cannot be written.
int runLocalSweep(const LaunchPlan &Plan, const std::string &PlanText, const RunSettings &Settings,
                  ProgressReport &Progress);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_LOCALEXECUTOR_H
