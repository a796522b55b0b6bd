//===- InferenceXResults.cpp - A cell's InferenceX result files -----------===//

#include "arecipe/Runtime/InferenceXResults.h"

#include "arecipe/Runtime/ResultStore.h"

#include <fmt/format.h>

#include <optional>

using nlohmann::json;

namespace arecipe::runtime {

namespace {

/// The cell's resolved knobs by name, parsed. Seen from a role (`prefill`,
/// `decode`), a knob the roles disagree on is read as the plan lists it for
/// that role (`prefill.tp`), one they agree on by its own name.
class Knobs {
public:
  explicit Knobs(const Cell &C, std::string Role = "") : C(C), Role(std::move(Role)) {}

  std::optional<json> get(std::string_view Name) const {
    if (!Role.empty())
      if (const Knob *K = find(Role + "." + std::string(Name)))
        return parsed(*K);
    if (const Knob *K = find(Name))
      return parsed(*K);
    return std::nullopt;
  }
  int integer(std::string_view Name, int Default) const {
    std::optional<json> V = get(Name);
    return V && V->is_number_integer() ? V->get<int>() : Default;
  }
  std::string string(std::string_view Name, std::string Default = "") const {
    std::optional<json> V = get(Name);
    return V && V->is_string() ? V->get<std::string>() : Default;
  }
  std::optional<bool> boolean(std::string_view Name) const {
    std::optional<json> V = get(Name);
    return V && V->is_boolean() ? std::optional<bool>(V->get<bool>()) : std::nullopt;
  }
  bool isSet(std::string_view Name) const { return get(Name).has_value(); }

private:
  const Knob *find(std::string_view Name) const {
    for (const Knob &K : C.Knobs)
      if (K.Name == Name)
        return &K;
    return nullptr;
  }
  static std::optional<json> parsed(const Knob &K) {
    json V = json::parse(K.ValueJson, nullptr, /*allow_exceptions=*/false);
    if (V.is_discarded() || V.is_null())
      return std::nullopt;
    return V;
  }

  const Cell &C;
  std::string Role;
};

/// One side's parallelism as the suite records it: TP, PP, DCP, PCP, the
/// expert-parallel size and whether attention is data-parallel.
client::InferenceXParallelism parallelismOf(const Knobs &K) {
  client::InferenceXParallelism P;
  P.Tp = K.integer("tp", 1);
  P.Pp = K.integer("pp", 1);
  P.DcpSize = K.integer("dcp", 1);
  P.PcpSize = K.integer("pcp", 1);
  int Dp = K.integer("dp", 1);
  if (K.isSet("ep"))
    P.Ep = K.integer("ep", 1);
  else if (K.boolean("expert_parallel").value_or(false))
    P.Ep = P.Tp * Dp; // vLLM's expert-parallel group spans TP x DP
  P.DpAttention = K.boolean("dp_attention").value_or(Dp > 1 && P.Ep > 1);
  return P;
}

/// A name part the suite's file names can carry: letters, digits, `.`,
/// `_` and `-`; anything else becomes `-`.
std::string namePart(std::string S) {
  for (char &Ch : S)
    if (!(isalnum(static_cast<unsigned char>(Ch)) || Ch == '.' || Ch == '_' || Ch == '-'))
      Ch = '-';
  return S;
}

/// The suite's short names for its standard sequence lengths.
std::string seqLenName(int64_t Isl, int64_t Osl) {
  if (Isl == 1024 && Osl == 1024)
    return "1k1k";
  if (Isl == 8192 && Osl == 1024)
    return "8k1k";
  return fmt::format("{}_{}", Isl, Osl);
}

/// The recipe a cell belongs to: a plan of several recipes names its cells
/// `<recipe>.c<conc>`.
std::string recipeOf(const LaunchPlan &Plan, const Cell &C) {
  size_t Dot = C.Id.rfind('.');
  return Dot == std::string::npos ? Plan.RecipeName : C.Id.substr(0, Dot);
}

/// The model prefix: `labels.model_prefix`, else the configuration key
/// (`labels.config_key`, else the recipe name with `-` for `_`) up to its
/// first `-`, as `arecipec --emit inferencex` names it.
std::string modelPrefix(const LaunchPlan &Plan, const Cell &C, const Knobs &K) {
  if (std::string P = K.string("labels.model_prefix"); !P.empty())
    return P;
  std::string Key = recipeOf(Plan, C);
  std::replace(Key.begin(), Key.end(), '_', '-');
  Key = K.string("labels.config_key", Key);
  return Key.substr(0, Key.find('-'));
}

std::string workerTag(char Role, int Workers, const client::InferenceXParallelism &P) {
  std::string Tag = fmt::format("{}{}x{}", Role, Workers, P.Tp);
  if (P.Ep != 1)
    Tag += fmt::format("ep{}", P.Ep);
  if (P.DpAttention)
    Tag += "dpa";
  return Tag;
}

} // namespace

InferenceXCell describeForInferenceX(const LaunchPlan &Plan, const Cell &C) {
  InferenceXCell X;
  client::InferenceXContext &Ctx = X.Context;
  Knobs K(C);
  X.Agentic = std::holds_alternative<AgenticWorkload>(C.Client.Workload);

  int PrefillGpus = 0, DecodeGpus = 0;
  for (const ProcessSpec &P : C.Processes) {
    int N = P.Gpus ? int(P.Gpus->size()) : 0;
    if (P.Role == "prefill") {
      ++Ctx.PrefillWorkers;
      PrefillGpus += N;
    } else if (P.Role == "decode") {
      ++Ctx.DecodeWorkers;
      DecodeGpus += N;
    }
  }
  Ctx.Disagg = Ctx.PrefillWorkers > 0 || Ctx.DecodeWorkers > 0;
  Ctx.Multinode = Ctx.Disagg || C.Nodes > 1;
  Ctx.Gpus = C.Gpus;
  if (!Ctx.Disagg && Ctx.Multinode) {
    // One server over several nodes: the suite's one prefill worker and no
    // decode worker.
    Ctx.PrefillWorkers = 1;
    Ctx.PrefillGpus = C.Gpus;
  } else if (Ctx.Disagg && PrefillGpus > 0 && DecodeGpus > 0 &&
             PrefillGpus + DecodeGpus == C.Gpus) {
    Ctx.PrefillGpus = PrefillGpus;
    Ctx.DecodeGpus = DecodeGpus;
  } else if (Ctx.Disagg) {
    Ctx.PrefillGpus = C.Gpus;
    X.Notes.push_back(fmt::format("InferenceX results: the plan does not say "
                                  "which of the cell's {} GPUs serve prefill "
                                  "and which decode (its prefill processes "
                                  "list {}, its decode processes {}); per-GPU "
                                  "throughput divides by all {}",
                                  C.Gpus, PrefillGpus, DecodeGpus, C.Gpus));
  }

  Ctx.Hw = Plan.Hardware.Name;
  Ctx.Image = Plan.Image;
  Ctx.Model = Plan.ModelId;
  Ctx.ModelPrefix = modelPrefix(Plan, C, K);
  Ctx.Framework = Plan.EngineName + (Ctx.Disagg ? "-disagg" : "");
  Ctx.Precision = K.string("precision");
  Ctx.SpecDecoding = K.integer("draft", 0) > 0 ? "mtp" : "none";
  Ctx.RecipeFingerprint = C.Digest;
  Ctx.Conc = C.Conc;
  if (const auto *F = std::get_if<FixedWorkload>(&C.Client.Workload)) {
    Ctx.Isl = F->Isl;
    Ctx.Osl = F->Osl;
  }
  // Each role has its own parallelism; an aggregated cell has one side.
  Ctx.Server = parallelismOf(Ctx.Disagg ? Knobs(C, "prefill") : K);
  Ctx.Decode = Ctx.Disagg ? parallelismOf(Knobs(C, "decode")) : Ctx.Server;
  if (K.isSet("lmcache"))
    Ctx.KvOffloadBackend = "lmcache";
  else if (K.isSet("cpu_offload"))
    Ctx.KvOffloadBackend = "vllm-simple";
  Ctx.KvOffloading = Ctx.KvOffloadBackend.empty() ? "none" : "dram";

  // RESULT_FILENAME: experiment name, precision, framework, parallelism,
  // disaggregation, speculative decoding, concurrency, runner, and the
  // recipe fingerprint's first 16 characters.
  std::string Prefix = namePart(Ctx.ModelPrefix.empty() ? "model" : Ctx.ModelPrefix);
  std::string Kv = Ctx.KvOffloading == "none" ? "kvnone" : "kvdram-" + Ctx.KvOffloadBackend;
  std::string Exp;
  if (!X.Agentic)
    Exp = Prefix + "_" + seqLenName(Ctx.Isl, Ctx.Osl);
  else if (!Ctx.Multinode)
    Exp = fmt::format("{}_tp{}_conc{}_{}{}", Prefix, Ctx.Server.Tp, C.Conc, Kv,
                      Ctx.SpecDecoding == "none" ? "" : "_spec-" + Ctx.SpecDecoding);
  else
    Exp = fmt::format("{}_{}_{}_conc{}{}", Prefix,
                      workerTag('p', Ctx.PrefillWorkers, Ctx.Server),
                      workerTag('d', Ctx.DecodeWorkers, Ctx.Decode), C.Conc,
                      Ctx.KvOffloading == "none" ? "" : "_" + Kv);
  auto Par = [&](const client::InferenceXParallelism &P, int Workers, const char *Dp) {
    return fmt::format("tp{}-pp{}-dcp{}-pcp{}-ep{}-{}{}{}", P.Tp, P.Pp, P.DcpSize, P.PcpSize, P.Ep,
                       Dp, P.DpAttention ? "true" : "false",
                       Workers < 0 ? "" : fmt::format("-nw{}", Workers));
  };
  std::string Topology = Ctx.Multinode ? "prefill-" + Par(Ctx.Server, Ctx.PrefillWorkers, "dp") +
                                             "_decode-" +
                                             Par(Ctx.Decode, Ctx.DecodeWorkers, "dp")
                                       : Par(Ctx.Server, -1, "dpa");
  X.ResultName =
      fmt::format("{}_{}_{}_{}_disagg-{}_spec-{}_conc{}_{}_recipe-{}", Exp, namePart(Ctx.Precision),
                  namePart(Ctx.Framework), Topology, Ctx.Disagg ? "true" : "false",
                  Ctx.SpecDecoding, C.Conc, namePart(Ctx.Hw), C.Digest.substr(0, 16));
  // The multi-node workflows look for one file per concurrency.
  if (Ctx.Multinode)
    X.ResultName += fmt::format("_conc{}", C.Conc);
  return X;
}

std::vector<std::string> writeInferenceXResults(const InferenceXCell &X, const std::string &Dir,
                                                const client::RunResult &Run,
                                                const client::CellMetrics &Metrics,
                                                const client::BenchRunInfo &Info,
                                                std::string &Err) {
  std::vector<std::string> Written;
  auto Write = [&](const std::string &Name, const nlohmann::ordered_json &Doc) {
    if (!Err.empty() || !writeOutputJson(Dir + "/" + Name, Doc, Err))
      return false;
    Written.push_back(Name);
    return true;
  };
  if (X.Agentic) {
    Write(X.ResultName + ".json", client::inferencexAgenticResult(Run, X.Context));
  } else {
    nlohmann::ordered_json Bench =
        client::inferencexBenchResult(Run.Records, Metrics, X.Context, Info);
    if (Write(X.ResultName + ".json", Bench))
      Write("agg_" + X.ResultName + ".json", client::inferencexFixedResult(Bench, X.Context));
  }
  return Written;
}

} // namespace arecipe::runtime
