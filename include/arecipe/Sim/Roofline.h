//===- Roofline.h - Step-time and memory model of one engine -*- C++ -*-===//
//
// Turns hardware × model × engine knobs into the two numbers the scheduler
// needs: how many tokens of KV fit on the GPUs, and how long one engine step
// of a given shape takes. Pure arithmetic; no clock, no I/O.
//
// A stage pass is memory-bound or compute-bound, whichever is slower:
//   stage = max(bytes read per GPU / (HBM bandwidth × efficiency),
//               FLOPs per GPU / (peak FLOP/s × efficiency)) + stage overhead
// With pipeline parallelism a step is up to PP micro-batches in flight:
//   step  = max(Σ stage(micro-batch), PP × max stage(micro-batch))
//           + fixed step overhead + CPU-tier KV loads / host-to-device bandwidth
// (throughput of the busiest stage, latency of all stages; one micro-batch
// is PP stages in series).
// Memory and traffic per GPU follow how the engines shard a model
// (docs/simulator.md, "Memory under parallelism"): dense weights over the
// attention's TP ranks, experts over TP (or the EP group), layers over PP;
// GQA KV heads over the attention's TP ranks (replicated once TP exceeds the
// KV heads), MLA latent KV replicated on every TP rank; DCP shards a
// request's KV over its ranks; each DP rank is a replica with its own KV
// pool and batch. An MoE model reads the dense part plus the fraction of
// experts that the step's rows touch.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_ROOFLINE_H
#define ARECIPE_SIM_ROOFLINE_H

#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/Profiles.h"

#include <vector>

namespace arecipe::sim {

/// What one engine step computes, summed over its sequences.
struct StepShape {
  long Rows = 0;              // tokens through the network (prefill + verify)
  long DecodeSequences = 0;   // sequences in the decode part of the batch
  long KvTokensRead = 0;      // context tokens whose KV is read
  double AttentionPairs = 0;  // (query token, context token) pairs
  long CpuLoadedTokens = 0;   // prefix tokens fetched from the CPU tier
};

/// How the engine lays the model out over its GPUs.
struct Sharding {
  int Gpus = 1;          // every GPU of the server
  int AttentionTp = 1;   // GPUs one request's attention and KV are split over
  int Replicas = 1;      // DP ranks: own KV pool, own batch
  int DenseShards = 1;   // dense weights (attention, shared) split over
  int ExpertShards = 1;  // expert weights split over
  /// The expert shards serve every replica's tokens (EP across DP, or
  /// dp-attention), so a step's expert coverage counts all its rows.
  bool ExpertsSeeAllReplicas = false;
  /// Share of a token's KV (before PP and DCP) that one attention rank
  /// stores: GQA heads per rank / KV heads, 1 for MLA.
  double KvShare = 1;
};

Sharding shardingFor(const ModelProfile &Model, const EngineConfig &Config);

class Roofline {
public:
  Roofline(const HardwareProfile &Hw, const ModelProfile &Model,
           const EngineConfig &Config);

  const Sharding &sharding() const { return Shards; }
  /// The target model's weights one GPU holds.
  double targetWeightBytesPerGpu() const;
  /// Weights one GPU holds, the drafter's included.
  double weightBytesPerGpu() const;
  /// Bytes of KV one token occupies on one GPU of its replica: the rank's
  /// share of the heads (GQA) or the whole latent (MLA), over PP and DCP.
  double kvBytesPerTokenPerGpu() const;
  /// HBM × utilization − weights − activations − recurrent state, per GPU.
  double kvPoolBytesPerGpu() const;
  /// Tokens of KV one replica holds (every GPU of it holds its share of
  /// each); 0 when the weights do not fit.
  long kvCapacityTokensPerReplica() const;
  /// Tokens of KV the whole server holds: per replica × replicas.
  long kvCapacityTokens() const;
  /// max-num-seqs and max-num-batched-tokens are per DP rank.
  long maxRunningSequences() const;
  long batchedTokenBudget() const;
  /// Step time in seconds for \p Shape as one micro-batch (0 when empty).
  double stepSeconds(const StepShape &Shape) const;
  /// Step time of up to PP micro-batches in flight through the pipeline.
  double stepSeconds(const std::vector<StepShape> &MicroBatches) const;
  /// Fraction of the MoE expert weights a step with \p Rows rows reads.
  double expertCoverage(long Rows) const;

  const HardwareProfile &hardware() const { return Hw; }
  const ModelProfile &model() const { return Model; }
  const EngineConfig &config() const { return Config; }

private:
  /// One micro-batch through one pipeline stage, on one GPU of it.
  double stageSeconds(const StepShape &Shape) const;

  HardwareProfile Hw;
  ModelProfile Model;
  EngineConfig Config;
  Sharding Shards;
};

/// Bytes per KV element for an engine kv-cache dtype ("fp8", "bf16", ...).
double kvDtypeBytes(const std::string &Dtype);

} // namespace arecipe::sim

#endif
