//===- CellSummary.cpp - InferenceX-compatible cell summary JSON ----------===//

#include "arecipe/Client/CellSummary.h"

#include "arecipe/Client/TokenPrompts.h"

using namespace arecipe::client;
using nlohmann::ordered_json;

int64_t arecipe::client::expectedOutputTokens(const std::vector<RequestRecord> &Records) {
  int64_t Sum = 0;
  for (const RequestRecord &R : Records)
    if (R.RequestPhase == Phase::Measured && R.ok())
      Sum += R.MaxOutputTokens;
  return Sum;
}

ClientSaturation arecipe::client::clientSaturation(const RunResult &Run) {
  ClientSaturation S;
  if (!Run.ClientLoop)
    return S;
  const LoopStats &L = *Run.ClientLoop;
  S.Measured = true;
  S.Lag = summarize(L.LagSeconds);
  S.CpuSeconds = L.CpuSeconds;
  S.WallSeconds = L.WallSeconds;
  S.CpuFraction = L.WallSeconds > 0 ? L.CpuSeconds / L.WallSeconds : 0;
  char Buf[200];
  bool Busy = S.CpuFraction > ClientBoundCpuFraction;
  bool Late = S.Lag.Count && S.Lag.P99 > ClientBoundLagP99Seconds;
  if (Busy) {
    std::snprintf(Buf, sizeof(Buf), "the event loop used %.0f %% of a core (limit %.0f %%)",
                  S.CpuFraction * 100, ClientBoundCpuFraction * 100);
    S.Reason = Buf;
  }
  if (Late) {
    std::snprintf(Buf, sizeof(Buf), "event-loop lag p99 %.2f ms above %.2f ms", S.Lag.P99 * 1e3,
                  ClientBoundLagP99Seconds * 1e3);
    S.Reason += (S.Reason.empty() ? "" : "; ") + std::string(Buf);
    if (!Busy) {
      // Late without being busy: the loop waited for a CPU, not for itself.
      std::snprintf(Buf, sizeof(Buf),
                    " while the loop used %.0f %% of a core: other work on this machine "
                    "delayed it",
                    S.CpuFraction * 100);
      S.Reason += Buf;
    }
  }
  S.Bound = !S.Reason.empty();
  return S;
}

static ordered_json stats(const Distribution &D) {
  ordered_json J;
  J["mean"] = D.Mean;
  J["p50"] = D.P50;
  J["p75"] = D.P75;
  J["p90"] = D.P90;
  J["p95"] = D.P95;
  J["p99"] = D.P99;
  J["std"] = D.Std;
  J["count"] = D.Count;
  return J;
}

template <typename T> static ordered_json optional(const std::optional<T> &V) {
  return V ? ordered_json(*V) : ordered_json(nullptr);
}

static ordered_json serverMetrics(const RunResult &Run) {
  ordered_json J;
  if (!Run.Server) {
    J["available"] = false;
    if (!Run.ServerMetricsError.empty())
      J["error"] = Run.ServerMetricsError;
    return J;
  }
  const ServerMetricsDelta &S = *Run.Server;
  J["available"] = true;
  J["prefix"] = S.Prefix;
  J["prefix_cache_hit_rate"] = optional(S.PrefixCacheHitRate);
  J["spec_acceptance_length"] = optional(S.SpecAcceptanceLength);
  J["spec_acceptance_rate"] = optional(S.SpecAcceptanceRate);
  J["kv_cache_usage_start"] = optional(S.KvCacheUsageStart);
  J["kv_cache_usage_end"] = optional(S.KvCacheUsageEnd);
  J["counters_delta"] = S.CounterDeltas;
  J["gauges_end"] = S.GaugesEnd;
  return J;
}

ordered_json arecipe::client::buildCellSummary(const CellMetrics &M, const RunResult &Run,
                                               const SummaryContext &Context) {
  ordered_json J = Context.Metadata;
  J["num_requests_total"] = M.NumTotal;
  J["num_requests_successful"] = M.NumSuccessful;

  ordered_json &RM = J["request_metrics"];
  ordered_json &T = RM["throughput"];
  T["input"] = M.Tput.Input;
  T["output"] = M.Tput.Output;
  T["total"] = M.Tput.Total;
  T["duration_seconds"] = M.Tput.DurationSeconds;
  T["per_gpu"] = {{"input", M.Tput.PerGpuInput},
                  {"output", M.Tput.PerGpuOutput},
                  {"total", M.Tput.PerGpuTotal}};
  ordered_json &L = RM["latency"];
  L["ttft"] = stats(M.Ttft);
  L["e2el"] = stats(M.E2el);
  L["itl"] = stats(M.Itl);
  L["intvty"] = stats(M.Intvty);
  L["e2e_norm_intvty"] = stats(M.E2eNormIntvty);
  RM["tokens"] = {{"input", M.TotalInputTokens},
                  {"output_actual", M.TotalOutputTokens},
                  {"output_expected", Context.ExpectedOutputTokens}};

  J["server_metrics"] = serverMetrics(Run);

  bool Valid = !Run.Aborted && M.NumSuccessful > 0 &&
               M.ErrorRate <= Context.FailedRequestThreshold;
  ordered_json &C = J["arecipe_client"];
  C["valid"] = Valid;
  C["aborted"] = Run.Aborted;
  if (Run.Aborted)
    C["abort_reason"] = Run.AbortReason;
  C["num_gpus"] = M.Gpus;
  C["error_rate"] = M.ErrorRate;
  C["failed_request_threshold"] = Context.FailedRequestThreshold;
  C["num_requests_failed"] = M.NumFailed;
  C["errors_by_kind"] = M.ErrorsByKind;
  C["num_requests_warmup"] = M.NumWarmup;
  C["num_requests_cancelled"] = M.NumCancelled;
  C["usage_fallbacks"] = M.UsageFallbacks;
  C["token_counts"] = tokenCountSummary(Run.Records);
  C["itl_excluded_osl_below_2"] = M.ItlExcluded;
  C["p90_interactivity"] = M.p90Interactivity();
  C["p90_e2e_norm_interactivity"] = M.p90E2eNormInteractivity();
  C["chunk_gap"] = stats(M.ChunkGap);
  C["send_lag"] = stats(M.SendLag);
  C["client_cpu_seconds"] = Run.ClientCpuSeconds;
  C["peak_in_flight"] = Run.PeakInFlight;
  C["stalled"] = Run.Stalled;
  if (ClientSaturation Sat = clientSaturation(Run); Sat.Measured) {
    // Present either way, so every measured summary has the same shape.
    C["client_bound"] = Sat.Bound;
    C["client_bound_reason"] = Sat.Bound ? ordered_json(Sat.Reason) : ordered_json(nullptr);
    C["loop_lag"] = stats(Sat.Lag);
    C["loop_cpu_fraction"] = Sat.CpuFraction;
    C["loop_realtime_priority"] = Run.ClientLoop->RealtimePriority;
  }
  return J;
}
