//===- SimSpec.cpp - The model and hardware a recipe declares, for the sim ===//
//
// Each figure is read once, checked (present when needed, of its type,
// finite, in range) and named by its path in the spec when it is not
// usable; derived figures are computed from the declared ones only.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/SimSpec.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

namespace {

/// Reads the figures of one object of the spec; the first problem wins.
class Figures {
public:
  Figures(const json *Obj, std::string Path, const std::string &Origin,
          std::string &Error)
      : Obj(Obj), Path(std::move(Path)), Origin(Origin), Error(Error) {}

  bool ok() const { return Error.empty(); }

  bool fail(std::string_view Key, const std::string &Why) {
    if (Error.empty())
      Error = fmt::format("{}: {}.{}: {}", Origin, Path, Key, Why);
    return false;
  }

  const json *find(std::string_view Key) const {
    if (!Obj)
      return nullptr;
    auto It = Obj->find(Key);
    return It == Obj->end() || It->is_null() ? nullptr : &*It;
  }
  bool has(std::string_view Key) const { return find(Key) != nullptr; }

  /// The field, or null when absent; when \p Why is set the field is
  /// needed, and its absence is the error, saying why.
  const json *require(std::string_view Key, const char *Why) {
    const json *V = find(Key);
    if (!V && Why)
      fail(Key, fmt::format("missing: {}", Why));
    return V;
  }
  /// Reports a value of the wrong JSON type.
  std::nullopt_t wrongType(std::string_view Key, const char *Expected,
                           const json &V) {
    fail(Key, fmt::format("expected {}, got {}", Expected, V.type_name()));
    return std::nullopt;
  }

  /// A finite number in [Min, Max].
  std::optional<double> number(std::string_view Key, double Min, double Max,
                               const char *Why) {
    const json *V = require(Key, Why);
    if (!V)
      return std::nullopt;
    if (!V->is_number())
      return wrongType(Key, "a number", *V);
    double D = V->get<double>();
    if (!std::isfinite(D) || D < Min || D > Max)
      return fail(Key, fmt::format("{} is outside [{:g}, {:g}]", D, Min, Max)),
             std::nullopt;
    return D;
  }
  std::optional<long> integer(std::string_view Key, long Min, long Max,
                              const char *Why) {
    const json *V = require(Key, Why);
    if (!V)
      return std::nullopt;
    if (!V->is_number_integer())
      return wrongType(Key, "an integer", *V);
    if (V->is_number_unsigned() && V->get<uint64_t>() > uint64_t(Max))
      return fail(Key, fmt::format("is above {}", Max)), std::nullopt;
    long N = V->get<long>();
    if (N < Min || N > Max)
      return fail(Key, fmt::format("{} is outside [{}, {}]", N, Min, Max)),
             std::nullopt;
    return N;
  }
  std::optional<std::string> string(std::string_view Key, const char *Why) {
    const json *V = require(Key, Why);
    if (!V)
      return std::nullopt;
    if (!V->is_string() || V->get_ref<const std::string &>().empty())
      return fail(Key, "expected a non-empty string"), std::nullopt;
    return V->get<std::string>();
  }

private:
  const json *Obj;
  std::string Path;
  const std::string &Origin;
  std::string &Error;
};

constexpr double MaxBytes = 1e18;     // an exabyte: any real size is below
constexpr double MaxRate = 1e18;      // bytes/s or FLOP/s
constexpr long MaxCount = 1L << 31;   // layers, heads, dims, experts, tokens

bool readModel(Figures &F, ModelProfile &M) {
  const char *Needed = "the simulator needs it";
  if (auto Id = F.string("id", Needed))
    M.Name = *Id;
  auto Layers = F.integer("layers", 1, MaxCount, Needed);
  auto Hidden = F.integer("hidden_size", 1, MaxCount, Needed);
  auto Attention = F.string("attention", "'gqa' or 'mla', how the KV cache "
                                         "is stored and shards");
  if (!F.ok())
    return false;
  if (*Attention != "gqa" && *Attention != "mla")
    return F.fail("attention", fmt::format("'{}' is neither 'gqa' nor 'mla'",
                                           *Attention));
  M.Attention = *Attention == "gqa" ? AttentionKind::Gqa : AttentionKind::Mla;
  // Hybrid models (linear attention in some layers) keep KV in fewer layers.
  long KvLayers =
      F.integer("kv_layers", 1, MaxCount, nullptr).value_or(*Layers);
  std::optional<double> ExplicitKv =
      F.number("kv_bytes_per_token", 1, MaxBytes, nullptr);
  std::optional<long> HeadDim, Rank, Rope;
  if (M.Attention == AttentionKind::Gqa) {
    // The heads are needed even with an explicit KV size: they decide how
    // the KV splits over TP ranks.
    auto Heads = F.integer("kv_heads", 1, MaxCount,
                           "a gqa model's KV heads decide how its KV splits "
                           "over TP ranks");
    if (!ExplicitKv)
      HeadDim = F.integer("head_dim", 1, MaxCount,
                          "a gqa model's KV per token is 2 x kv_layers x "
                          "kv_heads x head_dim (or give kv_bytes_per_token)");
    if (!F.ok())
      return false;
    M.KvHeads = int(*Heads);
    M.KvElementsPerToken =
        ExplicitKv ? *ExplicitKv / 2 : 2.0 * KvLayers * *Heads * *HeadDim;
  } else if (ExplicitKv) {
    M.KvElementsPerToken = *ExplicitKv / 2;
  } else {
    Rank = F.integer("kv_lora_rank", 1, MaxCount,
                          "an mla model's KV per token is kv_layers x "
                          "(kv_lora_rank + rope_dim) (or give "
                          "kv_bytes_per_token)");
    Rope = F.integer("rope_dim", 0, MaxCount,
                          "an mla model's KV per token is kv_layers x "
                          "(kv_lora_rank + rope_dim) (or give "
                          "kv_bytes_per_token)");
    if (!F.ok())
      return false;
    M.KvElementsPerToken = double(KvLayers) * (*Rank + *Rope);
  }

  auto Total = F.number("params_total", 1, 1e16, Needed);
  auto Checkpoint = F.number("checkpoint_bytes", 1, MaxBytes,
                             "the weights' size sets memory and load time");
  auto Precision = F.string("precision", "the weights' precision picks the "
                                         "FLOP/s they compute at");
  auto Context = F.integer("context_length", 1, MaxCount, Needed);
  long Experts = F.integer("experts", 0, MaxCount, nullptr).value_or(0);
  if (!F.ok())
    return false;
  std::string Key = flopsKeyForPrecision(*Precision);
  if (Key.empty())
    return F.fail("precision",
                  fmt::format("'{}' is not a precision the simulator knows "
                              "(bf16, fp16, fp32, fp8, int8, fp4, mxfp4, "
                              "nvfp4, int4)",
                              *Precision));
  M.WeightDtype = Key;
  M.Precision = *Precision;
  M.WeightBytes = *Checkpoint;
  M.MaxContextTokens = *Context;
  M.NumExperts = int(Experts);
  if (Experts > 0) {
    auto PerToken = F.integer("experts_per_token", 1, Experts,
                              "a mixture-of-experts model reads the experts "
                              "its tokens route to");
    auto Active = F.number("params_active", 1, *Total,
                           "a mixture-of-experts model computes with its "
                           "active parameters");
    if (!F.ok())
      return false;
    M.ExpertsPerToken = int(*PerToken);
    M.ActiveParams = *Active;
    // Every token computes with the dense part and k of the E experts:
    // active = dense + expert * k / E and total = dense + expert.
    double Routed = double(*PerToken) / Experts;
    double ExpertParams =
        Routed < 1 ? (*Total - *Active) / (1 - Routed) : 0;
    if (ExpertParams > *Total)
      return F.fail("params_active",
                    "is too small for params_total with this many experts "
                    "per token (the dense part would be negative)");
    M.DenseWeightBytes = *Checkpoint * (*Total - ExpertParams) / *Total;
  } else {
    M.ActiveParams =
        F.number("params_active", 1, *Total, nullptr).value_or(*Total);
    M.DenseWeightBytes = *Checkpoint;
  }
  // Attention FLOPs per (query, context) pair: QK^T and PV at 2 FLOPs per
  // multiply-add, over every layer that keeps KV. With the query heads:
  // GQA 2 x 2 x heads x head_dim; MLA (absorbed) 2 x heads x (rank + rope)
  // for QK^T plus 2 x heads x rank for PV. Without them, the usual estimate
  // 4 x hidden_size per layer.
  auto QueryHeads = F.integer("attention_heads", 1, MaxCount, nullptr);
  double PairFlops = 4.0 * KvLayers * *Hidden;
  if (QueryHeads && HeadDim)
    PairFlops = 4.0 * KvLayers * *QueryHeads * *HeadDim;
  else if (QueryHeads && Rank && Rope)
    PairFlops = 2.0 * KvLayers * *QueryHeads * (2 * *Rank + *Rope);
  M.AttentionFlopsPerTokenPair =
      F.number("attention_flops_per_token_pair", 0, 1e15, nullptr)
          .value_or(PairFlops);
  M.StateBytesPerSequence =
      F.number("state_bytes_per_sequence", 0, MaxBytes, nullptr).value_or(0);
  M.ActivationReserveBytes =
      F.number("activation_reserve_bytes", 0, MaxBytes, nullptr)
          .value_or(SimSpecDefaults::ActivationReserveBytes);
  M.DraftModelBytes =
      F.number("draft_checkpoint_bytes", 0, MaxBytes, nullptr).value_or(0);
  if (const json *AL = F.find("acceptance_lengths")) {
    if (!AL->is_array())
      return F.fail("acceptance_lengths", "expected a list of numbers");
    for (const json &V : *AL) {
      if (!V.is_number() || !std::isfinite(V.get<double>()) ||
          V.get<double>() < 1)
        return F.fail("acceptance_lengths",
                      "expected a list of numbers >= 1 (one per draft length)");
      M.GoldenAcceptanceLength.push_back(V.get<double>());
    }
  }
  return F.ok();
}

bool readHardware(Figures &F, Figures &Cal, HardwareProfile &Hw) {
  const char *Needed = "the simulator needs it";
  if (auto Name = F.string("name", Needed))
    Hw.Name = *Name;
  if (auto N = F.integer("gpus_per_node", 1, 4096, Needed))
    Hw.GpusPerNode = int(*N);
  if (auto B = F.number("hbm_bytes", 1, MaxBytes,
                        "device memory sizes the KV cache"))
    Hw.HbmBytes = *B;
  if (auto B = F.number("hbm_bandwidth", 1, MaxRate,
                        "memory-bound steps run at it (bytes/s)"))
    Hw.HbmBandwidth = *B;
  for (const char *Key : {"bf16", "fp8", "fp4"})
    if (auto V = F.number(std::string("flops_") + Key, 1, MaxRate, nullptr))
      Hw.PeakFlops[Key] = *V;
  if (auto B = F.number("dram_bytes", 1, MaxBytes,
                        "a CPU KV tier must fit the node's DRAM"))
    Hw.NodeDramMiB = *B / 1048576.0;
  if (auto B = F.number("host_to_device_bandwidth", 1, MaxRate,
                        "CPU-tier KV loads run at it (bytes/s)"))
    Hw.HostToDeviceBandwidth = *B;
  Hw.InterconnectBandwidth =
      F.number("interconnect_bandwidth", 1, MaxRate, nullptr).value_or(0);
  Hw.MemEfficiency = Cal.number("mem_efficiency", 1e-6, 1, nullptr)
                         .value_or(SimSpecDefaults::MemEfficiency);
  Hw.FlopsEfficiency = Cal.number("flops_efficiency", 1e-6, 1, nullptr)
                           .value_or(SimSpecDefaults::FlopsEfficiency);
  Hw.StepOverheadSeconds = Cal.number("step_overhead_s", 0, 1e3, nullptr)
                               .value_or(SimSpecDefaults::StepOverheadSeconds);
  Hw.PipelineStageOverheadSeconds =
      Cal.number("stage_overhead_s", 0, 1e3, nullptr)
          .value_or(SimSpecDefaults::StageOverheadSeconds);
  Hw.WeightLoadBandwidth =
      Cal.number("weight_load_bandwidth", 1, MaxRate, nullptr)
          .value_or(SimSpecDefaults::WeightLoadBandwidth);
  Hw.GraphCaptureSecondsPerSize =
      Cal.number("graph_capture_s_per_size", 0, 1e3, nullptr)
          .value_or(SimSpecDefaults::GraphCaptureSecondsPerSize);
  return F.ok();
}

} // namespace

std::string flopsKeyForPrecision(const std::string &P) {
  if (P == "bf16" || P == "fp16" || P == "fp32")
    return "bf16";
  if (P == "fp8" || P == "int8")
    return "fp8";
  if (P == "fp4" || P == "mxfp4" || P == "nvfp4" || P == "int4")
    return "fp4";
  return "";
}

namespace {
/// The object \p Text holds, or an error naming \p Origin.
std::optional<json> parseObject(std::string_view Text, const std::string &Origin,
                                std::string &Error) {
  json J = json::parse(Text.begin(), Text.end(), nullptr, false);
  if (J.is_discarded() || !J.is_object()) {
    Error = fmt::format("{}: not a JSON object", Origin);
    return std::nullopt;
  }
  return J;
}

bool parseHardwareObject(const json &H, const std::string &Origin,
                         HardwareProfile &Hw, std::string &Error) {
  const json *Calibration = nullptr;
  if (auto It = H.find("calibration"); It != H.end() && !It->is_null()) {
    if (!It->is_object()) {
      Error = fmt::format("{}: hardware.calibration: expected an object",
                          Origin);
      return false;
    }
    Calibration = &*It;
  }
  Figures F(&H, "hardware", Origin, Error);
  Figures Cal(Calibration, "hardware.calibration", Origin, Error);
  Hw = HardwareProfile();
  return readHardware(F, Cal, Hw);
}

bool parseModelObject(const json &M, const std::string &Origin,
                      ModelProfile &Model, std::string &Error) {
  Figures F(&M, "model", Origin, Error);
  Model = ModelProfile();
  return readModel(F, Model);
}
} // namespace

bool checkPrecisionPeak(const HardwareProfile &Hw, const ModelProfile &Model,
                        const std::string &Origin, std::string &Error) {
  // The weights compute at their own precision's peak: no stand-in figure.
  if (Hw.PeakFlops.count(Model.WeightDtype))
    return true;
  Error = fmt::format("{}: hardware.flops_{}: missing: the model's {} "
                      "weights compute at it (FLOP/s)",
                      Origin, Model.WeightDtype, Model.Precision);
  return false;
}

bool parseHardwareSpec(std::string_view Text, const std::string &Origin,
                       HardwareProfile &Hw, std::string &Error) {
  Error.clear();
  auto J = parseObject(Text, Origin, Error);
  return J && parseHardwareObject(*J, Origin, Hw, Error);
}

bool parseModelSpec(std::string_view Text, const std::string &Origin,
                    ModelProfile &Model, std::string &Error) {
  Error.clear();
  auto J = parseObject(Text, Origin, Error);
  return J && parseModelObject(*J, Origin, Model, Error);
}

bool parseSimSpec(std::string_view Text, const std::string &Origin,
                  HardwareProfile &Hw, ModelProfile &Model,
                  std::string &Error) {
  Error.clear();
  auto J = parseObject(Text, Origin, Error);
  if (!J)
    return false;
  for (const char *Part : {"model", "hardware"}) {
    auto It = J->find(Part);
    if (It == J->end() || !It->is_object()) {
      Error = fmt::format("{}: {}: missing: the spec describes the model and "
                          "the hardware",
                          Origin, Part);
      return false;
    }
  }
  if (!parseModelObject((*J)["model"], Origin, Model, Error) ||
      !parseHardwareObject((*J)["hardware"], Origin, Hw, Error) ||
      !checkPrecisionPeak(Hw, Model, Origin, Error))
    return false;
  Model.Source = "spec " + Origin;
  return true;
}

bool loadSimSpec(const std::string &Path, HardwareProfile &Hw,
                 ModelProfile &Model, std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Error = fmt::format("cannot read the simulation spec {}", Path);
    return false;
  }
  std::stringstream Text;
  Text << In.rdbuf();
  return parseSimSpec(Text.str(), Path, Hw, Model, Error);
}

} // namespace arecipe::sim
