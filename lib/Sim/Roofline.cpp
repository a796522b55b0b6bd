//===- Roofline.cpp - Step-time and memory model --------------------------===//
#include "arecipe/Sim/Roofline.h"

#include <algorithm>
#include <cmath>

namespace arecipe::sim {

double kvDtypeBytes(const std::string &Dtype) {
  if (Dtype.find("fp8") != std::string::npos ||
      Dtype.find("int8") != std::string::npos)
    return 1;
  if (Dtype.find("fp4") != std::string::npos)
    return 0.5;
  if (Dtype.find("fp32") != std::string::npos ||
      Dtype.find("float32") != std::string::npos)
    return 4;
  return 2; // bf16, fp16, auto
}

Sharding shardingFor(const ModelProfile &Model, const EngineConfig &C) {
  Sharding S;
  S.Gpus = C.gpus();
  S.AttentionTp = C.attentionTp();
  S.Replicas = C.DataParallel;
  S.DenseShards = S.AttentionTp;
  if (C.ExpertParallelSize > 1)
    S.ExpertShards = C.ExpertParallelSize; // SGLang --ep-size
  else if (C.ExpertParallel)
    S.ExpertShards = C.TensorParallel * C.DataParallel; // vLLM/ATOM EP
  else
    S.ExpertShards = C.TensorParallel;
  // dp-attention runs the replicas' attention on the TP GPUs that also hold
  // the experts; vLLM's EP spans every DP rank.
  S.ExpertsSeeAllReplicas =
      C.DpAttention || (C.ExpertParallel && C.DataParallel > 1);
  if (Model.Attention == AttentionKind::Gqa && Model.KvHeads > 0) {
    int PerRank = std::max(1, (Model.KvHeads + S.AttentionTp - 1) /
                                  S.AttentionTp);
    S.KvShare = std::min(1.0, double(PerRank) / Model.KvHeads);
  }
  return S;
}

Roofline::Roofline(const HardwareProfile &Hw, const ModelProfile &Model,
                   const EngineConfig &Config)
    : Hw(Hw), Model(Model), Config(Config),
      Shards(shardingFor(Model, Config)) {}

double Roofline::targetWeightBytesPerGpu() const {
  double Experts = Model.WeightBytes - Model.DenseWeightBytes;
  return (Model.DenseWeightBytes / Shards.DenseShards +
          Experts / Shards.ExpertShards) /
         Config.PipelineParallel;
}

double Roofline::weightBytesPerGpu() const {
  double Bytes = targetWeightBytesPerGpu();
  // A separate drafter (eagle3, dspark) is replicated per pipeline stage and
  // split over the attention's TP ranks like the target.
  if (!Config.DraftModel.empty())
    Bytes += Model.DraftModelBytes / Shards.AttentionTp;
  return Bytes;
}

double Roofline::kvBytesPerTokenPerGpu() const {
  return Model.KvElementsPerToken * Shards.KvShare *
         kvDtypeBytes(Config.KvCacheDtype) /
         (Config.PipelineParallel * Config.DecodeContextParallel);
}

double Roofline::kvPoolBytesPerGpu() const {
  // Each sequence's recurrent state is split over its replica's attention
  // ranks and pipeline stages.
  double State = Model.StateBytesPerSequence * Config.MaxNumSeqs /
                 (Shards.AttentionTp * Config.PipelineParallel);
  return Hw.HbmBytes * Config.GpuMemoryUtilization - weightBytesPerGpu() -
         Model.ActivationReserveBytes - State;
}

long Roofline::kvCapacityTokensPerReplica() const {
  double Pool = kvPoolBytesPerGpu();
  if (Pool <= 0)
    return 0;
  return static_cast<long>(Pool / kvBytesPerTokenPerGpu());
}

long Roofline::kvCapacityTokens() const {
  return kvCapacityTokensPerReplica() * Shards.Replicas;
}

long Roofline::maxRunningSequences() const {
  return long(Config.MaxNumSeqs) * Shards.Replicas;
}

long Roofline::batchedTokenBudget() const {
  return long(Config.MaxNumBatchedTokens) * Shards.Replicas;
}

double Roofline::expertCoverage(long Rows) const {
  if (Model.NumExperts <= 0 || Model.ExpertsPerToken <= 0)
    return 1;
  double MissOne = 1.0 - double(Model.ExpertsPerToken) / Model.NumExperts;
  return 1.0 - std::pow(MissOne, double(Rows));
}

double Roofline::stageSeconds(const StepShape &S) const {
  // Per GPU of one pipeline stage: the step's rows, context and sequences are
  // spread evenly over the replicas; the experts see the rows of the
  // replicas they serve.
  const double Pp = Config.PipelineParallel;
  const double Replicas = Shards.Replicas;
  double ExpertBytes = Model.WeightBytes - Model.DenseWeightBytes;
  long ExpertRows = Shards.ExpertsSeeAllReplicas
                        ? S.Rows
                        : (S.Rows + Shards.Replicas - 1) / Shards.Replicas;
  double WeightRead = (Model.DenseWeightBytes / Shards.DenseShards +
                       ExpertBytes * expertCoverage(ExpertRows) /
                           Shards.ExpertShards) /
                      Pp;
  double KvRead = S.KvTokensRead / Replicas * kvBytesPerTokenPerGpu() +
                  S.DecodeSequences / Replicas * Model.StateBytesPerSequence /
                      (Shards.AttentionTp * Pp);
  double Flops = (2.0 * Model.ActiveParams * S.Rows +
                  Model.AttentionFlopsPerTokenPair * S.AttentionPairs) /
                 Shards.Gpus;
  double MemTime = (WeightRead + KvRead) / (Hw.HbmBandwidth * Hw.MemEfficiency);
  double ComputeTime =
      Flops / (Hw.peakFlopsFor(Model.WeightDtype) * Hw.FlopsEfficiency);
  return std::max(MemTime, ComputeTime) + Hw.PipelineStageOverheadSeconds;
}

double Roofline::stepSeconds(const StepShape &S) const {
  return stepSeconds(std::vector<StepShape>{S});
}

double Roofline::stepSeconds(const std::vector<StepShape> &MicroBatches) const {
  double Sum = 0, Slowest = 0;
  long CpuLoaded = 0;
  for (const StepShape &S : MicroBatches) {
    if (S.Rows == 0)
      continue;
    double Stage = stageSeconds(S);
    Sum += Stage;
    Slowest = std::max(Slowest, Stage);
    CpuLoaded += S.CpuLoadedTokens;
  }
  if (Slowest == 0)
    return 0;
  // Every stage passes each micro-batch once per step (Sum), and a
  // micro-batch's sequences can go again only after it has been through all
  // PP stages (PP x Slowest). One micro-batch is the stages in series.
  double Pipeline = std::max(Sum, Config.PipelineParallel * Slowest);
  double CpuLoad = Hw.HostToDeviceBandwidth > 0
                       ? CpuLoaded * kvBytesPerTokenPerGpu() /
                             Hw.HostToDeviceBandwidth
                       : 0;
  return Pipeline + Hw.StepOverheadSeconds + CpuLoad;
}

} // namespace arecipe::sim
