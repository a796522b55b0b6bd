//===- StartupTest.cpp - Start-up phases and the documented failures ------===//
#include "arecipe/Sim/Startup.h"
#include "SimTestProfiles.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace arecipe::sim;
using namespace arecipe::sim::test;

namespace {

StartupPlan plan(std::vector<std::string> Extra, Environment Env = {},
                 SimOptions O = {}) {
  Roofline R(mi355x(), model("kimi-k3"), atomConfig(std::move(Extra)));
  return planStartup(R, O, Env);
}

const StartupPhase *find(const StartupPlan &P, const std::string &Name) {
  for (const StartupPhase &Phase : P.Phases)
    if (Phase.Name == Name)
      return &Phase;
  return nullptr;
}

std::string joined(const std::vector<std::string> &Lines) {
  std::string S;
  for (const std::string &L : Lines)
    S += L + "\n";
  return S;
}

std::vector<std::string> captureRange(int Max) {
  std::string List = "[";
  for (int I = 2; I <= Max; ++I)
    List += std::to_string(I) + (I == Max ? "]" : ",");
  return {"--cudagraph-capture-sizes", List};
}

std::vector<std::string> conc(int MaxNumSeqs, int CaptureMax) {
  std::vector<std::string> Args = {"--max-num-seqs", std::to_string(MaxNumSeqs),
                                   "--method", "dspark",
                                   "--num-speculative-tokens", "3",
                                   "--cudagraph-mode", "FULL"};
  for (std::string &A : captureRange(CaptureMax))
    Args.push_back(A);
  return Args;
}

TEST(Startup, HealthyPlanEndsWithGraphWarmup) {
  StartupPlan P = plan(conc(32, 128));
  ASSERT_FALSE(P.Phases.empty());
  for (const StartupPhase &Phase : P.Phases) {
    EXPECT_EQ(Phase.ExitCode, 0) << Phase.Name;
    EXPECT_FALSE(Phase.NeverEnds) << Phase.Name;
  }
  EXPECT_EQ(P.Phases.back().Name, "graph-warmup");
  const StartupPhase *Load = find(P, "load-weights");
  ASSERT_TRUE(Load);
  EXPECT_NEAR(Load->Seconds, 195e9 / mi355x().WeightLoadBandwidth, 1e-9);
  EXPECT_TRUE(find(P, "load-drafter")); // built-in heads: no download
  EXPECT_FALSE(find(P, "fetch"));
}

TEST(Startup, CaptureSizesShortOfMaxNumSeqsTimesDraftFailWarmup) {
  // Conc 14 with window 2 x 14 = 28: graph_max 112 < 32 x (1 + 3) = 128.
  StartupPlan P = plan(conc(32, 112));
  const StartupPhase &Last = P.Phases.back();
  EXPECT_EQ(Last.Name, "graph-warmup");
  EXPECT_EQ(Last.ExitCode, 1);
  std::string Log = joined(Last.EndLines);
  EXPECT_NE(Log.find("no captured CUDA graph for batch size 128"),
            std::string::npos);
  EXPECT_NE(Log.find("largest captured size is 112"), std::string::npos);
  // Piecewise graphs and eager mode do not need full coverage.
  std::vector<std::string> Piecewise = conc(32, 112);
  Piecewise.push_back("--cudagraph-mode");
  Piecewise.push_back("PIECEWISE");
  EXPECT_EQ(plan(Piecewise).Phases.back().ExitCode, 0);
  std::vector<std::string> Eager = conc(32, 112);
  Eager.push_back("--enforce-eager");
  EXPECT_FALSE(find(plan(Eager), "graph-warmup"));
}

TEST(Startup, CpuTierLargerThanNodeDramNeverFinishesPinning) {
  std::vector<std::string> Lmcache = {
      "--kv-transfer-config", R"({"kv_connector":"lmcache_offload"})"};
  StartupPlan Fits = plan(Lmcache, {{"LMCACHE_MAX_LOCAL_CPU_SIZE", "128"}});
  const StartupPhase *Pin = find(Fits, "pin-cpu-tier");
  ASSERT_TRUE(Pin);
  EXPECT_FALSE(Pin->NeverEnds);
  EXPECT_DOUBLE_EQ(Fits.CpuTierBytesPerRank, 128e9);
  EXPECT_EQ(Fits.CpuTierTokens, static_cast<long>(128e9 / 8640.0));

  // The whole node budget (1028 GB) per rank x 8 ranks > 3 TB of DRAM.
  StartupPlan Hangs = plan(Lmcache, {{"LMCACHE_MAX_LOCAL_CPU_SIZE", "1028"}});
  Pin = find(Hangs, "pin-cpu-tier");
  ASSERT_TRUE(Pin);
  EXPECT_TRUE(Pin->NeverEnds);
  EXPECT_TRUE(Pin->EndLines.empty());
  EXPECT_EQ(Hangs.CpuTierTokens, 0);
}

class StartupFetch : public ::testing::Test {
protected:
  void SetUp() override {
    Cache = std::filesystem::temp_directory_path() /
            ("sim-startup-" + std::to_string(::getpid()));
    std::filesystem::create_directories(Cache);
  }
  void TearDown() override { std::filesystem::remove_all(Cache); }
  std::vector<std::string> withDraft() {
    return {"--method", "dspark", "--num-speculative-tokens", "3",
            "--draft-model", "Inferact/Kimi-K3-DSpark"};
  }
  std::filesystem::path Cache;
};

TEST_F(StartupFetch, UncachedDrafterDownloadsSilentlyAtTheContendedRate) {
  StartupPlan P = plan(withDraft(), {{"HF_HUB_CACHE", Cache.string()}});
  const StartupPhase *Fetch = find(P, "fetch");
  ASSERT_TRUE(Fetch);
  EXPECT_TRUE(Fetch->StartLines.empty()); // the log goes quiet
  EXPECT_NEAR(Fetch->Seconds, 7e9 / 0.7e6, 1);
  EXPECT_EQ(Fetch->ExitCode, 0);
  // It comes right after "Loading drafter model".
  auto It = std::find_if(P.Phases.begin(), P.Phases.end(),
                         [](const StartupPhase &S) { return S.Name == "fetch"; });
  ASSERT_NE(It, P.Phases.begin());
  EXPECT_EQ((It - 1)->Name, "load-drafter");
}

TEST_F(StartupFetch, OfflineWithoutTheDrafterIsAnError) {
  StartupPlan P = plan(withDraft(), {{"HF_HUB_CACHE", Cache.string()},
                                     {"HF_HUB_OFFLINE", "1"}});
  const StartupPhase *Fetch = find(P, "fetch");
  ASSERT_TRUE(Fetch);
  EXPECT_EQ(Fetch->ExitCode, 1);
  EXPECT_EQ(Fetch->Seconds, 0);
}

TEST_F(StartupFetch, ProxyMakesTheFetchHangUntilTheTimeout) {
  SimOptions O;
  O.FetchTimeoutSeconds = 42;
  StartupPlan P = plan(withDraft(),
                       {{"HF_HUB_CACHE", Cache.string()},
                        {"https_proxy", "http://127.0.0.1:3128"}},
                       O);
  const StartupPhase *Fetch = find(P, "fetch");
  ASSERT_TRUE(Fetch);
  EXPECT_EQ(Fetch->Seconds, 42);
  EXPECT_EQ(Fetch->ExitCode, 1);
  EXPECT_NE(joined(Fetch->EndLines).find("timed out"), std::string::npos);
}

TEST_F(StartupFetch, CachedRepositoryNeedsNoFetch) {
  std::filesystem::create_directories(Cache / "models--Inferact--Kimi-K3-DSpark");
  StartupPlan P = plan(withDraft(), {{"HF_HUB_CACHE", Cache.string()},
                                     {"HTTPS_PROXY", "http://dead:1"}});
  EXPECT_FALSE(find(P, "fetch"));
}

TEST(Startup, HubCacheDirFollowsTheHuggingFaceVariables) {
  EXPECT_EQ(hubCacheDir({{"HF_HUB_CACHE", "/a"}, {"HF_HOME", "/b"}}), "/a");
  EXPECT_EQ(hubCacheDir({{"HF_HOME", "/b"}}), "/b/hub");
  EXPECT_EQ(hubCacheDir({{"HOME", "/h"}}), "/h/.cache/huggingface/hub");
}

TEST(Startup, SlowStartFaultLengthensWeightLoading) {
  SimOptions O;
  O.Faults.SlowStartSeconds = 100;
  double Base = find(plan({}), "load-weights")->Seconds;
  EXPECT_NEAR(find(plan({}, {}, O), "load-weights")->Seconds, Base + 100, 1e-9);
}

TEST(Startup, WeightsThatDoNotFitExitDuringLoading) {
  StartupPlan P = plan({"--tensor-parallel-size", "4"});
  EXPECT_EQ(P.Phases.back().Name, "load-weights");
  EXPECT_EQ(P.Phases.back().ExitCode, 1);
}

} // namespace
