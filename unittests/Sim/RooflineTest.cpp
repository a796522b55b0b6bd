//===- RooflineTest.cpp - KV sizing and step-time model -------------------===//
#include "arecipe/Sim/Roofline.h"
#include "SimTestProfiles.h"

#include <gtest/gtest.h>

using namespace arecipe::sim;
using namespace arecipe::sim::test;

namespace {

StepShape decode(long Sequences, long Context, int RowsPerSeq = 1) {
  StepShape S;
  S.Rows = Sequences * RowsPerSeq;
  S.DecodeSequences = Sequences;
  S.KvTokensRead = Sequences * Context;
  S.AttentionPairs = double(Sequences) * RowsPerSeq * Context;
  return S;
}

TEST(Roofline, KvCapacityIsHbmTimesUtilizationMinusWeightsPerGpu) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  EngineConfig C = atomConfig({"--max-num-seqs", "32"});
  Roofline R(Hw, M, C);
  EXPECT_DOUBLE_EQ(R.weightBytesPerGpu(), 1.56e12 / 8);
  double Pool = 288e9 * 0.86 - 1.56e12 / 8 - M.ActivationReserveBytes -
                M.StateBytesPerSequence * 32 / 8;
  EXPECT_DOUBLE_EQ(R.kvPoolBytesPerGpu(), Pool);
  EXPECT_DOUBLE_EQ(R.kvBytesPerTokenPerGpu(), 8640.0); // fp8, no sharding
  EXPECT_EQ(R.kvCapacityTokens(), static_cast<long>(Pool / 8640.0));

  // DCP shards the KV across the TP ranks: eight times the tokens.
  Roofline Dcp(Hw, M, atomConfig({"--max-num-seqs", "32", "-dcp", "8"}));
  EXPECT_DOUBLE_EQ(Dcp.kvBytesPerTokenPerGpu(), 1080.0);
  EXPECT_NEAR(double(Dcp.kvCapacityTokens()), 8.0 * R.kvCapacityTokens(), 8);

  // bf16 KV doubles the bytes per token.
  Roofline Bf16(Hw, M, atomConfig({"--kv_cache_dtype", "bf16"}));
  EXPECT_DOUBLE_EQ(Bf16.kvBytesPerTokenPerGpu(), 2 * 8640.0);
}

TEST(Roofline, WeightsThatDoNotFitLeaveNoKvCache) {
  HardwareProfile Hw = mi355x();
  EngineConfig C = atomConfig({"--tensor-parallel-size", "4"});
  Roofline R(Hw, model("kimi_k3"), C);
  EXPECT_EQ(R.kvCapacityTokens(), 0); // 390 GB per GPU on a 288 GB part
}

TEST(Roofline, DecodeIsMemoryBoundAndAmortisesWeights) {
  Roofline R(mi355x(), model("kimi_k3"), atomConfig());
  const HardwareProfile &Hw = R.hardware();
  double One = R.stepSeconds(decode(1, 1000));
  double Many = R.stepSeconds(decode(64, 1000));
  // Weights dominate: 64 sequences cost more than one but far less than 64x.
  EXPECT_GT(Many, One);
  EXPECT_LT(Many, 4 * One);
  // A batch-1 step reads the dense part plus the top-k experts' share.
  double Bytes = (24e9 + (1.56e12 - 24e9) * R.expertCoverage(1)) / 8 +
                 1000 * 8640.0 + 60e6 / 8;
  double Expected = Bytes / (Hw.HbmBandwidth * Hw.MemEfficiency) +
                    Hw.PipelineStageOverheadSeconds + Hw.StepOverheadSeconds;
  EXPECT_NEAR(One, Expected, 1e-9);
  EXPECT_NEAR(R.expertCoverage(1), 8.0 / 384, 1e-12);
  EXPECT_GT(R.expertCoverage(1000), 0.99);
  EXPECT_EQ(R.stepSeconds(StepShape{}), 0);
}

TEST(Roofline, DcpShardsTheLongContextKvRead) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  Roofline NoDcp(Hw, M, atomConfig());
  Roofline Dcp8(Hw, M, atomConfig({"-dcp", "8"}));
  StepShape LongContext = decode(16, 200000, 4);
  EXPECT_LT(Dcp8.stepSeconds(LongContext), NoDcp.stepSeconds(LongContext));
  // At a short context the KV read is negligible and DCP changes little.
  StepShape Short = decode(16, 100, 4);
  EXPECT_NEAR(Dcp8.stepSeconds(Short), NoDcp.stepSeconds(Short), 1e-4);
}

TEST(Roofline, LargePrefillIsComputeBound) {
  Roofline R(mi355x(), model("kimi_k3"), atomConfig());
  const HardwareProfile &Hw = R.hardware();
  StepShape Prefill;
  Prefill.Rows = 8192;
  Prefill.AttentionPairs = 8192.0 * 4096;
  double Flops = (2 * 48e9 * 8192 + 2.09e6 * Prefill.AttentionPairs) / 8;
  double Compute = Flops / (Hw.peakFlopsFor("fp4") * Hw.FlopsEfficiency);
  EXPECT_NEAR(R.stepSeconds(Prefill),
              Compute + Hw.PipelineStageOverheadSeconds + Hw.StepOverheadSeconds,
              1e-9);
}

TEST(Roofline, MicroBatchesFillThePipeline) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  Roofline Pp2(Hw, M, atomConfig({"-pp", "2"}));
  StepShape Prefill;
  Prefill.Rows = 8192;
  Prefill.AttentionPairs = 8192.0 * 4096;
  StepShape Decodes = decode(16, 1000);
  // Two micro-batches in flight take as long as the slower one alone: each
  // stage works on one while the other is in the other stage.
  EXPECT_NEAR(Pp2.stepSeconds({Prefill, Prefill}), Pp2.stepSeconds(Prefill),
              1e-12);
  EXPECT_NEAR(Pp2.stepSeconds({Prefill, Decodes}), Pp2.stepSeconds(Prefill),
              1e-12);
  // Both as one batch run the stages in series: compute-bound prefill takes
  // about twice as long.
  StepShape Joined = Prefill;
  Joined.Rows += Prefill.Rows;
  Joined.AttentionPairs += Prefill.AttentionPairs;
  EXPECT_GT(Pp2.stepSeconds(Joined), 1.8 * Pp2.stepSeconds({Prefill, Prefill}));
  // More micro-batches than stages: each stage must pass all of them.
  Roofline Tp8(Hw, M, atomConfig());
  double Stage = Tp8.stepSeconds(Decodes) - Hw.StepOverheadSeconds;
  EXPECT_NEAR(Tp8.stepSeconds({Decodes, Decodes}),
              2 * Stage + Hw.StepOverheadSeconds, 1e-12);
}

TEST(Roofline, PipelineStagesRunInSeriesAndCpuLoadsAddTime) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  Roofline Tp8(Hw, M, atomConfig());
  Roofline Pp2(Hw, M, atomConfig({"-pp", "2"}));
  StepShape S = decode(8, 1000);
  // Half the weights per GPU, two stages in a row: the same bytes-time plus
  // one more stage overhead.
  EXPECT_NEAR(Pp2.stepSeconds(S) - Tp8.stepSeconds(S),
              Hw.PipelineStageOverheadSeconds, 1e-6);
  EXPECT_DOUBLE_EQ(Pp2.weightBytesPerGpu(), 1.56e12 / 16);
  StepShape Loaded = S;
  Loaded.CpuLoadedTokens = 100000;
  EXPECT_NEAR(Tp8.stepSeconds(Loaded) - Tp8.stepSeconds(S),
              100000 * 8640.0 / Hw.HostToDeviceBandwidth, 1e-9);
}

} // namespace
