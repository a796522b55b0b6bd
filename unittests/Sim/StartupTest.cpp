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
  Roofline R(mi355x(), model("kimi_k3"), atomConfig(std::move(Extra)));
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

std::vector<int> range(int Max) {
  std::vector<int> Sizes;
  for (int I = 2; I <= Max; ++I)
    Sizes.push_back(I);
  return Sizes;
}

TEST(Startup, FullGraphBatchIsLargestSizeOverRowsPaddedToDcp) {
  // Conc 14 with the window derived as 28: 112 / 4 = 28 sequences pad to 32
  // with dcp 8, so warm-up replays size 128, which was never captured.
  GraphWarmup G = fullGraphWarmup(range(112), 3, 8);
  EXPECT_EQ(G.Sequences, 28);
  EXPECT_EQ(G.PaddedSequences, 32);
  EXPECT_EQ(G.RequiredSize, 128);
  EXPECT_TRUE(G.Dense);
  EXPECT_EQ(G.MissingSize, 128);
  // The same list without dcp needs nothing beyond its largest size.
  EXPECT_EQ(fullGraphWarmup(range(112), 3, 1).MissingSize, 0);
  // A largest size that is not a whole number of verify steps rounds down.
  G = fullGraphWarmup(range(66), 3, 1);
  EXPECT_EQ(G.Sequences, 16);
  EXPECT_EQ(G.MissingSize, 0);
  // Too small for one verify step: the one sequence still needs its graph.
  G = fullGraphWarmup({2}, 3, 1);
  EXPECT_EQ(G.Sequences, 1);
  EXPECT_EQ(G.MissingSize, 4);
}

TEST(Startup, SparseCaptureListNamesTheFirstMissingSize) {
  GraphWarmup G = fullGraphWarmup({2, 4, 8}, 0, 1);
  EXPECT_FALSE(G.Dense);
  EXPECT_EQ(G.MissingSize, 3);
  // A size 1 below the dense range is allowed.
  EXPECT_EQ(fullGraphWarmup({1, 2, 3, 4}, 0, 1).MissingSize, 0);

  StartupPlan P = plan({"--cudagraph-mode", "FULL", "--cudagraph-capture-sizes",
                        "[2,4,8]"});
  const StartupPhase &Last = P.Phases.back();
  EXPECT_EQ(Last.Name, "graph-warmup");
  EXPECT_EQ(Last.ExitCode, 1);
  EXPECT_NE(joined(Last.EndLines).find("cudagraph capture size 3 missing"),
            std::string::npos);
}

TEST(Startup, VllmPadsToTheNextCapturedSizeInsteadOfDying) {
  // Seed 004's shape: a sparse vLLM list whose largest size is not a whole
  // number of 3-row verify steps.
  EngineParseResult Vllm = parseEngineArgv(
      {"vllm", "serve", "moonshotai/Kimi-K3", "--tensor-parallel-size", "8",
       "--pipeline-parallel-size", "2", "--max-num-seqs", "20",
       "--compilation-config",
       R"({"cudagraph_mode":"FULL","cudagraph_capture_sizes":[1,2,4,8,16,32,64]})",
       "--speculative-config", R"({"method":"mtp","num_speculative_tokens":2})"},
      std::nullopt);
  ASSERT_EQ(Vllm.Error, "");
  Roofline R(mi355x(), model("kimi_k3"), Vllm.Config);
  StartupPlan P = planStartup(R, SimOptions{}, {});
  EXPECT_EQ(P.Phases.back().Name, "graph-warmup");
  EXPECT_EQ(P.Phases.back().ExitCode, 0);
}

TEST(Startup, AtomDefaultCaptureListStarts) {
  // No --cudagraph-capture-sizes: ATOM's sparse default list, which the
  // engine pads into, whatever the draft and dcp.
  StartupPlan P = plan({"--cudagraph-mode", "FULL", "-dcp", "8", "--method",
                        "dspark", "--num-speculative-tokens", "2"});
  EXPECT_EQ(P.Phases.back().Name, "graph-warmup");
  EXPECT_EQ(P.Phases.back().ExitCode, 0);
}

/// One cell of the reference recipe (docs/reference-recipe.md), server argv.
struct ReferenceCell {
  int Conc, Dcp, Draft;
  const char *AcceptanceLength;
  int MaxNumSeqs, MaxNumBatchedTokens;
  const char *Utilization;
  int GraphMax;
};

std::vector<std::string> cellArgs(const ReferenceCell &Cell) {
  std::vector<std::string> Args = {
      "--decode-context-parallel-size", std::to_string(Cell.Dcp),
      "--max-num-seqs", std::to_string(Cell.MaxNumSeqs),
      "--max-num-batched-tokens", std::to_string(Cell.MaxNumBatchedTokens),
      "--gpu-memory-utilization", Cell.Utilization,
      "--level", "3", "--cudagraph-mode", "FULL"};
  for (std::string &A : captureRange(Cell.GraphMax))
    Args.push_back(A);
  if (Cell.Draft > 0)
    for (std::string A :
         {std::string("--method"), std::string("dspark"),
          std::string("--num-speculative-tokens"), std::to_string(Cell.Draft),
          std::string("--spec-decode-acceptance-length"),
          std::string(Cell.AcceptanceLength)})
      Args.push_back(A);
  return Args;
}

TEST(Startup, EveryReferenceCellPassesGraphWarmup) {
  // Conc 14 runs the conc-16 server (window pinned at 32, graph_max 128).
  const ReferenceCell Cells[] = {
      {1, 1, 7, "3.84", 32, 8192, "0.88", 16},
      {2, 1, 7, "3.84", 32, 8192, "0.88", 32},
      {4, 1, 7, "3.84", 32, 8192, "0.88", 64},
      {8, 8, 3, "3.00", 32, 4096, "0.88", 64},
      {12, 8, 3, "3.00", 24, 4096, "0.88", 96},
      {14, 8, 3, "3.00", 32, 8192, "0.86", 128},
      {16, 8, 3, "3.00", 32, 8192, "0.86", 128},
      {32, 8, 0, "", 64, 8192, "0.86", 64},
      {40, 8, 0, "", 80, 8192, "0.86", 80},
      {56, 8, 0, "", 112, 8192, "0.86", 112},
      {64, 8, 0, "", 128, 8192, "0.86", 128}};
  for (const ReferenceCell &Cell : Cells) {
    StartupPlan P = plan(cellArgs(Cell));
    ASSERT_FALSE(P.Phases.empty());
    EXPECT_EQ(P.Phases.back().Name, "graph-warmup") << "conc " << Cell.Conc;
    for (const StartupPhase &Phase : P.Phases)
      EXPECT_EQ(Phase.ExitCode, 0) << "conc " << Cell.Conc << ": " << Phase.Name;
  }
}

TEST(Startup, Conc14WithDerivedWindowDiesInWarmupNaming128) {
  ReferenceCell Bad = {14, 8, 3, "3.00", 32, 8192, "0.86", 112};
  StartupPlan P = plan(cellArgs(Bad));
  const StartupPhase &Last = P.Phases.back();
  EXPECT_EQ(Last.Name, "graph-warmup");
  EXPECT_EQ(Last.ExitCode, 1);
  EXPECT_NE(joined(Last.EndLines)
                .find("cudagraph capture size 128 missing: 28 sequences pad "
                      "to 32 (multiple of dcp 8) x (1 + 3 draft tokens)"),
            std::string::npos);
  // Piecewise graphs and eager mode do not need full coverage.
  std::vector<std::string> Piecewise = cellArgs(Bad);
  Piecewise.push_back("--cudagraph-mode");
  Piecewise.push_back("PIECEWISE");
  EXPECT_EQ(plan(Piecewise).Phases.back().ExitCode, 0);
  std::vector<std::string> Eager = cellArgs(Bad);
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
