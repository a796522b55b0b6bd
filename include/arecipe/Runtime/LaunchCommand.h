//===- LaunchCommand.h - The exact command a process runs -------*- C++ -*-===//
//
// Turns a ProcessSpec into what is actually executed on this node: the plan's
// argv, wrapped — in this order, innermost first — by numactl when the plan
// binds NUMA, by the container runtime when the plan names one (host network
// and IPC, the GPU devices, the mounts, an explicit entrypoint so an image
// whose ENTRYPOINT is the engine cannot swallow the command), or replaced by
// arecipe-sim under --simulate (an engine by a simulated engine, the router
// the client calls by arecipe-sim's router), after the run-time values are
// substituted for the plan's placeholders (Placeholders.h). The same function
// feeds execution and --dry-run, so what the dry run prints is what runs. It
// builds argv only: it never consults a shell, and never starts anything.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_LAUNCHCOMMAND_H
#define ARECIPE_RUNTIME_LAUNCHCOMMAND_H

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LaunchPlan.h"
#include "arecipe/Runtime/Placeholders.h"
#include "arecipe/Runtime/ReadinessProbe.h"
#include "arecipe/Runtime/RunSettings.h"

#include <string>

namespace arecipe::runtime {

struct LaunchCommand {
  Argv Command;
  ChildEnvironment Env;
  std::string LogPath;
  PortSource Port;
  bool Simulated = false;
  /// Under --simulate with a plan that describes its model and hardware:
  /// where LaunchPlan::SimSpec is written before the process starts.
  std::string SimSpecPath;
  std::string ContainerName; ///< empty unless the process runs in a container
  /// Under --simulate, a router arecipe-sim stands in for: what the cell's
  /// log says about the stand-in (a policy it simulates differently).
  std::string Note;
  /// Non-empty: the process cannot run (a router arecipe-sim cannot stand
  /// in for under --simulate); the cell fails with this reason.
  std::string Error;
};

/// CellDir holds the cell's logs and, under --simulate, the port files;
/// Values are what the placeholders of P's argv and environment stand for.
LaunchCommand buildLaunchCommand(const LaunchPlan &Plan, const Cell &C, const ProcessSpec &P,
                                 const RunSettings &Settings, const std::string &CellDir,
                                 const PlaceholderValues &Values);

/// Where the cell's generated files are written: a directory of their own
/// in the cell's directory, so no name can replace a file of the runtime.
std::string generatedFilesDir(const std::string &CellDir);

/// The directory `{dir:logs}` stands for: one of its own in the cell's
/// directory, for what the cell's processes write themselves.
std::string processLogDir(const std::string &CellDir);

/// True when a process's argv or environment, or a generated file, of the
/// cell names `{dir:logs}`: the runtime then creates the directory before
/// the processes start (and a container mounts it).
bool cellUsesLogDir(const Cell &C);

/// The placeholder values known before the cell runs: the nodes of the
/// allocation (this machine without one) and the paths of the cell's files.
/// The captured values are added by the pre-flight.
PlaceholderValues cellPlaceholderValues(const Cell &C, const RunSettings &Settings,
                                        const std::string &CellDir);

/// `docker rm -f NAME`: run after the group is gone, because a container
/// outlives a SIGKILLed `docker run` client.
Argv containerRemoveCommand(const LaunchPlan &Plan, const std::string &ContainerName);

/// Where simulated engines record their fake device memory (one file per
/// process), read by the clean-GPU wait under --simulate.
std::string simulatedGpuMemoryDir(const RunSettings &Settings);

/// The Hugging Face home of a simulated run: a sandbox in the output
/// directory, so simulated staging never writes into a real shared cache.
std::string simulatedHfHome(const RunSettings &Settings);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_LAUNCHCOMMAND_H
