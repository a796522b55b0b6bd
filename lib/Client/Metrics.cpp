//===- Metrics.cpp - InferenceX cell metrics from request records ---------===//

#include "arecipe/Client/Metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace arecipe::client;

double arecipe::client::percentile(const std::vector<double> &Sorted, double P) {
  if (Sorted.empty())
    return 0;
  double Rank = P / 100.0 * double(Sorted.size() - 1);
  size_t Lo = size_t(std::floor(Rank));
  size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  double Frac = Rank - double(Lo);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * Frac;
}

static void meanAndStd(const std::vector<double> &V, Distribution &D) {
  double Sum = 0;
  for (double X : V)
    Sum += X;
  D.Mean = Sum / double(V.size());
  double Sq = 0;
  for (double X : V)
    Sq += (X - D.Mean) * (X - D.Mean);
  D.Std = std::sqrt(Sq / double(V.size()));
}

Distribution arecipe::client::summarize(std::vector<double> Values) {
  Distribution D;
  D.Count = Values.size();
  if (Values.empty())
    return D;
  std::sort(Values.begin(), Values.end());
  meanAndStd(Values, D);
  D.P50 = percentile(Values, 50);
  D.P75 = percentile(Values, 75);
  D.P90 = percentile(Values, 90);
  D.P95 = percentile(Values, 95);
  D.P99 = percentile(Values, 99);
  return D;
}

Distribution arecipe::client::reciprocalSummary(std::vector<double> Values) {
  Values.erase(std::remove_if(Values.begin(), Values.end(), [](double X) { return !(X > 0); }),
               Values.end());
  Distribution D;
  D.Count = Values.size();
  if (Values.empty())
    return D;
  std::sort(Values.begin(), Values.end());
  std::vector<double> Rates;
  Rates.reserve(Values.size());
  for (double X : Values)
    Rates.push_back(1.0 / X);
  meanAndStd(Rates, D);
  D.P50 = 1.0 / percentile(Values, 50);
  D.P75 = 1.0 / percentile(Values, 75);
  D.P90 = 1.0 / percentile(Values, 90);
  D.P95 = 1.0 / percentile(Values, 95);
  D.P99 = 1.0 / percentile(Values, 99);
  return D;
}

GpuTopology GpuTopology::aggregated(int Tp, int Pp, int Pcp) {
  GpuTopology T;
  T.Tp = Tp;
  T.Pp = Pp;
  T.Pcp = Pcp;
  return T;
}

GpuTopology GpuTopology::disaggregated(int PrefillWorkers, int PrefillTp, int PrefillPp,
                                       int DecodeWorkers, int DecodeTp, int DecodePp) {
  GpuTopology T;
  T.Disaggregated = true;
  T.PrefillWorkers = PrefillWorkers;
  T.PrefillTp = PrefillTp;
  T.PrefillPp = PrefillPp;
  T.DecodeWorkers = DecodeWorkers;
  T.DecodeTp = DecodeTp;
  T.DecodePp = DecodePp;
  return T;
}

int GpuTopology::gpus() const {
  if (!Disaggregated)
    return Tp * Pp * Pcp;
  return PrefillWorkers * PrefillTp * PrefillPp + DecodeWorkers * DecodeTp * DecodePp;
}

static double seconds(int64_t Ns) { return double(Ns) / 1e9; }

CellMetrics arecipe::client::computeCellMetrics(const std::vector<RequestRecord> &Records,
                                                const GpuTopology &Topology) {
  CellMetrics M;
  M.Gpus = std::max(1, Topology.gpus());
  std::vector<double> Ttft, E2el, Itl, E2eNorm, Gaps, Lag;
  int64_t FirstStart = std::numeric_limits<int64_t>::max();
  int64_t LastEnd = std::numeric_limits<int64_t>::min();
  for (const RequestRecord &R : Records) {
    if (R.RequestPhase == Phase::Warmup) {
      ++M.NumWarmup;
      continue;
    }
    if (R.Error == ErrorKind::Cancelled) {
      ++M.NumCancelled;
      continue;
    }
    ++M.NumTotal;
    if (!R.ok()) {
      ++M.NumFailed;
      ++M.ErrorsByKind[std::string(errorKindName(R.Error))];
      continue;
    }
    ++M.NumSuccessful;
    M.TotalInputTokens += R.InputTokens;
    M.TotalOutputTokens += R.OutputTokens;
    if (!R.UsageFromServer)
      ++M.UsageFallbacks;
    FirstStart = std::min(FirstStart, R.ScheduledNs);
    LastEnd = std::max(LastEnd, R.EndNs);

    double TtftS = seconds(R.FirstTokenNs - R.ScheduledNs);
    double E2eS = seconds(R.EndNs - R.ScheduledNs);
    Ttft.push_back(TtftS);
    E2el.push_back(E2eS);
    if (R.DispatchedNs)
      Lag.push_back(seconds(R.DispatchedNs - R.ScheduledNs));
    for (size_t I = 1; I < R.ChunkNs.size(); ++I)
      Gaps.push_back(seconds(R.ChunkNs[I] - R.ChunkNs[I - 1]));
    if (R.OutputTokens < 2) {
      ++M.ItlExcluded;
      continue;
    }
    double ItlS = (E2eS - TtftS) / double(R.OutputTokens - 1);
    Itl.push_back(ItlS);
    E2eNorm.push_back(ItlS + TtftS / double(R.OutputTokens));
  }
  if (M.NumTotal)
    M.ErrorRate = double(M.NumFailed) / double(M.NumTotal);
  if (M.NumSuccessful && LastEnd > FirstStart) {
    Throughput &T = M.Tput;
    T.DurationSeconds = seconds(LastEnd - FirstStart);
    T.Input = double(M.TotalInputTokens) / T.DurationSeconds;
    T.Output = double(M.TotalOutputTokens) / T.DurationSeconds;
    T.Total = T.Input + T.Output;
    T.PerGpuInput = T.Input / M.Gpus;
    T.PerGpuOutput = T.Output / M.Gpus;
    T.PerGpuTotal = T.Total / M.Gpus;
  }
  M.Ttft = summarize(std::move(Ttft));
  M.E2el = summarize(std::move(E2el));
  M.Intvty = reciprocalSummary(Itl);
  M.Itl = summarize(std::move(Itl));
  M.E2eNormIntvty = reciprocalSummary(std::move(E2eNorm));
  M.ChunkGap = summarize(std::move(Gaps));
  M.SendLag = summarize(std::move(Lag));
  return M;
}
