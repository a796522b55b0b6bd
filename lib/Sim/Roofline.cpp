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

Roofline::Roofline(const HardwareProfile &Hw, const ModelProfile &Model,
                   const EngineConfig &Config)
    : Hw(Hw), Model(Model), Config(Config) {}

double Roofline::weightBytesPerGpu() const {
  double Bytes = Model.WeightBytes / Config.gpus();
  // A separate drafter (eagle3, dspark) is replicated per pipeline stage and
  // split over TP like the target.
  if (!Config.DraftModel.empty())
    Bytes += Model.DraftModelBytes / Config.TensorParallel;
  return Bytes;
}

double Roofline::kvBytesPerTokenPerGpu() const {
  return Model.KvElementsPerToken * kvDtypeBytes(Config.KvCacheDtype) /
         (Config.PipelineParallel * Config.DecodeContextParallel);
}

double Roofline::kvPoolBytesPerGpu() const {
  double State = Model.StateBytesPerSequence * Config.MaxNumSeqs / Config.gpus();
  return Hw.HbmBytes * Config.GpuMemoryUtilization - weightBytesPerGpu() -
         Model.ActivationReserveBytes - State;
}

long Roofline::kvCapacityTokens() const {
  double Pool = kvPoolBytesPerGpu();
  if (Pool <= 0)
    return 0;
  return static_cast<long>(Pool / kvBytesPerTokenPerGpu());
}

double Roofline::expertCoverage(long Rows) const {
  if (Model.NumExperts <= 0 || Model.ExpertsPerToken <= 0)
    return 1;
  double MissOne = 1.0 - double(Model.ExpertsPerToken) / Model.NumExperts;
  return 1.0 - std::pow(MissOne, double(Rows));
}

double Roofline::stageSeconds(const StepShape &S) const {
  const double Gpus = Config.gpus();
  double ExpertBytes = Model.WeightBytes - Model.DenseWeightBytes;
  double WeightRead =
      (Model.DenseWeightBytes + ExpertBytes * expertCoverage(S.Rows)) / Gpus;
  double KvRead = S.KvTokensRead * kvBytesPerTokenPerGpu() +
                  S.DecodeSequences * Model.StateBytesPerSequence / Gpus;
  // Per-GPU traffic and FLOPs are for that GPU's pipeline stage (1/PP of the
  // layers).
  double Flops = (2.0 * Model.ActiveParams * S.Rows +
                  Model.AttentionFlopsPerTokenPair * S.AttentionPairs) /
                 Gpus;
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
