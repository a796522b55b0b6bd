//===- LaunchCommand.h - The exact command a process runs -------*- C++ -*-===//
//
// Turns a ProcessSpec into what is actually executed on this node: the plan's
// argv, wrapped — in this order, innermost first — by numactl when the plan
// binds NUMA, by the container runtime when the plan names one (host network
// and IPC, the GPU devices, the mounts, an explicit entrypoint so an image
// whose ENTRYPOINT is the engine cannot swallow the command), or replaced by
// arecipe-sim under --simulate, after the addresses of the cell's nodes are
// substituted for `{node_addr:K}`. The same function feeds execution and
// --dry-run, so what the dry run prints is what runs. It builds argv only: it
// never consults a shell, and never starts anything.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_LAUNCHCOMMAND_H
#define ARECIPE_RUNTIME_LAUNCHCOMMAND_H

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LaunchPlan.h"
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
};

/// CellDir holds the cell's logs and, under --simulate, the port files.
LaunchCommand buildLaunchCommand(const LaunchPlan &Plan, const Cell &C, const ProcessSpec &P,
                                 const RunSettings &Settings, const std::string &CellDir);

/// `docker rm -f NAME`: run after the group is gone, because a container
/// outlives a SIGKILLed `docker run` client.
Argv containerRemoveCommand(const LaunchPlan &Plan, const std::string &ContainerName);

/// Where simulated engines record their fake device memory (one file per
/// process), read by the clean-GPU wait under --simulate.
std::string simulatedGpuMemoryDir(const RunSettings &Settings);

/// The Hugging Face home of a simulated run: a sandbox in the output
/// directory, so simulated staging never writes into a real shared cache.
std::string simulatedHfHome(const RunSettings &Settings);

/// Text with every `{node_addr:K}` replaced by the address of node K of
/// the cell's allocation (NodeAddrs[K]); with no addresses known, node 0 is
/// this machine (127.0.0.1). Anything else is left as written.
std::string substituteNodeAddresses(const std::string &Text,
                                    const std::vector<std::string> &NodeAddrs);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_LAUNCHCOMMAND_H
