//===- SlurmJob.h - Job scripts and Slurm's answers, as text ----*- C++ -*-===//
//
// The pure pieces of the Slurm executor: the batch script that runs a group
// of cells with the same shape (one job array task per cell; one `srun` step
// per node rank for a multi-node cell), and the reading of what Slurm says
// back — `sbatch --parsable`, `scontrol show job -o` records with their job
// array ranges, job states and exit codes. Nothing here runs a command or
// touches the file system, so every rule is unit-tested without a cluster.
// It targets Slurm 22.05's output formats and no accounting (sacct needs
// slurmdbd): a finished job is known from scontrol for MinJobAge seconds.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_SLURMJOB_H
#define ARECIPE_RUNTIME_SLURMJOB_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::runtime {

/// What every job of a sweep asks Slurm for: the plan's `slurm` object with
/// the command line's overrides applied.
struct SlurmOptions {
  std::string Partition, Account; ///< empty: the cluster's default
  double TimeLimitS = 0;          ///< 0: the partition's default
  int GpusPerNode = 0;            ///< 0: no GPU request
  /// The nodes the sweep must avoid: with an explicit node list, every node
  /// of the partition outside it, so Slurm chooses only among the listed ones.
  std::vector<std::string> Exclude;
};

/// Slurm's `D-HH:MM:SS` for a limit in seconds, rounded up to a second.
std::string formatSlurmTime(double Seconds);

/// A group of cells submitted as one job array: same node count.
struct JobScriptSpec {
  std::string JobName;
  int Nodes = 1;
  std::vector<std::string> CellIds; ///< array task I runs CellIds[I]
  std::string OutputPattern;        ///< --output, e.g. OUT/slurm/%A_%a.out
  /// The runtime on the nodes and its fixed arguments (`--executor local`,
  /// `--out`, simulation and container options), without --cells,
  /// --node-rank, --node-addrs or the plan.
  Argv CellRun;
  std::string PlanPath;
  std::string CellsDir; ///< OUT/cells, where a multi-node cell's stop file goes
};

/// The batch script for Spec. A single-node cell runs `arecipe-run --cells
/// ID --node-rank 0` in the batch step itself; a multi-node cell starts one
/// `srun` step per node rank with the addresses of all nodes, rank 0 in the
/// foreground.
std::string buildJobScript(const SlurmOptions &Options, const JobScriptSpec &Spec);

/// The job id in `sbatch --parsable` output (`123` or `123;cluster`), or
/// nothing when the output is not one.
std::optional<std::string> parseSbatchJobId(std::string_view Output);

/// One record of `scontrol show job -o`: a job, an array task, or the
/// not-yet-started rest of an array (`ArrayTaskId=2-5`).
struct SlurmJobRecord {
  std::string JobId;
  std::string ArrayJobId;   ///< empty for a job that is not an array
  std::vector<int> ArrayTasks; ///< the task indexes this record stands for
  std::string State;        ///< JobState, first word (CANCELLED, not "CANCELLED by 0")
  std::string Reason;       ///< why it is pending, or None
  std::string ExitCode;     ///< `status:signal`
  std::string NodeList;
  std::string StdOut;
};

/// Parses `scontrol show job -o` output; lines without a JobId are ignored.
std::vector<SlurmJobRecord> parseScontrolJobs(std::string_view Text);

/// Task indexes of an ArrayTaskId value: `3`, `0-4`, `1,3-5`, `0-9%2`.
std::vector<int> parseArrayTaskIds(std::string_view Text);

/// A state after which the job will not run again.
bool isFinalJobState(std::string_view State);

/// `exit status 2`, `killed by signal 9 (SIGKILL)`, for an ExitCode `2:0`.
std::string describeSlurmExitCode(std::string_view ExitCode);

/// How a job that ended without the cell's summary is reported, e.g.
/// `Slurm job 12_1 was cancelled (CANCELLED, killed by signal 15 (SIGTERM))`.
std::string describeJobEnd(const std::string &JobKey, const SlurmJobRecord &Record);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_SLURMJOB_H
