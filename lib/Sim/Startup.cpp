//===- Startup.cpp - The engine's start-up sequence and its failures ------===//
#include "arecipe/Sim/Startup.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace arecipe::sim {

namespace {

/// Rate at which pinned host memory is registered; large tiers take tens of
/// seconds to pin on real nodes.
constexpr double PinBytesPerSecond = 20e9;

std::string envOr(const Environment &Env, const char *Key,
                  const std::string &Default = "") {
  auto It = Env.find(Key);
  return It == Env.end() ? Default : It->second;
}

bool envTrue(const Environment &Env, const char *Key) {
  std::string V = envOr(Env, Key);
  return V == "1" || V == "true" || V == "TRUE" || V == "True" || V == "yes" ||
         V == "ON" || V == "on";
}

std::string gb(double Bytes) { return fmt::format("{:.1f} GB", Bytes / 1e9); }

/// "org/name" that is not an existing path: the engine must resolve it
/// through the Hugging Face cache.
bool isRepoId(const std::string &Name) {
  if (Name.empty() || Name[0] == '/' || Name[0] == '.' || Name[0] == '~')
    return false;
  if (std::count(Name.begin(), Name.end(), '/') != 1)
    return false;
  std::error_code Ec;
  return !fs::exists(Name, Ec);
}

std::string proxyInUse(const Environment &Env) {
  for (const char *Key : {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY",
                          "http_proxy", "ALL_PROXY", "all_proxy"}) {
    std::string V = envOr(Env, Key);
    if (!V.empty())
      return fmt::format("{}={}", Key, V);
  }
  return "";
}

/// Resolving \p Repo: nothing to do when cached; otherwise an offline error,
/// a hang on the proxy, or a silent download at the contended rate.
void planFetch(StartupPlan &Plan, const std::string &Repo, double Bytes,
               const SimOptions &O, const Environment &Env) {
  if (!isRepoId(Repo))
    return;
  std::string Cache = hubCacheDir(Env);
  size_t Slash = Repo.find('/');
  std::string Dir = "models--" + Repo.substr(0, Slash) + "--" +
                    Repo.substr(Slash + 1);
  std::error_code Ec;
  if (fs::is_directory(fs::path(Cache) / Dir, Ec))
    return;
  StartupPhase P;
  P.Name = "fetch";
  if (envTrue(Env, "HF_HUB_OFFLINE")) {
    P.EndLines.push_back(fmt::format(
        "OSError: {} is not in the local cache ({}) and HF_HUB_OFFLINE is set",
        Repo, Cache));
    P.ExitCode = 1;
  } else if (std::string Proxy = proxyInUse(Env); !Proxy.empty()) {
    P.StartLines.push_back(fmt::format(
        "Fetching {} from https://huggingface.co through proxy ({})", Repo,
        Proxy));
    P.Seconds = O.FetchTimeoutSeconds;
    P.EndLines.push_back(fmt::format(
        "requests.exceptions.ConnectTimeout: connection to the proxy timed "
        "out after {:.0f} s while fetching {} ({})",
        O.FetchTimeoutSeconds, Repo, Proxy));
    P.ExitCode = 1;
  } else {
    // Every rank pulls the same checkpoint at once with no progress output;
    // the seed measured ~0.7 MB/s, so the log goes quiet for hours.
    P.Seconds = Bytes / O.DownloadBytesPerSecond;
    P.EndLines.push_back(
        fmt::format("Downloaded {} ({}) into {}", Repo, gb(Bytes), Cache));
  }
  Plan.Phases.push_back(std::move(P));
}

void planCpuTier(StartupPlan &Plan, const Roofline &Model,
                 const Environment &Env) {
  const EngineConfig &C = Model.config();
  std::string Connector = C.KvConnector;
  std::transform(Connector.begin(), Connector.end(), Connector.begin(),
                 [](unsigned char Ch) { return std::tolower(Ch); });
  double PerRank = C.CpuOffloadBytesPerRank;
  if (Connector.find("lmcache") != std::string::npos) {
    std::string Size = envOr(Env, "LMCACHE_MAX_LOCAL_CPU_SIZE", "5");
    char *End = nullptr;
    double Gb = std::strtod(Size.c_str(), &End);
    // LMCache refuses a size it cannot read; so does its stand-in, rather
    // than sizing a tier from NaN.
    if (Size.empty() || *End != '\0' || !std::isfinite(Gb) || Gb < 0) {
      StartupPhase P;
      P.Name = "pin-cpu-tier";
      P.EndLines.push_back(fmt::format(
          "ValueError: LMCACHE_MAX_LOCAL_CPU_SIZE='{}' is not a size in GB",
          Size));
      P.ExitCode = 1;
      Plan.Phases.push_back(std::move(P));
      return;
    }
    PerRank = Gb * 1e9;
  }
  if (!(PerRank > 0) || !std::isfinite(PerRank))
    return;
  const HardwareProfile &Hw = Model.hardware();
  int RanksOnNode = std::min(C.gpus(), Hw.GpusPerNode);
  double NodeDram = Hw.NodeDramMiB * 1048576.0;
  StartupPhase P;
  P.Name = "pin-cpu-tier";
  P.StartLines.push_back(fmt::format(
      "{}: pinning {} of host memory per rank for the CPU KV tier ({} ranks "
      "on this node = {}; node DRAM {})",
      C.KvConnector.empty() ? "kv offload" : C.KvConnector, gb(PerRank),
      RanksOnNode, gb(PerRank * RanksOnNode), gb(NodeDram)));
  if (PerRank * RanksOnNode > NodeDram) {
    // cudaHostRegister/hipHostRegister of more than the node has never
    // returns; the real engine prints nothing more.
    P.NeverEnds = true;
  } else {
    P.Seconds = PerRank / PinBytesPerSecond;
    Plan.CpuTierBytesPerRank = PerRank;
    // Each rank's tier holds its share of the tokens, as its HBM does; the
    // replicas' tiers add up.
    Plan.CpuTierTokens =
        static_cast<long>(PerRank / Model.kvBytesPerTokenPerGpu()) *
        Model.sharding().Replicas;
    P.EndLines.push_back(fmt::format("CPU KV tier ready: {} tokens",
                                     Plan.CpuTierTokens));
  }
  Plan.Phases.push_back(std::move(P));
}

void planGraphs(StartupPlan &Plan, const Roofline &Model) {
  const EngineConfig &C = Model.config();
  if (C.EnforceEager || C.CudagraphMode == "NONE" ||
      C.Engine == EngineKind::Sglang || C.CaptureSizes.empty())
    return;
  std::vector<int> Sizes = C.CaptureSizes;
  std::sort(Sizes.begin(), Sizes.end());
  Sizes.erase(std::unique(Sizes.begin(), Sizes.end()), Sizes.end());
  StartupPhase Capture;
  Capture.Name = "capture-graphs";
  Capture.StartLines.push_back(fmt::format(
      "Capturing cudagraph (mode {}) for {} batch sizes [{}..{}]",
      C.CudagraphMode, Sizes.size(), Sizes.front(), Sizes.back()));
  Capture.Seconds = Sizes.size() * Model.hardware().GraphCaptureSecondsPerSize;
  Capture.ProgressLabel = "Capturing cudagraph sizes";
  Capture.EndLines.push_back("Graph capturing finished");
  Plan.Phases.push_back(std::move(Capture));

  StartupPhase Warmup;
  Warmup.Name = "graph-warmup";
  Warmup.Seconds = 1;
  // Only ATOM's FULL graphs with an explicit list must contain the batch
  // warm-up replays: piecewise modes run uncaptured sizes eagerly, vLLM pads
  // a batch to the next captured size (its default list, [1,2,4,8,16,24,...],
  // is sparse) and runs batches beyond the largest eagerly, and ATOM's own
  // sparse default list is one the engine is built to pad into.
  bool ExplicitList = C.Knobs.count("capture_sizes") != 0;
  if (C.CudagraphMode != "FULL" || C.Engine != EngineKind::Atom ||
      !ExplicitList) {
    Warmup.StartLines.push_back(fmt::format(
        "graph warm-up: mode {} replays captured sizes, padding smaller "
        "batches up and running larger ones eagerly",
        C.CudagraphMode));
    Warmup.EndLines.push_back("graph warm-up done");
    Plan.Phases.push_back(std::move(Warmup));
    return;
  }
  GraphWarmup G = fullGraphWarmup(Sizes, C.NumSpeculativeTokens,
                                  C.DecodeContextParallel);
  Warmup.StartLines.push_back(fmt::format(
      "graph warm-up: graph batch {} sequences (largest capture size {} / (1 "
      "+ {} draft tokens)), padded to {} (multiple of dcp {}) = capture size "
      "{}",
      G.Sequences, Sizes.back(), C.NumSpeculativeTokens, G.PaddedSequences,
      C.DecodeContextParallel, G.RequiredSize));
  if (G.MissingSize) {
    std::string Why =
        G.Dense ? fmt::format("{} sequences pad to {} (multiple of dcp {}) x "
                              "(1 + {} draft tokens)",
                              G.Sequences, G.PaddedSequences,
                              C.DecodeContextParallel, C.NumSpeculativeTokens)
                : "the capture sizes must include every size from 2 to the "
                  "largest";
    Warmup.EndLines.push_back(fmt::format(
        "RuntimeError: graph warm-up failed: no captured CUDA graph for batch "
        "size {0}: cudagraph capture size {0} missing: {1}; largest captured "
        "size is {2}",
        G.MissingSize, Why, Sizes.back()));
    Warmup.ExitCode = 1;
  } else {
    Warmup.EndLines.push_back("graph warm-up done");
  }
  Plan.Phases.push_back(std::move(Warmup));
}

} // namespace

GraphWarmup fullGraphWarmup(const std::vector<int> &SortedSizes,
                            int DraftTokens, int Dcp) {
  GraphWarmup G;
  if (SortedSizes.empty())
    return G;
  const int Rows = 1 + DraftTokens;
  const int Largest = SortedSizes.back();
  // The graph batch is the largest capture size read as whole verify steps;
  // a list too short for even one sequence still needs that one.
  G.Sequences = std::max(1, Largest / Rows);
  G.PaddedSequences = (G.Sequences + Dcp - 1) / Dcp * Dcp;
  G.RequiredSize = G.PaddedSequences * Rows;
  // A hole below the largest size: a batch of that size has no graph to
  // replay. It is reported first because it is the smallest batch to fail.
  int Expected = 2;
  for (int Size : SortedSizes) {
    if (Size < Expected)
      continue;
    if (Size != Expected) {
      G.Dense = false;
      G.MissingSize = Expected;
      return G;
    }
    ++Expected;
  }
  if (!std::binary_search(SortedSizes.begin(), SortedSizes.end(),
                          G.RequiredSize))
    G.MissingSize = G.RequiredSize;
  return G;
}

std::string hubCacheDir(const Environment &Env) {
  if (std::string Dir = envOr(Env, "HF_HUB_CACHE"); !Dir.empty())
    return Dir;
  if (std::string Dir = envOr(Env, "HUGGINGFACE_HUB_CACHE"); !Dir.empty())
    return Dir;
  if (std::string Home = envOr(Env, "HF_HOME"); !Home.empty())
    return Home + "/hub";
  return envOr(Env, "HOME", "/root") + "/.cache/huggingface/hub";
}

StartupPlan planStartup(const Roofline &Model, const SimOptions &O,
                        const Environment &Env) {
  StartupPlan Plan;
  const EngineConfig &C = Model.config();
  const HardwareProfile &Hw = Model.hardware();
  const ModelProfile &M = Model.model();

  StartupPhase Intro;
  Intro.Name = "resolve-model";
  Intro.StartLines.push_back(fmt::format("Resolving model {}", C.Model));
  Plan.Phases.push_back(std::move(Intro));
  planFetch(Plan, C.Model, M.WeightBytes, O, Env);

  StartupPhase Load;
  Load.Name = "load-weights";
  const Sharding &Sh = Model.sharding();
  double PerGpu = Model.targetWeightBytesPerGpu();
  std::string Layout =
      fmt::format("TP {} x PP {}", C.TensorParallel, C.PipelineParallel);
  if (C.DataParallel > 1)
    Layout += C.DpAttention ? fmt::format(", {} DP attention replicas of TP {}",
                                          C.DataParallel, Sh.AttentionTp)
                            : fmt::format(" x DP {}", C.DataParallel);
  if (Sh.ExpertShards != Sh.DenseShards && M.NumExperts > 0)
    Layout += fmt::format(", experts over {} GPUs", Sh.ExpertShards);
  Load.StartLines.push_back(fmt::format("Loading weights: {} per GPU on {} GPUs ({})",
                                        gb(PerGpu), C.gpus(), Layout));
  Load.Seconds = PerGpu / Hw.WeightLoadBandwidth + O.Faults.SlowStartSeconds;
  Load.ProgressLabel = "Loading weights";
  Load.EndLines.push_back(
      fmt::format("Loading weights took {:.1f} s (simulated)", Load.Seconds));
  if (Model.kvCapacityTokens() <= 0) {
    Load.EndLines.push_back(fmt::format(
        "torch.OutOfMemoryError: weights {} + activations {} per GPU leave no "
        "KV cache within gpu-memory-utilization {} x HBM {}",
        gb(Model.weightBytesPerGpu()), gb(M.ActivationReserveBytes),
        C.GpuMemoryUtilization, gb(Hw.HbmBytes)));
    Load.ExitCode = 1;
    Plan.Phases.push_back(std::move(Load));
    return Plan;
  }
  Plan.Phases.push_back(std::move(Load));

  StartupPhase Kv;
  Kv.Name = "kv-cache";
  // Per GPU: the pool and what one token costs there; per replica: the
  // tokens every GPU of a replica holds its share of; the server: all
  // replicas.
  Kv.StartLines.push_back(fmt::format(
      "KV cache: {} tokens ({} per replica x {}; per GPU {} at {:.0f} B per "
      "token, {} over TP {} x PP {} x DCP {}; kv dtype {}, block size {})",
      Model.kvCapacityTokens(), Model.kvCapacityTokensPerReplica(),
      Sh.Replicas, gb(Model.kvPoolBytesPerGpu()), Model.kvBytesPerTokenPerGpu(),
      attentionName(M.Attention), Sh.AttentionTp, C.PipelineParallel,
      C.DecodeContextParallel, C.KvCacheDtype, C.BlockSize));
  Plan.Phases.push_back(std::move(Kv));

  planCpuTier(Plan, Model, Env);

  if (C.NumSpeculativeTokens > 0) {
    StartupPhase Draft;
    Draft.Name = "load-drafter";
    Draft.StartLines.push_back(
        C.DraftModel.empty()
            ? fmt::format("Loading drafter model (method {}, {} speculative "
                          "tokens, built-in heads)",
                          C.SpecMethod, C.NumSpeculativeTokens)
            : fmt::format("Loading drafter model {} (method {}, {} "
                          "speculative tokens)",
                          C.DraftModel, C.SpecMethod, C.NumSpeculativeTokens));
    Plan.Phases.push_back(std::move(Draft));
    if (!C.DraftModel.empty()) {
      planFetch(Plan, C.DraftModel, M.DraftModelBytes, O, Env);
      StartupPhase DraftLoad;
      DraftLoad.Name = "load-drafter-weights";
      DraftLoad.Seconds =
          M.DraftModelBytes / C.TensorParallel / Hw.WeightLoadBandwidth;
      DraftLoad.EndLines.push_back("Drafter model loaded");
      Plan.Phases.push_back(std::move(DraftLoad));
    }
  }

  planGraphs(Plan, Model);
  return Plan;
}

} // namespace arecipe::sim
