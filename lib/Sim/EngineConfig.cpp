//===- EngineConfig.cpp - Parsing ATOM, vLLM and SGLang command lines -----===//
//
// One flag table maps each engine's spelling onto a canonical knob; one
// function applies a knob's value. Unknown flags are kept as warnings because
// a different engine version would accept them too, and the simulator must
// not be stricter than the engine it stands in for.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/EngineConfig.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

const char *engineName(EngineKind Kind) {
  switch (Kind) {
  case EngineKind::Atom:
    return "atom";
  case EngineKind::Vllm:
    return "vllm";
  case EngineKind::Sglang:
    return "sglang";
  }
  return "atom";
}

std::optional<EngineKind> engineFromName(const std::string &Name) {
  if (Name == "atom")
    return EngineKind::Atom;
  if (Name == "vllm")
    return EngineKind::Vllm;
  if (Name == "sglang")
    return EngineKind::Sglang;
  return std::nullopt;
}

const char *metricPrefix(EngineKind Kind) {
  switch (Kind) {
  case EngineKind::Atom:
    return "atom:";
  case EngineKind::Vllm:
    return "vllm:";
  case EngineKind::Sglang:
    return "sglang:";
  }
  return "atom:";
}

namespace {

enum EngineMask : unsigned { A = 1, V = 2, S = 4, All = 7 };
enum class Arity { Value, Switch, NegatedSwitch };

struct FlagSpec {
  const char *Spelling;
  unsigned Engines;
  const char *Knob;
  Arity Kind;
};

// Spellings from the engines' argument parsers
// (docs/simulator.md#command-line). Knobs named "ignored.*" are accepted
// silently: they exist in the engine but do not change what the simulator
// models.
const FlagSpec Flags[] = {
    {"--model", A | V | S, "model", Arity::Value},
    {"--model-path", S, "model", Arity::Value},
    {"--served-model-name", All, "served_model_name", Arity::Value},
    {"--host", All, "host", Arity::Value},
    {"--server-port", A, "port", Arity::Value},
    {"--port", V | S, "port", Arity::Value},
    {"--port", A, "ignored.engine_port", Arity::Value},
    {"--tensor-parallel-size", All, "tp", Arity::Value},
    {"-tp", A | V, "tp", Arity::Value},
    {"--tp", S, "tp", Arity::Value},
    {"--tp-size", S, "tp", Arity::Value},
    {"--pipeline-parallel-size", A | V, "pp", Arity::Value},
    {"-pp", A | V, "pp", Arity::Value},
    {"--pp-size", S, "pp", Arity::Value},
    {"--data-parallel-size", All, "dp", Arity::Value},
    {"-dp", A | V, "dp", Arity::Value},
    {"--dp", S, "dp", Arity::Value},
    {"--dp-size", S, "dp", Arity::Value},
    {"--decode-context-parallel-size", A | V, "dcp", Arity::Value},
    {"-dcp", A | V, "dcp", Arity::Value},
    {"--prefill-context-parallel-size", A | V, "ignored.pcp", Arity::Value},
    {"-pcp", A, "ignored.pcp", Arity::Value},
    {"--max-num-seqs", A | V, "max_num_seqs", Arity::Value},
    {"--max-running-requests", S, "max_num_seqs", Arity::Value},
    {"--max-num-batched-tokens", A | V, "max_num_batched_tokens", Arity::Value},
    {"--chunked-prefill-size", S, "max_num_batched_tokens", Arity::Value},
    {"--gpu-memory-utilization", A | V, "gpu_memory_utilization", Arity::Value},
    {"--mem-fraction-static", S, "gpu_memory_utilization", Arity::Value},
    {"--block-size", A | V, "block_size", Arity::Value},
    {"--page-size", S, "block_size", Arity::Value},
    {"--kv_cache_dtype", A, "kv_cache_dtype", Arity::Value},
    {"--kv-cache-dtype", All, "kv_cache_dtype", Arity::Value},
    {"--enable_prefix_caching", A, "prefix_caching", Arity::Switch},
    {"--no-enable_prefix_caching", A, "prefix_caching", Arity::NegatedSwitch},
    {"--enable-prefix-caching", V, "prefix_caching", Arity::Switch},
    {"--no-enable-prefix-caching", V, "prefix_caching", Arity::NegatedSwitch},
    {"--disable-radix-cache", S, "prefix_caching", Arity::NegatedSwitch},
    {"--max-model-len", A | V, "max_model_len", Arity::Value},
    {"--context-length", S, "max_model_len", Arity::Value},
    {"--level", A, "level", Arity::Value},
    {"--cudagraph-mode", A, "cudagraph_mode", Arity::Value},
    {"--cudagraph-capture-sizes", A, "capture_sizes", Arity::Value},
    {"--cuda-graph-sizes", V, "capture_sizes", Arity::Value},
    {"--cuda-graph-bs", S, "capture_sizes", Arity::Value},
    {"--cuda-graph-max-bs", S, "ignored.cuda_graph_max_bs", Arity::Value},
    {"--compilation-config", V, "compilation_config", Arity::Value},
    {"--enforce-eager", A | V, "enforce_eager", Arity::Switch},
    {"--disable-cuda-graph", S, "enforce_eager", Arity::Switch},
    {"--method", A, "spec_method", Arity::Value},
    {"--speculative-algorithm", S, "spec_method", Arity::Value},
    {"--draft-model", A, "draft_model", Arity::Value},
    {"--speculative-draft-model-path", S, "draft_model", Arity::Value},
    {"--num-speculative-tokens", A, "num_spec_tokens", Arity::Value},
    {"--speculative-num-steps", S, "num_spec_tokens", Arity::Value},
    {"--speculative-num-draft-tokens", S, "ignored.sglang_draft_tokens",
     Arity::Value},
    {"--speculative-eagle-topk", S, "ignored.eagle_topk", Arity::Value},
    {"--spec-decode-acceptance-length", A, "acceptance_length", Arity::Value},
    {"--spec-decode-acceptance-rate", A, "acceptance_rate", Arity::Value},
    {"--speculative-config", V, "speculative_config", Arity::Value},
    {"--kv-transfer-config", A | V, "kv_transfer_config", Arity::Value},
    {"--headless", V, "headless", Arity::Switch},
    {"--torch-profiler-dir", A, "profiler_dir", Arity::Value},
    {"--trust-remote-code", All, "ignored.trust_remote_code", Arity::Switch},
    {"--state-checkpoint-interval-tokens", A, "ignored.state_checkpoint",
     Arity::Value},
    {"--enable-expert-parallel", A | V, "expert_parallel", Arity::Switch},
    {"--ep-size", S, "ep", Arity::Value},
    {"--expert-parallel-size", S, "ep", Arity::Value},
    {"--enable-metrics", S, "ignored.enable_metrics", Arity::Switch},
    {"--nnodes", V | S, "ignored.nnodes", Arity::Value},
    {"--node-rank", V | S, "ignored.node_rank", Arity::Value},
    {"--master-addr", V, "ignored.master_addr", Arity::Value},
    {"--master-port", V, "ignored.master_port", Arity::Value},
    {"--dist-init-addr", S, "ignored.dist_init_addr", Arity::Value},
    {"--dspark-config", A, "ignored.dspark_config", Arity::Value},
    {"--async-scheduling", V, "ignored.async_scheduling", Arity::Switch},
    {"--disable-log-requests", V, "ignored.disable_log_requests",
     Arity::Switch},
    {"--disable-uvicorn-access-log", A, "ignored.access_log", Arity::Switch},
    {"--enable-dp-attention", A | S, "dp_attention", Arity::Switch},
};

unsigned maskOf(EngineKind Kind) {
  switch (Kind) {
  case EngineKind::Atom:
    return A;
  case EngineKind::Vllm:
    return V;
  case EngineKind::Sglang:
    return S;
  }
  return A;
}

const FlagSpec *findFlag(const std::string &Spelling, EngineKind Kind) {
  for (const FlagSpec &F : Flags)
    if ((F.Engines & maskOf(Kind)) && Spelling == F.Spelling)
      return &F;
  return nullptr;
}

bool looksLikeValue(const std::string &Token) {
  if (Token.empty() || Token[0] != '-')
    return true;
  // Negative numbers (--state-checkpoint-interval-tokens -1) are values.
  return Token.size() > 1 && (std::isdigit((unsigned char)Token[1]) ||
                              Token[1] == '.');
}

/// A decimal integer that fits an int: a value beyond it is refused, never
/// wrapped (4294967304 is not 8).
bool parseInt(const std::string &Text, int &Out) {
  char *End = nullptr;
  errno = 0;
  long V = std::strtol(Text.c_str(), &End, 10);
  if (Text.empty() || *End != '\0' || errno == ERANGE ||
      V < std::numeric_limits<int>::min() ||
      V > std::numeric_limits<int>::max())
    return false;
  Out = static_cast<int>(V);
  return true;
}

/// parseInt within [Min, Max].
bool parseIntIn(const std::string &Text, int Min, int Max, int &Out) {
  int V = 0;
  if (!parseInt(Text, V) || V < Min || V > Max)
    return false;
  Out = V;
  return true;
}

/// A finite decimal number ("nan" and "inf" are not values of any flag).
bool parseDouble(const std::string &Text, double &Out) {
  char *End = nullptr;
  double V = std::strtod(Text.c_str(), &End);
  if (Text.empty() || *End != '\0' || !std::isfinite(V))
    return false;
  Out = V;
  return true;
}

std::string upper(std::string S) {
  std::transform(S.begin(), S.end(), S.begin(),
                 [](unsigned char C) { return std::toupper(C); });
  return S;
}

/// Applies one vLLM/ATOM kv-transfer-config JSON.
void applyKvTransfer(EngineConfig &C, const json &J) {
  if (J.contains("kv_connector") && J["kv_connector"].is_string())
    C.KvConnector = J["kv_connector"].get<std::string>();
  if (J.contains("kv_connector_extra_config")) {
    const json &Extra = J["kv_connector_extra_config"];
    if (Extra.contains("cpu_bytes_to_use") &&
        Extra["cpu_bytes_to_use"].is_number())
      C.CpuOffloadBytesPerRank = Extra["cpu_bytes_to_use"].get<double>();
  }
}

class KnobApplier {
public:
  KnobApplier(EngineParseResult &R) : R(R), C(R.Config) {}

  void apply(const std::string &Flag, const std::string &Knob,
             const std::string &Value) {
    if (Knob.rfind("ignored.", 0) == 0) {
      C.Knobs[Knob.substr(8)] = Value;
      return;
    }
    C.Knobs[Knob] = Value;
    bool Ok = applyTyped(Knob, Value);
    if (!Ok && R.Error.empty())
      R.Error = fmt::format("invalid value '{}' for {}", Value, Flag);
  }

private:
  bool applyTyped(const std::string &K, const std::string &V) {
    if (K == "model")
      return C.Model = V, true;
    if (K == "served_model_name")
      return C.ServedModelName = V, true;
    if (K == "host")
      return C.Host = V, true;
    if (K == "port")
      return parseInt(V, C.Port) && C.Port >= 0 && C.Port < 65536;
    // Parallel sizes up to 1024 each; their products (GPUs, expert shards)
    // then stay far inside an int.
    if (K == "tp")
      return parseIntIn(V, 1, 1024, C.TensorParallel);
    if (K == "pp")
      return parseIntIn(V, 1, 1024, C.PipelineParallel);
    if (K == "dp")
      return parseIntIn(V, 1, 1024, C.DataParallel);
    if (K == "dcp")
      return parseIntIn(V, 1, 1024, C.DecodeContextParallel);
    if (K == "ep")
      return parseIntIn(V, 1, 1 << 20, C.ExpertParallelSize);
    if (K == "expert_parallel")
      return C.ExpertParallel = (V == "true"), true;
    if (K == "dp_attention")
      return C.DpAttention = (V == "true"), true;
    if (K == "max_num_seqs")
      return parseIntIn(V, 1, 1 << 20, C.MaxNumSeqs);
    if (K == "max_num_batched_tokens")
      return parseIntIn(V, 1, 1 << 30, C.MaxNumBatchedTokens);
    if (K == "gpu_memory_utilization")
      return parseDouble(V, C.GpuMemoryUtilization) &&
             C.GpuMemoryUtilization > 0 && C.GpuMemoryUtilization <= 1;
    if (K == "block_size")
      return parseIntIn(V, 1, 1 << 20, C.BlockSize);
    if (K == "kv_cache_dtype")
      return C.KvCacheDtype = V, true;
    if (K == "prefix_caching")
      return C.PrefixCaching = (V == "true"), true;
    if (K == "max_model_len") {
      int N = 0;
      return parseInt(V, N) && N > 0 && (C.MaxModelLen = N, true);
    }
    if (K == "level") {
      int Level = 0;
      if (!parseInt(V, Level))
        return false;
      // ATOM level 0 is eager mode: no graphs to capture.
      C.EnforceEager = C.EnforceEager || Level == 0;
      return true;
    }
    if (K == "cudagraph_mode")
      return C.CudagraphMode = upper(V), true;
    if (K == "capture_sizes")
      return parseIntList(V, C.CaptureSizes);
    if (K == "enforce_eager")
      return C.EnforceEager = (V == "true"), true;
    if (K == "spec_method")
      return C.SpecMethod = V, true;
    if (K == "draft_model")
      return C.DraftModel = V, true;
    if (K == "num_spec_tokens")
      return parseIntIn(V, 0, MaxSpeculativeTokens, C.NumSpeculativeTokens);
    if (K == "acceptance_length") {
      double AL = 0;
      return parseDouble(V, AL) && AL >= 1 && (C.AcceptanceLength = AL, true);
    }
    if (K == "acceptance_rate") {
      double Rate = 0;
      if (!parseDouble(V, Rate) || Rate < 0 || Rate > 1)
        return false;
      // Resolved against the draft length once every flag is read.
      PendingAcceptanceRate = Rate;
      return true;
    }
    if (K == "headless")
      return C.Headless = (V == "true"), true;
    if (K == "profiler_dir")
      return C.ProfilerDir = V, true;
    return applyJson(K, V);
  }

  bool applyJson(const std::string &K, const std::string &V) {
    json J = json::parse(V, nullptr, false);
    if (J.is_discarded() || !J.is_object())
      return false;
    if (K == "kv_transfer_config") {
      applyKvTransfer(C, J);
      return true;
    }
    if (K == "compilation_config") {
      if (J.contains("cudagraph_mode") && J["cudagraph_mode"].is_string())
        C.CudagraphMode = upper(J["cudagraph_mode"].get<std::string>());
      if (J.contains("cudagraph_capture_sizes") &&
          J["cudagraph_capture_sizes"].is_array()) {
        C.CaptureSizes.clear();
        for (const json &Size : J["cudagraph_capture_sizes"]) {
          if (!Size.is_number_integer() || Size.get<long>() < 1 ||
              Size.get<long>() > MaxCaptureSize)
            return false;
          C.CaptureSizes.push_back(Size.get<int>());
        }
      }
      return true;
    }
    if (K == "speculative_config") {
      if (J.contains("method") && J["method"].is_string())
        C.SpecMethod = J["method"].get<std::string>();
      if (J.contains("model") && J["model"].is_string())
        C.DraftModel = J["model"].get<std::string>();
      if (J.contains("num_speculative_tokens") &&
          J["num_speculative_tokens"].is_number_integer()) {
        long N = J["num_speculative_tokens"].get<long>();
        if (N < 0 || N > MaxSpeculativeTokens)
          return false;
        C.NumSpeculativeTokens = static_cast<int>(N);
      }
      for (const char *Key : {"acceptance_length", "synthetic_acceptance_length"})
        if (J.contains(Key) && J[Key].is_number()) {
          if (J[Key].get<double>() < 1)
            return false;
          C.AcceptanceLength = J[Key].get<double>();
        }
      return true;
    }
    return false;
  }

public:
  std::optional<double> PendingAcceptanceRate;

private:
  EngineParseResult &R;
  EngineConfig &C;
};

std::optional<EngineKind> detectEngine(const std::vector<std::string> &Argv,
                                       size_t &FlagsStart) {
  for (size_t I = 0; I < Argv.size(); ++I) {
    const std::string &T = Argv[I];
    std::string Base = std::filesystem::path(T).filename().string();
    if (T.rfind("atom.", 0) == 0 || T == "atom") {
      FlagsStart = I + 1;
      return EngineKind::Atom;
    }
    if (T.rfind("sglang", 0) == 0) {
      FlagsStart = I + 1;
      return EngineKind::Sglang;
    }
    if (Base == "vllm" || T.rfind("vllm.", 0) == 0) {
      FlagsStart = I + 1;
      return EngineKind::Vllm;
    }
    if (!T.empty() && T[0] == '-' && T != "-m")
      break;
  }
  return std::nullopt;
}

} // namespace

std::string checkParallelLayout(const EngineConfig &C) {
  if (C.DpAttention && C.TensorParallel % C.DataParallel != 0)
    return fmt::format("with dp-attention, data-parallel-size {} must divide "
                       "tensor-parallel-size {}",
                       C.DataParallel, C.TensorParallel);
  // DCP shards the KV of one request over the GPUs of its attention.
  if (C.attentionTp() % C.DecodeContextParallel != 0)
    return C.DpAttention
               ? fmt::format("decode-context-parallel-size {} must divide the "
                             "attention's tensor-parallel size {} "
                             "(tensor-parallel-size {} / dp {})",
                             C.DecodeContextParallel, C.attentionTp(),
                             C.TensorParallel, C.DataParallel)
               : fmt::format("decode-context-parallel-size {} must divide "
                             "tensor-parallel-size {}",
                             C.DecodeContextParallel, C.TensorParallel);
  if (C.ExpertParallelSize > 1 && C.TensorParallel % C.ExpertParallelSize != 0)
    return fmt::format("ep-size {} must divide tp-size {}",
                       C.ExpertParallelSize, C.TensorParallel);
  return "";
}

bool parseIntList(const std::string &Text, std::vector<int> &Out) {
  Out.clear();
  std::string Digits;
  auto Flush = [&]() {
    if (Digits.empty())
      return true;
    int V = 0;
    if (!parseIntIn(Digits, 1, MaxCaptureSize, V))
      return false;
    Out.push_back(V);
    Digits.clear();
    return true;
  };
  for (char Ch : Text) {
    if (std::isdigit((unsigned char)Ch)) {
      Digits.push_back(Ch);
      continue;
    }
    if (Ch != '[' && Ch != ']' && Ch != ',' && Ch != ' ' && Ch != '"' &&
        Ch != '\'')
      return false;
    if (!Flush())
      return false;
  }
  return Flush() && !Out.empty();
}

EngineParseResult parseEngineArgv(const std::vector<std::string> &Argv,
                                  std::optional<EngineKind> Forced) {
  EngineParseResult R;
  EngineConfig &C = R.Config;
  size_t I = 0;
  std::optional<EngineKind> Detected = detectEngine(Argv, I);
  if (!Forced && !Detected) {
    R.Error = "cannot tell the engine from the argv (expected atom, vllm or "
              "sglang); pass --sim-engine";
    return R;
  }
  C.Engine = Forced ? *Forced : *Detected;
  if (C.Engine == EngineKind::Vllm) {
    C.MaxNumSeqs = 1024;
    C.MaxNumBatchedTokens = 8192;
  } else if (C.Engine == EngineKind::Atom) {
    C.MaxNumSeqs = 512;
    C.MaxNumBatchedTokens = 16384;
    C.CaptureSizes = {1, 2, 4, 8, 16, 32, 48, 64, 128, 256, 512};
  }
  // `vllm serve MODEL`: the model is positional.
  if (I < Argv.size() && Argv[I] == "serve")
    ++I;
  if (C.Engine == EngineKind::Vllm && I < Argv.size() && Argv[I][0] != '-') {
    C.Model = Argv[I];
    C.Knobs["model"] = C.Model;
    ++I;
  }
  KnobApplier Apply(R);
  for (; I < Argv.size(); ++I) {
    std::string Flag = Argv[I];
    std::optional<std::string> Inline;
    if (size_t Eq = Flag.find('='); Flag.rfind("-", 0) == 0 && Eq != std::string::npos) {
      Inline = Flag.substr(Eq + 1);
      Flag = Flag.substr(0, Eq);
    }
    const FlagSpec *Spec = findFlag(Flag, C.Engine);
    bool NextIsValue = I + 1 < Argv.size() && looksLikeValue(Argv[I + 1]);
    if (!Spec) {
      if (Flag.empty() || Flag[0] != '-') {
        R.Warnings.push_back(fmt::format("ignoring stray argument '{}'", Flag));
        continue;
      }
      std::string Value = Inline ? *Inline : (NextIsValue ? Argv[++I] : "");
      R.Warnings.push_back(
          Value.empty()
              ? fmt::format("unknown {} flag '{}' accepted and ignored",
                            engineName(C.Engine), Flag)
              : fmt::format("unknown {} flag '{}' (value '{}') accepted and "
                            "ignored",
                            engineName(C.Engine), Flag, Value));
      continue;
    }
    std::string Value;
    if (Spec->Kind == Arity::Value) {
      if (Inline)
        Value = *Inline;
      else if (I + 1 < Argv.size())
        Value = Argv[++I];
      else {
        R.Error = fmt::format("flag {} needs a value", Flag);
        return R;
      }
    } else {
      bool On = Spec->Kind == Arity::Switch;
      if (Inline)
        On = (*Inline == "true" || *Inline == "1" || *Inline == "True") == On;
      Value = On ? "true" : "false";
    }
    Apply.apply(Flag, Spec->Knob, Value);
    if (!R.Error.empty())
      return R;
  }
  if (Apply.PendingAcceptanceRate && !C.AcceptanceLength)
    C.AcceptanceLength = 1 + *Apply.PendingAcceptanceRate * C.NumSpeculativeTokens;
  // ATOM builds speculation only with a method and n > 0; an MTP method with
  // no explicit token count drafts one token.
  if (!C.SpecMethod.empty() && C.NumSpeculativeTokens == 0 &&
      !C.Knobs.count("num_spec_tokens"))
    C.NumSpeculativeTokens = 1;
  if (C.SpecMethod.empty())
    C.NumSpeculativeTokens = 0;
  if (C.AcceptanceLength && C.NumSpeculativeTokens > 0 &&
      *C.AcceptanceLength > C.NumSpeculativeTokens + 1) {
    R.Error = fmt::format("acceptance length {} is outside [1, {}]",
                          *C.AcceptanceLength, C.NumSpeculativeTokens + 1);
    return R;
  }
  if (C.Model.empty()) {
    R.Error = "no model given (--model / --model-path / vllm serve MODEL)";
    return R;
  }
  if (std::string Error = checkParallelLayout(C); !Error.empty()) {
    R.Error = Error;
    return R;
  }
  if (C.Engine == EngineKind::Sglang)
    C.CudagraphMode = "PIECEWISE"; // SGLang falls back to eager above max bs
  return R;
}

} // namespace arecipe::sim
