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

/// What warm-up of FULL CUDA graphs needs from a capture-size list. The
/// engine sizes its graph batch from the largest capture size, read as whole
/// verify steps of (1 + draft) rows; with decode-context parallelism the
/// decode batch is padded to a multiple of dcp sequences, and warm-up replays
/// the graph of that padded batch, so its size must have been captured.
struct GraphWarmup {
  int Sequences = 0;       // largest capture size / (1 + draft), at least 1
  int PaddedSequences = 0; // rounded up to a multiple of dcp
  int RequiredSize = 0;    // PaddedSequences x (1 + draft)
  bool Dense = true;       // every size from 2 to the largest is captured
  int MissingSize = 0;     // 0: warm-up succeeds; else the first size absent
};

/// \p SortedSizes is the deduplicated capture-size list in ascending order.
/// Every size from 2 to the largest must be present, then RequiredSize.
GraphWarmup fullGraphWarmup(const std::vector<int> &SortedSizes,
                            int DraftTokens, int Dcp);

StartupPlan planStartup(const Roofline &Model, const SimOptions &Options,
                        const Environment &Env);

/// The Hugging Face hub cache directory the environment selects.
std::string hubCacheDir(const Environment &Env);

} // namespace arecipe::sim

#endif
