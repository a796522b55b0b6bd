//===- Scheduler.h - Continuous batching over simulated time -*- C++ -*-===//
//
// The engine's serving loop without the network: requests wait, are
// admitted under max-num-seqs and KV capacity (both per DP rank, pooled
// over the ranks as if the engine balanced them perfectly), prefill in chunks under the
// max-num-batched-tokens budget with prefix-cache reuse (GPU tier, then the
// optional CPU tier), and decode one token per step, or on average AL tokens
// per step with speculative decoding. step() plans and applies one engine
// step and says how long it took; the caller owns the clock.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_SCHEDULER_H
#define ARECIPE_SIM_SCHEDULER_H

#include "arecipe/Sim/PrefixCache.h"
#include "arecipe/Sim/Roofline.h"

#include <cstdint>
#include <deque>
#include <random>
#include <unordered_map>
#include <vector>

namespace arecipe::sim {

struct ScheduledRequest {
  uint64_t Id = 0;
  long PromptTokens = 0;
  std::vector<uint64_t> BlockHashes; // full 64-token blocks of the prompt
  long MaxTokens = 1;
  /// Disaggregated decode: a prefill server computed the prompt and its KV
  /// arrived over the interconnect; only the last token is computed here.
  bool RemotePrefill = false;
};

/// What one request got from one step.
struct RequestProgress {
  uint64_t Id = 0;
  int NewTokens = 0;       // tokens emitted this step (0 while prefilling)
  long CachedTokens = 0;   // prompt tokens served from the prefix cache
  bool Finished = false;
};

struct StepResult {
  double Seconds = 0;
  StepShape Shape; // summed over the step's micro-batches
  long PrefillTokens = 0;
  std::vector<RequestProgress> Progress;
};

/// Cumulative counters, exported as Prometheus metrics.
struct SchedulerStats {
  uint64_t Steps = 0;
  uint64_t PrefixQueriedTokens = 0;
  uint64_t PrefixHitTokens = 0;
  uint64_t CpuHitTokens = 0;
  uint64_t PromptTokens = 0;
  uint64_t GenerationTokens = 0;
  uint64_t DraftTokens = 0;
  uint64_t AcceptedTokens = 0;
  uint64_t Preemptions = 0;
  uint64_t FinishedRequests = 0;
  uint64_t RemotePrefillTokens = 0; // prompt KV received from prefill servers
};

class Scheduler {
public:
  /// \p CpuTierTokens is the LMCache-style CPU tier capacity (0: none).
  Scheduler(const Roofline &Model, long CpuTierTokens, uint64_t Seed);

  void add(ScheduledRequest Request);
  /// Drops a request (client went away); its KV is freed at once.
  void cancel(uint64_t Id);
  bool hasWork() const { return !Waiting.empty() || !Running.empty(); }
  StepResult step();

  size_t runningCount() const { return Running.size(); }
  size_t waitingCount() const { return Waiting.size(); }
  long kvCapacityTokens() const { return Capacity; }
  long kvUsedTokens() const { return HeldTokens; }
  double kvUsage() const {
    return Capacity > 0 ? double(HeldTokens) / Capacity : 0;
  }
  const SchedulerStats &stats() const { return Stats; }
  /// Per-position draft acceptance probability that yields the configured
  /// mean acceptance length (0 without speculative decoding).
  double acceptanceProbability() const { return AcceptProb; }

private:
  struct Sequence {
    ScheduledRequest Req;
    long PrefillTarget = 0; // prompt (+ tokens to recompute after preemption)
    long Prefilled = 0;     // includes tokens served from cache
    long CpuPending = 0;    // cached tokens still to load from the CPU tier
    long Generated = 0;
    long CachedTokens = 0;
    bool Started = false;   // has emitted its first token
    long held() const { return Req.PromptTokens + Generated; }
  };

  void admit();
  void lookupPrefix(Sequence &Seq);
  int sampleDecodeTokens();
  void preemptUntilFits();
  void finishPrefill(Sequence &Seq);

  Roofline Model;
  const EngineConfig &Config;
  long Capacity;
  long HeldTokens = 0;
  PrefixCache GpuTier;
  PrefixCache CpuTier;
  std::deque<Sequence> Waiting;
  std::vector<Sequence> Running; // admission order
  std::mt19937_64 Rng;
  double AcceptProb = 0;
  SchedulerStats Stats;
};

/// Solves Σ_{i=0..n} a^i = AL for a in [0, 1]: the per-position acceptance
/// probability of a draft of n tokens whose mean accepted length is AL.
double acceptanceProbabilityFor(int DraftTokens, double AcceptanceLength);

} // namespace arecipe::sim

#endif
