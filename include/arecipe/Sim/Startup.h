//===- Startup.h - The engine's start-up sequence and its failures -*- C++ -*-===//
//
// Plans what a real engine does between exec and "Application startup
// complete": fetch the model when it is a repository id, load weights, size
// the KV cache, pin the CPU KV tier, load the drafter, capture CUDA graphs.
// The documented failure modes are decided here from argv, environment and
// faults, so they are testable without a server: a phase may exit non-zero
// (graph warm-up), hang until a timeout (fetch through a dead proxy) or
// never end with the log silent (pinning more DRAM than the node has, an
// uncached drafter downloading at the contended rate the seed measured).
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_STARTUP_H
#define ARECIPE_SIM_STARTUP_H

#include "arecipe/Sim/Roofline.h"
#include "arecipe/Sim/SimOptions.h"

#include <map>
#include <string>
#include <vector>

namespace arecipe::sim {

struct StartupPhase {
  std::string Name;
  std::vector<std::string> StartLines;
  double Seconds = 0;                // simulated duration
  std::string ProgressLabel;         // non-empty: log "LABEL: k%" as it runs
  bool NeverEnds = false;            // the log stops growing, for good
  std::vector<std::string> EndLines;
  int ExitCode = 0;                  // non-zero: the process exits after it
};

struct StartupPlan {
  std::vector<StartupPhase> Phases;
  long CpuTierTokens = 0;
  double CpuTierBytesPerRank = 0;
};

using Environment = std::map<std::string, std::string>;

StartupPlan planStartup(const Roofline &Model, const SimOptions &Options,
                        const Environment &Env);

/// The Hugging Face hub cache directory the environment selects.
std::string hubCacheDir(const Environment &Env);

} // namespace arecipe::sim

#endif
