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

double arecipe::client::studentT975(size_t Df) {
  static constexpr double Table[] = {
      12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
      2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
      2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (Df == 0)
    return 0;
  if (Df <= 30)
    return Table[Df - 1];
  double Z = 1.959963984540054, N = double(Df);
  double Z3 = Z * Z * Z, Z5 = Z3 * Z * Z, Z7 = Z5 * Z * Z;
  return Z + (Z3 + Z) / (4 * N) + (5 * Z5 + 16 * Z3 + 3 * Z) / (96 * N * N) +
         (3 * Z7 + 19 * Z5 + 17 * Z3 - 15 * Z) / (384 * N * N * N);
}

arecipe::client::MeanInterval arecipe::client::meanInterval95(const std::vector<double> &Values) {
  MeanInterval M;
  M.Count = Values.size();
  if (Values.empty())
    return M;
  double Sum = 0;
  for (double X : Values)
    Sum += X;
  M.Mean = Sum / double(Values.size());
  M.Low = M.High = M.Mean;
  if (Values.size() < 2)
    return M;
  double Sq = 0;
  for (double X : Values)
    Sq += (X - M.Mean) * (X - M.Mean);
  M.Std = std::sqrt(Sq / double(Values.size() - 1));
  double Half = studentT975(Values.size() - 1) * M.Std / std::sqrt(double(Values.size()));
  M.Low = M.Mean - Half;
  M.High = M.Mean + Half;
  return M;
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

// Both take values already sorted ascending: computeCellMetrics sorts each
// of its vectors once and gives ITL to both views.
static Distribution summarizeSorted(const std::vector<double> &Values) {
  Distribution D;
  D.Count = Values.size();
  if (Values.empty())
    return D;
  meanAndStd(Values, D);
  D.P50 = percentile(Values, 50);
  D.P75 = percentile(Values, 75);
  D.P90 = percentile(Values, 90);
  D.P95 = percentile(Values, 95);
  D.P99 = percentile(Values, 99);
  return D;
}

static Distribution reciprocalSummarySorted(const std::vector<double> &Sorted) {
  // Non-positive values sort first (there is no NaN: every value is a
  // difference of integer timestamps over a positive count).
  auto First = std::upper_bound(Sorted.begin(), Sorted.end(), 0.0);
  std::vector<double> Values(First, Sorted.end());
  Distribution D;
  D.Count = Values.size();
  if (Values.empty())
    return D;
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

Distribution arecipe::client::summarize(std::vector<double> Values) {
  std::sort(Values.begin(), Values.end());
  return summarizeSorted(Values);
}

Distribution arecipe::client::reciprocalSummary(std::vector<double> Values) {
  Values.erase(std::remove_if(Values.begin(), Values.end(), [](double X) { return !(X > 0); }),
               Values.end());
  std::sort(Values.begin(), Values.end());
  return reciprocalSummarySorted(Values);
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

// Sorts integer keys in linear time (LSD radix, one byte a pass; a pass in
// which every key has the same byte is skipped, so small non-negative gaps
// take three or four passes). Every chunk gap of a run is sorted for its
// percentiles, and a comparison sort of them was the largest cost of the
// end-of-run metrics. Seconds are a monotone function of nanoseconds, so
// sorting the nanoseconds orders the seconds the same way.
static void radixSort(std::vector<int64_t> &Keys) {
  const size_t N = Keys.size();
  if (N < 2)
    return;
  // Flipping the sign bit orders negative keys (possible in a records file
  // written by hand) before the non-negative ones as unsigned numbers.
  constexpr uint64_t Sign = uint64_t(1) << 63;
  std::vector<uint64_t> A(N), B(N);
  for (size_t I = 0; I < N; ++I)
    A[I] = uint64_t(Keys[I]) ^ Sign;
  for (unsigned Shift = 0; Shift < 64; Shift += 8) {
    size_t Count[256] = {};
    for (uint64_t K : A)
      ++Count[(K >> Shift) & 0xff];
    if (Count[(A[0] >> Shift) & 0xff] == N)
      continue;
    size_t Pos = 0;
    for (size_t &C : Count) {
      size_t Here = C;
      C = Pos;
      Pos += Here;
    }
    for (uint64_t K : A)
      B[Count[(K >> Shift) & 0xff]++] = K;
    A.swap(B);
  }
  for (size_t I = 0; I < N; ++I)
    Keys[I] = int64_t(A[I] ^ Sign);
}

CellMetrics arecipe::client::computeCellMetrics(const std::vector<RequestRecord> &Records,
                                                const GpuTopology &Topology) {
  CellMetrics M;
  M.Gpus = std::max(1, Topology.gpus());
  std::vector<double> Ttft, E2el, Itl, E2eNorm, Lag;
  std::vector<int64_t> GapNs;
  size_t NumGaps = 0;
  for (const RequestRecord &R : Records)
    NumGaps += R.ChunkNs.empty() ? 0 : R.ChunkNs.size() - 1;
  GapNs.reserve(NumGaps);
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
      GapNs.push_back(R.ChunkNs[I] - R.ChunkNs[I - 1]);
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
  std::sort(Itl.begin(), Itl.end());
  M.Intvty = reciprocalSummarySorted(Itl);
  M.Itl = summarizeSorted(Itl);
  M.E2eNormIntvty = reciprocalSummary(std::move(E2eNorm));
  radixSort(GapNs);
  std::vector<double> Gaps;
  Gaps.reserve(GapNs.size());
  for (int64_t Ns : GapNs)
    Gaps.push_back(seconds(Ns));
  M.ChunkGap = summarizeSorted(Gaps);
  M.SendLag = summarize(std::move(Lag));
  return M;
}
