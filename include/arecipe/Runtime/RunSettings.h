//===- RunSettings.h - How arecipe-run was asked to run a plan --*- C++ -*-===//
//
// The command-line choices that change how a plan executes without changing
// the plan: where results go, which cells, dry run, resume, and simulation
// (the engine replaced by arecipe-sim, plan durations compressed by the time
// scale), and which node of a multi-node cell this run is. Plain data plus the one rule every wait applies: a plan duration
// becomes wall-clock time by dividing by the time scale.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_RUNSETTINGS_H
#define ARECIPE_RUNTIME_RUNSETTINGS_H

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace arecipe::runtime {

enum class SimClockMode { Wall, Virtual };

struct RunSettings {
  std::string OutDir;
  std::string PlanPath;
  std::vector<std::string> Cells; ///< empty: every cell
  bool DryRun = false;
  bool Resume = false;
  /// With Resume: rerun the cells that finished `failed` or `invalid` too.
  bool RetryFailed = false;
  /// --repeat N: measure every cell N times (Repeats.h).
  int Repeat = 1;
  /// --endpoint URL: measure a server already running there instead of
  /// starting the plan's processes (docs/runtime.md, external endpoints).
  /// Headers carry the authorization read from the environment.
  struct {
    std::string Url, MetricsPath = "/metrics", Model;
    std::vector<std::string> Headers;
  } Endpoint;
  /// The command lines, shell-quoted, that resume this sweep and that rerun
  /// its failed cells: what the console suggests at the end.
  std::string ResumeCommand, RetryCommand;

  bool Simulate = false;
  /// Simulated seconds per wall-clock second (arecipe-sim --sim-time-scale).
  double TimeScale = 1;
  /// --sim-clock: under --simulate, whether a cell's figures are the
  /// client's wall-clock times scaled by TimeScale (Wall), or the simulated
  /// engine's own virtual times, in lock-step with the client (Virtual;
  /// VirtualTime.h, docs/simulator.md "Virtual clock").
  SimClockMode SimClock = SimClockMode::Wall;
  bool virtualClock() const {
    return Simulate && SimClock == SimClockMode::Virtual;
  }
  std::string SimulatorPath;
  /// Extra `--sim-…` arguments for every simulated engine, and per cell id.
  std::vector<std::string> SimArgs;
  std::map<std::string, std::vector<std::string>> CellSimArgs;
  /// Under --simulate, every fixed port of a cell is replaced by a free one
  /// chosen when the cell starts, so cells and runs on one machine never
  /// collide; --sim-fixed-ports keeps the plan's ports.
  bool KeepFixedPorts = false;
  bool remapsPorts() const { return Simulate && !KeepFixedPorts; }

  /// Set on a Slurm allocation (`--node-rank`): this run executes only the
  /// processes of node rank NodeRank of its cell, rank 0 also the client;
  /// the ranks coordinate through files in the shared cell directory, which
  /// the submitter has already emptied. -1: the whole cell on this machine.
  int NodeRank = -1;
  /// The address of each node of the cell's allocation, by rank: what a
  /// plan's `{node_addr:K}` stands for.
  std::vector<std::string> NodeAddrs;
  /// The host name of each node of the allocation, by rank: `{node_host:K}`.
  std::vector<std::string> NodeHosts;
  /// This node's name (SLURMD_NODENAME, or --node-name), recorded with each
  /// process.
  std::string NodeName;
  /// This runtime's command line for one node rank of a cell, before
  /// `--cells ID --node-rank R ... PLAN`: how --simulate runs the other
  /// ranks of a multi-node cell as local processes.
  std::vector<std::string> RankCommand;
  /// The local node-rank runtimes of that cell: this runtime's children,
  /// which a cell's teardown must not take for orphans.
  std::vector<int> RankPids;

  std::chrono::milliseconds TeardownGrace{10000};
  std::chrono::milliseconds PortFreeTimeout{30000};

  /// The wall-clock time a plan duration takes in this run.
  /// Plan durations and the time scale are bounded where they are read;
  /// the result is clamped to [0, 10^12 s] all the same, so no caller can
  /// turn it into a negative wait.
  std::chrono::milliseconds wall(double PlanSeconds) const {
    double S = Simulate && TimeScale > 0 ? PlanSeconds / TimeScale : PlanSeconds;
    S = S > 0 ? std::min(S, 1e12) : 0; // also NaN to 0
    return std::chrono::milliseconds(static_cast<long long>(S * 1000.0 + 0.5));
  }

  /// wall(), but under --simulate at least Floor: a compressed timeout can
  /// fall below the scheduling noise of a loaded machine.
  std::chrono::milliseconds wallAtLeast(double PlanSeconds,
                                        std::chrono::milliseconds Floor) const {
    std::chrono::milliseconds W = wall(PlanSeconds);
    return Simulate ? std::max(W, Floor) : W;
  }

  /// The client's stall window during a measurement (0: none): the plan's
  /// on the wall clock, at least 5 s under --simulate.
  std::chrono::milliseconds measurementStallWindow(double PlanSeconds) const {
    return PlanSeconds > 0
               ? wallAtLeast(PlanSeconds, std::chrono::milliseconds(5000))
               : std::chrono::milliseconds(0);
  }
};

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_RUNSETTINGS_H
