//===- ShardingTest.cpp - Weights and KV per GPU under each parallel layout ===//
//
// One test per layout the engines use (docs/simulator.md, "Memory under
// parallelism"), each against figures computed by hand here.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Roofline.h"
#include "SimTestProfiles.h"

#include <gtest/gtest.h>

using namespace arecipe::sim;
using namespace arecipe::sim::test;

namespace {

struct Llama70b {
  HardwareProfile Hw;
  ModelProfile M;
  Llama70b() { fromSpec(llama70bOnH100(), Hw, M); }
  Roofline with(std::vector<std::string> Flags) const {
    std::vector<std::string> Argv = {"vllm", "serve", "meta-llama/Llama-3.1-70B",
                                     "--gpu-memory-utilization", "0.9"};
    Argv.insert(Argv.end(), Flags.begin(), Flags.end());
    return Roofline(Hw, M, config(Argv));
  }
};

constexpr double KvBytesPerToken = 2.0 * 80 * 8 * 128 * 2; // bf16: 327,680

TEST(Sharding, Tp8GqaSplitsKvHeadsAcrossRanks) {
  Llama70b L;
  Roofline R = L.with({"--tensor-parallel-size", "8"});
  // 8 KV heads over 8 ranks: one head per GPU, 1/8 of each token's KV.
  EXPECT_DOUBLE_EQ(R.kvBytesPerTokenPerGpu(), KvBytesPerToken / 8); // 40,960
  EXPECT_DOUBLE_EQ(R.weightBytesPerGpu(), 141.2e9 / 8);
  // The acceptance figure: (HBM x util - weights per GPU) / KV bytes per
  // token per GPU, by hand; the model also keeps an activation reserve.
  double HandComputed = (80e9 * 0.9 - 141.2e9 / 8) / (KvBytesPerToken / 8);
  EXPECT_NEAR(double(R.kvCapacityTokens()), HandComputed, 0.10 * HandComputed);
  EXPECT_EQ(R.kvCapacityTokens(),
            long((80e9 * 0.9 - 141.2e9 / 8 - 2e9) / (KvBytesPerToken / 8)));
  // Before, every GPU was charged the whole KV of each token (the issue's
  // 179,443 tokens): eight times fewer.
  EXPECT_GT(R.kvCapacityTokens(),
            7 * long((80e9 * 0.9 - 141.2e9 / 8 - 2e9) / KvBytesPerToken));
  EXPECT_EQ(R.sharding().Gpus, 8);
  EXPECT_EQ(R.sharding().Replicas, 1);
}

TEST(Sharding, GqaHeadsAreReplicatedOnceTpExceedsThem) {
  Llama70b L;
  // TP 16 over 8 KV heads: each head lives on two ranks, so a GPU still
  // holds 1/8 of a token's KV; the weights halve again.
  Roofline Tp16 = L.with({"--tensor-parallel-size", "16"});
  EXPECT_DOUBLE_EQ(Tp16.kvBytesPerTokenPerGpu(), KvBytesPerToken / 8);
  EXPECT_DOUBLE_EQ(Tp16.weightBytesPerGpu(), 141.2e9 / 16);
  // TP 2: four heads per rank.
  Roofline Tp2 = L.with({"--tensor-parallel-size", "2"});
  EXPECT_DOUBLE_EQ(Tp2.kvBytesPerTokenPerGpu(), KvBytesPerToken / 2);
  // TP 3 (not a divisor): ceil(8 / 3) = 3 heads on a rank.
  Roofline Tp3 = L.with({"--tensor-parallel-size", "3"});
  EXPECT_DOUBLE_EQ(Tp3.kvBytesPerTokenPerGpu(), KvBytesPerToken * 3 / 8);
}

TEST(Sharding, PipelineStagesSplitLayersWeightsAndKv) {
  Llama70b L;
  Roofline R = L.with({"--tensor-parallel-size", "8",
                       "--pipeline-parallel-size", "2"});
  EXPECT_DOUBLE_EQ(R.kvBytesPerTokenPerGpu(), KvBytesPerToken / 8 / 2);
  EXPECT_DOUBLE_EQ(R.weightBytesPerGpu(), 141.2e9 / 16);
  EXPECT_EQ(R.sharding().Gpus, 16);
}

TEST(Sharding, MlaLatentKvIsReplicatedOnEveryTpRankAndShardedByDcp) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3"); // MLA: 8,640 elements per token
  Roofline Tp8(Hw, M, atomConfig());
  EXPECT_DOUBLE_EQ(Tp8.kvBytesPerTokenPerGpu(), 8640.0); // fp8, whole latent
  Roofline Dcp8(Hw, M, atomConfig({"-dcp", "8"}));
  EXPECT_DOUBLE_EQ(Dcp8.kvBytesPerTokenPerGpu(), 8640.0 / 8);
  EXPECT_EQ(Dcp8.kvCapacityTokensPerReplica(),
            long(Dcp8.kvPoolBytesPerGpu() / 1080.0));
  // DCP shards GQA KV too (over the ranks that replicate a head).
  Llama70b L;
  Roofline Gqa = L.with({"--tensor-parallel-size", "16", "-dcp", "2"});
  EXPECT_DOUBLE_EQ(Gqa.kvBytesPerTokenPerGpu(), KvBytesPerToken / 8 / 2);
}

TEST(Sharding, DataParallelRanksAreFullReplicas) {
  Llama70b L;
  Roofline Tp8 = L.with({"--tensor-parallel-size", "8"});
  Roofline Dp2 = L.with({"--tensor-parallel-size", "8",
                         "--data-parallel-size", "2"});
  EXPECT_EQ(Dp2.sharding().Gpus, 16);
  EXPECT_EQ(Dp2.sharding().Replicas, 2);
  // Each replica holds the whole model and its own KV pool.
  EXPECT_DOUBLE_EQ(Dp2.weightBytesPerGpu(), Tp8.weightBytesPerGpu());
  EXPECT_EQ(Dp2.kvCapacityTokensPerReplica(), Tp8.kvCapacityTokens());
  EXPECT_EQ(Dp2.kvCapacityTokens(), 2 * Tp8.kvCapacityTokens());
  EXPECT_EQ(Dp2.maxRunningSequences(), 2 * 1024); // vLLM's default per rank
}

/// Kimi-K3's dense part: 24 GB of the 1.56 TB, derived from its parameter
/// counts (std's declaration), so exact only to the rounding of those.
static double kimiDenseBytes(const ModelProfile &M) {
  EXPECT_NEAR(M.DenseWeightBytes, 24e9, 1e3);
  return M.DenseWeightBytes;
}

TEST(Sharding, ExpertParallelSplitsExpertsOverEveryDpRank) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3"); // 24 GB dense of 1.56 TB
  auto Vllm = [](std::vector<std::string> Flags) {
    std::vector<std::string> Argv = {"vllm", "serve", "moonshotai/Kimi-K3",
                                     "--tensor-parallel-size", "8"};
    Argv.insert(Argv.end(), Flags.begin(), Flags.end());
    return config(Argv);
  };
  Roofline Tp8(Hw, M, Vllm({}));
  EXPECT_DOUBLE_EQ(Tp8.weightBytesPerGpu(), 1.56e12 / 8);
  // DP 2 without EP: two copies of everything, 195 GB per GPU.
  Roofline Dp2(Hw, M, Vllm({"--data-parallel-size", "2"}));
  EXPECT_DOUBLE_EQ(Dp2.weightBytesPerGpu(), 1.56e12 / 8);
  EXPECT_FALSE(Dp2.sharding().ExpertsSeeAllReplicas);
  // DP 2 with EP: the experts over all 16 GPUs, attention per DP rank.
  Roofline Ep(Hw, M, Vllm({"--data-parallel-size", "2",
                           "--enable-expert-parallel"}));
  EXPECT_EQ(Ep.sharding().ExpertShards, 16);
  EXPECT_EQ(Ep.sharding().DenseShards, 8);
  EXPECT_TRUE(Ep.sharding().ExpertsSeeAllReplicas);
  double Dense = kimiDenseBytes(M);
  EXPECT_DOUBLE_EQ(Ep.weightBytesPerGpu(),
                   Dense / 8 + (1.56e12 - Dense) / 16);
  EXPECT_GT(Ep.kvCapacityTokensPerReplica(), Dp2.kvCapacityTokensPerReplica());
}

TEST(Sharding, SglangDpAttentionSplitsTheTpGpusIntoAttentionReplicas) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  EngineConfig C =
      config({"python", "-m", "sglang.launch_server", "--model-path",
              "moonshotai/Kimi-K3", "--tp", "8", "--dp", "8",
              "--enable-dp-attention"});
  Roofline R(Hw, M, C);
  const Sharding &S = R.sharding();
  EXPECT_EQ(S.Gpus, 8); // DP runs on the TP GPUs, it adds none
  EXPECT_EQ(S.AttentionTp, 1);
  EXPECT_EQ(S.Replicas, 8);
  EXPECT_EQ(S.DenseShards, 1); // attention weights on every GPU
  EXPECT_EQ(S.ExpertShards, 8);
  double Dense = kimiDenseBytes(M);
  EXPECT_DOUBLE_EQ(R.weightBytesPerGpu(), Dense + (1.56e12 - Dense) / 8);
  // Each GPU is one replica's whole attention: a token's latent once.
  EXPECT_DOUBLE_EQ(R.kvBytesPerTokenPerGpu(), 8640.0 * 2); // bf16 default
  EXPECT_EQ(R.kvCapacityTokens(), 8 * R.kvCapacityTokensPerReplica());
  // A GQA model under dp-attention keeps all its KV heads on the rank.
  Llama70b L;
  Roofline Gqa(L.Hw, L.M,
               config({"python", "-m", "sglang.launch_server", "--model-path",
                       "m", "--tp", "8", "--dp", "2", "--enable-dp-attention"}));
  EXPECT_EQ(Gqa.sharding().AttentionTp, 4);
  EXPECT_DOUBLE_EQ(Gqa.kvBytesPerTokenPerGpu(), KvBytesPerToken / 4);
  EXPECT_DOUBLE_EQ(Gqa.weightBytesPerGpu(), 141.2e9 / 4);
}

TEST(Sharding, SglangEpSizeSplitsTheExperts) {
  HardwareProfile Hw = mi355x();
  ModelProfile M = model("kimi_k3");
  Roofline R(Hw, M,
             config({"python", "-m", "sglang.launch_server", "--model-path",
                     "moonshotai/Kimi-K3", "--tp", "8", "--ep-size", "4"}));
  EXPECT_EQ(R.sharding().ExpertShards, 4);
  double Dense = kimiDenseBytes(M);
  EXPECT_DOUBLE_EQ(R.weightBytesPerGpu(), Dense / 8 + (1.56e12 - Dense) / 4);
}

TEST(Sharding, LayoutsTheEnginesRefuse) {
  auto Error = [](std::vector<std::string> Argv) {
    return parseEngineArgv(Argv, std::nullopt).Error;
  };
  EXPECT_EQ(Error({"python", "-m", "sglang.launch_server", "--model-path", "m",
                   "--tp", "8", "--dp", "3", "--enable-dp-attention"}),
            "with dp-attention, data-parallel-size 3 must divide "
            "tensor-parallel-size 8");
  EXPECT_EQ(Error({"python", "-m", "sglang.launch_server", "--model-path", "m",
                   "--tp", "8", "--ep-size", "3"}),
            "ep-size 3 must divide tp-size 8");
  EXPECT_EQ(Error({"python", "-m", "atom.entrypoints.openai_server", "--model",
                   "m", "-tp", "8", "-dp", "4", "--enable-dp-attention",
                   "-dcp", "4"}),
            "decode-context-parallel-size 4 must divide the attention's "
            "tensor-parallel size 2 (tensor-parallel-size 8 / dp 4)");
}

TEST(Sharding, DecodeStepsReadOneReplicasShare) {
  Llama70b L;
  Roofline Tp8 = L.with({"--tensor-parallel-size", "8"});
  Roofline Dp2 = L.with({"--tensor-parallel-size", "8",
                         "--data-parallel-size", "2"});
  StepShape S;
  S.Rows = 64;
  S.DecodeSequences = 64;
  S.KvTokensRead = 64 * 4000;
  S.AttentionPairs = 64.0 * 4000;
  // Two replicas each decode half the sequences: less KV read per GPU, the
  // same weights read, so the step is shorter but not half.
  EXPECT_LT(Dp2.stepSeconds(S), Tp8.stepSeconds(S));
  EXPECT_GT(Dp2.stepSeconds(S), Tp8.stepSeconds(S) / 2);
}

} // namespace
