//===- InferenceXResult.cpp - Result files InferenceX reads unchanged -----===//

#include "arecipe/Client/InferenceXResult.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace arecipe::client;
using nlohmann::ordered_json;

static double seconds(int64_t Ns) { return double(Ns) / 1e9; }

static bool measuredOk(const RequestRecord &R) {
  return R.RequestPhase == Phase::Measured && R.ok();
}

static void meanStd(const std::vector<double> &V, double &Mean, double &Std) {
  Mean = Std = 0;
  if (V.empty())
    return;
  for (double X : V)
    Mean += X;
  Mean /= double(V.size());
  for (double X : V)
    Std += (X - Mean) * (X - Mean);
  Std = std::sqrt(Std / double(V.size()));
}

/// The serving benchmark's statistics of one metric, in milliseconds: an
/// empty list reports zeros, as numpy does for its `or 0` fallback.
static void benchStats(ordered_json &J, const std::string &Name, std::vector<double> Values) {
  std::sort(Values.begin(), Values.end());
  double Mean, Std;
  meanStd(Values, Mean, Std);
  J["mean_" + Name + "_ms"] = Mean * 1000;
  J["median_" + Name + "_ms"] = percentile(Values, 50) * 1000;
  J["std_" + Name + "_ms"] = Std * 1000;
  J["p90_" + Name + "_ms"] = percentile(Values, 90) * 1000;
  J["p99_" + Name + "_ms"] = percentile(Values, 99) * 1000;
  J["p99.9_" + Name + "_ms"] = percentile(Values, 99.9) * 1000;
}

ordered_json arecipe::client::inferencexBenchResult(const std::vector<RequestRecord> &Records,
                                                    const CellMetrics &M,
                                                    const InferenceXContext &Ctx,
                                                    const BenchRunInfo &Info) {
  std::vector<double> Ttft, Tpot, Itl, E2el;
  ordered_json InputLens = ordered_json::array(), OutputLens = ordered_json::array();
  for (const RequestRecord &R : Records) {
    if (R.RequestPhase != Phase::Measured || R.Error == ErrorKind::Cancelled)
      continue;
    InputLens.push_back(R.ok() ? R.InputTokens : R.ExpectedInputTokens);
    OutputLens.push_back(R.ok() ? R.OutputTokens : 0);
    if (!R.ok())
      continue;
    double TtftS = seconds(R.FirstTokenNs - R.ScheduledNs);
    double E2eS = seconds(R.EndNs - R.ScheduledNs);
    Ttft.push_back(TtftS);
    E2el.push_back(E2eS);
    if (R.OutputTokens > 1)
      Tpot.push_back((E2eS - TtftS) / double(R.OutputTokens - 1));
    for (size_t I = 1; I < R.ChunkNs.size(); ++I)
      Itl.push_back(seconds(R.ChunkNs[I] - R.ChunkNs[I - 1]));
  }
  ordered_json J;
  J["backend"] = Info.Backend;
  J["model_id"] = Ctx.Model;
  J["tokenizer_id"] = Ctx.Model;
  J["best_of"] = 1;
  J["num_prompts"] = Info.NumPrompts;
  J["request_rate"] = Info.RequestRate > 0 ? ordered_json(Info.RequestRate) : ordered_json("inf");
  J["burstiness"] = 1.0;
  J["max_concurrency"] = Ctx.Conc;
  J["duration"] = M.Tput.DurationSeconds;
  J["completed"] = M.NumSuccessful;
  J["total_input_tokens"] = M.TotalInputTokens;
  J["total_output_tokens"] = M.TotalOutputTokens;
  J["request_throughput"] =
      M.Tput.DurationSeconds > 0 ? double(M.NumSuccessful) / M.Tput.DurationSeconds : 0.0;
  J["output_throughput"] = M.Tput.Output;
  J["total_token_throughput"] = M.Tput.Total;
  J["input_lens"] = std::move(InputLens);
  J["output_lens"] = std::move(OutputLens);
  benchStats(J, "ttft", std::move(Ttft));
  benchStats(J, "tpot", std::move(Tpot));
  benchStats(J, "itl", std::move(Itl));
  benchStats(J, "e2el", std::move(E2el));
  return J;
}

/// Identity fields shared by both scenarios, in the order the fixed-seq-len
/// processing writes them.
static ordered_json fixedIdentity(const InferenceXContext &Ctx, const ordered_json &Bench) {
  ordered_json J;
  J["hw"] = Ctx.Hw;
  J["conc"] = Bench.value("max_concurrency", Ctx.Conc);
  J["image"] = Ctx.Image;
  J["model"] = Bench.value("model_id", Ctx.Model);
  J["infmax_model_prefix"] = Ctx.ModelPrefix;
  J["framework"] = Ctx.Framework;
  J["precision"] = Ctx.Precision;
  J["spec_decoding"] = Ctx.SpecDecoding;
  J["disagg"] = Ctx.Disagg;
  J["recipe_fingerprint"] = Ctx.RecipeFingerprint;
  J["isl"] = Ctx.Isl;
  J["osl"] = Ctx.Osl;
  return J;
}

/// The suite writes its booleans of parallelism as strings.
static const char *boolString(bool B) { return B ? "true" : "false"; }

/// Adds the multi-node worker fields; the decode side of a cell without
/// decode GPUs (aggregated on several nodes) is zeroed, as the suite does.
static void multinodeFields(ordered_json &J, const InferenceXContext &Ctx) {
  bool HasDecode = Ctx.DecodeGpus > 0;
  const InferenceXParallelism &P = Ctx.Server, &D = Ctx.Decode;
  J["prefill_tp"] = P.Tp;
  J["prefill_pp"] = P.Pp;
  J["prefill_dcp_size"] = P.DcpSize;
  J["prefill_pcp_size"] = P.PcpSize;
  J["prefill_ep"] = P.Ep;
  J["prefill_dp_attention"] = boolString(P.DpAttention);
  J["prefill_num_workers"] = Ctx.PrefillWorkers;
  J["decode_tp"] = HasDecode ? D.Tp : 0;
  J["decode_pp"] = HasDecode ? D.Pp : 1;
  J["decode_dcp_size"] = HasDecode ? D.DcpSize : 1;
  J["decode_pcp_size"] = HasDecode ? D.PcpSize : 1;
  J["decode_ep"] = HasDecode ? D.Ep : 0;
  J["decode_dp_attention"] = boolString(HasDecode ? D.DpAttention : P.DpAttention);
  J["decode_num_workers"] = Ctx.DecodeWorkers;
  J["num_prefill_gpu"] = Ctx.PrefillGpus;
  J["num_decode_gpu"] = Ctx.DecodeGpus;
}

/// The cell's GPUs for an aggregated single-node cell: TP x PP x PCP in the
/// suite, the plan's figure here (the two agree unless the engine also runs
/// data-parallel replicas, which the suite's formula does not count).
static int singleNodeGpus(const InferenceXContext &Ctx) { return std::max(1, Ctx.Gpus); }

ordered_json arecipe::client::inferencexFixedResult(const ordered_json &Bench,
                                                    const InferenceXContext &Ctx) {
  ordered_json J = fixedIdentity(Ctx, Bench);
  double Total = Bench.value("total_token_throughput", 0.0);
  double Output = Bench.value("output_throughput", 0.0);
  if (Ctx.Multinode) {
    J["is_multinode"] = true;
    multinodeFields(J, Ctx);
    int Prefill = std::max(1, Ctx.PrefillGpus);
    int All = Prefill + std::max(0, Ctx.DecodeGpus);
    int OutputGpus = Ctx.DecodeGpus > 0 ? Ctx.DecodeGpus : All;
    J["tput_per_gpu"] = Total / All;
    J["output_tput_per_gpu"] = Output / OutputGpus;
    J["input_tput_per_gpu"] = (Total - Output) / Prefill;
  } else {
    int Gpus = singleNodeGpus(Ctx);
    J["is_multinode"] = false;
    J["tp"] = Ctx.Server.Tp;
    J["pp"] = Ctx.Server.Pp;
    J["dcp_size"] = Ctx.Server.DcpSize;
    J["pcp_size"] = Ctx.Server.PcpSize;
    J["ep"] = Ctx.Server.Ep;
    J["dp_attention"] = boolString(Ctx.Server.DpAttention);
    J["tput_per_gpu"] = Total / Gpus;
    J["output_tput_per_gpu"] = Output / Gpus;
    J["input_tput_per_gpu"] = (Total - Output) / Gpus;
  }
  // Every `..._ms` statistic again in seconds without the suffix; every tpot
  // statistic also as interactivity, 1000 / value (tokens/s/user). A zero
  // tpot (no request with two output tokens) has no interactivity: null.
  for (auto It = Bench.begin(); It != Bench.end(); ++It) {
    const std::string &Key = It.key();
    if (!It->is_number())
      continue;
    double V = It->get<double>();
    std::string Base = Key;
    if (Key.size() >= 3 && Key.compare(Key.size() - 3, 3, "_ms") == 0) {
      Base = Key.substr(0, Key.size() - 3);
      J[Base] = V / 1000.0;
    }
    if (size_t At = Base.find("tpot"); At != std::string::npos) {
      std::string Twin = Base;
      Twin.replace(At, 4, "intvty");
      J[Twin] = V > 0 ? ordered_json(1000.0 / V) : ordered_json(nullptr);
    }
  }
  return J;
}

/// The agentic statistics of one metric: mean, p50, p75, p90, p95, std
/// (population); no fields at all for an empty list.
static ordered_json agenticStats(std::vector<double> Values) {
  ordered_json J = ordered_json::object();
  if (Values.empty())
    return J;
  std::sort(Values.begin(), Values.end());
  double Mean, Std;
  meanStd(Values, Mean, Std);
  J["mean"] = Mean;
  J["p50"] = percentile(Values, 50);
  J["p75"] = percentile(Values, 75);
  J["p90"] = percentile(Values, 90);
  J["p95"] = percentile(Values, 95);
  J["std"] = Std;
  return J;
}

/// Interactivity from a per-token latency: each statistic is the reciprocal
/// of the matching latency statistic (so p90 is the slow tail), std is taken
/// over the per-request reciprocals.
static ordered_json reciprocalStats(const ordered_json &Latency,
                                    const std::vector<double> &Values) {
  ordered_json J = ordered_json::object();
  for (const char *K : {"mean", "p50", "p75", "p90", "p95"})
    if (Latency.contains(K) && Latency[K].get<double>() > 0)
      J[K] = 1.0 / Latency[K].get<double>();
  std::vector<double> Rates;
  for (double V : Values)
    if (V > 0)
      Rates.push_back(1.0 / V);
  if (!Rates.empty()) {
    double Mean, Std;
    meanStd(Rates, Mean, Std);
    J["std"] = Std;
  }
  return J;
}

static std::vector<double> positive(std::vector<double> V) {
  V.erase(std::remove_if(V.begin(), V.end(), [](double X) { return !(X > 0); }), V.end());
  return V;
}

/// Completions per one-second window, from the first completion on.
static ordered_json qpsStats(std::vector<double> Ends) {
  if (Ends.size() < 2)
    return ordered_json::object();
  std::sort(Ends.begin(), Ends.end());
  double Duration = Ends.back() - Ends.front();
  if (Duration <= 0)
    return ordered_json::object();
  std::vector<double> Qps;
  for (double At = Ends.front(); At + 1.0 <= Ends.back(); At += 1.0)
    Qps.push_back(double(std::count_if(Ends.begin(), Ends.end(),
                                       [&](double E) { return E >= At && E < At + 1.0; })));
  ordered_json J;
  J["window_seconds"] = 1.0;
  J["samples"] = Qps.size();
  if (Qps.empty()) {
    J["mean"] = double(Ends.size()) / Duration;
    return J;
  }
  ordered_json Stats = agenticStats(Qps);
  for (auto It = Stats.begin(); It != Stats.end(); ++It)
    J[It.key()] = *It;
  return J;
}

ordered_json arecipe::client::inferencexAgenticResult(const RunResult &Run,
                                                      const InferenceXContext &Ctx) {
  // Request accounting: every record counts; warm-up records and failed
  // ones (a cancelled request is a failed one here) are dropped from the
  // metrics, each counted under its reason.
  ordered_json Categories = ordered_json::object();
  size_t Total = 0, Warmup = 0, Errors = 0;
  std::vector<const RequestRecord *> Kept;
  for (const RequestRecord &R : Run.Records) {
    ++Total;
    Warmup += R.RequestPhase == Phase::Warmup;
    if (!R.ok()) {
      ++Errors;
      std::string Kind(errorKindName(R.Error));
      Categories[Kind] = Categories.value(Kind, 0) + 1;
    }
    if (measuredOk(R))
      Kept.push_back(&R);
  }
  ordered_json Accounting;
  Accounting["records_total"] = Total;
  Accounting["records_profiled"] = Kept.size();
  Accounting["records_dropped_total"] = Total - Kept.size();
  Accounting["records_warmup_dropped"] = Warmup;
  Accounting["records_error_dropped"] = Errors;
  Accounting["error_categories"] = Categories;

  std::vector<double> Ttft, E2el, Itl, E2elPerOsl, Ends, In, Out, Expected;
  int64_t Start = std::numeric_limits<int64_t>::max(), End = std::numeric_limits<int64_t>::min();
  double InSum = 0, OutSum = 0;
  for (const RequestRecord *R : Kept) {
    double TtftS = seconds(R->FirstTokenNs - R->ScheduledNs);
    double E2eS = seconds(R->EndNs - R->ScheduledNs);
    Ttft.push_back(TtftS);
    E2el.push_back(E2eS);
    if (R->OutputTokens > 1)
      Itl.push_back((E2eS - TtftS) / double(R->OutputTokens - 1));
    if (E2eS > 0 && R->OutputTokens > 0)
      E2elPerOsl.push_back(E2eS / double(R->OutputTokens));
    Ends.push_back(double(R->EndNs) / 1e9);
    In.push_back(double(R->InputTokens));
    Out.push_back(double(R->OutputTokens));
    if (R->MaxOutputTokens > 0)
      Expected.push_back(double(R->MaxOutputTokens));
    InSum += double(R->InputTokens);
    OutSum += double(R->OutputTokens);
    Start = std::min(Start, R->ScheduledNs);
    End = std::max(End, R->EndNs);
  }
  Ttft = positive(std::move(Ttft));
  E2el = positive(std::move(E2el));
  Itl = positive(std::move(Itl));

  int NumGpus = Ctx.Multinode ? Ctx.PrefillGpus + Ctx.DecodeGpus : singleNodeGpus(Ctx);
  int Tp = Ctx.Server.Tp, Ep = Ctx.Server.Ep;
  if (Ctx.Multinode) {
    // The suite reports a disaggregated cell's TP as prefill + decode TP.
    Tp = Ctx.Server.Tp + (Ctx.DecodeGpus > 0 ? Ctx.Decode.Tp : 0);
  }

  ordered_json J;
  J["hw"] = Ctx.Hw;
  J["conc"] = Ctx.Conc;
  J["image"] = Ctx.Image;
  J["recipe_fingerprint"] = Ctx.RecipeFingerprint;
  J["model"] = Ctx.Model;
  J["infmax_model_prefix"] = Ctx.ModelPrefix;
  J["framework"] = Ctx.Framework;
  J["precision"] = Ctx.Precision;
  J["spec_decoding"] = Ctx.SpecDecoding;
  J["disagg"] = Ctx.Disagg;
  J["scenario_type"] = "agentic-coding";
  J["is_multinode"] = Ctx.Multinode;
  J["tp"] = Tp;
  J["ep"] = Ep;
  J["dp_attention"] = boolString(Ctx.Server.DpAttention);
  J["kv_offloading"] = Ctx.KvOffloading;
  J["kv_offload_backend"] = Ctx.KvOffloadBackend.empty()
                                ? ordered_json(nullptr)
                                : ordered_json({{"name", Ctx.KvOffloadBackend}});
  J["allocated_cpu_dram_gb"] = Ctx.AllocatedCpuDramGb;
  J["num_requests_total"] = Total;
  J["num_requests_successful"] = Kept.size();
  J["request_accounting"] = Accounting;
  if (Ctx.Multinode) {
    multinodeFields(J, Ctx);
  } else {
    J["pp"] = Ctx.Server.Pp;
    J["dcp_size"] = Ctx.Server.DcpSize;
    J["pcp_size"] = Ctx.Server.PcpSize;
  }

  ordered_json RM;
  RM["qps"] = qpsStats(Ends);
  ordered_json &L = RM["latency"];
  L["ttft"] = agenticStats(Ttft);
  L["e2el"] = agenticStats(E2el);
  L["itl"] = agenticStats(Itl);
  L["tpot"] = L["itl"];
  L["intvty"] = reciprocalStats(L["itl"], Itl);
  L["e2e_norm_intvty"] = reciprocalStats(agenticStats(E2elPerOsl), E2elPerOsl);
  RM["tokens"] = {{"input", agenticStats(In)},
                  {"output_actual", agenticStats(Out)},
                  {"output_expected", agenticStats(Expected)}};
  ordered_json &T = RM["throughput"];
  T = ordered_json::object();
  if (!Kept.empty() && End > Start) {
    double Duration = seconds(End - Start);
    double InTps = InSum / Duration, OutTps = OutSum / Duration;
    T["input"] = {{"tokens_per_second", InTps}};
    T["output"] = {{"tokens_per_second", OutTps}};
    T["total"] = {{"tokens_per_second", InTps + OutTps}};
    T["duration_seconds"] = Duration;
    T["per_gpu"] = ordered_json::object();
    if (NumGpus > 0)
      T["per_gpu"] = {{"total_tput_tps", (InTps + OutTps) / NumGpus},
                      {"output_tput_tps", OutTps / NumGpus},
                      {"input_tput_tps", InTps / NumGpus}};
  }
  RM["cache"] = {{"theoretical_cache_hit_rate", nullptr}};
  J["request_metrics"] = RM;

  ordered_json SM;
  SM["present"] = Run.Server.has_value();
  SM["adapter"] = Run.Server ? "arecipe" : "none";
  SM["metric_count"] =
      Run.Server ? Run.Server->CounterDeltas.size() + Run.Server->GaugesEnd.size() : 0;
  auto Opt = [](const std::optional<double> &V) {
    return V ? ordered_json(*V) : ordered_json(nullptr);
  };
  SM["cache"] = {{"gpu_cache_hit_rate",
                  Run.Server ? Opt(Run.Server->PrefixCacheHitRate) : ordered_json(nullptr)}};
  SM["kv_cache"] = {
      {"gpu_usage_pct", Run.Server ? Opt(Run.Server->KvCacheUsageEnd) : ordered_json(nullptr)},
      {"gpu_total_tokens", nullptr}};
  J["server_metrics"] = SM;
  J["kv_cache_pool_tokens"] = nullptr;
  return J;
}
