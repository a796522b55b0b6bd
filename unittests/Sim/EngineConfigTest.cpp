//===- EngineConfigTest.cpp - Engine argv parsing -------------------------===//
#include "arecipe/Sim/EngineConfig.h"

#include <gtest/gtest.h>

using namespace arecipe::sim;

namespace {

EngineParseResult parse(std::vector<std::string> Argv,
                        std::optional<EngineKind> Forced = std::nullopt) {
  return parseEngineArgv(Argv, Forced);
}

TEST(EngineConfig, AtomReferenceRecipeFlags) {
  EngineParseResult R = parse(
      {"python", "-m", "atom.entrypoints.openai_server", "--model",
       "/models/Kimi-K3", "--served-model-name", "moonshotai/Kimi-K3",
       "--host", "0.0.0.0", "--server-port", "8000", "--trust-remote-code",
       "--tensor-parallel-size", "8", "--decode-context-parallel-size", "8",
       "--kv_cache_dtype", "fp8", "--block-size", "128", "--max-num-seqs",
       "32", "--max-num-batched-tokens", "8192", "--gpu-memory-utilization",
       "0.86", "--enable_prefix_caching", "--state-checkpoint-interval-tokens",
       "-1", "--level", "3", "--cudagraph-mode", "FULL",
       "--cudagraph-capture-sizes", "[2,3,4,128]", "--method", "dspark",
       "--draft-model", "Inferact/Kimi-K3-DSpark", "--num-speculative-tokens",
       "3", "--spec-decode-acceptance-length", "3.00", "--kv-transfer-config",
       R"({"kv_connector":"lmcache_offload","kv_role":"offload"})"});
  ASSERT_EQ(R.Error, "");
  EXPECT_TRUE(R.Warnings.empty());
  const EngineConfig &C = R.Config;
  EXPECT_EQ(C.Engine, EngineKind::Atom);
  EXPECT_EQ(C.servedName(), "moonshotai/Kimi-K3");
  EXPECT_EQ(C.Port, 8000);
  EXPECT_EQ(C.TensorParallel, 8);
  EXPECT_EQ(C.DecodeContextParallel, 8);
  EXPECT_EQ(C.MaxNumSeqs, 32);
  EXPECT_EQ(C.MaxNumBatchedTokens, 8192);
  EXPECT_DOUBLE_EQ(C.GpuMemoryUtilization, 0.86);
  EXPECT_EQ(C.KvCacheDtype, "fp8");
  EXPECT_EQ(C.CaptureSizes, (std::vector<int>{2, 3, 4, 128}));
  EXPECT_EQ(C.SpecMethod, "dspark");
  EXPECT_EQ(C.DraftModel, "Inferact/Kimi-K3-DSpark");
  EXPECT_EQ(C.NumSpeculativeTokens, 3);
  EXPECT_EQ(C.rowsPerDecode(), 4);
  ASSERT_TRUE(C.AcceptanceLength);
  EXPECT_DOUBLE_EQ(*C.AcceptanceLength, 3.0);
  EXPECT_EQ(C.KvConnector, "lmcache_offload");
}

TEST(EngineConfig, EqualsFormShortFlagsAndAcceptanceRate) {
  EngineParseResult R =
      parse({"python", "-m", "atom.entrypoints.openai_server",
             "--model=/m", "-tp=4", "--server-port=0", "--method=mtp",
             "--num-speculative-tokens=2",
             "--spec-decode-acceptance-rate=0.5", "--port", "8006"});
  ASSERT_EQ(R.Error, "");
  EXPECT_EQ(R.Config.TensorParallel, 4);
  EXPECT_EQ(R.Config.Port, 0); // ATOM's --port is the internal engine port
  ASSERT_TRUE(R.Config.AcceptanceLength);
  EXPECT_DOUBLE_EQ(*R.Config.AcceptanceLength, 2.0); // 1 + 0.5 x 2
}

TEST(EngineConfig, VllmPositionalModelAndJsonConfigs) {
  EngineParseResult R = parse(
      {"vllm", "serve", "moonshotai/Kimi-K3", "--port", "9000",
       "--pipeline-parallel-size", "2", "-tp", "8", "--compilation-config",
       R"({"cudagraph_mode":"full","cudagraph_capture_sizes":[1,2,4]})",
       "--speculative-config",
       R"({"method":"mtp","num_speculative_tokens":2,"acceptance_length":2.51})",
       "--kv-transfer-config",
       R"({"kv_connector":"SimpleCPUOffloadConnector","kv_connector_extra_config":{"cpu_bytes_to_use":1e11}})",
       "--headless"});
  ASSERT_EQ(R.Error, "");
  const EngineConfig &C = R.Config;
  EXPECT_EQ(C.Engine, EngineKind::Vllm);
  EXPECT_EQ(C.Model, "moonshotai/Kimi-K3");
  EXPECT_EQ(C.Port, 9000);
  EXPECT_EQ(C.gpus(), 16);
  EXPECT_EQ(C.CudagraphMode, "FULL");
  EXPECT_EQ(C.CaptureSizes, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(C.NumSpeculativeTokens, 2);
  EXPECT_DOUBLE_EQ(*C.AcceptanceLength, 2.51);
  EXPECT_DOUBLE_EQ(C.CpuOffloadBytesPerRank, 1e11);
  EXPECT_TRUE(C.Headless);
}

TEST(EngineConfig, SglangSpellings) {
  EngineParseResult R =
      parse({"python3", "-m", "sglang.launch_server", "--model-path", "/m",
             "--tp", "8", "--max-running-requests", "64",
             "--mem-fraction-static", "0.8", "--chunked-prefill-size", "4096",
             "--disable-radix-cache", "--port", "30000"});
  ASSERT_EQ(R.Error, "");
  EXPECT_EQ(R.Config.Engine, EngineKind::Sglang);
  EXPECT_EQ(R.Config.MaxNumSeqs, 64);
  EXPECT_DOUBLE_EQ(R.Config.GpuMemoryUtilization, 0.8);
  EXPECT_EQ(R.Config.MaxNumBatchedTokens, 4096);
  EXPECT_FALSE(R.Config.PrefixCaching);
  EXPECT_EQ(R.Config.Port, 30000);
  EXPECT_STREQ(metricPrefix(R.Config.Engine), "sglang:");
}

// ServerArgs' aliases: `--model` for `--model-path`, and the long parallel
// spellings (`--tensor-parallel-size`, `--data-parallel-size`) that
// launchers mix with the short ones.
TEST(EngineConfig, SglangAliases) {
  EngineParseResult R =
      parse({"python3", "-m", "sglang.launch_server", "--model", "org/m",
             "--tp", "8", "--expert-parallel-size", "8", "--port", "8888"});
  ASSERT_EQ(R.Error, "");
  EXPECT_TRUE(R.Warnings.empty());
  EXPECT_EQ(R.Config.Model, "org/m");
  EXPECT_EQ(R.Config.TensorParallel, 8);
  EXPECT_EQ(R.Config.ExpertParallelSize, 8);

  R = parse({"python3", "-m", "sglang.launch_server", "--model-path", "/m",
             "--tensor-parallel-size", "4", "--data-parallel-size", "2"});
  ASSERT_EQ(R.Error, "");
  EXPECT_TRUE(R.Warnings.empty());
  EXPECT_EQ(R.Config.TensorParallel, 4);
  EXPECT_EQ(R.Config.DataParallel, 2);
}

TEST(EngineConfig, UnknownFlagsAreWarningsNotErrors) {
  EngineParseResult R = parse({"vllm", "serve", "m", "--future-flag", "x",
                               "--future-switch", "--port", "1"});
  ASSERT_EQ(R.Error, "");
  ASSERT_EQ(R.Warnings.size(), 2u);
  EXPECT_NE(R.Warnings[0].find("'--future-flag' (value 'x')"), std::string::npos);
  EXPECT_NE(R.Warnings[1].find("'--future-switch'"), std::string::npos);
  EXPECT_EQ(R.Config.Port, 1);
}

TEST(EngineConfig, ForcedEngineAndErrors) {
  EXPECT_NE(parse({"./serve.sh", "--model", "m"}).Error, "");
  EngineParseResult Forced =
      parse({"./serve.sh", "--model", "m", "--port", "5"}, EngineKind::Vllm);
  EXPECT_EQ(Forced.Error, "");
  EXPECT_EQ(Forced.Config.Port, 5);
  EXPECT_NE(parse({"vllm", "serve", "m", "--max-num-seqs", "lots"}).Error, "");
  EXPECT_NE(parse({"vllm", "serve", "m", "-tp", "8", "-dcp", "3"}).Error, "");
  EXPECT_NE(parse({"python", "-m", "atom.entrypoints.openai_server",
                   "--model", "m", "--method", "mtp",
                   "--num-speculative-tokens", "1",
                   "--spec-decode-acceptance-length", "2.5"})
                .Error,
            "");
}

TEST(EngineConfig, IntListForms) {
  std::vector<int> Out;
  EXPECT_TRUE(parseIntList("[2,3,4]", Out));
  EXPECT_EQ(Out, (std::vector<int>{2, 3, 4}));
  EXPECT_TRUE(parseIntList("\"[1, 2]\"", Out));
  EXPECT_EQ(Out, (std::vector<int>{1, 2}));
  EXPECT_TRUE(parseIntList("8 16", Out));
  EXPECT_EQ(Out, (std::vector<int>{8, 16}));
  EXPECT_FALSE(parseIntList("[1,x]", Out));
  EXPECT_FALSE(parseIntList("[]", Out));
}

} // namespace
