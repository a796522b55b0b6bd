//===- EngineConfig.h - The serving knobs read from an engine argv -*- C++ -*-===//
//
// arecipe-sim is started with the exact argv a real engine would get (ATOM,
// vLLM or SGLang). This header turns that argv into one engine-neutral set of
// knobs. It only parses: sizing, validation against hardware and start-up
// failures live in the roofline and the start-up plan.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_ENGINECONFIG_H
#define ARECIPE_SIM_ENGINECONFIG_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arecipe::sim {

enum class EngineKind { Atom, Vllm, Sglang };

/// Bounds of knobs whose products the model forms (rows per decode, graph
/// sizes): larger values are argument errors, so nothing can overflow.
inline constexpr int MaxSpeculativeTokens = 64;
inline constexpr int MaxCaptureSize = 1 << 16;

const char *engineName(EngineKind Kind);
/// "atom" / "vllm" / "sglang" → kind.
std::optional<EngineKind> engineFromName(const std::string &Name);
/// The Prometheus prefix each engine uses ("atom:", "vllm:", "sglang:").
const char *metricPrefix(EngineKind Kind);

struct EngineConfig {
  EngineKind Engine = EngineKind::Atom;
  std::string Model;
  std::string ServedModelName; // empty: the --model value
  std::string Host = "0.0.0.0";
  int Port = 8000;
  int TensorParallel = 1;
  int PipelineParallel = 1;
  int DataParallel = 1;
  int DecodeContextParallel = 1;
  /// vLLM/ATOM --enable-expert-parallel: experts split over TP x DP GPUs.
  bool ExpertParallel = false;
  /// SGLang --ep-size: experts split over this many GPUs (0: over TP).
  int ExpertParallelSize = 0;
  /// SGLang/ATOM --enable-dp-attention: DP splits the TP GPUs' attention
  /// into DP replicas instead of adding DP copies of the server.
  bool DpAttention = false;
  int MaxNumSeqs = 256;
  int MaxNumBatchedTokens = 8192;
  double GpuMemoryUtilization = 0.9;
  int BlockSize = 16;
  std::string KvCacheDtype = "bf16";
  bool PrefixCaching = true;
  long MaxModelLen = 0; // 0: the model's own context length
  std::string CudagraphMode = "FULL"; // NONE disables graph checks
  bool EnforceEager = false;
  std::vector<int> CaptureSizes;      // empty: the engine default list
  std::string SpecMethod;             // "" = no speculative decoding
  std::string DraftModel;
  int NumSpeculativeTokens = 0;
  std::optional<double> AcceptanceLength;
  std::string KvConnector;            // from --kv-transfer-config
  double CpuOffloadBytesPerRank = 0;  // from the kv-transfer config
  bool Headless = false;
  std::string ProfilerDir;
  /// Every flag that was recognised, by canonical knob name, as given.
  std::map<std::string, std::string> Knobs;

  const std::string &servedName() const {
    return ServedModelName.empty() ? Model : ServedModelName;
  }
  /// Every GPU of the server: TP x PP per replica, times DP replicas unless
  /// dp-attention runs the DP ranks on the TP GPUs themselves.
  int gpus() const {
    return TensorParallel * PipelineParallel * (DpAttention ? 1 : DataParallel);
  }
  /// GPUs the attention of one request (and its KV) is split over.
  int attentionTp() const {
    return DpAttention ? TensorParallel / DataParallel : TensorParallel;
  }
  /// Rows one decode step submits per sequence: the accepted token plus one
  /// per draft token being verified.
  int rowsPerDecode() const { return 1 + NumSpeculativeTokens; }
};

struct EngineParseResult {
  EngineConfig Config;
  std::vector<std::string> Warnings; // unknown flags, ignored values
  std::string Error;                 // non-empty: the argv is unusable
};

/// Detects the engine from the argv (module or command name) unless
/// \p Forced is set, then parses the flags in that engine's spelling. Both
/// `--flag value` and `--flag=value` are accepted.
EngineParseResult parseEngineArgv(const std::vector<std::string> &Argv,
                                  std::optional<EngineKind> Forced);

/// "" when TP, DP, DCP, EP and dp-attention fit together as the engine
/// requires; else why not.
std::string checkParallelLayout(const EngineConfig &C);

/// Parses ATOM's "[2,3,4]" capture-size list (also "2,3,4" and "2 3 4").
bool parseIntList(const std::string &Text, std::vector<int> &Out);

} // namespace arecipe::sim

#endif
