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
// Weights are split over TP × PP GPUs; an MoE model reads the dense part plus
// the fraction of experts that the step's rows touch; the KV read of MLA-style
// attention is replicated across TP ranks unless DCP shards it.
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

class Roofline {
public:
  Roofline(const HardwareProfile &Hw, const ModelProfile &Model,
           const EngineConfig &Config);

  double weightBytesPerGpu() const;
  /// Bytes of KV one token occupies on one GPU (after PP and DCP sharding).
  double kvBytesPerTokenPerGpu() const;
  /// HBM × utilization − weights − activations − recurrent state, per GPU.
  double kvPoolBytesPerGpu() const;
  /// Tokens of KV the pool holds; 0 when the weights do not fit.
  long kvCapacityTokens() const;
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
};

/// Bytes per KV element for an engine kv-cache dtype ("fp8", "bf16", ...).
double kvDtypeBytes(const std::string &Dtype);

} // namespace arecipe::sim

#endif
